"""A long `scorebridge score` run that stops any way loses nothing it scored: SIGTERM and Ctrl-C at any
concurrency, SIGKILL, a scorer that hangs (`--timeout`), and bad rows (`--on-bad-row`). Signals are sent to
a real process, as a CI job's timeout or a terminal sends them."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import scorebridge as sb
from scorebridge._cli.main import main

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

SCRIPT = str(Path(sys.executable).parent / "scorebridge")
SCORERS = """\
import asyncio
import time

from scorebridge import scorer


@scorer
def counted(item, output, label):
    time.sleep(0.005)
    with open("calls.txt", "a", encoding="utf-8") as f:  # one line per call: how often each row was scored
        f.write(output + "\\n")
    return output == label


@scorer
def sleepy(item, output, label):
    with open("calls.txt", "a", encoding="utf-8") as f:
        f.write(output + "\\n")
    time.sleep(30)
    return output == label


@scorer
def tenth(item, output, label):
    with open("calls.txt", "a", encoding="utf-8") as f:
        f.write(output + "\\n")
    time.sleep(0.1)
    return output == label


@scorer
def hangs(item, output, label):
    if output in ("3", "50", "97"):
        time.sleep(60)
    return output == label


@scorer
async def hangs_async(item, output, label):
    if output in ("3", "50", "97"):
        await asyncio.sleep(60)
    return output == label
