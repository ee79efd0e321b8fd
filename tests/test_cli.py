"""The `scorebridge` command: `score` a file with a built-in scorer, `list` the scorers, `--version`, the help.

Also `read_rows`, the reader of JSONL and CSV files with line numbers that `score` uses.
Loading a scorer of yours is in test_cli_load.py, `-S` in test_cli_options.py, streaming,
stdin and interruptions in test_cli_stream.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

import scorebridge as sb
from scorebridge._cli.main import build_parser, main
from scorebridge._scorers import builtins as _builtins
from scorebridge.kit import RowError, read_rows

ROWS: list[dict[str, Any]] = [
    {"item": "Capital of France?", "output": "Paris", "label": "paris"},
    {"item": "Capital of Italy?", "output": "Milan", "label": "Rome"},
    {"item": "Capital of Spain?", "output": "", "label": "Madrid"},
    {"item": "Capital of Peru?", "output": "Lima", "label": None},
]
SCRIPT = Path(sys.executable).parent / "scorebridge"


def jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_score_prints_counts_accuracy_interval_and_failure_kinds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "score", str(jsonl(tmp_path / "o.jsonl", ROWS)), "--scorer", "exact")
    assert status == 0
    header, _, row = out.splitlines()[1:4]
    columns = ["scorer", "rows", "scored", "correct", "accuracy", "95%", "CI", "parse_failure", "wrong", "unscored"]
    assert header.split() == columns
    assert row.split() == ["exact", "4", "3", "1", "0.333", "[0.061,", "0.792]", "1", "1", "1"]
    assert "4 rows scored with <Scorer exact(normalise=True)>" in out


def test_format_json_prints_the_summary_as_one_line_of_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = jsonl(tmp_path / "o.jsonl", ROWS)
    status, out, _ = run(capsys, "score", str(data), "--scorer", "exact", "--format", "json")
    assert status == 0
    assert out.count("\n") == 1
    expected = sb.Summary.of("exact", [sb.exact()(r["item"], r["output"], r["label"]) for r in ROWS]).as_dict()
    assert json.loads(out) == expected


def test_fail_under_exits_3_with_the_accuracy_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = jsonl(tmp_path / "o.jsonl", ROWS)
    status, out, err = run(capsys, "score", str(data), "--scorer", "exact", "--fail-under", "0.5", "--format", "json")
    assert status == 3
    assert json.loads(out)["accuracy"] == pytest.approx(1 / 3)  # the summary is printed all the same
    assert err.strip() == "scorebridge score: accuracy 0.3333 over 3 scored rows: below --fail-under 0.5"


def test_fail_under_passes_at_the_bar_itself(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = jsonl(tmp_path / "o.jsonl", ROWS[:2])  # accuracy 0.5
    status, _, err = run(capsys, "score", str(data), "--scorer", "exact", "--fail-under", "0.5")
    assert (status, err) == (0, "")


def test_fail_under_fails_when_no_row_was_scored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # an accuracy that does not exist is not above any bar: CI must not pass on a file of unlabelled rows
    data = jsonl(tmp_path / "o.jsonl", [ROWS[3]])
    status, _, err = run(capsys, "score", str(data), "--scorer", "exact", "--fail-under", "0")
    assert status == 3
    assert "no row was scored" in err


@pytest.mark.parametrize("bar", ["high", "nan", "inf"])
def test_fail_under_takes_a_finite_number(bar: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["score", "x.jsonl", "--scorer", "exact", "--fail-under", bar])
    assert exit_.value.code == 2
    assert "expected a" in capsys.readouterr().err


def test_fail_under_above_1_is_a_bar_on_a_scorers_own_scale(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the bug: --fail-under refused anything above 1, so a 0-5 scorer could never fail the gate
    (tmp_path / "stars.py").write_text(
        "from scorebridge import scorer\n\n\n@scorer\ndef stars(item, output, label):\n"
        "    return {'correct': True, 'value': 2.0 if output == 'b' else 3.0}\n",
        encoding="utf-8",
    )
    data = jsonl(tmp_path / "o.jsonl", [{"output": "a", "label": "a"}, {"output": "b", "label": "a"}])  # mean 2.5
    status, _, err = run(capsys, "score", str(data), "--scorer", f"{tmp_path}/stars.py@stars", "--fail-under", "3")
    assert status == 3
    assert err.strip() == "scorebridge score: accuracy 2.5000 over 2 scored rows: below --fail-under 3"


def test_fail_under_at_or_below_a_scorers_own_mean_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "stars.py").write_text(
        "from scorebridge import scorer\n\n\n@scorer\ndef stars(item, output, label):\n"
        "    return {'correct': True, 'value': 2.5}\n",
        encoding="utf-8",
    )
    data = jsonl(tmp_path / "o.jsonl", [{"output": "a", "label": "a"}])
    assert run(capsys, "score", str(data), "--scorer", f"{tmp_path}/stars.py@stars", "--fail-under", "2.5")[0] == 0


def test_score_reads_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "o.csv"
    data.write_text("item,output,label\nq1,Paris,paris\nq2,Lyon,Paris\n", encoding="utf-8")
    status, out, _ = run(capsys, "score", str(data), "--scorer", "exact")
    assert status == 0
    assert out.splitlines()[3].split()[:5] == ["exact", "2", "2", "1", "0.500"]


def test_input_format_overrides_the_extension(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "o.txt"
    data.write_text('{"output": "Paris", "label": "Paris"}\n', encoding="utf-8")
    status, out, _ = run(capsys, "score", str(data), "--scorer", "exact", "--input-format", "jsonl")
    assert status == 0
    assert out.splitlines()[3].split()[:4] == ["exact", "1", "1", "1"]


def test_csv_without_the_output_column_fails_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "o.csv"
    data.write_text("item,label\nq1,paris\n", encoding="utf-8")
    status, out, err = run(capsys, "score", str(data), "--scorer", "exact")
    assert status == 1
    assert err.strip() == f"{data}:2: no field 'output'; the row has item, label"
    assert out == ""


def test_jsonl_with_bad_json_fails_with_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = jsonl(tmp_path / "o.jsonl", ROWS[:2])
    with data.open("a", encoding="utf-8") as f:
        f.write('{"output": "x", "label"\n')
    status, _, err = run(capsys, "score", str(data), "--scorer", "exact")
    assert status == 1
    assert err.startswith(f"{data}:3: not valid JSON")


def test_jsonl_line_that_is_not_an_object_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "o.jsonl"
    data.write_text('["Paris", "paris"]\n', encoding="utf-8")
    status, _, err = run(capsys, "score", str(data), "--scorer", "exact")
    assert status == 1
    assert err.strip() == f"{data}:1: expected a JSON object, got a JSON list"


def test_a_label_the_scorer_cannot_read_fails_with_the_line_and_the_scorer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = jsonl(tmp_path / "o.jsonl", [ROWS[0], {"output": "Paris", "label": {"city": "Paris"}}])
    status, _, err = run(capsys, "score", str(data), "--scorer", "exact")
    assert status == 1
    assert err.startswith(f"{data}:2: exact: a label must be a string")


def test_missing_file_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "score", str(tmp_path / "nothing.jsonl"), "--scorer", "exact")
    assert status == 1
    assert "No such file" in err


def test_an_empty_file_is_an_error_as_in_the_pytest_plugin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # An empty file used to exit 0 ("0 rows scored") while the pytest plugin refused the same file.
    data = tmp_path / "o.jsonl"
    data.write_text("\n\n", encoding="utf-8")
    status, out, err = run(capsys, "score", str(data), "--scorer", "exact", "--format", "json")
    assert (status, out) == (1, "")
    assert err.strip() == f"{data}: holds no rows"


def test_unknown_extension_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "o.txt"
    data.write_text("Paris\n", encoding="utf-8")
    status, _, err = run(capsys, "score", str(data), "--scorer", "exact")
    assert status == 1
    # it left out Parquet, which the command reads; --engine ray accepted .pq where this did not
    assert "o.txt: unknown format for the input; the file name must end in .jsonl, .ndjson, .csv, .parquet, .pq" in err


def test_unknown_scorer_fails_with_the_list_of_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "score", str(jsonl(tmp_path / "o.jsonl", ROWS)), "--scorer", "nope")
    assert status == 2
    assert "unknown scorer 'nope'" in err
    assert all(name in err for name in _builtins.BUILTINS)
    assert "path/to/file.py@name or package.module:name" in err


def test_a_model_graded_scorer_by_name_says_it_needs_a_grader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, "score", str(jsonl(tmp_path / "o.jsonl", ROWS)), "--scorer", "model_graded_qa")
    assert status == 2
    assert "model_graded_qa needs a grader model, which no -S option can give" in err


def test_an_unknown_option_fails_naming_the_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["score", str(jsonl(tmp_path / "o.jsonl", ROWS)), "--scorer", "exact", "-S", "case=1"]
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert "unexpected keyword argument 'case'; its options are (normalise=True)" in err


def test_out_writes_each_row_with_its_line_and_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scored = tmp_path / "scored.jsonl"
    status, _, _ = run(
        capsys, "score", str(jsonl(tmp_path / "o.jsonl", ROWS)), "--scorer", "exact", "--out", str(scored)
    )
    assert status == 0
    rows = [json.loads(line) for line in scored.read_text(encoding="utf-8").splitlines()[1:]]  # after the header
    assert [r["line"] for r in rows] == [1, 2, 3, 4]
    assert {k: rows[1][k] for k in ROWS[1]} == ROWS[1]  # the row's own fields, at the top level
    expected = sb.exact()(ROWS[1]["item"], "Milan", "Rome").as_dict()
    assert {k: rows[1][f"exact.{k}"] for k in expected} == {**expected, "metadata": "{}"}  # metadata as JSON text
    assert [r["exact.failure_kind"] for r in rows] == [None, "wrong", "parse_failure", None]


def test_field_names_can_be_chosen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = jsonl(tmp_path / "o.jsonl", [{"q": "?", "answer": "Paris", "gold": "Paris"}])
    argv = ["--item-field", "q", "--output-field", "answer", "--label-field", "gold"]
    status, out, _ = run(capsys, "score", str(data), "--scorer", "exact", *argv)
    assert status == 0
    assert out.splitlines()[3].split()[3] == "1"


def test_the_item_defaults_to_an_input_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # each row's item by its output: the command scores rows side by side, in no set order (the item list once
    # came out [None, "Q1"] on a loaded machine)
    seen: dict[Any, Any] = {}

    def remember(item: Any, output: Any, label: Any) -> bool:
        seen[output] = item
        return True

    def spy() -> sb.Scorer:
        return sb.scorer(remember)

    data = jsonl(tmp_path / "o.jsonl", [{"input": "Q1", "output": "a", "label": "a"}, {"output": "b", "label": "b"}])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_builtins, "BUILTINS", MappingProxyType({"remember": spy}))
        status, _, _ = run(capsys, "score", str(data), "--scorer", "remember")
    assert status == 0
    assert seen == {"a": "Q1", "b": None}


def test_an_item_field_that_is_named_must_be_there(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(
        capsys, "score", str(jsonl(tmp_path / "o.jsonl", ROWS)), "--scorer", "exact", "--item-field", "q"
    )
    assert status == 1
    assert ":1: no field 'q'" in err


def test_list_shows_every_builtin_with_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "list")
    assert status == 0
    assert "exact(normalise=True)\n    The exact scorer:" in out
    assert all(f"\n{name}(" in f"\n{out}" for name in _builtins.BUILTINS)


def test_list_shows_the_model_graded_scorers_as_needing_a_grader(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "list")
    for name in ("model_graded_qa", "model_graded_fact"):
        entry = out[out.index(f"\n{name}(") :].split("\n\n")[0]
        assert "Needs a grader model, so -S cannot make it" in entry


def test_list_shows_a_required_option_without_a_default(capsys: pytest.CaptureFixture[str]) -> None:
    def pattern_scorer(pattern: str, ignore_case: bool = True) -> sb.Scorer:
        """Match a regex."""
        return sb.exact()

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_builtins, "BUILTINS", MappingProxyType({"pattern": pattern_scorer}))
        _, out, _ = run(capsys, "list")
    assert out.startswith("pattern(pattern, ignore_case=True)\n    Match a regex.\n")


def test_list_format_json_gives_every_scorer_with_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "list", "--format", "json")
    assert status == 0
    listed = {entry["name"]: entry for entry in json.loads(out)}
    assert set(listed) == {*_builtins.BUILTINS, "model_graded_qa", "model_graded_fact"}
    assert listed["exact"]["options"] == [{"name": "normalise", "required": False, "default": True}]
    assert listed["exact"]["needs_grader"] is False
    assert listed["model_graded_qa"]["needs_grader"] is True
    assert {"name": "grader", "required": True} in listed["model_graded_qa"]["options"]


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"scorebridge {version('scorebridge')}\n"


def test_score_help_prints_no_doubled_percent_sign() -> None:
    # argparse %-formats help strings but not descriptions: "95%%" in a description printed as is.
    score = build_parser()._subparsers._group_actions[0].choices["score"]  # type: ignore[union-attr]
    text = score.format_help()
    assert "95% Wilson interval" in text
    assert "%%" not in text


@pytest.mark.parametrize("command", [[], ["score"]])
def test_the_help_says_the_exit_statuses(command: list[str]) -> None:
    parser = build_parser()
    text = parser.format_help() if not command else parser._subparsers._group_actions[0].choices["score"].format_help()  # type: ignore[union-attr]
    for status in ("0 ", "1 ", "2 ", "3 ", "130", "141"):
        assert f"\n  {status}" in text


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([])
    assert exit_.value.code == 2
    assert "required: COMMAND" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["list"], ["--version"], ["list", "--format", "json"]])
def test_list_and_version_import_neither_asyncio_nor_a_harness(argv: list[str]) -> None:
    code = (
        "import sys\nfrom scorebridge._cli.main import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        "heavy = ('asyncio', 'inspect_ai', 'dspy', 'pytest', 'pydantic', 'yaml', 'tqdm')\n"
        "print(sorted(m for m in heavy if m in sys.modules), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stderr.strip() == "[]"


def test_the_console_script_runs(tmp_path: Path) -> None:
    data = tmp_path / "o.csv"
    data.write_text("output,label\nParis,paris\nRome\n", encoding="utf-8")
    listed = subprocess.run([str(SCRIPT), "list"], capture_output=True, text=True, timeout=60)
    bad = subprocess.run(
        [str(SCRIPT), "score", str(data), "--scorer", "exact"], capture_output=True, text=True, timeout=60
    )
    assert (listed.returncode, bad.returncode) == (0, 1)
    assert "exact(normalise=True)" in listed.stdout
    assert bad.stderr.strip() == f"{data}:3: 1 fields, but the header has 2"


# read_rows: the reader behind `score` (and the pytest plugin's case files).


def test_read_rows_gives_line_numbers_and_skips_blank_jsonl_lines(tmp_path: Path) -> None:
    data = tmp_path / "o.jsonl"
    data.write_text('{"a": 1}\n\n  \n{"a": 2}\n', encoding="utf-8")
    assert list(read_rows(data)) == [(1, {"a": 1}), (4, {"a": 2})]


def test_read_rows_reads_csv_values_as_text_with_the_line_of_each_row(tmp_path: Path) -> None:
    data = tmp_path / "o.csv"
    data.write_text('a,b\n1,"two\nlines"\n\n3,\n', encoding="utf-8")
    # a row is named by its first line: a quoted field may span lines
    assert list(read_rows(data)) == [(2, {"a": "1", "b": "two\nlines"}), (5, {"a": "3", "b": ""})]


def test_read_rows_allows_a_byte_order_mark(tmp_path: Path) -> None:
    data = tmp_path / "o.csv"
    data.write_bytes("\ufeffoutput,label\nParis,Paris\n".encode())
    assert list(read_rows(data)) == [(2, {"output": "Paris", "label": "Paris"})]


def test_read_rows_refuses_text_that_is_not_utf8(tmp_path: Path) -> None:
    data = tmp_path / "o.jsonl"
    data.write_bytes(b'{"a": 1}\n{"a": "\xff"}\n')
    with pytest.raises(RowError, match=r"o.jsonl:2: not UTF-8 text"):
        list(read_rows(data))


def test_read_rows_refuses_a_repeated_csv_column(tmp_path: Path) -> None:
    data = tmp_path / "o.csv"
    data.write_text("output,output\na,b\n", encoding="utf-8")
    with pytest.raises(RowError, match=r"o.csv:1: the header row is not usable: the column 'output' appears twice"):
        list(read_rows(data))


def test_read_rows_refuses_broken_csv_quoting(tmp_path: Path) -> None:
    data = tmp_path / "o.csv"
    data.write_text('a,b\n1,"x"y\n', encoding="utf-8")
    with pytest.raises(RowError, match=r"o.csv:2: not valid CSV"):
        list(read_rows(data))


def test_row_error_names_file_line_and_problem() -> None:
    error = RowError("cases.jsonl", 7, "no field 'output'")
    assert (str(error), error.path, error.line, error.problem) == (
        "cases.jsonl:7: no field 'output'",
        "cases.jsonl",
        7,
        "no field 'output'",
    )
