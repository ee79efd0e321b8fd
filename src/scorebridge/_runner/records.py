"""What a benchmark records: one `BenchmarkRecord` per run of an arm on an item, and the budget stop."""

from __future__ import annotations

import math
import sys
from collections.abc import Hashable, Mapping
from types import MappingProxyType
from typing import Any, Final, NamedTuple

from .._protocol.score import FailureKind
from .._protocol.values import shown

__all__ = [
    "FIELDS",
    "NEWER_FIELDS",
    "BenchmarkRecord",
    "BudgetExceeded",
    "is_budget_stop",
    "json_safe",
]

FIELDS: Final = (
    "arm",
    "item_id",
    "run",
    "correct",
    "value",
    "outcome",
    "failure_kind",
    "explanation",
    "metadata",
    "seconds",
    "error",
    "output",
)
"""The fields of a benchmark record, in order (the keys of each record line of `out`)."""

NEWER_FIELDS: Final = ("output",)
"""The fields records gained after `out` files were first written: a record read without them has None there."""


class BudgetExceeded(Exception):
    """Raise it from an arm when a budget ran out (calls, tokens, cost, time): the run is recorded "budget_stop".

    Any other exception whose `budget_stop` attribute is True (on its class or
    on the instance) counts as well, so a client library can mark its own
    budget errors without importing scorebridge.
    """

    budget_stop: Final = True


def is_budget_stop(exc: BaseException) -> bool:
    """True when an arm's exception means a budget ran out (see `BudgetExceeded`)."""
    return isinstance(exc, BudgetExceeded) or getattr(exc, "budget_stop", False) is True


class BenchmarkRecord(NamedTuple):
    """One run of one arm on one item, scored. Immutable; `_asdict()` gives the fields as a dict.

    `run` counts from 0. `correct`, `value`, `outcome`, `failure_kind`,
    `explanation` and `metadata` are the Score's (metadata made JSON-safe by
    `json_safe`, as it is written to `out`), so a record says why an arm
    failed without scoring again. `seconds` is the wall time of the arm's
    call. `error` is "ExceptionType: message" when the arm raised (then
    `failure_kind` is "error", or "budget_stop" for a budget exception), else
    None. `output` is what the arm returned, made JSON-safe as `metadata` is
    (None when it raised), so `compare()` can show two runs' outputs side by
    side; a record read from an `out` file written before it had this field
    has None there.
    """

    arm: str
    item_id: Hashable
    run: int
    correct: bool | None
    value: float | None
    outcome: str | None
    failure_kind: FailureKind | None
    explanation: str | None
    metadata: Mapping[str, Any]
    seconds: float
    error: str | None
    output: Any = None


_DEPTH: Final = 50
_INT_BITS: Final = 13_000  # about 4,000 decimal digits


def json_safe(value: Any, depth: int = 0) -> Any:
    """`value` as plain JSON data: what standard JSON cannot hold becomes text.

    Strings, bools and None are kept (a subclass as its plain value); ints
    kept but for those too long to write (over 4,000 digits, Python's limit
    is 4,300), which become a note of their size; finite floats kept, NaN and
    the infinities written as their repr ("nan", "inf"); mappings become
    dicts with string keys, lists and tuples lists; anything else (and what
    lies deeper than 50 levels) its repr. A `json.dumps` of the result always
    succeeds and writes standard JSON.
    """
    kind = type(value)
    if value is None or kind is str or kind is bool:  # the common cases first: this runs on every record
        return value
    if kind is dict or kind is MappingProxyType:
        if depth < _DEPTH:
            return {k if type(k) is str else _key(k): json_safe(v, depth + 1) for k, v in value.items()}
        return shown(value, sys.maxsize)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value) if value.bit_length() <= _INT_BITS else f"<an int of {value.bit_length()} bits>"
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else repr(float(value))
    if depth < _DEPTH:
        if isinstance(value, Mapping):
            try:
                return {k if type(k) is str else _key(k): json_safe(v, depth + 1) for k, v in value.items()}
            except Exception:
                return shown(value, sys.maxsize)
        if isinstance(value, (list, tuple)):
            return [json_safe(v, depth + 1) for v in value]
    return shown(value, sys.maxsize)


def _key(key: Any) -> str:
    return str(key) if isinstance(key, str) else shown(key, sys.maxsize)
