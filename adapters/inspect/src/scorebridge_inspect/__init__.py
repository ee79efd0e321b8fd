"""adapter."""
