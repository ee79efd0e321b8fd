"""`scorebridge score --out` over a file that exists: `--resume` scores only what it lacks, `--force` overwrites,
neither is refused; a file made by other scorers, options, fields or input is refused, naming the difference."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from scorebridge._cli.main import main
from scorebridge._runner.scored import read_scored

COUNTING = """\
from pathlib import Path

from scorebridge import scorer


@scorer
def counting(item, output, label, *, flaky=""):
    with open("calls.txt", "a", encoding="utf-8") as f:
        f.write(output + "\\n")
    if output in flaky.split(";"):  # as model_graded_qa records a row whose grader failed
        return {"correct": None, "outcome": None, "failure_kind": None, "metadata": {"grader_failed": "HTTP 500"}}
    return output == label
"""


def rows(n: int) -> str:
    return "".join(json.dumps({"output": str(i), "label": str(i if i % 4 else -1)}) + "\n" for i in range(n))


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with counting.py (a scorer that appends each output it scores to calls.txt) and 20 rows."""
    (tmp_path / "counting.py").write_text(COUNTING, encoding="utf-8")
    (tmp_path / "data.jsonl").write_text(rows(20), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    return tmp_path


def score(capsys: pytest.CaptureFixture[str], *more: str, scorer: str = "counting.py@counting") -> tuple[int, str]:
    status = main(["score", "data.jsonl", "--scorer", scorer, "--out", "scored.jsonl", "--format", "json", *more])
    out, err = capsys.readouterr()
    return status, out if status == 0 else err


def calls(folder: Path) -> list[str]:
    return (folder / "calls.txt").read_text(encoding="utf-8").split()


def keep_first(folder: Path, n: int) -> None:
    """Cut scored.jsonl to its header and first n rows, as a run stopped there leaves it."""
    lines = (folder / "scored.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / "scored.jsonl").write_text("".join(lines[: 1 + n]), encoding="utf-8")
    (folder / "calls.txt").unlink()


def test_a_rerun_over_an_existing_out_is_refused_with_exit_2(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The second run opened --out with "w": it scored every row again, over the first run's file.
    assert score(capsys)[0] == 0
    before = (folder / "scored.jsonl").read_bytes()
    status, err = score(capsys)
    assert status == 2 and "use --resume to score only the rows it lacks, or --force" in err
    assert (folder / "scored.jsonl").read_bytes() == before and len(calls(folder)) == 20


def test_resume_scores_only_the_rows_the_file_lacks_and_counts_the_whole_file(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, whole = score(capsys)
    keep_first(folder, 7)
    status, resumed = score(capsys, "--resume")
    assert status == 0 and json.loads(resumed) == json.loads(whole)
    assert sorted(calls(folder), key=int) == [str(i) for i in range(7, 20)]
    assert sorted(line for line, _, _ in read_scored(folder / "scored.jsonl")) == list(range(1, 21))


def test_resume_asks_again_only_the_rows_whose_grader_failed(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # benchmark(out=) and a rerun never asked again about the rows whose grader failed
    assert score(capsys, "-S", "flaky=3;5")[0] == 0
    # the grader is back: the same scorer and options, a file that says the rows 3 and 5 failed
    (folder / "calls.txt").unlink()
    (folder / "counting.py").write_text(COUNTING.replace("if output in flaky", "if False and output in flaky"))
    status, resumed = score(capsys, "--resume", "-S", "flaky=3;5")
    assert status == 0 and sorted(calls(folder)) == ["3", "5"]
    assert json.loads(resumed)["unscored"] == 0 and json.loads(resumed)["rows"] == 20
    lines = [line for line, _, _ in read_scored(folder / "scored.jsonl")]
    assert sorted(lines) == list(range(1, 21))  # each row once: the failed rows' lines left the file


def test_resume_under_another_scorer_is_refused_naming_both(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert score(capsys)[0] == 0
    status, err = score(capsys, "--resume", scorer="exact")
    assert status == 2
    assert "its rows were scored by counting(flaky='')" in err and "this run scores with exact(normalise=True)" in err


def test_resume_over_another_input_is_refused_naming_both_files(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert score(capsys)[0] == 0
    (folder / "data.jsonl").write_text(rows(21), encoding="utf-8")
    status, err = score(capsys, "--resume")
    assert status == 2 and "they were read from data.jsonl (" in err and "this run reads data.jsonl (" in err


def test_resume_with_other_fields_is_refused(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert score(capsys)[0] == 0
    status, err = score(capsys, "--resume", "--label-field", "output")
    assert status == 2 and "label label" in err and "label output" in err


def test_force_scores_every_row_again_and_overwrites(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert score(capsys)[0] == 0
    status, _ = score(capsys, "--force")
    assert status == 0 and len(calls(folder)) == 40
    assert len((folder / "scored.jsonl").read_text(encoding="utf-8").splitlines()) == 21


def test_resume_without_a_file_scores_every_row(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _ = score(capsys, "--resume")  # so a CI job can always pass --resume
    assert status == 0 and len(calls(folder)) == 20


def test_a_cut_last_line_is_dropped_and_its_row_scored_again(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a kill mid-write leaves half a line: a resume must neither misread it nor stop on it
    assert score(capsys)[0] == 0
    lines = (folder / "scored.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / "scored.jsonl").write_text("".join(lines[:6]) + lines[6][:30], encoding="utf-8")
    (folder / "calls.txt").unlink()
    with pytest.warns(UserWarning, match=r"scored.jsonl:7: dropped an incomplete last record"):
        status, _ = score(capsys, "--resume")
    assert status == 0 and sorted(calls(folder), key=int) == [str(i) for i in range(5, 20)]


@pytest.mark.parametrize(("flag", "out"), [("--resume", "-"), ("--force", None)])
def test_resume_and_force_need_an_out_file(
    folder: Path, capsys: pytest.CaptureFixture[str], flag: str, out: Any
) -> None:
    argv = ["score", "data.jsonl", "--scorer", "exact", flag] + ([] if out is None else ["--out", out])
    assert main(argv) == 2
    assert f"{flag} is for an --out file" in capsys.readouterr().err


def test_a_file_without_the_header_is_not_resumed(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "scored.jsonl").write_text(json.dumps({"line": 1, "output": "0"}) + "\n", encoding="utf-8")
    status, err = score(capsys, "--resume")
    assert status == 2 and "does not start with the header scorebridge score writes" in err and "--force" in err


@pytest.mark.parametrize("flag", [["--timeout", "1"], ["--on-bad-row", "skip"]])  # --resume it does (open_out)
def test_the_ray_engine_refuses_what_it_does_not_do_rather_than_drop_it(
    folder: Path, capsys: pytest.CaptureFixture[str], flag: list[str]
) -> None:
    argv = ["score", "data.jsonl", "--scorer", "exact", "--engine", "ray", "--out", "scored.jsonl", *flag]
    assert main(argv) == 2
    assert f"{flag[0]} is for the local engine; --engine ray does not take it" in capsys.readouterr().err


def test_the_ray_engine_refuses_an_existing_out_without_force(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert score(capsys)[0] == 0
    assert main(["score", "data.jsonl", "--scorer", "exact", "--engine", "ray", "--out", "scored.jsonl"]) == 2
    assert "use --resume to score only the rows it lacks, or --force" in capsys.readouterr().err


JUDGES = """\
import openai

import scorebridge as sb

client = openai.OpenAI(base_url="http://127.0.0.1:9/v1", api_key="test-key")
judge_a = sb.model_graded_qa(sb.openai_grader(client, model="judge-a"), retry=None)
judge_b = sb.model_graded_qa(sb.openai_grader(client, model="judge-b"), retry=None)
"""


def test_resume_under_another_grader_model_is_refused_naming_both(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the grader was recorded by its type alone ("<_OpenAIGrader>"): --resume went on under another model, and
    # one file held two models' grades
    (folder / "judges.py").write_text(JUDGES, encoding="utf-8")
    (folder / "data.jsonl").write_text('{"output": "Paris", "label": null}\n', encoding="utf-8")  # never graded
    assert score(capsys, scorer="judges.py@judge_a")[0] == 0
    status, err = score(capsys, "--resume", scorer="judges.py@judge_b")
    assert status == 2 and "judge-a" in err and "judge-b" in err
