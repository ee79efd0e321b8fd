"""plugin."""
