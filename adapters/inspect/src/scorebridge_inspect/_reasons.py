"""Failure kinds and Inspect AI's `Score.reason`: the one table, read both ways.

| failure_kind      | Score.reason (to_inspect) | Score.reason read back (from_inspect)  |
|-------------------|---------------------------|----------------------------------------|
| parse_failure     | invalid_response_format   | invalid_response_format, no_response   |
| refusal           | refusal                   | refusal                                |
| error             | scoring_failed            | scoring_failed, grader_failed          |
| not_in_document   | None                      | (none: only metadata["failure_kind"])  |
| wrong             | None                      | None on a wrong value                  |
| budget_stop       | None                      | (none: only metadata["failure_kind"])  |

Two reasons read back as one kind (`no_response` and `grader_failed`), so
`from_inspect` keeps a reason the table would not give back in the Score's
metadata under `INSPECT_REASON`, and `to_inspect` writes it out again: a
reason survives the round trip whatever the table says.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from scorebridge import FailureKind

__all__ = ["FAILURE_KIND", "INSPECT_REASON", "kept_reason", "kind_for", "reason_for"]

FAILURE_KIND: Final = "failure_kind"
"""The Inspect Score metadata key that carries the failure kind (None when correct)."""

INSPECT_REASON: Final = "inspect_reason"
"""The scorebridge Score metadata key that keeps an Inspect reason the table would not give back."""

_REASON: Final[Mapping[FailureKind, str | None]] = MappingProxyType(
    {
        "parse_failure": "invalid_response_format",
        "refusal": "refusal",
        "error": "scoring_failed",
        "not_in_document": None,
        "wrong": None,
        "budget_stop": None,
    }
)

_KIND: Final[Mapping[str, FailureKind]] = MappingProxyType(
    {
        "invalid_response_format": "parse_failure",
        "no_response": "parse_failure",
        "refusal": "refusal",
        "scoring_failed": "error",
        "grader_failed": "error",
    }
)


def reason_for(kind: FailureKind | None, kept: object = None) -> str | None:
    """The Inspect reason of a scorebridge Score: its kept `INSPECT_REASON` (a str), else the table's for its kind."""
    if isinstance(kept, str):
        return kept
    return None if kind is None else _REASON[kind]


def kind_for(reason: str | None) -> FailureKind | None:
    """The failure kind an Inspect reason stands for; None for no reason or one the table does not know."""
    return None if reason is None else _KIND.get(reason)


def kept_reason(reason: str | None, kind: FailureKind | None) -> str | None:
    """The Inspect reason to keep in metadata: one that `reason_for(kind)` would not give back."""
    if reason is None or (kind is not None and _REASON[kind] == reason):
        return None
    return reason
