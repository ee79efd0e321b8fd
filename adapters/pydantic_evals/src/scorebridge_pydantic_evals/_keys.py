"""The names a scorebridge Score's parts take in a pydantic-evals report, read back by `from_pydantic_evals`."""

from __future__ import annotations

__all__ = ["kind_key", "value_key"]


def value_key(name: str) -> str:
    """The score that holds a Score's value: `NAME_value` (a mean per evaluator in the report's averages)."""
    return f"{name}_value"


def kind_key(name: str) -> str:
    """The label that holds a wrong Score's failure kind: `NAME_failure_kind` (frequencies in the averages)."""
    return f"{name}_failure_kind"
