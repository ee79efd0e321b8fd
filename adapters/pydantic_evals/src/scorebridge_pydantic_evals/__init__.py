"""scorebridge and pydantic-evals, both directions (in progress)."""

__all__: list[str] = []
