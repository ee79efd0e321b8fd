"""What a benchmark records: one `BenchmarkRecord` per run of an arm on an item, and the budget stop."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Final, NamedTuple

from .._protocol.score import FailureKind

__all__ = ["FIELDS", "BenchmarkRecord", "BudgetExceeded", "is_budget_stop"]

FIELDS: Final = ("arm", "item_id", "run", "correct", "value", "outcome", "failure_kind", "seconds", "error")
"""The fields of a benchmark record, in order (the keys of each JSONL line of `out`)."""


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

    `run` counts from 0. `seconds` is the wall time of the arm's call. `error`
    is "ExceptionType: message" when the arm raised (then `failure_kind` is
    "error", or "budget_stop" for a budget exception), else None.
    """

    arm: str
    item_id: Hashable
    run: int
    correct: bool | None
    value: float | None
    outcome: str | None
    failure_kind: FailureKind | None
    seconds: float
    error: str | None
