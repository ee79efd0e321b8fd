"""A harness score on a scale of its own, read as scorebridge reads points: a value in 0-1 and a verdict.

A harness scorer may score on a range of its own (pydantic-evals' `GEval` 1 to 5,
an MLflow judge whose `feedback_value_type` is `Literal[1, 2, 3, 4, 5]`). Taken as
they are, such points break every summary: a 1 ("poor") is at or above a
threshold of 1.0, so every row is correct, and three rows of 1, 3 and 5 average
3.0. `Scale` holds the range once, for every reverse adapter:

- a score on a declared range (`low`, `high`) is mapped onto 0-1 by it
  (`(points - low) / (high - low)`), and is correct at or above `threshold`,
  which is on the harness's own scale (default: `high`, full marks, as 1.0 is
  on 0-1);
- with no declared range the scale is 0-1: points outside it are a
  `ScorerContractError` naming the scorer, never a value of 3 or an accuracy
  above 1 (say the range: `score_range=(low, high)`).
"""

from __future__ import annotations

import math
from typing import Any, Final

from .._protocol.score import ScorerContractError
from .._protocol.values import is_bool, is_number

__all__ = ["Scale", "scale"]


def _finite(scorer_name: str, what: str, x: Any) -> float:
    if not is_number(x):
        raise TypeError(f"{scorer_name}: {what} must be a number; got {x!r:.80}")
    try:
        number = float(x)
    except (OverflowError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        raise ValueError(f"{scorer_name}: {what} must be finite; got {x!r:.80}")
    return number


class Scale:
    """A harness scorer's range of points and the threshold on it (`scale` makes one). Immutable.

    `low`, `high`: the worst and the best points; `threshold`: the points at or
    above which a row is correct, on that scale; `declared`: False when the
    harness declared no range (0-1 assumed, anything outside it refused).
    """

    __slots__ = ("declared", "high", "low", "threshold")

    low: float
    high: float
    threshold: float
    declared: bool

    def __init__(self, low: float, high: float, threshold: float, declared: bool) -> None:
        _set = object.__setattr__
        _set(self, "low", low)
        _set(self, "high", high)
        _set(self, "threshold", threshold)
        _set(self, "declared", declared)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Scale is immutable; cannot set {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Scale, (self.low, self.high, self.threshold, self.declared))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scale):
            return NotImplemented
        return (self.low, self.high, self.threshold, self.declared) == (
            other.low,
            other.high,
            other.threshold,
            other.declared,
        )

    def __hash__(self) -> int:
        return hash((self.low, self.high, self.threshold, self.declared))

    def __repr__(self) -> str:
        shown = f"{self.low:g}-{self.high:g}" if self.declared else "0-1 (no range declared)"
        return f"<Scale {shown}, correct at {self.threshold:g}>"

    def options(self) -> dict[str, Any]:
        """The scale as a scorer's options: the threshold, and the range when one was declared."""
        if self.declared:
            return {"score_range": [self.low, self.high], "threshold": self.threshold}
        return {"threshold": self.threshold}

    def read(self, scorer_name: str, points: float) -> tuple[bool, float]:
        """(correct, value): `points` on this scale as a verdict (at or above the threshold) and a value in 0-1.

        Points outside the range are a `ScorerContractError` naming the scorer
        (with no declared range: outside 0-1, which says to give the range).
        A NaN is the caller's to treat as "no value"; it is refused here too.
        """
        low, high = self.low, self.high
        if not low <= points <= high:  # NaN too
            if self.declared:
                raise ScorerContractError(
                    f"{scorer_name}: the harness scorer gave {points!r:.80} points, outside its range {low:g}-{high:g}"
                )
            raise ScorerContractError(
                f"{scorer_name}: the harness scorer gave {points!r:.80} points, outside 0-1, and declares no range "
                "for its points; say the range it scores on (score_range=(low, high)) so they are mapped onto 0-1"
            )
        if not self.declared:  # 0-1: the points are the value
            return points >= self.threshold, points
        return points >= self.threshold, (points - low) / (high - low)


UNIT: Final = (0.0, 1.0)


def scale(
    scorer_name: str,
    score_range: tuple[Any, Any] | None = None,
    threshold: Any = None,
) -> Scale:
    """The `Scale` of a harness scorer named `scorer_name`: its declared `score_range`, and `threshold` on it.

    `score_range`: (low, high), finite numbers with low < high, as the harness
    declares them (GEval's `score_range`, the numbers of an MLflow judge's
    `Literal` value type); None: no range declared, so 0-1. `threshold`: the
    points at or above which a row is correct, on the harness's own scale,
    within the range; None: `high` (full marks; 1.0 on 0-1). A bad range or
    threshold is a TypeError or ValueError naming the scorer.
    """
    declared = score_range is not None
    if score_range is None:
        low, high = UNIT
    else:
        if isinstance(score_range, (str, bytes)) or not hasattr(score_range, "__len__") or len(score_range) != 2:
            raise TypeError(f"{scorer_name}: score_range must be (low, high); got {score_range!r:.80}")
        low = _finite(scorer_name, "the low end of score_range", score_range[0])
        high = _finite(scorer_name, "the high end of score_range", score_range[1])
        if not low < high:
            raise ValueError(f"{scorer_name}: score_range must have low < high; got {score_range!r:.80}")
    if threshold is None:
        at = high
    else:
        if is_bool(threshold):
            raise TypeError(f"{scorer_name}: threshold must be a number; got {threshold!r:.80}")
        at = _finite(scorer_name, "threshold", threshold)
        if not low <= at <= high:
            raise ValueError(
                f"{scorer_name}: threshold {threshold!r:.80} is outside the scorer's range {low:g}-{high:g}; "
                "it is on the harness's own scale"
            )
    return Scale(low, high, at, declared)
