"""resolver."""
