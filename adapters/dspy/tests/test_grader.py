"""`dspy_grader()`, and `model_graded_qa()` as a metric in a real, offline `dspy.Evaluate`."""

from __future__ import annotations

from typing import Any

import dspy
import pytest
from dspy.utils import DummyLM

import scorebridge as sb
from scorebridge.testing import FakeGrader
from scorebridge_dspy import dspy_grader, to_dspy

# --- the bridge --------------------------------------------------------------------------


def test_dspy_grader_gives_the_lm_reply_text() -> None:
    # DummyLM writes its scripted answer the way its ChatAdapter would: a field header, then the text.
    grader = dspy_grader(DummyLM([{"reply": "Both say Paris.\nGRADE: C"}]))
    assert grader("Grade this.") == "[[ ## reply ## ]]\nBoth say Paris.\nGRADE: C"


def test_dspy_grader_is_sync_so_the_scorer_is_sync() -> None:
    assert not sb.model_graded_qa(dspy_grader(DummyLM([{"reply": "GRADE: C"}]))).is_async


def test_dspy_grader_scores_through_model_graded_qa() -> None:
    # Replies keyed by the answer in the prompt: score_many grades a sync grader's rows on worker threads,
    # so the order of the calls is not the order of the rows.
    lm = DummyLM(
        {"<answer>\nParis\n</answer>": {"reply": "GRADE: C"}, "<answer>\nLyon\n</answer>": {"reply": "GRADE: I"}}
    )
    scores = sb.model_graded_qa(dspy_grader(lm)).score_many(None, ["Paris", "Lyon"], ["Paris", "Paris"])
    assert [s.grade for s in scores] == ["C", "I"]


def test_dspy_grader_sends_the_prompt_to_the_lm() -> None:
    lm = DummyLM({"<fact>\nParis is the capital\n</fact>": {"reply": "GRADE: C"}})
    score = sb.model_graded_fact(dspy_grader(lm))("Capital of France?", "Paris", "Paris is the capital")
    assert score.correct is True
    assert "<fact>\nParis is the capital\n</fact>" in lm.history[-1]["prompt"]


def test_dspy_grader_without_an_lm_uses_the_configured_one() -> None:
    grader = dspy_grader()
    with dspy.context(lm=DummyLM([{"reply": "GRADE: C"}])):
        assert grader("prompt").endswith("GRADE: C")


def test_dspy_grader_without_any_lm_is_recorded_as_the_grader_failure() -> None:
    with dspy.context(lm=None):
        score = sb.model_graded_qa(dspy_grader())("Capital of France?", "Paris", "Paris")
    assert score.correct is None
    assert "no LM was given and none is configured" in score.metadata["grader_failed"]


def test_dspy_grader_refuses_what_is_not_an_lm() -> None:
    with pytest.raises(TypeError, match=r"dspy_grader: lm must be a dspy\.LM"):
        dspy_grader("openai/gpt-4o")


def test_dspy_grader_repr_names_the_lm() -> None:
    assert repr(dspy_grader(DummyLM([{"reply": "GRADE: C"}]))) == "dspy_grader('dummy')"


# --- round trip: model_graded_qa as a metric in dspy.Evaluate --------------------------------

QUESTIONS = [f"What is {i} + {i}?" for i in range(20)]
GOLD = [str(2 * i) for i in range(20)]
# the program answers every third question wrongly
PREDICTED = [str(2 * i + 1) if i % 3 == 0 else str(2 * i) for i in range(20)]


def devset() -> list[dspy.Example]:
    return [dspy.Example(question=q, answer=a).with_inputs("question") for q, a in zip(QUESTIONS, GOLD, strict=True)]


def program() -> dspy.Predict:
    student = dspy.Predict("question -> answer")
    student.set_lm(DummyLM({q: {"answer": p} for q, p in zip(QUESTIONS, PREDICTED, strict=True)}))
    return student


def grade(prompt: str) -> str:
    # A grader that compares the answer block with the criterion block of our prompt.
    answer = prompt.split("<answer>\n", 1)[1].split("\n</answer>", 1)[0]
    criterion = prompt.split("<criterion>\n", 1)[1].split("\n</criterion>", 1)[0]
    return "Same number.\nGRADE: C" if answer == criterion else "Different number.\nGRADE: I"


def evaluate(metric: Any) -> Any:
    return dspy.Evaluate(devset=devset(), metric=metric, num_threads=4, display_progress=False)(program())


def test_model_graded_qa_runs_in_dspy_evaluate() -> None:
    grader = FakeGrader(grade)
    result = evaluate(to_dspy(sb.model_graded_qa(grader)))
    assert [value for _, _, value in result.results] == [float(p == g) for p, g in zip(PREDICTED, GOLD, strict=True)]
    assert result.score == pytest.approx(100 * 13 / 20)
    assert grader.calls == 20


def test_evaluate_gives_the_same_values_as_a_direct_call() -> None:
    scorer = sb.model_graded_qa(FakeGrader(grade))
    result = evaluate(to_dspy(scorer))
    direct = scorer.score_many([{"question": q} for q in QUESTIONS], PREDICTED, GOLD)
    assert [value for _, _, value in result.results] == [s.value for s in direct]


def test_the_question_reaches_the_grader_from_the_example_inputs() -> None:
    grader = FakeGrader(grade)
    evaluate(to_dspy(sb.model_graded_qa(grader)))
    assert sorted(p.split("<question>\n", 1)[1].split("\n</question>", 1)[0] for p in grader.prompts) == sorted(
        QUESTIONS
    )


def test_dspy_grader_grades_inside_evaluate() -> None:
    # dict-mode DummyLM is thread-safe: Evaluate calls the metric from worker threads.
    lm = DummyLM({f"<answer>\n{g}\n</answer>": {"reply": "GRADE: C"} for g in GOLD} | {"": {"reply": "GRADE: I"}})
    result = evaluate(to_dspy(sb.model_graded_fact(dspy_grader(lm))))
    assert [value for _, _, value in result.results] == [float(p == g) for p, g in zip(PREDICTED, GOLD, strict=True)]
