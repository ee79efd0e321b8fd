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


def _fussy(item: Any, output: Any, label: Any) -> bool:
    if output == "Lyon":
        raise ValueError("no Lyon here")
    return bool(output == label)


def test_a_scorer_that_raises_is_recorded_with_on_error_record() -> None:
    evaluation = _run(sb.scorer(_fussy), LABELS, num_threads=1, on_error="record")
    score = evaluation.scores[1]
    assert score.failure_kind == "error"
    assert score.explanation == "the scorer raised ValueError('no Lyon here')"  # as in every harness
    assert (evaluation.summary.scored, evaluation.summary.failure_kinds["error"]) == (3, 1)


def test_a_recorded_error_is_a_wrong_answer_to_dspy_not_an_error(caplog: pytest.LogCaptureFixture) -> None:
    evaluation = _run(sb.scorer(_fussy), LABELS, num_threads=1, on_error="record")
    assert evaluation.dspy_score == 25.0
    assert "no Lyon here" not in caplog.text  # DSPy logged no error: the metric gave it 0.0


def test_a_scorer_that_raises_raises_from_evaluate_by_default_after_dspy_ran_to_its_end() -> None:
    calls: list[str] = []

    def counting(item: Any, output: Any, label: Any) -> bool:
        calls.append(output)
        return _fussy(item, output, label)

    with pytest.raises(ValueError, match="no Lyon here") as caught:
        _run(sb.scorer(counting), LABELS, num_threads=1)
    assert "while scoring example 1 of the devset (DSPy's Evaluate ran to its end first)" in caught.value.__notes__
    assert len(calls) == 4  # DSPy catches a metric's exception: it cannot stop on it


def test_evaluate_refuses_an_unknown_on_error() -> None:
    with pytest.raises(ValueError, match=r"^evaluate\(exact\): on_error must be 'raise' or 'record'; got 'skip'$"):
        _run(sb.exact(), LABELS, on_error="skip")


def test_a_label_the_scorer_cannot_read_is_refused_before_the_program_runs_naming_the_example() -> None:
    def near(item: Any, output: Any, label: float) -> bool:
        return True

    ran: list[str] = []

    def program(question: str) -> dspy.Prediction:
        ran.append(question)
        return dspy.Prediction(answer="1")

    with pytest.raises(sb.ScorerContractError) as caught:
        _run(sb.scorer(near), {"q1": "1.5", "q2": "one"}, program)
    assert ran == []
    assert str(caught.value) == (
        "near: cannot read the label 'one' as float: it is not a number "
        "(the label of example 1 of the devset; no model was called)"
    )


def test_a_label_the_scorer_cannot_read_is_refused_as_an_unreadable_label() -> None:
    # evaluate() re-raised it as a plain ScorerContractError: `except UnreadableLabel`, which catches it from the
    # metric DSPy calls, missed it here.
    def near(item: Any, output: Any, label: float) -> bool:
        return True

    with pytest.raises(sb.UnreadableLabel):
        _run(sb.scorer(near), {"q1": "1.5", "q2": "one"}, lambda question: dspy.Prediction(answer="1"))


def test_a_scorer_that_needs_no_label_scores_examples_without_a_label_field() -> None:
    def short(item: Any, output: Any, label: Any) -> bool:
        return len(output) <= 4

    devset = [dspy.Example(question=q).with_inputs("question") for q in ANSWERS]
    with dspy.context(lm=DummyLM({q: {"answer": a} for q, a in ANSWERS.items()})):
        evaluation = evaluate(dspy.Predict("question -> answer"), devset, sb.scorer(short, needs_label=False))
    assert (evaluation.summary.scored, evaluation.summary.correct, evaluation.dspy_score) == (4, 2, 50.0)


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
