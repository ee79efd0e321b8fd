"""scorebridge and MLflow GenAI, both directions (in progress)."""

__all__: list[str] = []
