"""Round trips: a scorer out to DSPy and back keeps its Score; a DSPy metric in and back out keeps its value."""

from __future__ import annotations

from typing import Any

import dspy
import pytest
from dspy.evaluate import answer_exact_match, answer_passage_match
from hypothesis import given, settings
from hypothesis import strategies as st

import scorebridge as sb
from scorebridge import FAILURE_KINDS
from scorebridge_dspy import from_dspy, to_dspy

EXACT = sb.exact()


def kinds(item: Any, output: Any, label: Any) -> Any:
    """A scorer of every failure kind: the output names the kind, or is compared with the label."""
    if output in FAILURE_KINDS:
        return {"correct": False, "outcome": output, "failure_kind": output, "explanation": f"it was {output}"}
    return EXACT(item, output, label)


KINDS = sb.scorer(kinds)


def partial(item: Any, output: Any, label: Any) -> Any:
    """Word overlap as partial credit, correct only when complete."""
    said, want = set(str(output).lower().split()), set(str(label).lower().split())
    value = len(said & want) / len(said | want) if said | want else 0.0
    return {"correct": value == 1.0, "outcome": output, "failure_kind": None, "value": value}


PARTIAL = sb.scorer(partial)


@pytest.mark.parametrize("output", [*FAILURE_KINDS, "Paris", " paris ", "Lyon"])
def test_a_scorer_out_and_back_keeps_its_score(output: str) -> None:
    back = from_dspy(to_dspy(KINDS))
    direct = KINDS("Capital of France?", output, "Paris")
    returned = back("Capital of France?", output, "Paris")
    assert (returned.value, returned.correct, returned.failure_kind) == (
        direct.value,
        direct.correct,
        direct.failure_kind,
    )
    assert returned == direct  # outcome and explanation too


@pytest.mark.parametrize("output", ["paris france", "city of paris", "Paris"])
def test_partial_credit_out_and_back_is_kept(output: str) -> None:
    assert from_dspy(to_dspy(PARTIAL))("q", output, "Paris") == PARTIAL("q", output, "Paris")


def test_the_built_in_exact_scorer_out_and_back_keeps_its_name_and_unscored_items() -> None:
    back = from_dspy(to_dspy(EXACT))
    assert back.name == "exact"
    assert back("q", "NOT_IN_DOCUMENT", "Paris").failure_kind == "not_in_document"
    assert back("q", "Paris", None).correct is None


TEXT = st.text(alphabet="aAbB .,-é\t", max_size=6)


@settings(max_examples=150, deadline=None)
@given(output=st.one_of(TEXT, st.sampled_from(FAILURE_KINDS)), label=st.one_of(TEXT, st.lists(TEXT, max_size=3)))
def test_any_output_and_label_out_and_back_keep_value_correct_and_kind(output: str, label: Any) -> None:
    direct = KINDS({"question": "q"}, output, label)
    returned = from_dspy(to_dspy(KINDS))({"question": "q"}, output, label)
    assert (returned.value, returned.correct, returned.failure_kind) == (
        direct.value,
        direct.correct,
        direct.failure_kind,
    )


def gold(answer: Any) -> Any:
    return dspy.Example(question="q", answer=answer).with_inputs("question")


def test_answer_exact_match_in_and_back_out_returns_what_it_returns() -> None:
    metric = to_dspy(from_dspy(answer_exact_match))
    for answer in ["Paris", "paris!", "the Paris", "Lyon"]:
        got = metric(gold("Paris"), dspy.Prediction(answer=answer))
        assert got == float(answer_exact_match(gold("Paris"), dspy.Prediction(answer=answer)))
        assert type(got) is float


@settings(max_examples=150, deadline=None)
@given(
    answer=TEXT.filter(str.strip),
    label=st.one_of(TEXT.filter(str.strip), st.lists(TEXT.filter(str.strip), min_size=1, max_size=3)),
)
def test_any_answer_in_and_back_out_scores_as_dspy_does(answer: str, label: Any) -> None:
    example, prediction = gold(label), dspy.Prediction(answer=answer)
    assert to_dspy(from_dspy(answer_exact_match))(example, prediction) == float(answer_exact_match(example, prediction))


def test_the_whole_prediction_reaches_the_metric_in_and_back_out() -> None:
    # answer_passage_match reads pred.context: to_dspy hands a from_dspy scorer the whole Prediction.
    prediction = dspy.Prediction(answer="?", context=["The capital of France is Paris."])
    assert to_dspy(from_dspy(answer_passage_match))(gold("Paris"), prediction) == 1.0
    assert answer_passage_match(gold("Paris"), prediction) is True


def test_a_gepa_style_metric_in_and_back_out_gives_its_score_as_a_float() -> None:
    def graded(example: Any, pred: Any, trace: Any = None, pred_name: Any = None, pred_trace: Any = None) -> Any:
        return dspy.Prediction(score=len(pred.answer) / 10, feedback="shorter is better")

    got = to_dspy(from_dspy(graded))(gold("Paris"), dspy.Prediction(answer="Paris"))
    assert got == 0.5 and type(got) is float


def test_the_label_field_of_a_dspy_metric_carries_over() -> None:
    def response_match(example: Any, pred: Any, trace: Any = None) -> bool:
        return bool(example.response == pred.response)

    metric = to_dspy(from_dspy(response_match, output_field="response", label_field="response"))
    example = dspy.Example(question="q", response="Paris", context="c").with_inputs("question")
    assert metric(example, dspy.Prediction(response="Paris")) == 1.0
