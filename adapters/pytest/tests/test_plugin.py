"""The plugin in real pytest runs (pytester): messages, the cases marker, the fixture, the summary, the report."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from typing import Any

import pytest

import pytest_scorebridge
import scorebridge as sb
from pytest_scorebridge import Recorder
from pytest_scorebridge._state import Records, active

GOLDEN_JSONL = """\
{"id": "france", "question": "Capital of France?", "answer": "Paris"}
{"id": "italy", "question": "Capital of Italy?", "answer": "Rome"}
{"question": "Capital of Spain?", "answer": "Madrid"}
"""

APP = """
import pytest
import scorebridge as sb
from pytest_scorebridge import assert_scored

ANSWERS = {"Capital of France?": "paris", "Capital of Italy?": "Roma", "Capital of Spain?": "Madrid"}
"""


def _summary(result: pytest.RunResult) -> list[str]:
    """The lines of the "scorebridge" section, its report line left out."""
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if "= scorebridge =" in line) + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("="))
    return [line for line in lines[start:end] if not line.startswith("report: ")]


def _verdicts(result: pytest.RunResult) -> dict[str, str]:
    """Test id -> PASSED/FAILED, from a `-v` run."""
    found = (re.match(r"(\S+::\S+) (PASSED|FAILED)", line) for line in result.outlines)
    return {m[1]: m[2] for m in found if m}


# --- smoke ------------------------------------------------------------------


def test_plain_pytest_loads_the_plugin_with_its_marker_and_option(pytester: pytest.Pytester) -> None:
    assert any(
        line.startswith("@pytest.mark.scorebridge_cases(path, on_error=None):")
        for line in pytester.runpytest("--markers").outlines
    )
    pytester.runpytest("--help").stdout.fnmatch_lines(["*--scorebridge-report=PATH*"])


def test_a_passing_scorer_assertion_passes_the_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        APP + "\ndef test_one():\n    assert_scored(sb.exact(), ANSWERS['Capital of France?'], 'Paris')\n"
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_loading_the_plugin_imports_neither_scorebridge_nor_a_harness() -> None:
    # The bar: a run that does not use the plugin pays nothing for it.
    heavy = ("scorebridge", "inspect_ai", "dspy", "pytest_scorebridge._assert")
    code = f"import sys, pytest_scorebridge._plugin; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_public_names_resolve_on_first_use() -> None:
    assert all(callable(getattr(pytest_scorebridge, name)) for name in pytest_scorebridge.__all__)
    assert set(pytest_scorebridge.__all__) <= set(dir(pytest_scorebridge))
    with pytest.raises(AttributeError, match="has no attribute 'assert_equal'"):
        _ = pytest_scorebridge.assert_equal


# --- assertion messages -----------------------------------------------------


def test_a_failing_assertion_shows_the_users_line_and_the_score(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        APP + "\ndef test_italy():\n    assert_scored(sb.exact(), ANSWERS['Capital of Italy?'], 'Rome')\n"
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            ">       assert_scored(sb.exact(), ANSWERS['Capital of Italy?'], 'Rome')",
            "E       AssertionError: exact: the output is not correct (failure kind: wrong)",
            "E         output:       'Roma'",
            "E         label:        'Rome'",
            "E         outcome:      'roma'",
            "E         failure kind: wrong",
            "E         explanation:  -",
            "test_a_failing_assertion_shows_the_users_line_and_the_score.py:8: AssertionError",
        ]
    )
    assert "_assert.py" not in result.stdout.str()  # __tracebackhide__: no frames of ours


def test_a_value_the_scorer_cannot_read_fails_with_its_message_and_no_frames_of_ours(
    pytester: pytest.Pytester,
) -> None:
    # a bytes label printed 40-odd lines of scorebridge's source (accepted_answers and the frames above it)
    pytester.makepyfile(APP + "\ndef test_bytes():\n    assert_scored(sb.exact(), 'Paris', b'Paris')\n")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [">       assert_scored(sb.exact(), 'Paris', b'Paris')", "E       scorebridge.UnreadableLabel: exact: *"]
    )
    assert "scorebridge/_" not in result.stdout.str()


def test_a_function_given_as_the_scorer_fails_without_frames_of_ours(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(APP + "\ndef test_fn():\n    assert_scored(lambda i, o, l: True, 'Paris', 'Paris')\n")
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["E       TypeError: assert_scored: scorer must be a scorebridge.Scorer*"])
    assert "_recorder.py" not in result.stdout.str()


# --- the cases marker -------------------------------------------------------


def test_the_marker_runs_the_test_once_per_jsonl_row_with_ids_from_the_id_column(pytester: pytest.Pytester) -> None:
    pytester.makefile(".jsonl", cases=GOLDEN_JSONL)
    pytester.makepyfile(
        test_golden=APP
        + """
