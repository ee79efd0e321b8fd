"""The `out` file of a benchmark: records that explain themselves, the scorer's identity, one writer, Ctrl-C.

Each test guards a failure seen before: records without explanation or
metadata, a resume under another scorer that returned the old verdicts, two
processes on one file that duplicated and lost records, and 17 lines of asyncio
noise after a Ctrl-C.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import scorebridge as sb

ITEMS = [f"q{i}" for i in range(6)]
LABELS = [item.upper() for item in ITEMS]


def upper(item: str) -> str:
    return item.upper()


def read(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the records of an out file."""
    header, *records = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    return header, records


# --- records that explain themselves ----------------------------------------------------------


def test_a_record_keeps_the_scores_explanation_and_metadata(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    result = sb.benchmark({"x": lambda item: "The answer is 25"}, ["q"], ["5"], scorer=sb.detect_match(), out=out)
    (record,) = result.records
    assert record.explanation == "the output ends with '5' only as part of a longer number"
    assert record.metadata == {"location": "end", "matched": None}
    _, (row,) = read(out)
    assert (row["explanation"], row["metadata"]) == (record.explanation, record.metadata)


def test_metadata_json_cannot_hold_is_written_as_text(tmp_path: Path) -> None:
    def odd(item: Any, output: Any, label: Any) -> dict[str, Any]:
        return {"correct": True, "metadata": {"nan": float("nan"), 7: {1, 2}, "big": 10**5000}}

    out = tmp_path / "runs.jsonl"
    (record,) = sb.benchmark({"x": upper}, ["q"], ["Q"], scorer=sb.scorer(odd, name="odd"), out=out).records
    assert record.metadata == {"nan": "nan", "7": "{1, 2}", "big": "<an int of 16610 bits>"}
    assert "NaN" not in out.read_text(encoding="utf-8")  # standard JSON only
    assert read(out)[1][0]["metadata"] == record.metadata


# --- the scorer's identity ---------------------------------------------------------------------


def test_the_header_names_the_scorer_and_its_options(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    sb.benchmark({"x": upper}, ITEMS, LABELS, scorer=sb.detect_match(location="begin"), out=out)
    header, _ = read(out)
    assert header == {
        "scorebridge": "benchmark",
        "format": 1,
        "scorer": {"name": "detect_match", "options": {"location": "begin", "case_sensitive": False}},
    }


def test_resuming_under_another_scorer_is_refused(tmp_path: Path) -> None:
    # It used to return the old scorer's verdicts as if the new scorer had given them.
    out = tmp_path / "runs.jsonl"
    sb.benchmark({"x": upper}, ITEMS, LABELS, out=out)
    before = out.read_bytes()
    with pytest.raises(ValueError, match=r"holds records scored by exact\(normalise=True\); .* detect_includes"):
        sb.benchmark({"x": upper}, ITEMS, LABELS, scorer=sb.detect_includes(), out=out)
    assert out.read_bytes() == before


def test_resuming_under_other_options_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    sb.benchmark({"x": upper}, ITEMS, LABELS, out=out)
    with pytest.raises(ValueError, match=r"exact\(normalise=False\)"):
        sb.benchmark({"x": upper}, ITEMS, LABELS, scorer=sb.exact(normalise=False), out=out)


def test_a_grader_is_recorded_as_its_cache_knows_it(tmp_path: Path) -> None:
    from scorebridge.testing import FakeGrader

    out = tmp_path / "runs.jsonl"
    sb.benchmark({"x": upper}, ["q"], ["Q"], scorer=sb.model_graded_qa(FakeGrader("GRADE: C")), out=out)
    assert read(out)[0]["scorer"]["options"]["grader"] == "scorebridge.testing.FakeGrader"
    again = sb.benchmark({"x": upper}, ["q"], ["Q"], scorer=sb.model_graded_qa(FakeGrader("GRADE: I")), out=out)
    assert again.records[0].correct is True  # resumed: a grader's replies are not part of its identity


def test_a_run_resumed_with_another_grader_model_is_refused(tmp_path: Path) -> None:
    # the grader was recorded by its type alone ("<_OpenAIGrader>"): a run resumed under another model went on,
    # one file holding two models' grades
    import openai

    client = openai.OpenAI(base_url="http://127.0.0.1:9/v1", api_key="test-key")
    out = tmp_path / "runs.jsonl"
    first = sb.model_graded_qa(sb.openai_grader(client, model="judge-a"), retry=None, timeout=1)
    sb.benchmark({"x": upper}, ["q"], [None], scorer=first, out=out)  # no label: the grader is not asked
    other = sb.model_graded_qa(sb.openai_grader(client, model="judge-b"), retry=None, timeout=1)
    with pytest.raises(ValueError, match=r"judge-a.*judge-b"):
        sb.benchmark({"x": upper}, ["q"], [None], scorer=other, out=out)


# --- one writer per file -------------------------------------------------------------------------


def test_a_second_writer_in_this_process_is_refused_at_once(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    started, release = threading.Event(), threading.Event()

    def slow(item: str) -> str:
        started.set()
        release.wait(10)
        return item.upper()

    first = threading.Thread(target=sb.benchmark, args=({"x": slow}, ITEMS, LABELS), kwargs={"out": out})
    first.start()
    try:
        assert started.wait(10)
        began = time.perf_counter()
        with pytest.raises(RuntimeError, match="is being written by another process"):
            sb.benchmark({"x": upper}, ITEMS, LABELS, out=out)
        assert time.perf_counter() - began < 1.0
    finally:
        release.set()
        first.join(10)
    assert [r["item_id"] for r in read(out)[1]] == list(range(len(ITEMS)))


WRITER = """
import sys, time
import scorebridge as sb

def arm(item):
    time.sleep(0.01)
    return item.upper()

items = [f"q{i}" for i in range(int(sys.argv[2]))]
try:
    sb.benchmark({"a": arm, "b": arm}, items, [i.upper() for i in items], concurrency=4, out=sys.argv[1])
except RuntimeError as exc:
    print(exc, file=sys.stderr)
    sys.exit(3)
"""


def test_two_processes_on_one_file_the_second_fails_and_the_first_keeps_every_record(tmp_path: Path) -> None:
    # Two resumers used to run every missing run twice (3,000 duplicate lines of 4,000), and a resumer that
    # started while another run appended truncated that run's fresh lines.
    script = tmp_path / "writer.py"
    script.write_text(WRITER, encoding="utf-8")
    for trial in range(2):  # benchmarks/bench_benchmark.py tries it many more times
        out = tmp_path / f"runs{trial}.jsonl"
        first = subprocess.Popen([sys.executable, str(script), str(out), "400"], stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 30
        while (not out.exists() or out.stat().st_size < 200) and time.time() < deadline:
            time.sleep(0.005)
        second = subprocess.run(
            [sys.executable, str(script), str(out), "400"], capture_output=True, text=True, timeout=60
        )
        assert first.wait(60) == 0, first.stderr.read() if first.stderr else ""
        assert second.returncode == 3, "the second writer ran: the first had finished too soon?"
        assert "is being written by another process" in second.stderr
        keys = [(r["arm"], r["item_id"]) for r in read(out)[1]]
        assert len(keys) == len(set(keys)) == 800


# --- Ctrl-C ------------------------------------------------------------------------------------------

INTERRUPTED = """
import sys, threading, time, os, signal
import scorebridge as sb

# Ctrl-C as at a terminal, even where this test runs in a background job (whose children ignore SIGINT)
signal.signal(signal.SIGINT, signal.default_int_handler)

def arm(item):
    time.sleep(0.02)
    return item.upper()

items = [f"q{i}" for i in range(400)]
if sys.argv[2] == "interrupt":
    threading.Timer(0.6, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
sb.benchmark({"a": arm, "b": arm}, items, [i.upper() for i in items], concurrency=8, out=sys.argv[1])
print("finished")
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to oneself is a POSIX signal")
def test_ctrl_c_at_concurrency_8_says_where_the_records_are_in_one_line_and_the_resume_completes(
    tmp_path: Path,
) -> None:
    # It printed 17 lines of asyncio noise ("Task was destroyed but it is pending!", "Exception ignored ...")
    # and did not say that the records were saved.
    script = tmp_path / "interrupted.py"
    script.write_text(INTERRUPTED, encoding="utf-8")
    out = tmp_path / "runs.jsonl"
    command = [sys.executable, "-W", "default", str(script), str(out), "interrupt"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert run.returncode in (130, -signal.SIGINT)
    saved = len(read(out)[1])
    assert 0 < saved < 800
    lines = run.stderr.splitlines()
    assert len(lines) <= 3, run.stderr
    assert f"benchmark interrupted: {saved} records saved in {out}; run it again with the same out= to resume" in lines
    resumed = subprocess.run([sys.executable, str(script), str(out), "go"], capture_output=True, text=True, timeout=60)
    assert resumed.returncode == 0, resumed.stderr
    keys = [(r["arm"], r["item_id"]) for r in read(out)[1]]
    assert len(keys) == len(set(keys)) == 800


def test_an_interrupt_without_out_says_the_records_are_lost() -> None:
    def ctrl_c(item: str) -> str:
        if item == "q3":
            raise KeyboardInterrupt
        return item.upper()

    with pytest.raises(KeyboardInterrupt, match=r"after 3 records, which are lost; give benchmark\(\) out="):
        sb.benchmark({"x": ctrl_c}, ITEMS, LABELS)


def test_abenchmark_cancelled_writes_one_line_and_lets_the_cancellation_go_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import asyncio

    async def arm(item: str) -> str:
        await asyncio.sleep(0.01)
        return item.upper()

    async def main() -> None:
        task = asyncio.ensure_future(sb.abenchmark({"x": arm}, ITEMS * 20, LABELS * 20, concurrency=2, out=out))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    out = tmp_path / "runs.jsonl"
    asyncio.run(main())
    (line,) = capsys.readouterr().err.splitlines()
    saved = len(read(out)[1])
    assert line == f"benchmark interrupted: {saved} records saved in {out}; run it again with the same out= to resume"


# --- errors that name the row -----------------------------------------------------------------------


@pytest.mark.parametrize("concurrency", [1, 4])
def test_an_exception_from_the_scorer_names_the_arm_item_and_run(concurrency: int) -> None:
    def fussy(item: Any, output: Any, label: Any) -> bool:
        if output == "Q4":
            raise ZeroDivisionError("no")
        return bool(output == label)

    with pytest.raises(ZeroDivisionError) as caught:
        sb.benchmark({"x": upper}, ITEMS, LABELS, scorer=sb.scorer(fussy), concurrency=concurrency)
    assert "while scoring arm 'x' on item 4 (index 4, run 0)" in caught.value.__notes__


def test_a_sync_scorer_runs_off_the_event_loop_at_concurrency_above_one() -> None:
    # A blocking grader on the loop's thread made 64 calls of 0.25 s take 16 s at concurrency 64.
    threads: set[str] = set()

    def where(item: Any, output: Any, label: Any) -> bool:
        threads.add(threading.current_thread().name)
        time.sleep(0.05)
        return True

    began = time.perf_counter()
    sb.benchmark({"x": upper}, ITEMS * 4, LABELS * 4, scorer=sb.scorer(where), concurrency=24)
    assert time.perf_counter() - began < 0.05 * 24 / 2  # well under one call after another
    assert all(name.startswith("scorebridge-benchmark") for name in threads)


def test_the_out_file_is_closed_and_unlocked_after_a_scorer_raises(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    with pytest.raises(sb.ScorerContractError):
        sb.benchmark({"x": upper}, ["a"], [{"not": "a label"}], out=out)
    assert len(sb.benchmark({"x": upper}, ["a"], ["A"], out=out)) == 1  # not "being written by another process"
    assert os.path.getsize(out) > 0


def test_a_bad_label_is_refused_before_any_arm_runs() -> None:
    # The arms used to be called (and paid for) before the scorer refused a label, and the error named no row.
    calls: list[str] = []

    def arm(item: str) -> str:
        calls.append(item)
        return item.upper()

    labels: list[Any] = [*LABELS[:4], {"not": "a label"}, LABELS[5]]
    with pytest.raises(sb.ScorerContractError, match="a label must be") as caught:
        sb.benchmark({"x": arm}, ITEMS, labels, concurrency=4)
    assert calls == []
    assert "(the label of item 4 (index 4); no arm was run)" in str(caught.value)


def test_a_scorer_of_your_own_reads_its_own_labels_so_none_is_checked_first() -> None:
    def any_label(item: Any, output: Any, label: Any) -> bool:
        return isinstance(label, dict)

    result = sb.benchmark({"x": upper}, ["a"], [{"any": "shape"}], scorer=sb.scorer(any_label))
    assert result.records[0].correct is True
