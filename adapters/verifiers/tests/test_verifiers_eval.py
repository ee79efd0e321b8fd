"""A verifiers evaluation's scoring, offline: the replies of a model server on 127.0.0.1 fetched by verifiers'
own client, and a Task with scorebridge rewards scoring the 20 traces with verifiers' own `Task.score`, report
what scorebridge's summary of the same rows says."""

from __future__ import annotations

from typing import Any

import pytest
from vf_offline import CONNECTIONS, model_replies, score_rows, task_with

import scorebridge as sb
from scorebridge.testing import FakeGrader
from scorebridge_verifiers import to_verifiers

CITIES = ["Paris", "Rome", "Madrid", "Berlin", "Lisbon", "Vienna", "Prague", "Dublin", "Oslo", "Athens"]
# 20 rows: 14 answered right, 4 wrong, 2 with no label; row 7's reply makes the flaky scorer raise.
ROWS: list[tuple[str, str, Any]] = [
    (f"Capital number {n}?", CITIES[n % 10] if n % 5 else "Nowhere", CITIES[n % 10] if n not in (3, 11) else None)
    for n in range(20)
]
RAISING_ROW = 7


@sb.scorer
def flaky(item: Any, output: Any, label: Any) -> bool:
    if item == ROWS[RAISING_ROW][0]:
        raise RuntimeError("the checker crashed")
    return bool(output == label)


def grader() -> FakeGrader:
    """A grader model that says C when the reply names the reference city, I otherwise."""
    return FakeGrader(lambda prompt: "GRADE: C" if prompt.count("Nowhere") == 0 else "GRADE: I")


def _mean(values: list[float | None]) -> float:
    scored = [v for v in values if v is not None]
    return sum(scored) / len(scored)


@pytest.fixture(scope="module")
def traces() -> list[Any]:
    task = task_with(
        exact=to_verifiers(sb.exact()),
        graded=to_verifiers(sb.model_graded_qa(grader()), name="graded"),
        flaky=to_verifiers(flaky, on_error="record"),
    )
    replies = model_replies({q: out for q, out, _ in ROWS}, [q for q, _, _ in ROWS])
    return score_rows(task, [(q, reply, label) for (q, _, label), reply in zip(ROWS, replies, strict=True)])


def test_the_mean_reward_verifiers_records_is_scorebridges_accuracy(traces: list[Any]) -> None:
    rewards = [None if (r := t.rewards["exact"]) is None else r.score for t in traces]
    assert _mean(rewards) == sb.Summary.of("exact", [sb.exact()(*row) for row in ROWS]).accuracy == 14 / 18


def test_unlabelled_rows_are_none_in_verifiers_never_zero(traces: list[Any]) -> None:
    # METR's bridge made a scorer's None a 0.0 reward: an unscored row counted wrong.
    unscored = [n for n, t in enumerate(traces) if t.rewards["exact"] is None]
    assert unscored == [3, 11]
    assert all(traces[n].rewards["graded"] is None for n in unscored)


def test_a_model_graded_scorer_gives_verifiers_the_graders_verdicts(traces: list[Any]) -> None:
    scorer = sb.model_graded_qa(grader())
    want = [scorer(*row).value for row in ROWS]
    assert [None if (r := t.rewards["graded"]) is None else r.score for t in traces] == want


def test_a_raising_scorer_under_record_is_a_zero_with_the_error_metric_and_the_others_still_score(
    traces: list[Any],
) -> None:
    # verifiers turns a raising reward into a TaskError that leaves every reward of the trace None.
    crashed = traces[RAISING_ROW]
    assert crashed.rewards["flaky"].score == 0.0 and crashed.metrics["flaky/error"] == 1.0
    assert crashed.rewards["exact"].score == 1.0 and not crashed.errors
    assert "the checker crashed" in crashed.info["scorebridge"]["flaky"]["explanation"]


def test_wrong_rows_carry_their_failure_kind_as_a_metric(traces: list[Any]) -> None:
    assert [n for n, t in enumerate(traces) if t.metrics.get("exact/wrong") == 1.0] == [0, 5, 10, 15]


def test_the_trace_reward_is_the_sum_of_the_scored_rewards(traces: list[Any]) -> None:
    row = traces[0]
    assert row.reward == sum(r.value for r in row.rewards.values() if r is not None)


def test_no_connection_left_the_machine(traces: list[Any]) -> None:
    assert CONNECTIONS == []


def test_the_guard_refuses_a_connection_off_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    # the proof above would hold vacuously if the guard let connections through
    import socket

    from offline import refuse_connections

    seen: list[str] = []
    refuse_connections(monkeypatch, seen)
    with socket.socket() as s, pytest.raises(OSError, match="connect nowhere"):
        s.connect(("192.0.2.1", 443))
    assert seen == ["('192.0.2.1', 443)"]
