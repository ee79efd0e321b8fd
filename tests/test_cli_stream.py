"""`scorebridge score` in pipelines and CI: stdin, rows streamed to --out, the output checked first, a closed
pipe, Ctrl-C, the progress bar, hostile rows, Parquet, and the hand-off to the Ray engine."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from scorebridge._cli.main import main

SCRIPT = str(Path(sys.executable).parent / "scorebridge")
SLOW = """\
import time
from pathlib import Path

from scorebridge import scorer


@scorer
def slow(item, output, label, *, seconds=0.01):
    Path("called").touch()
    time.sleep(seconds)
    return output == label
"""


def rows(n: int) -> str:
    return "".join(json.dumps({"output": str(i), "label": str(i if i % 4 else -1)}) + "\n" for i in range(n))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with slow.py (a scorer that marks it was called) and 40 rows, as the current folder."""
    (tmp_path / "slow.py").write_text(SLOW, encoding="utf-8")
    (tmp_path / "data.jsonl").write_text(rows(40), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    return tmp_path


def test_dash_reads_jsonl_from_stdin(tmp_path: Path) -> None:
    done = subprocess.run(
        [SCRIPT, "score", "-", "--scorer", "exact", "--format", "json"],
        input=rows(8),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert (json.loads(done.stdout)["rows"], json.loads(done.stdout)["correct"]) == (8, 6)


def test_dash_reads_csv_from_stdin_with_input_format(tmp_path: Path) -> None:
    done = subprocess.run(
        [SCRIPT, "score", "-", "--scorer", "exact", "--input-format", "csv", "--format", "json"],
        input="output,label\nParis,paris\nRome,Milan\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(done.stdout)["correct"] == 1


def test_errors_on_stdin_are_named_stdin(tmp_path: Path) -> None:
    done = subprocess.run(
        [SCRIPT, "score", "-", "--scorer", "exact"], input='{"output": 1}\n', capture_output=True, text=True
    )
    assert (done.returncode, done.stderr) == (1, "<stdin>:1: no field 'label'; the row has output\n")


def test_an_empty_stdin_is_an_error() -> None:
    done = subprocess.run([SCRIPT, "score", "-", "--scorer", "exact"], input="", capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (1, "<stdin>: holds no rows\n")


def test_parquet_from_stdin_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "score", "-", "--scorer", "exact", "--input-format", "parquet")
    assert status == 2
    assert "Parquet cannot be read from standard input" in err


def test_out_dash_streams_the_rows_to_stdout_and_the_summary_to_stderr(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "score", "data.jsonl", "--scorer", "exact", "--out", "-", "--format", "json")
    assert status == 0
    assert [json.loads(line)["line"] for line in out.splitlines()] == list(range(1, 41))
    assert json.loads(err)["rows"] == 40


def test_rows_scored_before_a_bad_row_are_written(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # rows go to --out as they are scored, not all at the end
    with (folder / "data.jsonl").open("a", encoding="utf-8") as f:
        f.write('{"output": "x"}\n')
    status, _, err = run(capsys, "score", "data.jsonl", "--scorer", "exact", "--out", "scored.jsonl")
    assert status == 1
    assert err == "data.jsonl:41: no field 'label'; the row has output\n"
    assert len((folder / "scored.jsonl").read_text(encoding="utf-8").splitlines()) == 1 + 40


@pytest.mark.parametrize(
    ("out", "message"),
    [
        ("no/such/folder/scored.jsonl", "no/such/folder/scored.jsonl: cannot be written: no folder "),
        (".", ".: cannot be written: it is a folder"),
    ],
)
def test_an_out_that_cannot_be_written_is_found_before_any_row_is_scored(
    folder: Path, capsys: pytest.CaptureFixture[str], out: str, message: str
) -> None:
    # The bug: a bad --out folder was found only after every row had been scored.
    status, _, err = run(capsys, "score", "data.jsonl", "--scorer", "slow.py@slow", "--out", out)
    assert status == 1
    assert err.startswith(message)
    assert not (folder / "called").exists()


def test_out_may_not_be_the_input(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "score", "data.jsonl", "--scorer", "exact", "--out", "./data.jsonl")
    assert status == 2
    assert "is the input file; it would be overwritten" in err
    assert (folder / "data.jsonl").read_text(encoding="utf-8") == rows(40)


def test_a_missing_input_leaves_no_out_file(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, _ = run(capsys, "score", "missing.jsonl", "--scorer", "exact", "--out", "scored.jsonl")
    assert status == 1
    assert not (folder / "scored.jsonl").exists()


def test_out_as_parquet_is_left_to_the_ray_engine(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "score", "data.jsonl", "--scorer", "exact", "--out", "scored.parquet")
    assert status == 2
    assert "this engine writes JSONL; Parquet is written by --engine ray" in err


def test_a_closed_pipe_ends_the_run_quietly(folder: Path) -> None:
    # The bug: `| head -1` printed "Broken pipe" (and a traceback) and exited 1.
    (folder / "many.jsonl").write_text(rows(20_000), encoding="utf-8")
    reader = subprocess.Popen(
        [SCRIPT, "score", "many.jsonl", "--scorer", "exact", "--out", "-"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert reader.stdout is not None and reader.stderr is not None
    first = reader.stdout.readline()
    reader.stdout.close()  # as `head -1` does
    status = reader.wait(timeout=60)
    assert json.loads(first)["line"] == 1
    assert (status, reader.stderr.read()) == (141, b"")


def test_ctrl_c_exits_130_with_one_line_saying_how_many_rows_were_written(folder: Path) -> None:
    # The bug: Ctrl-C printed a raw traceback.
    (folder / "data.jsonl").write_text(rows(10_000), encoding="utf-8")
    scoring = subprocess.Popen(
        [SCRIPT, "score", "data.jsonl", "--scorer", "slow.py@slow", "-S", "seconds=0.002", "--out", "scored.jsonl"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as at a terminal, even where the suite runs in a background job (whose children ignore SIGINT)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while not (folder / "called").exists() and time.monotonic() < deadline:  # scoring has begun
        time.sleep(0.05)
    time.sleep(0.3)
    scoring.send_signal(signal.SIGINT)
    out, err = scoring.communicate(timeout=60)
    written = (folder / "scored.jsonl").read_text(encoding="utf-8").splitlines()[1:]
    assert (scoring.returncode, out) == (130, "")
    assert 0 < len(written) < 10_000
    assert [json.loads(line)["line"] for line in written] == list(range(1, len(written) + 1))  # whole lines
    [line] = err.splitlines()
    assert line.startswith("scorebridge score: interrupted after ")
    assert line.endswith(f"scored rows; {len(written)} rows written to scored.jsonl; --resume goes on from there")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_a_progress_bar_is_shown_on_a_terminal_only(folder: Path) -> None:
    import fcntl
    import pty
    import struct
    import termios

    command = [SCRIPT, "score", "data.jsonl", "--scorer", "slow.py@slow", "-S", "seconds=0.03", "--concurrency", "1"]
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))  # a new one is 0 wide
    with_terminal = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    with_terminal.wait(timeout=60)
    piped = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert b"scoring: " in shown and b" rows" in shown
    assert (piped.returncode, piped.stderr) == (0, "")


# --- hostile rows ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('{"output": "1", "label": ' + "9" * 5000 + "}", "not readable JSON (a number of more than 4300 digits)"),
        ('{"output": "1", "label": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    ],
    ids=["a 5000-digit number", "arrays nested 100000 deep"],
)
def test_a_hostile_row_is_file_line_problem(
    folder: Path, capsys: pytest.CaptureFixture[str], line: str, problem: str
) -> None:
    (folder / "data.jsonl").write_text('{"output": "a", "label": "a"}\n' + line + "\n", encoding="utf-8")
    status, out, err = run(capsys, "score", "data.jsonl", "--scorer", "exact")
    assert (status, out) == (1, "")
    [message] = err.splitlines()
    assert message.startswith("data.jsonl:2: ")
    assert problem in message


def test_nan_is_written_back_as_null_and_infinity_as_its_text(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # an Infinity label was written as null, which means "no label", though the row was scored against "inf"
    (folder / "data.jsonl").write_text(
        '{"output": "x", "label": NaN, "extra": [Infinity, -Infinity, 1.5]}\n', encoding="utf-8"
    )
    status, _, _ = run(capsys, "score", "data.jsonl", "--scorer", "exact", "--out", "scored.jsonl")

    def refuse(token: str) -> Any:
        raise ValueError(f"non-standard JSON: {token}")

    [line] = (folder / "scored.jsonl").read_text(encoding="utf-8").splitlines()[1:]
    written = json.loads(line, parse_constant=refuse)
    assert status == 0
    assert {k: written[k] for k in ("output", "label", "extra")} == {
        "output": "x",
        "label": None,
        "extra": ["inf", "-inf", 1.5],
    }
    assert written["exact.correct"] is None  # a NaN label is no label


# --- Parquet ---------------------------------------------------------------------------


def test_parquet_is_read_when_pyarrow_is_there(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    table = pa.table({"output": [str(i) for i in range(3000)], "label": [str(i if i % 3 else -1) for i in range(3000)]})
    pq.write_table(table, folder / "data.parquet", row_group_size=1000)
    status, out, _ = run(capsys, "score", "data.parquet", "--scorer", "exact", "--format", "json", "--out", "s.jsonl")
    assert (status, json.loads(out)["rows"], json.loads(out)["correct"]) == (0, 3000, 2000)
    last = json.loads((folder / "s.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert (last["line"], last["output"], last["label"]) == (3000, "2999", "2999")  # the row's number


def test_parquet_without_pyarrow_says_what_to_install(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (folder / "data.parquet").write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if it were not installed
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    status, _, err = run(capsys, "score", "data.parquet", "--scorer", "exact")
    assert (status, err) == (1, "data.parquet: reading Parquet needs pyarrow: pip install pyarrow\n")


# --- the Ray engine --------------------------------------------------------------------


def test_engine_ray_without_ray_says_what_to_install(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "scorebridge._cli.ray_engine", None)  # as without the Ray extra
    status, out, err = run(capsys, "score", "data.jsonl", "--scorer", "exact", "--engine", "ray")
    assert (status, out) == (2, "")
    assert 'scorebridge score: --engine ray needs Ray: pip install "scorebridge[ray]"' in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["data.jsonl", "--address", "auto"], "--address is for --engine ray"),
        (["-", "--engine", "ray"], "--engine ray reads files, not standard input"),
    ],
)
def test_ray_only_arguments_are_checked(
    folder: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, _, err = run(capsys, "score", *argv, "--scorer", "exact")
    assert status == 2
    assert message in err
