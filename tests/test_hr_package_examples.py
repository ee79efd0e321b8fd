"""The two examples of the hr package's scorer documentation (`hr_scorer_exact`, `within_1pct`), verbatim."""

from __future__ import annotations

import math
from typing import Any

import scorebridge as sb


def test_exact_accepts_padded_lower_case_paris() -> None:
    # exact$fn("Capital of France?", "  paris ", "Paris") -> correct TRUE, outcome "paris", failure_kind NA
    score = sb.exact()("Capital of France?", "  paris ", "Paris")
    assert (score.correct, score.outcome, score.failure_kind) == (True, "paris", None)


def test_exact_records_lyon_as_wrong() -> None:
    # exact$fn("Capital of France?", "Lyon", "Paris")$failure_kind -> "wrong"
    assert sb.exact()("Capital of France?", "Lyon", "Paris").failure_kind == "wrong"


def _within_1pct(item: Any, output: Any, label: float) -> dict[str, Any]:
    try:
        x = float(output)
    except (TypeError, ValueError):
        x = math.nan
    if math.isnan(x):
        return {"correct": False, "outcome": None, "failure_kind": "parse_failure"}
    return {"correct": abs(x - label) <= 0.01 * abs(label), "outcome": format(x, "g"), "failure_kind": None}


near = sb.scorer(_within_1pct, name="within_1pct")


def test_within_1pct_accepts_45_3_for_45_2() -> None:
    # near$fn(NULL, "45.3", 45.2) -> correct TRUE, outcome "45.3", failure_kind NA
    score = near(None, "45.3", 45.2)
    assert (score.correct, score.outcome, score.failure_kind) == (True, "45.3", None)


def test_within_1pct_records_unreadable_number_as_parse_failure() -> None:
    score = near(None, "forty-five", 45.2)
    assert (score.correct, score.failure_kind) == (False, "parse_failure")


def test_within_1pct_is_named_for_the_record() -> None:
    # "name: The scorer's name, one string; it is recorded with the benchmark."
    assert near.name == "within_1pct"
