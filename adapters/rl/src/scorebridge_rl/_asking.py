"""A reward, as TRL and verl functions return it, read as a Score's value."""

from __future__ import annotations

import math
from typing import Any

from scorebridge import ScorerContractError
from scorebridge.kit import is_bool, is_number

__all__ = ["reward_value"]


def reward_value(name: str, reward: Any, what: str) -> float | None:
    """A reward as a Score's value: a finite number (a bool as 1 or 0); None or NaN is no reward (unscored).

    Anything else (a string, an infinity, a list) is a `ScorerContractError`
    naming the scorer and `what` returned it.
    """
    if reward is None:
        return None
    if is_bool(reward):
        return 1.0 if reward else 0.0
    if is_number(reward):
        try:
            value = float(reward)
        except (TypeError, ValueError, OverflowError):
            value = math.inf
        if math.isnan(value):
            return None
        if math.isfinite(value):
            return value
    raise ScorerContractError(
        f"{name}: {what} returned {type(reward).__name__} {reward!r:.80}; expected a finite number or None"
    )
