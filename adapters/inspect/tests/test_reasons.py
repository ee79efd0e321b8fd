"""The failure_kind <-> Score.reason table, read both ways (scorebridge_inspect._reasons).

Each row of the table is tested through the public API: kind -> reason in
test_to_inspect.py, reason -> kind in test_from_inspect.py. Here: the table's own
consistency, and the reasons it keeps.
"""

from __future__ import annotations

import pytest

from scorebridge import FAILURE_KINDS
from scorebridge_inspect._reasons import kept_reason, kind_for, reason_for


def test_reason_of_no_failure_is_none() -> None:
    assert reason_for(None) is None


def test_reason_the_table_does_not_know_is_no_failure_kind() -> None:
    assert kind_for("rate_limited") is None


def test_every_reason_a_kind_gives_reads_back_as_that_kind() -> None:
    for kind in FAILURE_KINDS:
        reason = reason_for(kind)
        if reason is not None:
            assert kind_for(reason) == kind


def test_kept_inspect_reason_wins_over_the_table() -> None:
    assert reason_for("parse_failure", "no_response") == "no_response"


def test_reason_the_table_gives_back_is_not_kept() -> None:
    assert kept_reason("invalid_response_format", "parse_failure") is None


@pytest.mark.parametrize(
    ("reason", "kind"),
    [("no_response", "parse_failure"), ("grader_failed", "error"), ("no_response", None), ("rate_limited", None)],
)
def test_reason_the_table_would_lose_is_kept(reason: str, kind: str | None) -> None:
    assert kept_reason(reason, kind) == reason  # type: ignore[arg-type]
