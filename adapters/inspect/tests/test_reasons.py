"""The failure_kind <-> Score.reason table, read both ways (scorebridge_inspect._reasons)."""

from __future__ import annotations

import pytest

from scorebridge import FAILURE_KINDS
from scorebridge_inspect._reasons import kept_reason, kind_for, reason_for


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("parse_failure", "invalid_response_format"),
        ("refusal", "refusal"),
        ("error", "scoring_failed"),
        ("not_in_document", None),
        ("wrong", None),
        ("budget_stop", None),
        (None, None),
    ],
)
def test_reason_of_each_failure_kind(kind: str | None, reason: str | None) -> None:
    assert reason_for(kind) == reason  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("reason", "kind"),
    [
        ("invalid_response_format", "parse_failure"),
        ("no_response", "parse_failure"),
        ("refusal", "refusal"),
        ("scoring_failed", "error"),
        ("grader_failed", "error"),
        (None, None),
        ("rate_limited", None),  # a reason of the scorer's own: no kind
    ],
)
def test_failure_kind_of_each_reason(reason: str | None, kind: str | None) -> None:
    assert kind_for(reason) == kind


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
