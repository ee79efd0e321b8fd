"""Argument checks shared by `to_dspy` and `from_dspy`: each names the factory and the argument."""

from __future__ import annotations

import math
from typing import Any

from scorebridge.kit import is_number

__all__ = ["field_name", "finite_number", "threshold_value"]


def field_name(factory: str, argument: str, value: Any) -> str:
    """A field name: one non-blank string (DSPy stores fields by name)."""
    if not isinstance(value, str):
        raise TypeError(f"{factory}: {argument} must be a field name, one string; got {type(value).__name__}")
    if not value or value.isspace() or value != value.strip():
        raise ValueError(f"{factory}: {argument} must be a field name without surrounding white space; got {value!r}")
    return str(value)


def finite_number(x: Any) -> float | None:
    """A real number (not a bool) as a finite float; None for anything else, NaN and infinities included."""
    if not is_number(x):
        return None
    try:
        number = float(x)
    except (OverflowError, TypeError, ValueError):  # an int too big for a float, a broken __float__
        return None
    return number if math.isfinite(number) else None


def threshold_value(factory: str, value: Any) -> float:
    """A threshold: one finite real number (not a bool, which is a number to Python)."""
    if not is_number(value):
        raise TypeError(f"{factory}: threshold must be a number; got {type(value).__name__} {value!r:.80}")
    number = finite_number(value)
    if number is None:
        raise ValueError(f"{factory}: threshold must be a finite number; got {value!r:.80}")
    return number