@pytest.mark.scorebridge_cases("cases.jsonl")
def test_golden(case):
    assert_scored(sb.exact(), ANSWERS[case["question"]], case["answer"], item=case["question"])
"""
    )
    assert _verdicts(pytester.runpytest("-v")) == {
        "test_golden.py::test_golden[france]": "PASSED",
        "test_golden.py::test_golden[italy]": "FAILED",
        "test_golden.py::test_golden[row3]": "PASSED",
    }


def test_the_marker_reads_csv_relative_to_the_test_file_with_row_ids(pytester: pytest.Pytester) -> None:
    pytester.mkpydir("suite")
    (pytester.path / "suite" / "data").mkdir()
    (pytester.path / "suite" / "data" / "golden.csv").write_text("question,answer\nCapital?,42\nOther?,7\n")
    (pytester.path / "suite" / "test_csv.py").write_text(
        """
import pytest

@pytest.mark.scorebridge_cases("data/golden.csv")
def test_row(case):
    assert case["answer"] in ("42", "7")  # CSV values stay strings
    assert list(case) == ["question", "answer"]
"""
    )
    assert _verdicts(pytester.runpytest("-v")) == {
        "suite/test_csv.py::test_row[row1]": "PASSED",
        "suite/test_csv.py::test_row[row2]": "PASSED",
    }


def test_a_module_marker_composes_with_parametrize(pytester: pytest.Pytester) -> None:
    pytester.makefile(".jsonl", cases='{"id": "a"}\n{"id": "b"}\n')
    pytester.makepyfile(
        test_mod="""
import pytest

pytestmark = pytest.mark.scorebridge_cases("cases.jsonl")

@pytest.mark.parametrize("n", [1, 2])
def test_both(case, n):
    pass
"""
    )
    assert sorted(_verdicts(pytester.runpytest("-v"))) == [
        "test_mod.py::test_both[a-1]",
        "test_mod.py::test_both[a-2]",
        "test_mod.py::test_both[b-1]",
        "test_mod.py::test_both[b-2]",
    ]


def _collection_error(pytester: pytest.Pytester, cases_name: str, cases_text: str, marker_arg: str) -> str:
    pytester.makefile(cases_name[cases_name.index(".") :], **{cases_name[: cases_name.index(".")]: cases_text})
    pytester.makepyfile(
        test_golden=f"""
import pytest

@pytest.mark.scorebridge_cases({marker_arg})
def test_golden(case):
    pass

def test_other():
    pass
"""
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*ERROR collecting test_golden.py*", "*Interrupted: 1 error during collection*"])
    assert "Traceback" not in result.stdout.str()
    return result.stdout.str()


def test_a_bad_jsonl_row_is_a_collection_error_naming_the_file_and_line(pytester: pytest.Pytester) -> None:
    out = _collection_error(pytester, "cases.jsonl", '{"q": 1}\n{"q": 2\n', '"cases.jsonl"')
    assert "cases.jsonl:2: not valid JSON (Expecting ',' delimiter at column 8)" in out
    assert "(the case file of @pytest.mark.scorebridge_cases on test_golden)" in out


def test_a_csv_row_with_the_wrong_number_of_fields_is_a_collection_error(pytester: pytest.Pytester) -> None:
    out = _collection_error(pytester, "cases.csv", "q,label\na,b\nc,d,e\n", '"cases.csv"')
    assert "cases.csv:3: 3 fields, but the header has 2" in out


def test_a_missing_case_file_is_a_collection_error(pytester: pytest.Pytester) -> None:
    out = _collection_error(pytester, "other.jsonl", '{"q": 1}\n', '"missing.jsonl"')
    assert "missing.jsonl: cannot be read: No such file or directory" in out


def test_a_marker_without_a_path_is_a_collection_error(pytester: pytest.Pytester) -> None:
    out = _collection_error(pytester, "cases.jsonl", '{"q": 1}\n', "")
    assert "@pytest.mark.scorebridge_cases on test_golden: give it one argument, the case file's path" in out


def test_a_test_without_a_case_argument_is_a_collection_error(pytester: pytest.Pytester) -> None:
    pytester.makefile(".jsonl", cases='{"q": 1}\n')
    pytester.makepyfile("import pytest\n@pytest.mark.scorebridge_cases('cases.jsonl')\ndef test_x():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert "on test_x: the test needs an argument named `case`" in result.stdout.str()


# --- on_error in case tests ------------------------------------------------

BOOM_CASES = '{"id": "a", "output": "a", "label": "a"}\n{"id": "b", "output": "b", "label": "b"}\n' + (
    '{"id": "c", "output": "c", "label": "x"}\n'
)

BOOM_TEST = """
import pytest
import scorebridge as sb
from pytest_scorebridge import assert_scored


