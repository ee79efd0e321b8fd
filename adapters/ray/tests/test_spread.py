"""Work spread over the actors: a block goes to one actor, so score_dataset splits the rows for the actors at hand.

The scorer below holds its first row until a second process has started scoring too (or 60 s have passed): with
every block on one actor, that actor waits the minute out alone, and the test sees one process.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import ray
import ray.data

import scorebridge as sb
from scorebridge_ray import score_dataset, score_of


@sb.scorer
def meets(item: Any, output: Any, label: Any, *, folder: str = "") -> dict[str, Any]:
    """Exact match that leaves a file named after its process in `folder`, and on its first row there waits until
    another process has left one (60 s at most); records its process id."""
    mark = os.path.join(folder, str(os.getpid()))
    if not os.path.exists(mark):
        Path(mark).touch()
        deadline = time.monotonic() + 60
        while len(os.listdir(folder)) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
    return {"correct": output == label, "outcome": None, "failure_kind": None, "metadata": {"pid": os.getpid()}}


SCORED_WITHIN = 180
"""Seconds a test's rows have to be scored (two actors started, and the minute the first may wait for the other)."""


def taken(ds: ray.data.Dataset) -> list[dict[str, Any]]:
    """`ds`'s rows, scored; the test failed, saying what Ray has free, when they are not all
    scored within `SCORED_WITHIN` s (a pool whose actors cannot be placed waits for ever; it hung a run once)."""
    rows: list[Any] = []
    failed: list[BaseException] = []

    def take() -> None:
        try:
            rows.extend(ds.take_all())
        except BaseException as exc:  # the test's to raise
            failed.append(exc)

    taking = threading.Thread(target=take, daemon=True)
    taking.start()
    taking.join(SCORED_WITHIN)
    if taking.is_alive():
        free, total = ray.available_resources(), ray.cluster_resources()
        pytest.fail(
            f"the rows were not scored in {SCORED_WITHIN} s: Ray has {free.get('CPU', 0):g} of its "
            f"{total.get('CPU', 0):g} CPUs free ({len(rows)} rows back)"
        )
    if failed:
        raise failed[0]
    return rows


def processes(rows: list[dict[str, Any]]) -> set[int]:
    """The processes that scored the rows."""
    return {score_of(row).metadata["pid"] for row in rows}


@pytest.mark.timeout(240)
def test_a_1000_row_job_on_2_actors_runs_blocks_on_both(tmp_path: Path) -> None:
    # the bug: the default batch_size of 1,024 made 1,000 rows one call, so one actor did all the work
    ds = ray.data.from_items([{"output": str(i % 3), "label": "1"} for i in range(1000)])
    scored = score_dataset(ds, meets.with_options(folder=str(tmp_path)), actors=2, num_cpus=0.5)
    assert len(processes(taken(scored))) == 2


@pytest.mark.timeout(240)
def test_20_small_parquet_files_on_2_actors_are_scored_by_both(tmp_path: Path) -> None:
    # the bug: Ray Data read 20 small Parquet files as one block, which went to one actor
    files = tmp_path / "files"
    files.mkdir()
    for n in range(20):
        rows = [{"output": str(i % 2), "label": "1"} for i in range(n * 50, (n + 1) * 50)]
        pq.write_table(pa.Table.from_pylist(rows), files / f"part-{n:02d}.parquet")
    marks = tmp_path / "marks"
    marks.mkdir()
    # the read's tasks take no CPU: they never wait behind actors for one
    ds = ray.data.read_parquet(str(files), num_cpus=0).materialize()
    rows = taken(score_dataset(ds, meets.with_options(folder=str(marks)), actors=2, num_cpus=0.5))
    assert len(processes(rows)) == 2
    assert len(rows) == 1000


def test_a_local_working_dir_in_ray_options_is_refused_saying_where_it_goes(tmp_path: Path) -> None:
    # the bug: docs offered runtime_env in ray_options, which Ray refuses for a local folder, after starting
    ds = ray.data.from_items([{"output": "a", "label": "a"}])
    with pytest.raises(ValueError, match=r"pass it as score_dataset\(\.\.\., runtime_env=\.\.\.\)"):
        score_dataset(ds, sb.exact(), ray_options={"runtime_env": {"working_dir": str(tmp_path)}})


def test_a_runtime_env_naming_a_folder_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    ds = ray.data.from_items([{"output": "a", "label": "a"}])
    with pytest.raises(ValueError, match="does not exist"):
        score_dataset(ds, sb.exact(), runtime_env={"working_dir": str(tmp_path / "nowhere")})
