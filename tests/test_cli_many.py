"""`scorebridge score`: --concurrency, --on-error, several --scorer, -S checked first, and unreadable grades.

Through the real command (`main([...])`), on files of a folder of its own.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import scorebridge as sb
from scorebridge._cli.main import DEFAULT_CONCURRENCY, main
from scorebridge._protocol.scorer import DEFAULT_CONCURRENCY as SCORE_MANYS
from scorebridge._runner.scored import read_scored

SCORERS = """\
import asyncio
import threading
import time
from pathlib import Path

from scorebridge import scorer

_lock = threading.Lock()
_now = {"calls": 0, "most": 0}


def _enter():
    with _lock:
        _now["calls"] += 1
        _now["most"] = max(_now["most"], _now["calls"])
        Path("most").write_text(str(_now["most"]))


def _leave():
    with _lock:
        _now["calls"] -= 1


@scorer
async def waits(item, output, label, *, seconds=0.02):
    _enter()
    await asyncio.sleep(seconds)
    _leave()
    return output == label


@scorer
def blocks(item, output, label, *, seconds=0.02):
    _enter()
    time.sleep(seconds)
    _leave()
    return output == label


@scorer
def first_is_slowest(item, output, label):
    time.sleep(0.2 if output == "0" else 0.0)
    return output == label


_started = [0]


@scorer
def head_waits(item, output, label):
    with _lock:
        _started[0] += 1
    if output == "0":
        time.sleep(0.5)
        Path("started").write_text(str(_started[0]))
    return output == label


@scorer
def fragile(item, output, label):
    if output == "b":
        raise ValueError("no b")
    return output == label


@scorer
async def fragile_too(item, output, label):
    if output == "b":
        raise KeyError("no b either")
    return output == label


@scorer
def words(item, output, label):
    return "maybe" if output == "b" else "yes" if output == "c" else "C"


@scorer
def within(item, output, label, *, tolerance: float = 0.01):
    Path("called").touch()
    return abs(float(output) - float(label)) <= tolerance * abs(float(label))


@scorer
def near(item, output, label, *, tolerance=0.5, strict=False):
    return abs(float(output) - float(label)) <= tolerance


