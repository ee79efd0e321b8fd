"""Under pytest-xdist the summary and the report cover the scores of every worker."""

from __future__ import annotations

import json

import pytest

CASES = "".join(f'{{"id": "q{i}", "output": "{"a" if i % 4 else "b"}"}}\n' for i in range(12))

TESTS = """
import os
import pytest
import scorebridge as sb
from pytest_scorebridge import assert_scored

# The worker that scored, kept in the Score's metadata so the report shows who sent it.
same = sb.scorer(lambda item, output, label: {"correct": output == label, "outcome": output,
                 "metadata": {"worker": os.environ.get("PYTEST_XDIST_WORKER")}}, name="same")

@pytest.mark.scorebridge_cases("cases.jsonl")
def test_case(case, scorebridge_record):
    scorebridge_record(same, case["output"], "a")
"""


def test_the_summary_and_report_merge_the_scores_of_both_workers(pytester: pytest.Pytester) -> None:
    pytester.makefile(".jsonl", cases=CASES)
    pytester.makepyfile(test_cases=TESTS)
    result = pytester.runpytest_subprocess("-n", "2", "--scorebridge-report", "scores.jsonl", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=12)
    result.stdout.fnmatch_lines(
        [
            "*= scorebridge =*",
            "12 scores recorded in 12 tests (each assertion or record counts once)",
            "scorer  rows  scored  correct  accuracy          95% CI  wrong  unscored",
            "*",
            "same      12      12        9     0.750  [0.468, 0.911]      3         0",
            "report: *scores.jsonl (12 scores)",
        ]
    )
    rows = [json.loads(line) for line in (pytester.path / "scores.jsonl").read_text().splitlines()]
    assert sorted(r["nodeid"] for r in rows) == sorted(f"test_cases.py::test_case[q{i}]" for i in range(12))
    # xdist's load scheduling hands each of the two workers a first batch: both must have reported.
    assert {r["metadata"]["worker"] for r in rows} == {"gw0", "gw1"}


# A lone surrogate is what os.fsdecode gives for a file name that is not UTF-8. execnet sends a str as
# UTF-8, which cannot hold one: the scores of every worker that recorded one were lost, and the run
# exited 0 (the hardening issue, item 8).
SURROGATE_TESTS = """
import os
import scorebridge as sb

name = sb.scorer(lambda item, output, label: {"correct": True, "outcome": output}, name="name")

def test_a(scorebridge_record):
    scorebridge_record(name, os.fsdecode(b"report-\\xff.txt"), "x")

def test_b(scorebridge_record):
    scorebridge_record(name, "plain", "x")
"""


def test_a_lone_surrogate_travels_from_the_workers_into_the_report(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_names=SURROGATE_TESTS)
    result = pytester.runpytest_subprocess("-n", "2", "--scorebridge-report", "scores.jsonl", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["report: *scores.jsonl (2 scores)"])
    rows = [json.loads(line) for line in (pytester.path / "scores.jsonl").read_bytes().decode("utf-8").splitlines()]
    assert sorted(r["outcome"] for r in rows) == ["plain", "report-\udcff.txt"]


def test_scores_a_worker_could_not_send_fail_the_run_with_a_message(pytester: pytest.Pytester) -> None:
    # a worker that dies after recording hands nothing over: the run must say so, not pass quietly
    pytester.makepyfile(
        test_dies="""
import os
import scorebridge as sb

def test_records_then_dies(scorebridge_record):
    scorebridge_record(sb.exact(), "a", "a")

def test_other(scorebridge_record):
    scorebridge_record(sb.exact(), "a", "a")
""",
        # the worker's id from its config, not PYTEST_XDIST_WORKER, which this run's controller inherits when
        # the outer run is itself under xdist
        conftest="""
import os

def pytest_sessionfinish(session):
    if getattr(session.config, "workerinput", {}).get("workerid") == "gw1":
        os._exit(0)  # gone before the plugin hands the rows over
""",
    )
    result = pytester.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider")
    assert result.ret != pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*ERROR: the scores of the xdist worker gw1 are missing: *"])
