"""scorebridge and RL rewards (TRL's GRPOTrainer, verl), both directions (in progress)."""

__all__: list[str] = []
