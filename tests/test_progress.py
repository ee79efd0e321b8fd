"""Progress people can trust: done/total, a rate and the time left on a terminal; a line now and then in a log."""

from __future__ import annotations

import fcntl
import io
import itertools
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

import scorebridge as sb
from scorebridge._runner.progress import Progress, count_rows

GRADER = """\
# graded.py: a model-graded scorer whose grader takes a millisecond a call
import scorebridge as sb
from scorebridge.testing import FakeGrader

qa = sb.model_graded_qa(FakeGrader("GRADE: C", delay=0.001))
"""
LINE = re.compile(r"^scoring: ([\d,]+)/10,000 rows \((\d+)%\), [\d,.]+ rows/s, (.+)$")


def rows(path: Path, n: int) -> Path:
    path.write_text("".join(json.dumps({"question": f"q{i}", "output": "a", "label": "a"}) + "\n" for i in range(n)))
    return path


def command(*argv: str) -> list[str]:
    return [sys.executable, "-m", "scorebridge", *argv]


def test_a_log_gets_a_line_per_interval_with_done_and_total_for_10000_model_graded_rows(tmp_path: Path) -> None:
    (tmp_path / "graded.py").write_text(GRADER, encoding="utf-8")
    data = rows(tmp_path / "data.jsonl", 10_000)
    every = 0.25
    argv = ["score", str(data), "--scorer", "graded.py@qa", "--concurrency", "4", "--progress-interval", str(every)]
    started = time.monotonic()
    proc = subprocess.Popen(command(*argv), cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    seen: list[tuple[float, str]] = []
    for line in proc.stderr:  # stderr is a pipe: no terminal, as in CI
        seen.append((time.monotonic(), line.rstrip("\n")))
    out = proc.stdout.read() if proc.stdout else ""
    assert proc.wait() == 0, out
    took = time.monotonic() - started
    progress = [(t, text) for t, text in seen if text.startswith("scoring: ")]
    assert len(progress) >= 3, (took, seen)
    for _, text in progress:
        assert LINE.match(text), text
    done = [int(LINE.match(text)[1].replace(",", "")) for _, text in progress]  # type: ignore[index]
    assert done == sorted(done) and done[-1] == 10_000
    assert progress[-1][1].startswith("scoring: 10,000/10,000 rows (100%)") and "done in" in progress[-1][1]
    assert all("left" in text for _, text in progress[:-1])  # the time left, while it runs
    gaps = [b - a for (a, _), (b, _) in itertools.pairwise(progress)]
    assert max(gaps) < every + 2.0  # one line per interval (the slack: a loaded machine's scheduling)
    assert "\r" not in "".join(text for _, text in seen)  # no bar's carriage returns in a log


def test_standard_input_has_no_total_but_the_count_and_rate(tmp_path: Path) -> None:
    (tmp_path / "graded.py").write_text(GRADER, encoding="utf-8")
    data = rows(tmp_path / "data.jsonl", 1_500).read_text()
    argv = ["score", "-", "--scorer", "graded.py@qa", "--progress-interval", "0.2"]
    done = subprocess.run(command(*argv), cwd=tmp_path, input=data, capture_output=True, text=True, check=True)
    lines = [line for line in done.stderr.splitlines() if line.startswith("scoring: ")]
    assert lines and all(re.match(r"^scoring: [\d,]+ rows, [\d,.]+ rows/s, ", line) for line in lines), lines
    assert lines[-1].startswith("scoring: 1,500 rows,") and "done in" in lines[-1]


def test_a_short_run_in_a_log_prints_no_progress(tmp_path: Path) -> None:
    data = rows(tmp_path / "data.jsonl", 20)
    done = subprocess.run(command("score", str(data), "--scorer", "exact"), capture_output=True, text=True, check=True)
    assert done.stderr == ""


def test_a_terminal_gets_a_bar_with_done_total_rate_and_time_left(tmp_path: Path) -> None:
    (tmp_path / "graded.py").write_text(GRADER, encoding="utf-8")
    data = rows(tmp_path / "data.jsonl", 2_000)
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))  # a terminal of 120 columns
    proc = subprocess.Popen(
        command("score", str(data), "--scorer", "graded.py@qa", "--concurrency", "1"),
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=follower, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    os.close(follower)
    shown = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: the command ended
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert proc.wait() == 0
    text = shown.decode("utf-8", "replace")
    assert re.search(r"scoring:\s+\d+%\|.*\| *[\d,]+/2000 \[\d\d:\d\d<\d\d:\d\d, +[\d.]+ rows/s\]", text), text[-500:]


def test_benchmark_progress_in_a_log_says_how_far_it_is(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SCOREBRIDGE_PROGRESS_INTERVAL", "0.1")

    def slow(item: str) -> str:
        time.sleep(0.01)
        return item

    sb.benchmark({"slow": slow}, [f"q{i}" for i in range(60)], [f"q{i}" for i in range(60)], progress=True)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) >= 3, lines
    assert all(re.match(r"^benchmark: [\d,]+/60 runs \(\d+%\), ", line) for line in lines), lines
    assert lines[-1].startswith("benchmark: 60/60 runs (100%)") and "done in" in lines[-1]


def test_without_progress_benchmark_prints_nothing_in_a_log(capsys: pytest.CaptureFixture[str]) -> None:
    sb.benchmark({"a": str}, ["x"], ["x"])
    assert capsys.readouterr().err == ""


def test_the_total_of_a_file_is_counted_as_the_reader_counts_rows(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text('{"a": 1}\n\n{"a": 2}\n')
    (tmp_path / "a.csv").write_text('output,label\n"two\nlines",x\ny,z\n')
    assert count_rows(str(tmp_path / "a.jsonl"), "jsonl") == 2
    assert count_rows(str(tmp_path / "a.csv"), "csv") == 2
    assert count_rows(str(tmp_path / "missing.jsonl"), "jsonl") is None


def test_a_line_says_done_of_total_the_rate_and_the_time_left(capsys: pytest.CaptureFixture[str]) -> None:
    progress = Progress("scoring", "rows", 400, "lines", every=60)
    progress.update(100)
    line = progress.line()
    progress.close()
    assert re.match(r"^scoring: 100/400 rows \(25%\), [\d,.]+ rows/s, .+ left$", line), line
    assert capsys.readouterr().err.startswith("scoring: 100/400 rows (25%)")


def test_a_hang_says_stalled_instead_of_a_climbing_time_left() -> None:
    # guards: during a hang the line's ETA only climbed ("20m01s left") while no row finished
    out = io.StringIO()
    progress = Progress("scoring", "rows", 100, "lines", every=60, file=out, stalled=0.2)
    progress.update(10)
    assert progress.line().endswith(" left")
    time.sleep(0.3)
    stalled = progress.line()
    progress.update(1)
    moving = progress.line()
    progress.close()
    assert re.search(r", stalled, nothing done for \d+s$", stalled), stalled
    assert moving.endswith(" left"), moving


def test_a_row_slower_than_the_stall_time_is_no_stall_when_every_row_is_that_slow() -> None:
    progress = Progress("scoring", "rows", 100, "lines", every=60, file=io.StringIO(), stalled=0.05)
    time.sleep(0.1)
    progress.update(1)  # one row took 0.1 s: the next is a stall only after ten times that
    time.sleep(0.06)
    line = progress.line()
    progress.close()
    assert "stalled" not in line, line


def test_a_log_line_says_stalled_while_a_row_hangs() -> None:
    out = io.StringIO()
    progress = Progress("scoring", "rows", 10, "lines", every=0.1, file=out, stalled=0.15)
    progress.update(1)
    time.sleep(0.5)
    progress.close()
    assert any("stalled, nothing done for" in line for line in out.getvalue().splitlines()), out.getvalue()


def test_an_interrupted_run_ends_with_interrupted_not_done() -> None:
    # guards: after a signal the last line said "done in ..."
    out = io.StringIO()
    progress = Progress("scoring", "rows", 10, "lines", every=60, file=out)
    progress.update(3)
    progress.close(interrupted=True)
    assert re.match(r"^scoring: 3/10 rows \(30%\), [\d,.]+ rows/s, interrupted after \d+s$", out.getvalue().strip())
    assert "done" not in out.getvalue()


def test_an_interrupted_bar_is_marked_interrupted() -> None:
    out = io.StringIO()
    progress = Progress("scoring", "rows", 10, "bar", file=out)
    progress.update(3)
    progress.close(interrupted=True)
    last = out.getvalue().replace("\n", "\r").rstrip("\r").rsplit("\r", 1)[-1]  # the bar as it was left
    assert "3/10" in last and "interrupted" in last, last


def test_a_bar_is_marked_stalled_while_a_row_hangs() -> None:
    out = io.StringIO()
    progress = Progress("scoring", "rows", 10, "bar", file=out, stalled=0.2)
    progress.update(1)
    time.sleep(1.4)  # the bar is looked at once a second
    progress.close()
    assert "stalled, nothing done for 1s" in out.getvalue(), out.getvalue()
