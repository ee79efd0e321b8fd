"""verifiers' own eval of a taskset whose rewards are scorebridge scorers, end to end and offline.

vf-eval's runner (`run_eval`) plays each of the 20 rows through `Env.run_slot` and `Agent.run`: verifiers'
chat program asks for the reply through verifiers' interception server, which relays it to a model server
on 127.0.0.1, and `Task.score` calls the rewards. What verifiers reports must be what scorebridge's summary of
the same rows says (see vf_rollout.py for the environment and where the chat program runs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from prime_runs.metrics import from_episodes
from vf_offline import CONNECTIONS
from vf_rollout import GUARD, RAISING_ROW, ROWS, evaluate, flaky, grader

import scorebridge as sb

# verifiers' chat program hands httpx its CA bundle as a path, which httpx deprecates: its warning, not ours
pytestmark = pytest.mark.filterwarnings("ignore:`verify=<str>` is deprecated:DeprecationWarning")

REPLIES = {question: reply for question, reply, _ in ROWS}


def accuracy(scorer: sb.Scorer, on_error: Any = "raise") -> float | None:
    """scorebridge's accuracy of the model's replies to ROWS under `scorer`."""
    questions, labels = [q for q, _, _ in ROWS], [label for _, _, label in ROWS]
    result = sb.benchmark({"model": REPLIES.__getitem__}, questions, labels, scorer=scorer, on_error=on_error)
    return result.summary()["model"].accuracy


def score(trace: Any, name: str) -> float | None:
    return None if (reward := trace.rewards[name]) is None else reward.score


@pytest.fixture(scope="module")
def episodes(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    return evaluate(tmp_path_factory.mktemp("vf-eval"))


@pytest.fixture(scope="module")
def traces(episodes: list[Any]) -> list[Any]:
    return [trace for episode in episodes for trace in episode.traces]


def test_every_row_is_a_whole_rollout_whose_reply_came_from_the_model_server(
    episodes: list[Any], traces: list[Any]
) -> None:
    assert len(episodes) == len(traces) == 20 and all(episode.ok for episode in episodes)
    assert [trace.last_reply for trace in traces] == [reply for _, reply, _ in ROWS]
    assert {trace.stop_condition for trace in traces} == {"agent_completed"}


def test_the_mean_reward_verifiers_reports_is_scorebridges_accuracy(episodes: list[Any]) -> None:
    # the run's aggregates, as verifiers' eval computes them when it closes the run (prime_runs' from_episodes)
    means = from_episodes(episodes)["avg_metrics"]
    assert means["exact"] == accuracy(sb.exact()) == 14 / 18
    assert means["graded"] == accuracy(sb.model_graded_qa(grader()))
    assert means["flaky"] == accuracy(flaky, on_error="record") == 13 / 18  # the raising row counted wrong


def test_unlabelled_rows_are_none_in_verifiers_never_zero(traces: list[Any]) -> None:
    # METR's bridge made a scorer's None a 0.0 reward: an unscored row counted wrong.
    unscored = [n for n, t in enumerate(traces) if t.rewards["exact"] is None]
    assert unscored == [3, 11]
    assert all(traces[n].rewards["graded"] is None and traces[n].rewards["flaky"] is None for n in unscored)


def test_a_model_graded_scorer_gives_verifiers_the_graders_verdicts(traces: list[Any]) -> None:
    scorer = sb.model_graded_qa(grader())
    assert [score(t, "graded") for t in traces] == [scorer(*row).value for row in ROWS]


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


def test_no_connection_left_the_machine(episodes: list[Any]) -> None:
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


def test_the_chat_program_run_as_a_program_of_its_own_scores_the_same_and_connects_nowhere(
    tmp_path: Path, traces: list[Any]
) -> None:
    # the agent as verifiers launches it: a program in its local subprocess runtime, each behind vf_guard.py
    refused = tmp_path / "refused"
    programs = evaluate(tmp_path / "out", program="subprocess", limit=2, env={"SCOREBRIDGE_REFUSED": str(refused)})
    run = [trace for episode in programs for trace in episode.traces]
    names = ("exact", "graded", "flaky")
    assert [[score(t, n) for n in names] for t in run] == [[score(t, n) for n in names] for t in traces[:2]]
    assert refused.read_text().splitlines() == ["[]"] * 2  # each of the 2 programs guarded, none refused
    assert CONNECTIONS == []  # nor the eval around them, in this process


CONNECTING = """import socket
try:
    socket.create_connection(("192.0.2.1", 443))
except OSError as e:
    print(e)
"""


def test_the_programs_guard_refuses_a_connection_off_the_machine(tmp_path: Path) -> None:
    # the proof above would hold vacuously if the program's guard let connections through
    program, refused = tmp_path / "connect.py", tmp_path / "refused"
    program.write_text(CONNECTING)
    env = {**os.environ, "SCOREBRIDGE_REFUSED": str(refused)}
    done = subprocess.run([sys.executable, GUARD, str(program)], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0 and "connect nowhere" in done.stdout
    assert [json.loads(line) for line in refused.read_text().splitlines()] == [["('192.0.2.1', 443)"]]
