"""`incident-bot demo`: a bundled scenario through the real flow, watched in a terminal or a browser.

Like `sandbox up` and `eval`, an entry point on the sandbox: only the CLI imports it.
"""

DEFAULT_SCENARIO = "gpu-xid79-fell-off-bus"  # a GPU that fell off the bus: two proposals, a cordon first
