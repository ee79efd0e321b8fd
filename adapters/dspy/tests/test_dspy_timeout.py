"""`to_dspy(..., timeout=)`: DSPy's Evaluate has no limit on a metric; a prediction the scorer hangs on is
recorded as an error (with on_error="record") and Evaluate goes on."""

from __future__ import annotations

import time
from typing import Any

import dspy

import scorebridge as sb
from scorebridge_dspy import to_dspy


@sb.scorer
def hangs_on_b(item: Any, output: Any, label: Any) -> bool:
    if output == "b":
        time.sleep(60)
    return bool(output == label)


def test_evaluate_with_a_timed_metric_counts_the_hanging_prediction_wrong_and_ends() -> None:
    answers = {"q1": "a", "q2": "b", "q3": "c"}
    devset = [dspy.Example(question=q, answer=a).with_inputs("question") for q, a in answers.items()]

    def program(question: str) -> dspy.Prediction:
        return dspy.Prediction(answer=answers[question])

    metric = to_dspy(hangs_on_b, timeout=0.5, on_error="record")
    began = time.monotonic()
    result = dspy.Evaluate(devset=devset, metric=metric, num_threads=1, display_progress=False)(program)
    assert time.monotonic() - began < 10
    assert [score for _, _, score in result.results] == [1.0, 0.0, 1.0]
