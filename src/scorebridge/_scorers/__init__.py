"""The built-in scorers: `exact`, the `detect_*` family and the model-graded scorers, and their registry."""
