"""Small readers of Python values shared by the recording rules and the scorers."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

__all__ = ["is_bool", "is_missing", "is_number", "label_is_missing", "plain_digits"]


def is_bool(x: object) -> bool:
    """True for Python and numpy booleans."""
    return isinstance(x, bool) or (type(x).__module__ == "numpy" and type(x).__name__ in ("bool", "bool_"))


def is_number(x: object) -> bool:
    """True for real numbers (ints, floats, numpy numbers, Decimal, Fraction), not booleans."""
    return isinstance(x, (numbers.Real, Decimal)) and not is_bool(x)


def is_missing(x: object) -> bool:
    """True for the missing-value markers: None, NaN (any float type), pandas NA and NaT."""
    if x is None:
        return True
    if isinstance(x, float):
        return x != x
    if isinstance(x, Decimal):
        return x.is_nan()  # signalling NaN too
    if isinstance(x, numbers.Integral):
        return False  # and math.isnan would overflow on an int past 1e308
    if is_number(x):
        try:
            return math.isnan(x)  # type: ignore[arg-type]
        except (TypeError, ValueError, OverflowError):
            return False
    return type(x).__name__ in ("NAType", "NaTType")


def label_is_missing(label: Any) -> bool:
    """An item has no label when its label is missing, blank, or holds nothing but those.

    Blank means a string of white space only (Inspect AI's default target is "",
    and a blank target that matches everything is a known bug of several harnesses).
    """
    if type(label) is str:
        return not label or label.isspace()
    if isinstance(label, (list, tuple, set, frozenset)):
        return all(label_is_missing(x) for x in label)
    if isinstance(label, Mapping):
        return False
    return is_missing(label)


def plain_digits(x: Any) -> str:
    """A number written in plain digits, never in exponent form.

    100000 and 1e5 give "100000", 1e-7 gives "0.0000001", 2.50 gives "2.5",
    -0.0 gives "0", big ints are written in full, infinities as "inf"/"-inf".
    """
    if isinstance(x, numbers.Integral):
        return str(int(x))
    d = x if isinstance(x, Decimal) else Decimal(repr(float(x)))
    if not d.is_finite():
        return "nan" if d.is_nan() else ("-inf" if d < 0 else "inf")
    if d == d.to_integral_value():
        return str(int(d))
    return format(d.normalize(), "f")
