"""Small readers of Python values shared by the recording rules and the scorers.

They are the first code to touch what a user, a model or a harness hands over,
so each bounds its work by the size of its input and never raises on a value
it cannot read: a number too long to write out is refused before it is
converted, a nested label is walked without recursion.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal
from typing import Any, Final

__all__ = [
    "MAX_DIGITS",
    "MAX_SECONDS",
    "a_type",
    "is_bool",
    "is_missing",
    "is_number",
    "label_is_missing",
    "plain_digits",
    "seconds",
    "shown",
]

MAX_DIGITS: Final = 4300
"""The most digits `plain_digits` writes: Python's own default limit on writing an int as text
(`sys.int_info.default_max_str_digits`). A longer number (10**5000, `Decimal("1e1000000")`,
`Decimal("1e-5000")`) is refused before any work in proportion to its size: converting
`Decimal("1e1000000")` to an int alone takes over 20 seconds."""

_LOG10_2: Final = math.log10(2)
_EXACT: Final = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)  # rounds nothing


def is_bool(x: object) -> bool:
    """True for Python and numpy booleans."""
    return isinstance(x, bool) or (type(x).__module__ == "numpy" and type(x).__name__ in ("bool", "bool_"))


def is_number(x: object) -> bool:
    """True for real numbers (ints, floats, numpy numbers, Decimal, Fraction), not booleans."""
    return isinstance(x, (numbers.Real, Decimal)) and not is_bool(x)


def is_missing(x: object) -> bool:
    """True for the missing-value markers: None, NaN (any float type), pandas NA and NaT.

    Never raises: a number whose comparison fails (a hostile float subclass) is not missing.
    """
    if x is None:
        return True
    try:
        if isinstance(x, float):
            return bool(math.isnan(x))
        if isinstance(x, Decimal):
            return x.is_nan()  # signalling NaN too
        if isinstance(x, numbers.Integral):
            return False  # and math.isnan would overflow on an int past 1e308
        if is_number(x):
            return math.isnan(x)  # type: ignore[arg-type]
    except Exception:  # an overflowing Fraction, a number whose conversion fails
        return False
    return type(x).__name__ in ("NAType", "NaTType")


def label_is_missing(label: Any) -> bool:
    """An item has no label when its label is missing, blank, or holds nothing but those.

    Blank means a string of white space only (Inspect AI's default target is "",
    and a blank target that matches everything is a known bug of several harnesses).
    Lists, tuples and sets are looked into at any depth, without recursion (a
    label nested 5,000 deep, or a list that holds itself, is read like any
    other). Never raises: a label that cannot be read (a list whose iteration
    fails) is not missing, and the scorer is left to say what is wrong with it.
    """
    if type(label) is str:
        return not label or label.isspace()
    try:
        return _holds_nothing(label)
    except Exception:
        return False


_CONTAINERS: Final = (list, tuple, set, frozenset)


def _holds_nothing(label: Any) -> bool:
    if not isinstance(label, _CONTAINERS):
        return _is_blank(label)
    seen = {id(label)}
    stack = [iter(label)]
    while stack:
        for x in stack[-1]:
            if isinstance(x, _CONTAINERS):
                if id(x) not in seen:  # a container met again holds nothing new
                    seen.add(id(x))
                    stack.append(iter(x))
                    break
            elif not _is_blank(x):
                return False
        else:
            stack.pop()
    return True


def _is_blank(x: Any) -> bool:
    if isinstance(x, str):
        return not x or x.isspace()
    if isinstance(x, Mapping):
        return False
    return is_missing(x)


def plain_digits(x: Any) -> str:
    """A number written in plain digits, never in exponent form.

    100000 and 1e5 give "100000", 1e-7 gives "0.0000001", 2.50 gives "2.5",
    -0.0 gives "0", big ints are written in full, infinities as "inf"/"-inf",
    NaN as "nan". A Decimal is written exactly, whatever the context's
    precision.

    Raises ValueError when the number would take more than `MAX_DIGITS`
    digits (10**5000, `Decimal("1e1000000")`, `Decimal("1e-5000")`), before
    converting it, and OverflowError for a number too big for a float that is
    not an int or a Decimal (a huge Fraction).
    """
    if isinstance(x, numbers.Integral):
        n = int(x)
        if n.bit_length() * _LOG10_2 > MAX_DIGITS:  # a cheap upper bound of its digits, checked before writing it
            raise ValueError(f"a number of more than {MAX_DIGITS} digits cannot be read as text")
        return str(n)
    d = x if isinstance(x, Decimal) else Decimal(repr(float(x)))
    if not d.is_finite():
        return "nan" if d.is_nan() else ("-inf" if d < 0 else "inf")
    if not d:
        return "0"  # -0, 0E+5, 0.000
    if not -MAX_DIGITS <= d.adjusted() < MAX_DIGITS:  # the place of its first digit: O(1), before any conversion
        raise ValueError(f"a number of more than {MAX_DIGITS} digits cannot be read as text")
    # `normalize` drops trailing zeros; under the default context it would also round to 28 digits
    text = format(d.normalize(_EXACT), "f")
    if len(text) > MAX_DIGITS + 2:  # a long fraction: as long as the Decimal's own digits, so linear work
        raise ValueError(f"a number of more than {MAX_DIGITS} digits cannot be read as text")
    return text


def a_type(x: object) -> str:
    """The name of `x`'s type with its article, for a message: "an int", "a list"."""
    name = type(x).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def shown(x: object, limit: int = 80) -> str:
    """`repr(x)` cut to `limit` characters, for an error message; never raises.

    A repr that raises (a hostile object, an int too long to write, a list
    nested too deep) is named by its type instead.
    """
    if isinstance(x, int) and not isinstance(x, bool):
        try:
            if x.bit_length() * _LOG10_2 > limit:
                return f"<an int of about {int(x.bit_length() * _LOG10_2) + 1} digits>"
        except Exception:
            pass
    try:
        text = repr(x)
    except Exception as exc:
        return f"<{type(x).__name__} whose repr raised {type(exc).__name__}>"
    if not isinstance(text, str):
        return f"<{type(x).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


MAX_SECONDS: Final = 86400.0
"""The longest timeout a scorer takes: a day. Longer is a mistake (1e13 once made every regex search time
out at once: the `regex` package turns its timeout into a count of clock ticks that overflowed)."""


def seconds(where: str, timeout: object, *, none: bool = False) -> float | None:
    """`timeout` as seconds: a number more than 0 and at most `MAX_SECONDS` (a day); None only when `none`.

    Raises TypeError (not a number: a bool, a string) or ValueError (0 or less, NaN, infinite, over a
    day), the message starting with `where`.
    """
    if timeout is None and none:
        return None
    if is_bool(timeout) or not is_number(timeout):
        kind = "a number of seconds or None" if none else "a number of seconds"
        raise TypeError(f"{where}: timeout must be {kind}; got {shown(timeout)}")
    try:
        value = float(timeout)  # type: ignore[arg-type]
    except (OverflowError, ValueError):  # an int past 1e308, a Fraction too big for a float
        value = math.inf
    if not 0 < value <= MAX_SECONDS:  # NaN fails too
        raise ValueError(
            f"{where}: timeout must be more than 0 and at most a day ({MAX_SECONDS:g} s); got {shown(timeout)}"
        )
    return value
