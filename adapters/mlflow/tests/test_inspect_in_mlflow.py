"""Inspect AI's scorers in mlflow.genai.evaluate, for real: model_graded_fact() and match(), a mockllm grader."""

from __future__ import annotations

from typing import Any

import mlflow
import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match, model_graded_fact

import scorebridge as sb
from scorebridge_inspect import from_inspect
from scorebridge_mlflow import summarize, to_mlflow

pytestmark = pytest.mark.usefixtures("tracking")


def _row(question: str, output: str, label: str | None) -> dict[str, Any]:
    return {
        "inputs": {"input": question},
        "outputs": output,
        "expectations": {"expected_response": label} if label else {},
    }


DATA = [
    _row("What is the capital of France?", "The capital is Paris", "Paris"),
    _row("What is the capital of Italy?", "Milan", "Rome"),
    _row("How many legs has a spider?", "It has 8", "8"),
    _row("What is the capital of Spain?", "Madrid", None),  # no label: unscored
]

GRADED: list[str] = []


def grade(messages: list[ChatMessage], *args: Any) -> ModelOutput:
    """The grader model: correct when the submission contains the expert answer (as a grader would say)."""
    prompt = messages[-1].text
    GRADED.append(prompt)
    submission = prompt.partition("[Submission]:")[2].partition("***")[0]
    expert = prompt.partition("[Expert]:")[2].partition("***")[0].strip()
    out = ModelOutput.from_content("mockllm/model", "GRADE: C" if expert and expert in submission else "GRADE: I")
    out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # offline: no tokenizer download
    return out


def test_model_graded_fact_runs_in_mlflow_with_a_real_inspect_model() -> None:
    grader = get_model("mockllm/model", custom_outputs=grade)
    fact = from_inspect(model_graded_fact(model=grader))
    result = mlflow.genai.evaluate(data=DATA, scorers=[to_mlflow(fact)])
    assert result.metrics["model_graded_fact/mean"] == pytest.approx(2 / 3)
    assert any("[Submission]: The capital is Paris" in prompt for prompt in GRADED)  # Inspect's own template
    summary = summarize(result, "model_graded_fact")
    assert (summary.scored, summary.correct, summary.unscored, summary.failure_kinds["wrong"]) == (3, 2, 1, 1)


def test_match_runs_in_mlflow_as_it_does_in_inspect() -> None:
    matched = from_inspect(match())
    result = mlflow.genai.evaluate(data=DATA, scorers=[to_mlflow(matched)])
    outputs = [row["outputs"] for row in DATA]
    labels = [row.get("expectations", {}).get("expected_response") for row in DATA]
    want = sb.Summary.of("match", matched.score_many(None, outputs, labels))
    assert result.metrics["match/mean"] == pytest.approx(want.accuracy)
    assert (want.scored, want.correct) == (3, 2)  # match() looks at the end: "...Paris" and "...8"
    assert summarize(result, "match").failure_kinds["wrong"] == 1
