"""A Parquet --out under --engine ray, stopped or killed midway, then --resume: on the session's local Ray.

A run is stopped by a SIGINT (Ctrl-C) sent to this process once 3 blocks are written to OUT.parts; a copy of
OUT.parts taken then stands for what a run killed at that moment (SIGKILL, a lost driver) leaves behind. Each
row's Score records when it was scored, so a test can tell the rows a resume scored from those it kept.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import scorebridge as sb
from scorebridge._cli.main import UsageError
from scorebridge._cli.ray_engine import score_with_ray

ROWS = 2000
BLOCK = 100


def namespace(file: Path, **changes: Any) -> argparse.Namespace:
    """The arguments `scorebridge score FILE --engine ray --batch-size 100 ...` parses to."""
    fields = {"item_field": None, "output_field": "output", "label_field": "label", "address": None}
    return argparse.Namespace(file=str(file), batch_size=BLOCK, **{**fields, **changes})


@sb.scorer
def slow(item: Any, output: Any, label: Any) -> dict[str, Any]:
    """Exact match after 5 ms asleep; records when the row was scored."""
    time.sleep(0.005)
    return {"correct": output == label, "outcome": None, "failure_kind": None, "metadata": {"at": time.time()}}


def lines_and_times(path: Path) -> list[tuple[int, float]]:
    """Each row of a Parquet --out (or a folder of its parts): its line and when it was scored, in file order."""
    table = pq.read_table(path)
    return [
        (line, json.loads(meta)["at"])
        for line, meta in zip(table.column("line").to_pylist(), table.column("slow.metadata").to_pylist(), strict=True)
    ]


class Stopped:
    """A run stopped midway: its input, its OUT, a copy of OUT.parts taken as the SIGINT was sent, its status."""

    def __init__(self, data: Path, out: Path, parts: Path, status: Any) -> None:
        self.data, self.out, self.parts, self.status = data, out, parts, status


@pytest.fixture(scope="module")
def stopped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stopped]:
    folder = tmp_path_factory.mktemp("stopped")
    data = folder / "data.jsonl"
    data.write_text("".join(json.dumps({"output": str(i % 3), "label": str(i % 2)}) + "\n" for i in range(ROWS)))
    out = folder / "scored.parquet"
    copy = folder / "parts-copy"
    running = threading.Event()

    def interrupt(signum: int, frame: Any) -> None:  # only while the run lasts: never in pytest's own code
        if running.is_set():
            raise KeyboardInterrupt

    def watch() -> None:
        parts = Path(f"{out}.parts")
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and running.is_set():
            if parts.is_dir() and len(list(parts.glob("*.parquet"))) >= 3:
                shutil.copytree(parts, copy, ignore=shutil.ignore_patterns("*.partial", ".writer"))
                os.kill(os.getpid(), signal.SIGINT)
                return
            time.sleep(0.02)

    before = signal.signal(signal.SIGINT, interrupt)
    running.set()
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        status = score_with_ray(namespace(data, out=str(out)), slow)
    finally:
        running.clear()
        watcher.join(5)
        signal.signal(signal.SIGINT, before)
    yield Stopped(data, out, copy, status)


def resumed(stopped: Stopped, out: Path) -> tuple[sb.Summary, float]:
    """`out` resumed to the end: the summary, and when the resume began."""
    began = time.time()
    [summary], _ = score_with_ray(namespace(stopped.data, out=str(out), resume=True), slow)
    return summary, began


@pytest.mark.timeout(300)
def test_a_stopped_parquet_run_keeps_its_finished_blocks_in_out(stopped: Stopped) -> None:
    # the bug: a stopped Parquet run left only OUT.parts, which --resume did not read, so every row was scored again
    assert stopped.status == 130
    kept = [line for line, _ in lines_and_times(stopped.out)]
    assert 3 * BLOCK <= len(kept) < ROWS
    assert kept == list(range(1, len(kept) + 1))
    assert not Path(f"{stopped.out}.parts").exists()


@pytest.mark.timeout(300)
def test_resume_after_a_stopped_parquet_run_scores_only_the_missing_rows(stopped: Stopped, tmp_path: Path) -> None:
    out = tmp_path / "scored.parquet"
    shutil.copy(stopped.out, out)
    kept = len(lines_and_times(out))
    summary, began = resumed(stopped, out)
    rows = lines_and_times(out)
    assert sorted(line for line, _ in rows) == list(range(1, ROWS + 1))  # each row once
    assert sum(1 for _, at in rows if at < began) == kept  # the kept rows were not scored again
    assert summary.rows == ROWS


@pytest.mark.timeout(300)
def test_resume_after_a_killed_parquet_run_skips_the_rows_of_its_parts(stopped: Stopped, tmp_path: Path) -> None:
    # the bug: a killed Parquet run's parts were removed by the next run, their rows scored again
    out = tmp_path / "scored.parquet"
    shutil.copytree(stopped.parts, f"{out}.parts")
    kept = sorted(line for line, _ in lines_and_times(stopped.parts))
    summary, began = resumed(stopped, out)
    rows = lines_and_times(out)
    assert sorted(line for line, _ in rows) == list(range(1, ROWS + 1))
    assert sorted(line for line, at in rows if at < began) == kept
    assert summary.rows == ROWS
    assert not Path(f"{out}.parts").exists()


def test_a_killed_parquet_runs_parts_without_resume_or_force_are_refused(stopped: Stopped, tmp_path: Path) -> None:
    out = tmp_path / "scored.parquet"
    shutil.copytree(stopped.parts, f"{out}.parts")
    with pytest.raises(UsageError, match="already exists and holds rows: use --resume"):
        score_with_ray(namespace(stopped.data, out=str(out)), slow)
