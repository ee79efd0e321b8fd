"""The one reading of a harness's score, in every reverse adapter: a verdict and a value in 0-1.

A harness scorer's verdict may be a bool, a grade word, or points, on 0-1 or on a
range of its own (pydantic-evals' `GEval` 1 to 5, an MLflow judge whose
`feedback_value_type` is `Literal[1, 2, 3, 4, 5]`). Taken as they are, points on
a range of their own break every summary: a 1 ("poor") is at or above a
threshold of 1.0, so every row is correct, and three rows of 1, 3 and 5 average
3.0. `scale(scorer_name, score_range, threshold)` gives the harness scorer's
`Scale`, and `Scale.read` reads whatever it returned, for every reverse adapter:

- a score on a declared range (`low`, `high`) is mapped onto 0-1 by it
  (`(points - low) / (high - low)`), and is correct at or above `threshold`,
  which is on the harness's own scale (default: `high`, full marks, as 1.0 is
  on 0-1);
- with no declared range the scale is 0-1: points outside it are a
  `ScorerContractError` naming the scorer, never a value of 3 or an accuracy
  above 1 (say the range: `score_range=(low, high)`);
- a bool and a grade word are read by the grade mapping, on 0-1; None and NaN
  are no verdict."""

from __future__ import annotations

import math
from typing import Any, Final

from .._protocol.grade import GRADE_WORDS, grade_read
from .._protocol.score import ScorerContractError
from .._protocol.values import is_bool, is_number, shown

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

    def read(self, scorer_name: str, x: Any) -> tuple[bool | None, float | None]:
        """(correct, value) of a harness's verdict `x`: the one reading of a harness's score, in every spoke.

        - None and NaN: no verdict, `(None, None)` (the row unscored);
        - a bool: itself, 1.0 or 0.0;
        - a grade word (C/I/P, correct/incorrect, pass/fail, in any case): its
          value in 0-1 by the grade mapping (`grade_value`), correct at full
          marks only; a word is on no scale of the harness's;
        - a number, or a string that reads as one ("0.75"): points on this
          scale, correct at or above the threshold (on the harness's own
          scale), the value mapped onto 0-1 (`(points - low) / (high - low)`;
          with no declared range the points are the value).

        Anything else is a `ScorerContractError` naming the scorer, never a
        silent zero: points outside the declared range; with none declared,
        points outside 0-1 (a 1-5 rating; the message says to declare the
        range, `score_range=(low, high)`); infinity; text the grade mapping
        cannot read; any other object.
        """
        found: object
        if type(x) is float:  # the common cases, read without the grade mapping
            found = x
            if x != x:  # NaN
                return None, None
        elif type(x) is int and -1e300 < x < 1e300:  # an int a float holds
            found = float(x)
        elif x is None:
            return None, None
        elif is_bool(x):
            return bool(x), 1.0 if x else 0.0
        else:
            word = GRADE_WORDS.get(x.strip().lower()) if isinstance(x, str) else None
            if word is not None:
                return word >= 1.0, word
            found = grade_read(x)
            if found is None:  # NaN
                return None, None
        low, high = self.low, self.high
        if type(found) is not float or not low <= found <= high:
            raise ScorerContractError(self._refusal(scorer_name, x, found))
        if not self.declared:  # 0-1: the points are the value
            return found >= self.threshold, found
        return found >= self.threshold, (found - low) / (high - low)

    def _refusal(self, scorer_name: str, x: Any, found: object) -> str:
        """What `read` says of `x` (read by the grade mapping as `found`), which is no score on this scale."""
        low, high = self.low, self.high
        must = f"{scorer_name}: a score must be a number from {low:g} to {high:g}, a bool or a grade (C/I/P, pass/fail)"
        if type(found) is not float:  # the grade mapping cannot read it
            return f"{must}; got {shown(x)}"
        if self.declared:
            return f"{must}; the harness scorer gave {found!r} points, outside its range {low:g}-{high:g}"
        return (
            f"{must}; the harness scorer gave {found!r} points, outside 0-1, and declares no range for its points: "
            "say the range it scores on (score_range=(low, high)) so they are mapped onto 0-1"
        )


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
