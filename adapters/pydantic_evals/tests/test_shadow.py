"""The pydantic-evals shadow (benchmarks/shadow/pydantic_evals_shadow.py) on a test file of our own: it repeats
each evaluator call through from_pydantic_evals and sorts what it finds.

The shadow's figures in docs/compatibility.md come from pydantic-evals' own tests, which need a clone of their
repository; these tests run the same plugin offline, in a pytest of its own, on evaluator calls whose verdicts
are known, so a shadow that counted nothing, or called a disagreement an agreement, fails here.
"""

from __future__ import annotations

import runpy
import textwrap
from pathlib import Path
from typing import Any

import pytest

SHADOWED_RUN = runpy.run_path(str(Path(__file__).parents[3] / "benchmarks/shadow/shadow_tally.py"))["shadowed_run"]

CALLS = """
from pydantic_evals.evaluators import EqualsExpected, EvaluatorContext, MaxDuration, ToolCorrectness
from pydantic_evals.otel import SpanTreeRecordingError


def context(output, expected, duration=0.0):
    return EvaluatorContext(
        name="case", inputs="q", metadata=None, expected_output=expected, output=output, duration=duration,
        _span_tree=SpanTreeRecordingError("none"), attributes={}, metrics={},
    )


def test_equals_expected():
    assert EqualsExpected().evaluate(context("Paris", "Paris")) is True
    assert EqualsExpected().evaluate(context("Lyon", "Paris")) is False


def test_max_duration_sees_the_tasks_time():
    assert MaxDuration(seconds=1.0).evaluate(context("Paris", None, duration=5.0)) is False


def test_tool_correctness_on_an_unlabelled_row():
    assert ToolCorrectness(expected_tools=["search"]).evaluate(context("Paris", None)).value is False
"""


@pytest.fixture(scope="module")
def tally(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The shadow's records (and summary, last) for the three tests above, run in a pytest of their own."""
    folder = tmp_path_factory.mktemp("shadowed")
    return SHADOWED_RUN("pydantic_evals_shadow", textwrap.dedent(CALLS), folder)  # type: ignore[no-any-return]


def test_every_evaluator_call_is_repeated_and_agreements_are_counted(tally: list[dict[str, Any]]) -> None:
    summary = tally[-1]["summary"]
    assert (summary["calls"], summary["real"], summary["shadow errors"]) == (4, 0, 0)
    equals = [r for r in tally[:-1] if r["scorer"] == "EqualsExpected"]
    assert [r["result"] for r in equals] == ["agree", "agree"]


def test_a_verdict_that_needs_the_tasks_duration_is_explained_by_the_context_rule(
    tally: list[dict[str, Any]],
) -> None:
    # MaxDuration fails a 5 s case natively; from outside the duration is 0.0 and it passes: a documented loss,
    # and the shadow proves it by asking MaxDuration natively on the context without the duration
    (record,) = [r for r in tally[:-1] if r["scorer"] == "MaxDuration"]
    assert (record["result"], record["native"], record["scorebridge"]) == (
        "explained",
        "('assert', False, None, {})",
        "('assert', True, None, {})",
    )
    assert "duration" in record["rule"]


def test_an_agentic_evaluator_is_asked_on_an_unlabelled_row(tally: list[dict[str, Any]]) -> None:
    # the stale list of reference-free evaluators left ToolCorrectness unasked with no label
    (record,) = [r for r in tally[:-1] if r["scorer"] == "ToolCorrectness"]
    assert (record["labelled"], record["asked"], record["result"]) == (False, True, "agree")
    assert tally[-1]["summary"]["unlabelled_agentic_and_geval"] == {"ToolCorrectness": "1 of 1 asked"}