"""


def rows(n: int) -> str:
    return "".join(json.dumps({"output": str(i), "label": str(i if i % 4 else -1)}) + "\n" for i in range(n))


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "mine.py").write_text(SCORERS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    return tmp_path


def start(*argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [SCRIPT, "score", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as at a terminal, even where the suite runs in a background job (whose children ignore SIGINT)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def calls(folder: Path) -> list[str]:
    path = folder / "calls.txt"
    return path.read_text(encoding="utf-8").split() if path.exists() else []


def wait_for_calls(folder: Path, n: int) -> None:
    deadline = time.monotonic() + 60
    while len(calls(folder)) < n and time.monotonic() < deadline:
        time.sleep(0.005)


def whole_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of an --out, after its header; each line must be a whole JSON object."""
    lines = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["scorebridge"] == "score"
    return [json.loads(line) for line in lines[1:]]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_at_half_keeps_every_scored_row_and_resume_finishes_with_each_row_scored_once(
    folder: Path, signum: int
) -> None:
    # A CI timeout's SIGTERM left --out empty (written, never flushed); a rerun scored every row again.
    (folder / "data.jsonl").write_text(rows(2000), encoding="utf-8")
    whole = subprocess.run(
        [SCRIPT, "score", "data.jsonl", "--scorer", "exact", "--format", "json"], capture_output=True, text=True
    )
    argv = ["data.jsonl", "--scorer", "mine.py@counted", "--out", "scored.jsonl", "--format", "json"]
    scoring = start(*argv)
    wait_for_calls(folder, 1000)
    scoring.send_signal(signum)
    out, err = scoring.communicate(timeout=60)
    assert scoring.returncode == (143 if signum == signal.SIGTERM else 130), err
    assert out == "" and "Traceback" not in err
    written = whole_rows(folder / "scored.jsonl")
    assert f"; {len(written)} rows written to scored.jsonl; --resume goes on from there" in err
    assert 1000 <= len(written) < 2000
    assert len(written) == len(calls(folder))  # every row scored before the stop is in the file
    resumed = subprocess.run([SCRIPT, "score", *argv, "--resume"], capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert {**summary, "name": "exact"} == json.loads(whole.stdout)
    assert sorted(calls(folder), key=int) == [str(i) for i in range(2000)]  # each row scored once in all
    assert sorted(row["line"] for row in whole_rows(folder / "scored.jsonl")) == list(range(1, 2001))


def test_sigkill_loses_no_written_row_and_leaves_nothing_a_resume_misreads(folder: Path) -> None:
    (folder / "data.jsonl").write_text(rows(2000), encoding="utf-8")
    argv = ["data.jsonl", "--scorer", "mine.py@counted", "--out", "scored.jsonl", "--format", "json"]
    scoring = start(*argv)
    wait_for_calls(folder, 1000)
    scoring.kill()
    scoring.communicate(timeout=60)
    text = (folder / "scored.jsonl").read_text(encoding="utf-8")
    kept = text if text.endswith("\n") else text[: text.rindex("\n") + 1]  # at most a line being written
    assert len(kept.splitlines()) - 1 >= len(calls(folder)) - 16 * 2  # the rows scored, less those in flight
    resumed = subprocess.run([SCRIPT, "score", *argv, "--resume"], capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["rows"] == 2000 and json.loads(resumed.stdout)["correct"] == 1500
    assert sorted(row["line"] for row in whole_rows(folder / "scored.jsonl")) == list(range(1, 2001))


def test_one_ctrl_c_at_concurrency_16_stops_a_scorer_sleeping_30_s_within_5_s(folder: Path) -> None:
    # The first Ctrl-C said "interrupted" and the process stayed; a second ended in a _python_exit traceback.
    (folder / "data.jsonl").write_text(rows(100), encoding="utf-8")
    scoring = start("data.jsonl", "--scorer", "mine.py@sleepy", "--concurrency", "16", "--out", "scored.jsonl")
    wait_for_calls(folder, 16)
    sent = time.monotonic()
    scoring.send_signal(signal.SIGINT)
    _, err = scoring.communicate(timeout=60)
    assert time.monotonic() - sent < 5
    assert scoring.returncode == 130 and "Traceback" not in err
    assert err.splitlines() == [
        "scorebridge score: interrupted after 0 scored rows; 0 rows written to scored.jsonl; "
        "--resume goes on from there"
    ]


@pytest.mark.parametrize("scorer", ["hangs", "hangs_async"], ids=["blocking sync", "async"])
def test_timeout_records_the_rows_that_hang_as_errors_and_the_run_ends(folder: Path, scorer: str) -> None:
    # A scorer that hangs held the run forever: no per-row timeout existed.
    (folder / "data.jsonl").write_text(rows(100), encoding="utf-8")
    began = time.monotonic()
    done = subprocess.run(
        [
            SCRIPT,
            "score",
            "data.jsonl",
            "--scorer",
            f"mine.py@{scorer}",
            "--timeout",
            "1",
            "--on-error",
            "record",
            "--out",
            "scored.jsonl",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert time.monotonic() - began < 10
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["failure_kinds"]["error"] == 3
    errors = [r for r in whole_rows(folder / "scored.jsonl") if r[f"{scorer}.failure_kind"] == "error"]
    assert [r["line"] for r in errors] == [4, 51, 98]
    assert "gave no score within 1 s" in errors[0][f"{scorer}.explanation"]


def test_timeout_under_on_error_raise_names_the_row(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "data.jsonl").write_text(rows(100), encoding="utf-8")
    status = main(["score", "data.jsonl", "--scorer", "mine.py@hangs_async", "--timeout", "0.5"])
    assert status == 1, capsys.readouterr().err
    assert (
        capsys.readouterr().err == "data.jsonl:4: the scorer 'hangs_async' gave no score within 0.5 s (its timeout)\n"
    )


@sb.scorer
def hangs_here(item: Any, output: Any, label: Any) -> bool:
    if output in ("3", "50", "97"):
        time.sleep(60)
    return bool(output == label)


@sb.scorer
async def hangs_here_async(item: Any, output: Any, label: Any) -> bool:
    import asyncio

    if output in ("3", "50", "97"):
        await asyncio.sleep(60)
    return bool(output == label)


@pytest.mark.parametrize("scorer", [hangs_here, hangs_here_async], ids=["blocking sync", "async"])
def test_score_many_with_a_timeout_records_the_rows_that_hang(scorer: sb.Scorer) -> None:
    outputs = [str(i) for i in range(100)]
    began = time.monotonic()
    scores = scorer.score_many(None, outputs, outputs, timeout=1, on_error="record")
    assert time.monotonic() - began < 10
    assert [i for i, s in enumerate(scores) if s.failure_kind == "error"] == [3, 50, 97]
    assert all(scores[i].correct is False for i in (3, 50, 97)) and sum(s.correct is True for s in scores) == 97


@pytest.mark.parametrize("scorer", [hangs_here, hangs_here_async], ids=["blocking sync", "async"])
def test_score_many_with_a_timeout_raises_a_timeout_error_naming_the_row(scorer: sb.Scorer) -> None:
    outputs = [str(i) for i in range(10)]
    with pytest.raises(TimeoutError, match=r"gave no score within 0.5 s \(its timeout\), at row 3 of the batch"):
        scorer.score_many(None, outputs, outputs, timeout=0.5)


@pytest.mark.parametrize("concurrency", [1, 8])
def test_benchmark_with_a_timeout_records_the_rows_that_hang(concurrency: int) -> None:
    items = [str(i) for i in range(100)]
    began = time.monotonic()
    result = sb.benchmark(
        {"echo": str}, items, items, scorer=hangs_here, concurrency=concurrency, timeout=1, on_error="record"
    )
    assert time.monotonic() - began < 10
    errors = [r.item_id for r in result.records if r.failure_kind == "error"]
    assert errors == [3, 50, 97] and result.summary()["echo"].failure_kinds["error"] == 3


def test_a_timeout_is_a_number_of_seconds_above_0(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="timeout must be more than 0"):
        hangs_here.score_many(None, ["a"], ["a"], timeout=0)
    with pytest.raises(SystemExit):
        main(["score", "data.jsonl", "--scorer", "exact", "--timeout", "0"])
    assert "--timeout: more than 0 and at most a day (86400 s); got 0.0" in capsys.readouterr().err


BAD = {5: '{"output": "4", "label": ', 41: "not json", 91: "[1, 2]"}


def bad_file(folder: Path) -> Path:
    lines = rows(100).splitlines()
    for line, text in BAD.items():
        lines[line - 1] = text
    (folder / "bad.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder / "bad.jsonl"


@pytest.mark.parametrize("scorer", ["exact", "mine.py@counted"], ids=["inline", "concurrent"])
def test_on_bad_row_record_scores_the_rest_and_records_each_bad_line_as_an_error(
    folder: Path, capsys: pytest.CaptureFixture[str], scorer: str
) -> None:
    # The first malformed line ended the run, with no way to record it and go on.
    bad_file(folder)
    argv = ["score", "bad.jsonl", "--scorer", scorer, "--on-bad-row", "record", "--out", "scored.jsonl"]
    status = main([*argv, "--format", "json"])
    out, err = capsys.readouterr()
    assert status == 0
    summary = json.loads(out)
    assert (summary["rows"], summary["failure_kinds"]["error"], summary["bad_rows"]) == (100, 3, 3)
    name = scorer.rpartition("@")[2]
    written = whole_rows(folder / "scored.jsonl")
    scored = [r for r in written if r[f"{name}.failure_kind"] != "error"]
    errors = [r for r in written if r[f"{name}.failure_kind"] == "error"]
    assert len(scored) == 97 and [r["line"] for r in errors] == [5, 41, 91]
    assert errors[0][f"{name}.explanation"].startswith("bad row: bad.jsonl:5: not valid JSON")
    assert "bad.jsonl:91: expected a JSON object, got a JSON list" in err


def test_on_bad_row_skip_leaves_them_out_and_names_them_on_stderr(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad_file(folder)
    status = main(["score", "bad.jsonl", "--scorer", "exact", "--on-bad-row", "skip"])
    out, err = capsys.readouterr()
    assert status == 0
    assert "exact     97      97" in out and "bad rows: 3 (left out; each is named on stderr)" in out
    assert err.splitlines() == [
        "scorebridge score: 3 bad rows left out:",
        "  bad.jsonl:5: not valid JSON (Expecting value at column 26)",
        "  bad.jsonl:41: not valid JSON (Expecting value at column 1)",
        "  bad.jsonl:91: expected a JSON object, got a JSON list",
    ]


def test_on_bad_row_stop_is_the_default(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad_file(folder)
    assert main(["score", "bad.jsonl", "--scorer", "exact", "--out", "scored.jsonl"]) == 1
    assert capsys.readouterr().err == "bad.jsonl:5: not valid JSON (Expecting value at column 26)\n"
    assert [r["line"] for r in whole_rows(folder / "scored.jsonl")] == [1, 2, 3, 4]


def test_a_missing_field_and_an_unreadable_label_are_bad_rows_too(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "nums.py").write_text(
        "from scorebridge import scorer\n\n\n@scorer\ndef near(item, output, label: float):\n"
        "    return abs(float(output) - label) < 0.5\n",
        encoding="utf-8",
    )
    text = [{"output": "1", "label": "1"}, {"output": "2"}, {"output": "3", "label": "three"}]
    (folder / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in text), encoding="utf-8")
    status = main(["score", "data.jsonl", "--scorer", "nums.py@near", "--on-bad-row", "skip"])
    out, err = capsys.readouterr()
    assert status == 0 and "bad rows: 2" in out
    assert "data.jsonl:2: no field 'label'; the row has output" in err
    assert "data.jsonl:3: " in err and "'three'" in err


def test_resume_does_not_record_a_bad_row_twice(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad_file(folder)
    argv = ["score", "bad.jsonl", "--scorer", "exact", "--on-bad-row", "record", "--out", "scored.jsonl"]
    assert main(argv) == 0
    lines = (folder / "scored.jsonl").read_text(encoding="utf-8").splitlines()
    (folder / "scored.jsonl").write_text("\n".join(lines[:60]) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main([*argv, "--resume", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["rows"], out["failure_kinds"]["error"]) == (100, 3)
    assert sorted(r["line"] for r in whole_rows(folder / "scored.jsonl")) == list(range(1, 101))


def test_the_out_file_is_flushed_as_each_row_is_written(folder: Path) -> None:
    # Seven seconds into a 1 row/s run, --out held 0 bytes.
    (folder / "data.jsonl").write_text(rows(100), encoding="utf-8")
    scoring = start("data.jsonl", "--scorer", "mine.py@tenth", "--concurrency", "1", "--out", "scored.jsonl")
    try:
        wait_for_calls(folder, 6)
        assert len(whole_rows(folder / "scored.jsonl")) >= 4  # read while the run goes on
    finally:
        os.kill(scoring.pid, signal.SIGKILL)
        scoring.communicate(timeout=60)


def test_no_stretch_longer_than_twice_the_timeout_passes_without_a_row_written(folder: Path) -> None:
    # One hung row held every other for its whole length: the window waited on its first row.
    (folder / "data.jsonl").write_text(rows(100), encoding="utf-8")
    argv = ["data.jsonl", "--scorer", "mine.py@hangs", "--timeout", "1", "--on-error", "record", "--concurrency", "4"]
    scoring = start(*argv, "--out", "scored.jsonl")
    grew: list[float] = []
    seen = 0
    while scoring.poll() is None:
        path = folder / "scored.jsonl"
        count = path.read_bytes().count(b"\n") if path.exists() else 0
        if count > max(seen, 1):  # a row written (the header is the first line)
            grew.append(time.monotonic())
        seen = count
        time.sleep(0.02)
    scoring.communicate(timeout=60)
    assert scoring.returncode == 0 and len(whole_rows(folder / "scored.jsonl")) == 100
    assert max(b - a for a, b in itertools.pairwise(grew)) < 2 * 1
