"""nsm: the Neve package manager and build orchestrator."""
__version__ = "0.1.0"
