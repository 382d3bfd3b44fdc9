"""lower."""
