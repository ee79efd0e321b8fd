"""summarize: the rows whose grader failed, counted apart from the rows with no label.

Before, a model-graded scorer's row whose grader failed had no assessment in
MLflow, like a row with no label, so `summarize` could not tell the two apart.
"""

from __future__ import annotations

import math
from typing import Any

import mlflow
import pytest

import scorebridge as sb
from scorebridge_mlflow import summarize, to_mlflow

pytestmark = pytest.mark.usefixtures("tracking")


def grader(prompt: str) -> str:
    if "Lyon" in prompt:
        raise ConnectionError("the grader API dropped the connection")
    return "GRADE: C"


DATA = [
    {"inputs": {"question": "q0"}, "outputs": "Paris", "expectations": {"expected_response": "Paris"}},
    {"inputs": {"question": "q1"}, "outputs": "Lyon", "expectations": {"expected_response": "Paris"}},
    {"inputs": {"question": "q2"}, "outputs": "Rome", "expectations": {}},
]


@pytest.fixture(scope="module")
def result() -> Any:
    scorer = sb.model_graded_qa(grader, retry=sb.Retry(2, backoff=0, max_backoff=0))
    return mlflow.genai.evaluate(data=DATA, scorers=[to_mlflow(scorer)])


def test_summarize_counts_the_graders_failure_apart_from_the_row_with_no_label(result: Any) -> None:
    summary = summarize(result, "model_graded_qa")
    assert (summary.scored, summary.unscored, summary.grader_failed) == (1, 2, 1)


def test_mlflow_leaves_the_graders_failure_out_of_its_mean(result: Any) -> None:
    assert result.metrics["model_graded_qa/mean"] == 1.0
    value = result.result_df["model_graded_qa/value"][1]
    assert value is None or math.isnan(value)
