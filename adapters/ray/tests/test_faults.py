"""Faults on a real local Ray: a killed actor, a retried call. Every row comes out exactly once.

score_dataset's actor returns a new batch and has no other effect, so a call Ray
runs again (its actor killed, or an error Ray is told to retry) replaces the
lost call's output instead of adding to it.
"""

from __future__ import annotations

import argparse
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import ray.data

import scorebridge as sb
from scorebridge_ray import score_dataset, score_of


@sb.scorer
def slow_match(item: Any, output: Any, label: Any, *, folder: str = "", pause: float = 0.0, gate: str = "") -> bool:
    """Whether the output is the label; leaves a file named after its process id in `folder`, waits for the
    file `gate` to exist (when given), then pauses."""
    mark = os.path.join(folder, str(os.getpid()))
    if folder and not os.path.exists(mark):
        with open(mark, "w", encoding="utf-8"):
            pass
    while gate and not os.path.exists(gate):
        time.sleep(0.01)
    time.sleep(pause)
    return bool(output == label)


@sb.scorer
def fails_once(item: Any, output: Any, label: Any, *, folder: str = "") -> bool:
    """Whether the output is the label; raises the first time it sees the output "flaky" (a file remembers)."""
    if output == "flaky":
        mark = os.path.join(folder, "failed-once")
        try:
            with open(mark, "x", encoding="utf-8"):
                pass
        except FileExistsError:
            with open(os.path.join(folder, "scored-again"), "a", encoding="utf-8") as f:
                f.write("x")
        else:
            raise ConnectionError("the grader hung up (a transient error)")
    return bool(output == label)


def wait_for(condition: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_killing_an_actor_mid_run_loses_and_repeats_no_row(tmp_path: Path) -> None:
    rows = [{"id": i, "output": str(i % 7), "label": "3"} for i in range(2000)]
    ds = ray.data.from_items(rows, override_num_blocks=20)
    marks, gate = tmp_path / "marks", tmp_path / "gate"
    marks.mkdir()
    # Both actors start scoring, then wait at the gate: one is killed mid-call, for sure, then the gate opens.
    slow = slow_match.with_options(folder=str(marks), pause=0.001, gate=str(gate))
    result: dict[str, Any] = {}

    def consume() -> None:
        try:
            result["rows"] = score_dataset(ds, slow, actors=2, batch_size=25).take_all()
        except BaseException as exc:  # carried to the test's thread
            result["error"] = exc

    consumer = threading.Thread(target=consume)
    consumer.start()
    try:
        assert wait_for(lambda: len(os.listdir(marks)) >= 2, 120), "the two actors never started scoring"
        running = consumer.is_alive()
        victim = int(sorted(os.listdir(marks))[0])
        os.kill(victim, signal.SIGKILL)
    finally:
        gate.touch()
        consumer.join(300)
    assert running, "the run ended before an actor was killed"
    assert "error" not in result, result.get("error")
    got = result["rows"]
    assert sorted(row["id"] for row in got) == list(range(len(rows)))  # every row, once
    right, wrong = sb.Score(True), sb.Score(False, failure_kind="wrong")
    assert [score_of(row) for row in sorted(got, key=lambda row: row["id"])] == [
        right if row["output"] == "3" else wrong for row in rows
    ]
    assert len(os.listdir(marks)) >= 3, "Ray never replaced the killed actor"


@pytest.mark.skipif(
    not hasattr(ray.data.DataContext.get_current(), "retried_map_errors"),
    reason="this Ray Data cannot be told to retry a call that raised (retried_map_errors came in a later Ray)",
)
def test_a_call_ray_retries_after_an_error_scores_its_rows_into_the_output_once(tmp_path: Path) -> None:
    # Ray Data retries a failed call only when told to (retried_map_errors); the retry must not add rows.
    rows = [{"id": i, "output": "flaky" if i == 5 else "a", "label": "a"} for i in range(12)]
    ds = ray.data.from_items(rows)
    ds.context.retried_map_errors = True
    ds.context.max_map_retries = 2
    got = score_dataset(ds, fails_once.with_options(folder=str(tmp_path)), batch_size=4).take_all()
    assert (tmp_path / "scored-again").exists(), "the failed call was not retried: the test tests nothing"
    assert sorted(row["id"] for row in got) == list(range(12))
    assert [row["correct"] for row in sorted(got, key=lambda row: row["id"])] == [True] * 5 + [False] + [True] * 6


@pytest.mark.timeout(300)
def test_an_actor_killed_during_a_command_run_is_one_line_on_stderr(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # the bug: when an actor died, Ray printed the raylet's error, a traceback, on the command's stdout
    from scorebridge._cli.ray_engine import score_with_ray

    data = tmp_path / "data.jsonl"
    data.write_text("".join(f'{{"output": "{i % 7}", "label": "3"}}\n' for i in range(400)), encoding="utf-8")
    marks, gate = tmp_path / "marks", tmp_path / "gate"
    marks.mkdir()
    slow = slow_match.with_options(folder=str(marks), pause=0.001, gate=str(gate))
    killed: list[int] = []

    def kill_one() -> None:
        try:
            if wait_for(lambda: len(os.listdir(marks)) >= 2, 120):
                killed.append(int(sorted(os.listdir(marks))[0]))
                os.kill(killed[0], signal.SIGKILL)
        finally:
            gate.touch()

    killer = threading.Thread(target=kill_one, daemon=True)
    killer.start()
    fields = {"item_field": None, "output_field": "output", "label_field": "label", "address": None}
    [summary], _ = score_with_ray(argparse.Namespace(file=str(data), out=None, batch_size=25, **fields), slow)
    killer.join(10)
    assert killed, "the two actors never started scoring: no actor was killed"
    assert summary.rows == 400
    said: list[str] = []
    printed = ""
    deadline = time.monotonic() + 30  # Ray's error reaches the driver a moment after the call it ended
    while not any("Ray says" in line for line in said) and time.monotonic() < deadline:
        captured = capfd.readouterr()
        said += captured.err.splitlines()
        printed += captured.out
        time.sleep(0.2)
    deaths = [line for line in said if "died" in line or str(killed[0]) in line]
    assert deaths and all(line.startswith("scorebridge score: Ray says: ") for line in deaths), said
    assert len(deaths) == 1, said
    assert "Traceback" not in printed + "\n".join(said), said
    assert printed == ""