@sb.scorer
def boom_on_b(item, output, label):
    if output == "b":
        raise ValueError("no b")
    return output == label


@pytest.mark.scorebridge_cases("cases.jsonl"{marker})
def test_case(case, scorebridge_record):
    scorebridge_record(boom_on_b, case["output"], case["label"])
"""


def _boom_run(pytester: pytest.Pytester, marker: str = "", *args: str) -> pytest.RunResult:
    pytester.makefile(".jsonl", cases=BOOM_CASES)
    pytester.makepyfile(BOOM_TEST.format(marker=marker))
    return pytester.runpytest(*args)


def _row(result: pytest.RunResult) -> dict[str, str]:
    """The summary's one scorer row, by column."""
    lines = _summary(result)
    at = next(i for i, line in enumerate(lines) if line.startswith("scorer "))
    header = lines[at].replace("95% CI", "95%_CI").split()
    return dict(zip(header, lines[at + 2].replace(", ", ",").split(), strict=True))


def test_a_case_test_whose_scorer_raises_errors_by_default_and_its_score_is_not_counted(
    pytester: pytest.Pytester,
) -> None:
    result = _boom_run(pytester)
    result.assert_outcomes(passed=2, failed=1)
    assert "ValueError: no b" in result.stdout.str()
    assert (_row(result)["scored"], _row(result)["accuracy"]) == ("2", "0.500")


def test_on_error_record_in_the_marker_records_the_raising_case_as_an_error(pytester: pytest.Pytester) -> None:
    result = _boom_run(pytester, ', on_error="record"')
    result.assert_outcomes(passed=3)  # scorebridge_record never fails a test; the error is in the summary
    row = _row(result)
    assert (row["scored"], row["accuracy"], row["error"]) == ("3", "0.333", "1")


