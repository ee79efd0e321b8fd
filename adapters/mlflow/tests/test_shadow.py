"""The MLflow shadow (benchmarks/shadow/mlflow_shadow.py) on a test file of our own: it repeats each scorer call
through from_mlflow and sorts what it finds.

The shadow's figures in docs/compatibility.md come from MLflow's own scorer tests; these tests run the same
plugin offline, in a pytest of its own, on scorer calls whose verdicts are known, so a shadow that counted
nothing, or called a disagreement an agreement, fails here.
"""

from __future__ import annotations

import runpy
import textwrap
from pathlib import Path
from typing import Any

import pytest

SHADOWED_RUN = runpy.run_path(str(Path(__file__).parents[3] / "benchmarks/shadow/shadow_tally.py"))["shadowed_run"]

CALLS = """
from mlflow.genai.scorers import RegexMatch, scorer


@scorer
def same_city(outputs, expectations) -> bool:
    return outputs == expectations["expected_response"]


@scorer
def the_answer(outputs):
    return 42


@scorer
def traced(outputs, trace):
    return trace is not None


def test_a_scorer_function_through_run():
    assert same_city.run(outputs="Paris", expectations={"expected_response": "Paris"}) is True
    assert same_city.run(outputs="Lyon", expectations={"expected_response": "Paris"}) is False


def test_a_built_in_called_directly():
    assert RegexMatch(pattern="^Par")(outputs="Paris").value == "yes"


def test_a_number_mlflow_averages():
    assert the_answer.run(outputs="Paris") == 42


def test_a_scorer_that_reads_the_trace():
    assert traced.run(outputs="Paris", trace=object()) is True
"""


@pytest.fixture(scope="module")
def tally(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The shadow's records (and summary, last) for the tests above, run in a pytest of their own."""
    folder = tmp_path_factory.mktemp("shadowed")
    return SHADOWED_RUN(
        "mlflow_shadow", textwrap.dedent(CALLS), folder, {"MLFLOW_DISABLE_TELEMETRY": "true", "MLFLOW_TRACKING_URI": ""}
    )  # type: ignore[no-any-return]


def _results(tally: list[dict[str, Any]], scorer: str) -> list[str]:
    return [r["result"] for r in tally[:-1] if r["scorer"] == scorer]


def test_every_scorer_call_is_repeated_once_and_agreements_are_counted(tally: list[dict[str, Any]]) -> None:
    # run() calls __call__ inside: one record per call the test made, not two
    summary = tally[-1]["summary"]
    assert (summary["calls"], summary["real"], summary["shadow errors"]) == (5, 0, 0)
    assert _results(tally, "same_city") == ["agree", "agree"]
    assert _results(tally, "regex_match") == ["agree"]


def test_a_number_outside_0_1_is_explained_by_the_contract_rule(tally: list[dict[str, Any]]) -> None:
    (record,) = [r for r in tally[:-1] if r["scorer"] == "the_answer"]
    assert record["result"] == "explained"
    assert "ScorerContractError" in record["rule"]


def test_a_call_whose_verdict_needs_the_trace_is_set_aside(tally: list[dict[str, Any]]) -> None:
    # outside MLflow the trace is None: the scorer says False where MLflow's call said True
    assert _results(tally, "traced") == ["set aside"]
    assert tally[-1]["summary"]["set aside"] == 1


def test_each_round_trip_is_an_identity(tally: list[dict[str, Any]]) -> None:
    assert tally[-1]["summary"]["round_trip_identity"] == "5 of 5"
