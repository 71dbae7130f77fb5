"""incident-bot: ChatOps incident response for teams that serve AI models on Kubernetes."""

__version__ = "0.1.0"
