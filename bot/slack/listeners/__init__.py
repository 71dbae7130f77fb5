"""The bolt listeners, one module per kind of payload; each `register(app, services)`."""
