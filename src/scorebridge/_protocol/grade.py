"""The grade mapping of dsprrr's `as_dsprrr_metric`: any grade to a number."""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Mapping
from decimal import Decimal
from types import MappingProxyType
from typing import Final

from .values import is_bool, is_missing, shown

__all__ = ["GRADE_WORDS", "grade_value", "read_grade"]

GRADE_WORDS: Final[Mapping[str, float]] = MappingProxyType(
    {
        "c": 1.0,
        "correct": 1.0,
        "pass": 1.0,
        "i": 0.0,
        "incorrect": 0.0,
        "fail": 0.0,
        "p": 0.5,
        "partial": 0.5,
    }
)
"""The grade words and their values, folded to lower case: the one vocabulary every scorer reads."""


def grade_value(x: object) -> float | None:
    """Read a grade as a number, the way dsprrr's `as_dsprrr_metric` converts vitals grades.

    - Numbers are kept (as floats): ints, floats, numpy numbers, Decimal, Fraction.
      NaN is the "not scored" marker and gives None without a warning.
    - True/False (Python or numpy) give 1.0/0.0.
    - The words "C"/"correct"/"pass" give 1.0, "I"/"incorrect"/"fail" 0.0 and
      "P"/"partial" 0.5, in any case and with surrounding white space ignored.
    - Any other string that parses as a finite number gives that number
      ("0.75" -> 0.75).
    - Anything else (None, "maybe", "inf", a list, ...) gives None and a
      `UserWarning` naming the value.
    """
    return read_grade(x, None)


def read_grade(x: object, scorer: str | None) -> float | None:
    """`grade_value(x)`, its warning naming `scorer` (the scorer that returned `x`), when given."""
    found = grade_read(x)
    if found is not UNREAD:
        return found  # type: ignore[return-value]
    by = "" if scorer is None else f" (returned by the scorer {scorer!r})"
    warnings.warn(f"unrecognised grade {shown(x)}; treating it as not scored{by}", stacklevel=3)
    return None


UNREAD: Final = object()
"""What `grade_read` gives for a value the grade mapping cannot read."""


def grade_read(x: object) -> float | object | None:
    """The grade mapping of `grade_value`, without its warning: a number, None (NaN: not scored), or `UNREAD`."""
    if is_bool(x):
        return 1.0 if x else 0.0
    if isinstance(x, (numbers.Real, Decimal)):
        if is_missing(x):
            return None
        try:
            return float(x)
        except OverflowError:  # an int past 1e308 is no grade
            pass
    if isinstance(x, str):
        key = x.strip().lower()
        word = GRADE_WORDS.get(key)
        if word is not None:
            return word
        try:
            f = float(key)
        except ValueError:
            pass
        else:
            if math.isfinite(f):
                return f
    return UNREAD
