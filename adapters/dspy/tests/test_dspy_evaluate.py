"""`scorebridge_dspy.evaluate`: dspy.Evaluate with a scorer, and scorebridge's summary beside DSPy's score.

DSPy's Evaluate divides by the devset's size and counts an unlabelled example as
0; a user who wants the number the other harnesses give had no way to get it
from DSPy. `evaluate()` gives both, from one run.
"""

from __future__ import annotations

from typing import Any

import dspy
import pytest
from dspy.utils import DummyLM

import scorebridge as sb
from scorebridge_dspy import Evaluation, evaluate, from_dspy

ANSWERS = {"q1": "Paris", "q2": "Lyon", "q3": "", "q4": "Paris"}


def _devset(labels: dict[str, str | None]) -> list[dspy.Example]:
    return [dspy.Example(question=q, answer=label).with_inputs("question") for q, label in labels.items()]


def _run(scorer: sb.Scorer, labels: dict[str, str | None], program: Any = None, **options: Any) -> Evaluation:
    with dspy.context(lm=DummyLM({q: {"answer": a} for q, a in ANSWERS.items()})):
        return evaluate(program or dspy.Predict("question -> answer"), _devset(labels), scorer, **options)


LABELS: dict[str, str | None] = {"q1": "Paris", "q2": "Paris", "q3": "Paris", "q4": None}


def test_the_summary_leaves_an_unlabelled_example_out_and_dspys_score_counts_it_zero() -> None:
    evaluation = _run(sb.exact(), LABELS, num_threads=1)
    assert (evaluation.summary.scored, evaluation.summary.unscored, evaluation.summary.accuracy) == (3, 1, 1 / 3)
    assert evaluation.dspy_score == 25.0  # 1 of 4: the unlabelled q4 counted as DSPy's failure_score


def test_one_score_per_example_in_the_devsets_order() -> None:
    evaluation = _run(sb.exact(), LABELS, num_threads=4)
    assert [s.grade for s in evaluation.scores] == ["C", "I", "I", "N"]
    assert [s.failure_kind for s in evaluation.scores] == [None, "wrong", "parse_failure", None]


def test_the_failure_kinds_are_counted() -> None:
    kinds = _run(sb.exact(), LABELS, num_threads=1).summary.failure_kinds
    assert {k: n for k, n in kinds.items() if n} == {"wrong": 1, "parse_failure": 1}


def test_an_example_whose_program_raised_is_an_error_not_a_silent_zero() -> None:
    class Broken(dspy.Module):
        def forward(self, question: str) -> dspy.Prediction:
            if question == "q2":
                raise RuntimeError("the model is down")
            return dspy.Prediction(answer=ANSWERS[question])

    evaluation = _run(sb.exact(), LABELS, Broken(), num_threads=1)
    score = evaluation.scores[1]
    assert (score.failure_kind, score.explanation) == ("error", "the program raised (DSPy's log has the exception)")
    assert evaluation.summary.failure_kinds["error"] == 1


def test_a_scorer_that_raises_is_recorded_and_dspy_still_counts_the_error() -> None:
    def fussy(item: Any, output: Any, label: Any) -> bool:
        if output == "Lyon":
            raise ValueError("no Lyon here")
        return bool(output == label)

    evaluation = _run(sb.scorer(fussy), LABELS, num_threads=1)
    score = evaluation.scores[1]
    assert score.failure_kind == "error"
    assert score.explanation == "the scorer raised ValueError('no Lyon here')"  # as in every harness


def test_a_metric_brought_in_with_from_dspy_gets_dspys_own_objects() -> None:
    seen: list[tuple[type, type]] = []

    def metric(example: dspy.Example, pred: dspy.Prediction, trace: Any = None) -> bool:
        seen.append((type(example), type(pred)))
        return bool(example.answer == pred.answer)

    evaluation = _run(from_dspy(metric), {"q1": "Paris", "q2": "Paris"}, num_threads=1)
    assert evaluation.summary.accuracy == 0.5
    assert set(seen) == {(dspy.Example, dspy.Prediction)}


def test_its_text_shows_both_numbers() -> None:
    text = str(_run(sb.exact(), LABELS, num_threads=1))
    assert text.splitlines() == [
        "DSPy Evaluate: 25 (percent over all 4 examples)",
        "scorebridge exact: accuracy 0.333 over 3 scored (1 correct), 1 unscored; failure kinds: parse_failure 1, "
        "wrong 1",
    ]


def test_a_scorer_that_is_not_a_scorer_is_refused() -> None:
    with pytest.raises(TypeError, match=r"evaluate: scorer must be a scorebridge\.Scorer"):
        evaluate(dspy.Predict("question -> answer"), _devset(LABELS), lambda e, p: 1.0)  # type: ignore[arg-type]