def test_on_error_record_in_the_ini_option_records_the_raising_case(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nscorebridge_on_error = record\n")
    row = _row(_boom_run(pytester))
    assert (row["scored"], row["accuracy"]) == ("3", "0.333")


def test_the_markers_on_error_wins_over_the_ini_option(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nscorebridge_on_error = record\n")
    _boom_run(pytester, ', on_error="raise"').assert_outcomes(passed=2, failed=1)


def test_assert_scored_fails_a_recorded_raising_case_showing_the_error(pytester: pytest.Pytester) -> None:
    pytester.makefile(".jsonl", cases=BOOM_CASES)
    test = BOOM_TEST.format(marker=', on_error="record"').replace(
        'scorebridge_record(boom_on_b, case["output"], case["label"])',
        'assert_scored(boom_on_b, case["output"], case["label"])',
    )
    pytester.makepyfile(test)
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, failed=2)
    assert "the scorer raised ValueError('no b')" in result.stdout.str()
    assert _row(result)["error"] == "1"


def test_on_error_record_applies_to_assert_accuracy_in_a_case_test(pytester: pytest.Pytester) -> None:
    pytester.makefile(".jsonl", cases='{"id": "all"}\n')
    test = BOOM_TEST.format(marker=', on_error="record"').replace(
        'scorebridge_record(boom_on_b, case["output"], case["label"])',
        'assert_accuracy(boom_on_b, ["a", "b", "c"], ["a", "b", "x"], at_least=0.3)',
    )
    pytester.makepyfile(test.replace("import assert_scored", "import assert_accuracy"))
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert _row(result)["accuracy"] == "0.333"


def test_on_error_record_does_not_reach_a_test_without_the_marker(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nscorebridge_on_error = record\n")
    pytester.makepyfile(
        APP + "\n@sb.scorer\ndef boom(i, o, l):\n    raise ValueError('x')\n\n"
        "def test_plain():\n    assert_scored(boom, 'a', 'a')\n"
    )
    pytester.runpytest().assert_outcomes(failed=1)


def test_an_unknown_on_error_in_the_marker_is_a_collection_error(pytester: pytest.Pytester) -> None:
    out = _collection_error(pytester, "cases.jsonl", '{"q": 1}\n', '"cases.jsonl", on_error="skip"')
    assert "@pytest.mark.scorebridge_cases on test_golden: on_error must be 'raise' or 'record'; got 'skip'" in out


def test_another_keyword_in_the_marker_is_a_collection_error(pytester: pytest.Pytester) -> None:
    out = _collection_error(pytester, "cases.jsonl", '{"q": 1}\n', '"cases.jsonl", on_errors="record"')
    assert "it takes the case file's path and on_error=; got on_errors=" in out


def test_an_unknown_ini_on_error_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nscorebridge_on_error = skip\n")
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "scorebridge_on_error: must be 'raise' or 'record'; got 'skip'" in result.stderr.str()


# --- labels in case files ---------------------------------------------------


def test_a_csv_case_label_reaches_a_declared_float_label_as_a_number_and_a_blank_one_as_none(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".csv", cases="output,label\n45.3,45.2\n45.3,\n")
    pytester.makepyfile(
        """
import pytest
import scorebridge as sb


@sb.scorer
def near(item, output, label: float):
    if label is None:
        return {"correct": None, "outcome": output, "failure_kind": None}
    return {"correct": abs(float(output) - label) <= 0.01 * abs(label), "outcome": output, "failure_kind": None}


@pytest.mark.scorebridge_cases("cases.csv")
def test_case(case, scorebridge_record):
    scorebridge_record(near, case["output"], case["label"])
"""
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=2)
    row = _row(result)
    assert (row["scored"], row["correct"], row["unscored"]) == ("1", "1", "1")


# --- the fixture, the summary and the report --------------------------------

RECORDING = (
    APP
    + """
within = sb.scorer(lambda item, output, label: {"correct": output == label, "outcome": output,
                   "explanation": "checked", "metadata": {"when": object}}, name="within")

def test_soft(scorebridge_record):
    score = scorebridge_record(sb.exact(), "Lyon", "Paris")  # wrong, and the test still passes
    assert score.failure_kind == "wrong"
    scorebridge_record(sb.exact(), "", "Paris")
    scorebridge_record(sb.exact(), "Paris", None)

def test_hard():
    assert_scored(within, "a", "a")
    assert_scored(sb.exact(), "Lyon", "Paris")
"""
)


def test_the_fixture_records_without_failing_and_the_summary_counts_per_scorer(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(RECORDING)
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    # The one summary (scorebridge.Summary): the unlabelled Score is counted once, as unscored.
    assert _summary(result) == [
        "5 scores recorded in 2 tests (each assertion or record counts once)",
        "scorer  rows  scored  correct  accuracy          95% CI  parse_failure  wrong  unscored",
        "------  ----  ------  -------  --------  --------------  -------------  -----  --------",
        "exact      4       3        0     0.000  [0.000, 0.561]              1      2         1",
        "within     1       1        1     1.000  [0.207, 1.000]              0      0         0",
    ]


def test_a_run_that_records_nothing_has_no_summary(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_plain():\n    assert 1 + 1 == 2\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert "= scorebridge =" not in result.stdout.str()


def test_the_report_holds_every_score_with_its_test_and_scorer(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_rec=RECORDING)
    result = pytester.runpytest("--scorebridge-report", "out/scores.jsonl")
    path = pytester.path / "out" / "scores.jsonl"
    result.stdout.fnmatch_lines([f"report: {path} (5 scores)"])
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["nodeid"], r["scorer"], r["grade"], r["failure_kind"]) for r in rows] == [
        ("test_rec.py::test_soft", "exact", "I", "wrong"),
        ("test_rec.py::test_soft", "exact", "I", "parse_failure"),
        ("test_rec.py::test_soft", "exact", "N", None),
        ("test_rec.py::test_hard", "within", "C", None),
        ("test_rec.py::test_hard", "exact", "I", "wrong"),
    ]
    assert rows[3] == {
        "nodeid": "test_rec.py::test_hard",
        "scorer": "within",
        "correct": True,
        "outcome": "a",
        "failure_kind": None,
        "value": 1.0,
        "explanation": "checked",
        "metadata": {"when": "<class 'object'>"},  # what JSON cannot hold is written as its repr
        "grade": "C",
    }


def test_the_report_is_written_when_nothing_was_recorded(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_plain():\n    pass\n")
    result = pytester.runpytest("--scorebridge-report", "scores.jsonl")
    result.stdout.fnmatch_lines(["*= scorebridge =*", "no scores recorded", "report: *scores.jsonl (0 scores)"])
    assert (pytester.path / "scores.jsonl").read_text() == ""


def test_a_report_path_that_is_a_folder_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.mkdir("out")
    result = pytester.runpytest("--scorebridge-report", "out")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--scorebridge-report: */out is a folder; give the path of a file"])


def test_metadata_that_json_cannot_write_is_kept_as_its_repr() -> None:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    records = Records()
    records.add(None, "s", sb.Score(True, metadata=loop))
    tuple_key: dict[Any, str] = {(1, 2): "a tuple key"}
    records.add(None, "s", sb.Score(True, metadata=tuple_key))
    assert records.rows[0]["metadata"]["repr"].startswith("{'self': {")
    assert records.rows[1]["metadata"] == {"repr": "{(1, 2): 'a tuple key'}"}


def test_an_inner_pytest_run_keeps_its_scores_to_itself(pytester: pytest.Pytester) -> None:
    # pytester runs pytest inside this pytest: the outer run's records must not see the inner ones.
    outer = active()
    assert outer is not None
    before = len(outer.rows)
    pytester.makepyfile(RECORDING)
    pytester.runpytest()
    assert active() is outer
    assert len(outer.rows) == before


def test_the_fixture_records_under_the_tests_node_id(
    scorebridge_record: Recorder, request: pytest.FixtureRequest
) -> None:
    outer = active()
    assert outer is not None
    score = scorebridge_record(sb.exact(), "Paris", "Paris")
    assert outer.rows[-1]["nodeid"] == request.node.nodeid
    assert outer.rows[-1]["grade"] == score.grade == "C"


def test_the_fixtures_async_twin_awaits_an_async_scorer(scorebridge_record: Recorder) -> None:
    async def same(item: Any, output: Any, label: Any) -> bool:
        return bool(output == label)

    score = asyncio.run(scorebridge_record.acall(sb.scorer(same), "a", "b"))
    assert score.failure_kind == "wrong"
    outer = active()
    assert outer is not None and outer.rows[-1]["scorer"] == "same"


def test_the_fixture_refuses_a_plain_function(scorebridge_record: Recorder) -> None:
    with pytest.raises(TypeError, match=r"scorebridge_record: scorer must be a scorebridge\.Scorer"):
        scorebridge_record(lambda item, output, label: True, "a", "a")  # type: ignore[arg-type]


def test_a_lone_surrogate_in_a_score_is_written_to_the_report_as_a_json_escape(pytester: pytest.Pytester) -> None:
    # os.fsdecode gives lone surrogates; the report's UTF-8 write once crashed pytest at session end (exit 1)
    pytester.makepyfile(
        """
import os
import scorebridge as sb

def test_name(scorebridge_record):
    scorebridge_record(sb.exact(), os.fsdecode(b"caf\\xe9"), "x")
    scorebridge_record(sb.exact(), "caf\\u00e9", "x")
"""
    )
    result = pytester.runpytest("--scorebridge-report", "scores.jsonl")
    assert result.ret == pytest.ExitCode.OK
    lines = (pytester.path / "scores.jsonl").read_bytes().decode("utf-8").splitlines()
    assert "\\udce9" in lines[0]  # escaped: UTF-8 cannot hold it
    assert "café" in lines[1]  # other text stays readable
    assert [json.loads(line)["outcome"] for line in lines] == ["caf\udce9", "café"]


def test_a_report_that_cannot_be_written_fails_the_run_and_says_so(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        "import scorebridge as sb\n\ndef test_one(scorebridge_record):\n    scorebridge_record(sb.exact(), 'a', 'a')\n"
    )
    pytester.makefile(".txt", blocker="a file, not a folder")
    result = pytester.runpytest("--scorebridge-report", "blocker.txt/scores.jsonl")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.INTERNAL_ERROR
    result.stdout.fnmatch_lines(
        ["ERROR: the report */blocker.txt/scores.jsonl could not be written (1 scores are not in it): *"]
    )
    result.stderr.fnmatch_lines(["scorebridge: the report */blocker.txt/scores.jsonl could not be written*"])