@scorer
def stars(item, output, label):
    return {"correct": True, "value": 2.0 if output == "b" else 3.0}
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "mine.py").write_text(SCORERS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    for name in [m for m in sys.modules if m == "mine"]:
        monkeypatch.delitem(sys.modules, name)
    return tmp_path


def data(folder: Path, rows: list[dict[str, Any]]) -> str:
    (folder / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return "data.jsonl"


ABC = [{"output": "a", "label": "a"}, {"output": "b", "label": "a"}, {"output": "c", "label": "c"}]
NUMBERS = [{"output": str(i), "label": str(i)} for i in range(40)]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["score", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def written(folder: Path, name: str = "scored.jsonl") -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / name).read_text(encoding="utf-8").splitlines()[1:]]


# --- --concurrency -------------------------------------------------------------------------


def test_the_default_concurrency_is_score_manys() -> None:
    assert DEFAULT_CONCURRENCY == SCORE_MANYS == 16


@pytest.mark.parametrize("scorer", ["waits", "blocks"], ids=["async", "blocking sync"])
def test_waiting_scorers_run_concurrency_rows_at_once(
    folder: Path, capsys: pytest.CaptureFixture[str], scorer: str
) -> None:
    status, _, _ = run(capsys, data(folder, NUMBERS), "--scorer", f"mine.py@{scorer}", "--concurrency", "5")
    assert status == 0
    assert (folder / "most").read_text() == "5"  # never more, and really overlapping


def test_concurrency_1_scores_one_row_at_a_time(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, data(folder, NUMBERS[:10]), "--scorer", "mine.py@waits", "--concurrency", "1")
    assert (folder / "most").read_text() == "1"


def test_rows_are_written_in_the_inputs_order_when_later_rows_finish_first(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, _ = run(capsys, data(folder, NUMBERS), "--scorer", "mine.py@first_is_slowest", "--out", "scored.jsonl")
    assert status == 0
    assert [row["line"] for row in written(folder)] == list(range(1, 41))


def test_a_slow_row_does_not_hold_back_the_rows_after_it(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The window waited on its first row once it held 2 x N rows: one hung row stopped every other for its
    # whole length. Now the rows after it go on being scored while it waits, and are written after it.
    run(capsys, data(folder, NUMBERS), "--scorer", "mine.py@head_waits", "--concurrency", "4", "--out", "scored.jsonl")
    assert (folder / "started").read_text() == "40"
    assert [row["line"] for row in written(folder)] == list(range(1, 41))


def test_rows_held_behind_a_slow_row_are_bounded(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # memory flat in the number of rows: while row 1 waits, at most HELD x N rows are read and scored, not all
    monkeypatch.setattr("scorebridge._cli.score.HELD", 3)
    run(capsys, data(folder, NUMBERS), "--scorer", "mine.py@head_waits", "--concurrency", "4", "--out", "scored.jsonl")
    assert (folder / "started").read_text() == "12"
    assert len(written(folder)) == 40


@pytest.mark.parametrize("n", ["0", "-1", "two"])
def test_concurrency_is_a_whole_number_of_at_least_1(n: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["score", "x.jsonl", "--scorer", "exact", "--concurrency", n])
    assert exit_.value.code == 2
    assert "expected a whole number, at least 1" in capsys.readouterr().err


def test_the_summary_of_concurrent_scoring_is_summary_of(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"output": str(i % 3), "label": "0" if i % 5 else None} for i in range(50)]
    _, out, _ = run(capsys, data(folder, rows), "--scorer", "mine.py@blocks", "--format", "json")
    expected = sb.Summary.of("blocks", [sb.exact()(None, r["output"], r["label"]) for r in rows])
    assert json.loads(out) == {**expected.as_dict(), "name": "blocks"}


# --- --on-error ----------------------------------------------------------------------------


def test_on_error_record_counts_a_raising_row_wrong_and_prints_the_summary(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [{"output": "a", "label": "a"}, {"output": "b", "label": "a"}, {"output": "c", "label": "d"}]
    status, out, err = run(
        capsys, data(folder, rows), "--scorer", "mine.py@fragile", "--on-error", "record", "--format", "json"
    )
    summary = json.loads(out)
    assert (status, err) == (0, "")
    assert (summary["rows"], summary["scored"], summary["failure_kinds"]["error"]) == (3, 3, 1)
    assert summary["accuracy"] == pytest.approx(1 / 3)  # right, raised, wrong: 0.333 over 3, as in every harness


def test_on_error_record_writes_the_exception_in_the_rows_explanation(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, data(folder, ABC), "--scorer", "mine.py@fragile", "--on-error", "record", "--out", "scored.jsonl")
    row = written(folder)[1]
    assert (row["fragile.failure_kind"], row["fragile.explanation"]) == (
        "error",
        "the scorer raised ValueError('no b')",
    )


def test_on_error_raise_is_one_line_naming_the_scorer_and_the_line(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, data(folder, ABC), "--scorer", "mine.py@fragile", "--concurrency", "4")
    assert (status, out) == (1, "")
    [line] = err.splitlines()
    assert line.startswith("data.jsonl:2: the scorer 'fragile' raised ValueError: no b (mine.py, line ")


def test_two_scorers_raising_on_one_row_are_one_line_naming_the_first(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, data(folder, ABC), "--scorer", "mine.py@fragile", "--scorer", "mine.py@fragile_too")
    [line] = err.splitlines()  # nothing else: no "Task exception was never retrieved"
    assert status == 1
    assert line.startswith("data.jsonl:2: the scorer 'fragile' raised ValueError: no b")


def test_on_error_raise_writes_the_rows_before_the_raising_one(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, data(folder, ABC), "--scorer", "mine.py@fragile", "--out", "scored.jsonl")
    assert [row["line"] for row in written(folder)] == [1]


# --- several --scorer ------------------------------------------------------------------------


def test_two_scorers_print_two_summary_lines(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, data(folder, ABC), "--scorer", "exact", "--scorer", "mine.py@fragile", "--on-error", "record"
    )
    table = out.splitlines()
    assert status == 0
    assert table[0] == "data.jsonl: 3 rows scored with <Scorer exact(normalise=True)>, <Scorer fragile fn=fragile>"
    assert [line.split()[:4] for line in table[3:]] == [["exact", "3", "3", "2"], ["fragile", "3", "3", "2"]]


def test_two_scorers_print_one_json_line_each(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, data(folder, ABC), "--scorer", "exact", "--scorer", "detect_match", "--format", "json")
    assert [json.loads(line)["name"] for line in out.splitlines()] == ["exact", "detect_match"]


def test_each_row_carries_every_scorers_score(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, data(folder, ABC), "--scorer", "exact", "--scorer", "mine.py@waits", "--out", "scored.jsonl")
    row = written(folder)[1]
    assert (row["output"], row["exact.grade"], row["waits.grade"], row["exact.outcome"]) == ("b", "I", "I", "b")


def test_two_scorers_of_one_name_are_told_apart_as_inspect_does(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(capsys, data(folder, ABC), "--scorer", "exact", "--scorer", "exact", "--format", "json")
    assert [json.loads(line)["name"] for line in out.splitlines()] == ["exact", "exact1"]


def test_each_scorer_below_fail_under_is_named_and_fails_the_run(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(
        capsys, data(folder, ABC), "--scorer", "mine.py@stars", "--scorer", "exact", "--fail-under", "1"
    )
    assert status == 3
    assert err.splitlines() == ["scorebridge score: exact: accuracy 0.6667 over 3 scored rows: below --fail-under 1"]


def test_an_option_goes_to_every_scorer_that_has_it(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"output": "1.3", "label": "1"}]
    argv = ["--scorer", "mine.py@within", "--scorer", "mine.py@near", "--scorer", "exact", "-S", "tolerance=0.4"]
    status, out, _ = run(capsys, data(folder, rows), *argv)
    assert status == 0
    assert (
        "<Scorer within(tolerance=0.4)>, <Scorer near(tolerance=0.4, strict=False)>, <Scorer exact(normalise=True)>"
        in out
    )


def test_an_option_no_scorer_has_is_refused_naming_their_options(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, data(folder, ABC), "--scorer", "mine.py@within", "--scorer", "exact", "-S", "tol=1")
    assert status == 2
    assert err.strip() == (
        "scorebridge score: -S tol: none of the scorers has that option (each -S goes to every scorer that has it); "
        "their options: mine.py@within: tolerance; exact: normalise"
    )


# --- -S checked before any row ---------------------------------------------------------------


def test_an_option_value_of_the_wrong_type_is_refused_before_row_1(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(
        capsys, data(folder, [{"output": "1", "label": "1"}]), "--scorer", "mine.py@within", "-S", "tolerance=abc"
    )
    assert (status, out) == (2, "")
    assert err.splitlines() == [
        "scorebridge score: mine.py@within: -S tolerance=abc: tolerance takes a number (its default is 0.01), "
        "not 'abc' (text)"
    ]
    assert not (folder / "called").exists()  # no row was scored


def test_an_unannotated_option_is_checked_against_its_defaults_type(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, data(folder, ABC), "--scorer", "mine.py@near", "-S", "strict=sometimes")
    assert status == 2
    assert "-S strict=sometimes: strict takes True or False (its default is False), not 'sometimes' (text)" in err


def test_an_int_is_a_number_for_a_float_option(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        run(capsys, data(folder, [{"output": "1", "label": "1"}]), "--scorer", "mine.py@within", "-S", "tolerance=1")[0]
        == 0
    )


# --- unreadable grades -----------------------------------------------------------------------


def test_an_unreadable_grade_is_reported_once_with_the_count_and_the_first_line(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [{"output": "a", "label": "a"}, {"output": "b", "label": "a"}, {"output": "c", "label": "a"}] * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status, _, err = run(capsys, data(folder, rows), "--scorer", "mine.py@words", "--concurrency", "3")
    assert caught == []  # not one anonymous UserWarning per row
    assert status == 0
    assert err.splitlines() == [
        "scorebridge score: words returned a grade no rule reads on 4 rows (the first: data.jsonl:2, 'maybe'), "
        "recorded unscored; a grade is True or False, a number, or C, P, I, correct, partial, incorrect, pass, fail"
    ]


def test_a_run_of_unreadable_grades_fails_fail_under(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"output": "b", "label": "a"}]
    status, _, err = run(capsys, data(folder, rows), "--scorer", "mine.py@words", "--fail-under", "0")
    assert status == 3
    assert "no row was scored" in err


# --- reading --out back ---------------------------------------------------------------------


def test_read_scored_reads_the_rows_and_every_scorers_score(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, data(folder, ABC), "--scorer", "exact", "--scorer", "detect_match", "--out", "scored.jsonl")
    [(line, row, scores), *_] = list(read_scored(folder / "scored.jsonl"))
    assert (line, row) == (1, ABC[0])
    assert scores == {"exact": sb.exact()(None, "a", "a"), "detect_match": sb.detect_match()(None, "a", "a")}


def test_read_scored_reads_the_shape_written_before(folder: Path) -> None:
    score = sb.exact()(None, "a", "b")
    (folder / "old.jsonl").write_text(json.dumps({"line": 4, "row": ABC[0], "score": score.as_dict()}) + "\n")
    assert list(read_scored(folder / "old.jsonl")) == [(4, ABC[0], {"": score})]
