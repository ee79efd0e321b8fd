"""Hostile values: what an attacker or an unlucky user hands a scorer, as one hypothesis strategy.

`hostile()` draws from everything below, alone or nested in lists, tuples and
dicts (and as the `answer`, `text`, `ok` or `failure_kind` of an output
mapping): 10 MB strings, lone surrogates (what `os.fsdecode` gives for bytes
that are not UTF-8), ints and Decimals far too long to write out, NaN and
infinities, bytes, nesting 5,000 and 100,000 deep, containers that hold
themselves, and objects whose `__repr__`, `__eq__`, `__bool__`, `__getattr__`,
`__iter__` (and the rest) raise; numpy and pandas scalars when installed.

The test that runs it against every public entry point is
tests/test_hostile_inputs.py.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any, NoReturn

from hypothesis import strategies as st

__all__ = ["BIG", "BrokenRepr", "Hostile", "HostileMapping", "deep_list", "hostile", "nested", "scalars"]

MB = 1_000_000


class _Raised(RuntimeError):
    """What the hostile objects raise (a plain RuntimeError, as a broken library would)."""


def _raise(*_: Any, **__: Any) -> NoReturn:
    raise _Raised("hostile")


class Hostile:
    """An object whose every protocol method raises."""

    __repr__ = __str__ = __format__ = __eq__ = __ne__ = __lt__ = __hash__ = _raise  # type: ignore[assignment]
    __bool__ = __len__ = __iter__ = __getitem__ = __contains__ = _raise
    __float__ = __int__ = __index__ = __call__ = __await__ = _raise

    def __getattr__(self, name: str) -> NoReturn:
        raise _Raised(f"no {name} here")


class BrokenRepr:
    """A hashable object whose `repr` and `==` raise: a label or an answer that a message must name safely."""

    def __repr__(self) -> str:
        raise RuntimeError("repr")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    __hash__ = object.__hash__


class HostileMapping(Mapping[str, Any]):
    """A mapping whose every method raises."""

    def __getitem__(self, key: str) -> NoReturn:
        raise _Raised("hostile")

    def __iter__(self) -> Iterator[str]:
        raise _Raised("hostile")

    def __len__(self) -> int:
        raise _Raised("hostile")

    get = keys = items = values = __contains__ = __repr__ = __eq__ = _raise  # type: ignore[assignment]


class HostileList(list[Any]):
    """A list whose iteration, length and repr raise."""

    __iter__ = __len__ = __repr__ = __eq__ = __bool__ = _raise  # type: ignore[assignment]


class HostileStr(str):
    """A string whose own methods raise: `str(x)`, comparisons, case folding, splitting."""

    __str__ = __repr__ = __eq__ = __ne__ = __hash__ = __len__ = __iter__ = __format__ = _raise  # type: ignore[assignment]
    strip = lower = casefold = split = isspace = find = replace = __contains__ = __getitem__ = _raise  # type: ignore[assignment]


class HostileFloat(float):
    """A float whose comparisons, repr and conversion raise."""

    __eq__ = __ne__ = __repr__ = __float__ = __bool__ = __lt__ = __gt__ = _raise  # type: ignore[assignment]


class HostileInt(int):
    """An int whose conversions and repr raise."""

    __int__ = __index__ = __repr__ = __str__ = __eq__ = __float__ = _raise  # type: ignore[assignment]


class RaisingProperties:
    """An output whose answer, text, ok and failure_kind are properties that raise."""

    answer = text = ok = failure_kind = error = property(_raise)


class _Shown:
    """Shows a deeply nested value by its depth: hypothesis's printer recurses, and a value nested 5,000 deep
    once made it raise RecursionError of its own while it reported an example."""

    depth = 0

    def __repr__(self) -> str:
        return f"<{type(self).__mro__[2].__name__} nested {self.depth} deep>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))


class DeepList(_Shown, list[Any]):
    pass


class DeepDict(_Shown, dict[str, Any]):
    pass


def nested(depth: int, leaf: Any = "Paris") -> Any:
    """`leaf` in `depth` plain lists, whose own repr overflows the stack (unlike `deep_list`'s)."""
    value: Any = leaf
    for _ in range(depth):
        value = [value]
    return value


def deep_list(depth: int, leaf: Any = "Paris") -> list[Any]:
    """`[[[...leaf...]]]`, `depth` lists deep (built without recursion); the outer one shows its depth."""
    value: Any = leaf
    for _ in range(depth - 1):
        value = [value]
    outer = DeepList([value])
    outer.depth = depth
    return outer


def _deep_dict(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"answer": "Paris"}
    for _ in range(depth - 1):
        value = {"answer": value}
    outer = DeepDict(answer=value)
    outer.depth = depth
    return outer


def _self_holding_list() -> list[Any]:
    x: list[Any] = ["Paris"]
    x.append(x)
    return x


def _self_holding_dict() -> dict[str, Any]:
    x: dict[str, Any] = {"answer": "Paris"}
    x["text"] = x
    return x


BIG: tuple[str, ...] = (
    "word " * (2 * MB),  # 10 MB of words
    "a" * (10 * MB) + "!",  # what catastrophic regexes choke on
    "\n" * (10 * MB),
    "Paris" + " " * (10 * MB),
    ("GRADE: C\n" * (MB // 10)) + "GRADE: I",  # a grader-reply look-alike
    "x" * (5 * MB) + "\ud800" + "y" * (5 * MB),  # a lone surrogate inside 10 MB
    "NOT_IN_DOCUMENT" + "." * (10 * MB),
)
"""Strings of 10 MB or so, built once."""


def _one_of_these(values: list[Any] | tuple[Any, ...]) -> st.SearchStrategy[Any]:
    """One of `values`, drawn by index: hypothesis shows a strategy by the repr of its values, and these
    raise in repr or take 10 MB."""
    kept = list(values)

    def pick(i: int) -> Any:
        return kept[i]

    return st.integers(min_value=0, max_value=len(kept) - 1).map(pick)


_SURROGATES = st.text(
    alphabet=st.one_of(st.characters(codec=None, categories=["Cs"]), st.characters()), min_size=1, max_size=20
)

_strings = st.one_of(
    st.text(max_size=40),
    _SURROGATES,
    st.sampled_from(["\ud800", "\udcff", "caf\udce9", "Paris\udfff", "", " ", "\u2003", "NOT_IN_DOCUMENT", "GRADE: C"]),
    _one_of_these(BIG),
)

_numbers = st.one_of(
    st.integers(),
    st.integers(min_value=300, max_value=60_000).map(lambda k: 10**k),  # past 1e308, and past 4300 digits
    st.integers(min_value=300, max_value=60_000).map(lambda k: -(10**k) + 7),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 5e-324, 1.7976931348623157e308]),
    st.integers(min_value=-3_000_000, max_value=3_000_000).map(lambda k: Decimal(f"1e{k}")),  # huge exponents
    st.sampled_from([Decimal("NaN"), Decimal("sNaN"), Decimal("Infinity"), Decimal("-Infinity"), Decimal("-0")]),
    st.decimals(allow_nan=True, allow_infinity=True),
    st.fractions(),
    st.sampled_from([Fraction(10**400, 3), Fraction(1, 10**400)]),
)

_objects = _one_of_these(
    [
        Hostile(),
        HostileMapping(),
        HostileList(["Paris"]),
        HostileStr("Paris"),
        HostileStr(""),
        HostileFloat(1.0),
        HostileFloat(math.nan),
        HostileInt(7),
        RaisingProperties(),
        {"answer": Hostile()},
        {"text": HostileStr("Paris")},
        {"ok": Hostile()},
        {"ok": False, "error": Hostile()},
        {"failure_kind": Hostile()},
        {"failure_kind": HostileStr("wrong")},
        {"failure_kind": "refusal"},
        {"failure_kind": "not a kind"},
        deep_list(5_000),
        deep_list(100_000),
        deep_list(5_000, None),
        _deep_dict(5_000),
        _self_holding_list(),
        _self_holding_dict(),
        b"Paris",
        bytearray(b"Paris"),
        memoryview(b"Paris"),
        b"\xff" * (10 * MB),
        object(),
        type,
        Ellipsis,
        NotImplemented,
        print,
        range(10**18),
        iter([1, 2]),
        1j,
        complex(math.nan, math.inf),
    ]
)


def _optional_scalars() -> list[Any]:
    found: list[Any] = []
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is a dev dependency
        pass
    else:
        found += [
            np.float64("nan"),
            np.float32("inf"),
            np.int64(2**62),
            np.uint64(2**64 - 1),
            np.bool_(True),
            np.bool_(False),
            np.str_("Paris"),
            np.bytes_(b"Paris"),
            np.array([1, 2]),
            np.array([]),
            np.array("Paris"),
            np.datetime64("NaT"),
            np.longdouble("1e4000"),
        ]
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dev dependency
        pass
    else:
        found += [pd.NA, pd.NaT, pd.Series(["Paris"]), pd.Timestamp(0)]
    return found


scalars = st.one_of(
    st.none(),
    st.booleans(),
    _strings,
    _numbers,
    st.binary(max_size=20),
    _objects,
    *([_one_of_these(_optional_scalars())] if _optional_scalars() else []),
)
"""One hostile value, not nested."""

_KEYS = st.sampled_from(["answer", "text", "ok", "failure_kind", "error", "input", "question", "correct", "x"])


def hostile() -> st.SearchStrategy[Any]:
    """A hostile value: a scalar above, or lists, tuples, sets and dicts of them (as an output's fields too)."""
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.tuples(inner, inner),
            st.frozensets(st.one_of(st.text(max_size=5), st.integers()), max_size=3),
            st.dictionaries(_KEYS, inner, max_size=3),
        ),
        max_leaves=6,
    )
