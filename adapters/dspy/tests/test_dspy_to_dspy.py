"""`to_dspy`: what the metric returns to each DSPy caller, and how it reads examples and predictions."""

from __future__ import annotations

import copy
import inspect
from typing import Any

import dspy
import pytest

import scorebridge as sb
from scorebridge import Score, ScorerContractError
from scorebridge_dspy import ScorerMetric, to_dspy

EXACT = sb.exact()


def gold(answer: Any = "Paris", **inputs: Any) -> Any:
    inputs = inputs or {"question": "Capital of France?"}
    return dspy.Example(**inputs, answer=answer).with_inputs(*inputs)


def pred(answer: Any = "Paris", **fields: Any) -> Any:
    return dspy.Prediction(answer=answer, **fields)


def partial(value: float) -> sb.Scorer:
    """A scorer giving `value` as partial credit, correct when it is 1."""
    return sb.scorer(lambda item, output, label: {"correct": value >= 1, "outcome": output, "value": value}, "partial")


def spy() -> tuple[sb.Scorer, list[tuple[Any, Any, Any]]]:
    """A scorer recording what it was called with; correct when output equals label."""
    calls: list[tuple[Any, Any, Any]] = []

    def seen(item: Any, output: Any, label: Any) -> bool:
        calls.append((item, output, label))
        return bool(output == label)

    return sb.scorer(seen), calls


# What each caller gets back


def test_evaluate_gets_the_value_as_a_python_float() -> None:
    # Evaluate calls metric(example, prediction): trace None, pred_name None.
    metric = to_dspy(EXACT)
    assert type(metric(gold(), pred(" paris "))) is float
    assert metric(gold(), pred(" paris ")) == 1.0
    assert metric(gold(), pred("Lyon")) == 0.0


def test_evaluate_gets_partial_credit_unchanged() -> None:
    assert to_dspy(partial(0.25))(gold(), pred()) == 0.25


@pytest.mark.parametrize(
    ("grade", "value"), [(True, 1.0), (False, 0.0), ("C", 1.0), ("pass", 1.0), ("I", 0.0), ("P", 0.5), (0.75, 0.75)]
)
def test_grades_become_numbers_as_seed_004_converts_them(grade: Any, value: float) -> None:
    # dsprrr's `as_dsprrr_metric`: "numbers are kept, TRUE/FALSE become 1/0, and "C"/"correct"/"pass",
    # "I"/"incorrect"/"fail" and "P"/"partial" become 1, 0 and 0.5."
    graded = sb.scorer(lambda item, output, label: grade, "graded")
    got = to_dspy(graded)(gold(), pred())
    assert got == value and type(got) is float


def test_the_seed_004_example_scores_one() -> None:
    # dsprrr's `as_dsprrr_metric`: exact_match <- function(samples) list(score = as.numeric(result == target));
    # metric("yes", data.frame(input = "Continue?", target = "yes")) #> 1
    exact_match = sb.scorer(lambda item, output, label: float(output == label), "exact_match")
    example = dspy.Example(input="Continue?", target="yes").with_inputs("input")
    assert to_dspy(exact_match)(example, dspy.Prediction(result="yes")) == 1


def test_bootstrapping_gets_a_strict_bool() -> None:
    # BootstrapFewShot passes the trace list and tests `if success:`.
    metric = to_dspy(EXACT)
    trace = [("predictor", {"question": "Capital of France?"}, pred())]
    assert metric(gold(), pred(), trace) is True
    assert metric(gold(), pred("Lyon"), trace) is False


def test_an_empty_trace_is_still_bootstrapping() -> None:
    # trace=[] is "not None": built-in DSPy metrics test `trace is None` too.
    assert to_dspy(EXACT)(gold(), pred("Lyon"), []) is False


def test_a_partial_score_is_not_truthy_while_bootstrapping() -> None:
    # stanfordnlp/dspy#10473: a truthy non-bool (0.25, or any non-empty Prediction) accepts every trace.
    assert to_dspy(partial(0.25))(gold(), pred(), []) is False


def test_the_threshold_decides_while_bootstrapping() -> None:
    assert to_dspy(partial(0.5), threshold=0.6)(gold(), pred(), []) is False
    assert to_dspy(partial(0.5), threshold=0.5)(gold(), pred(), []) is True
    assert to_dspy(partial(0.5), threshold=0)(gold(), pred(), []) is True  # 0 is a threshold, not "none"


def test_the_threshold_leaves_the_evaluate_value_alone() -> None:
    assert to_dspy(partial(0.5), threshold=0.4)(gold(), pred()) == 0.5


def test_gepa_feedback_call_gets_a_prediction_with_score_and_feedback() -> None:
    # GEPA asks for feedback with metric(gold, pred, trace, pred_name, pred_trace).
    metric = to_dspy(EXACT)
    got = metric(gold(), pred("Lyon"), [], "self", [])
    assert isinstance(got, dspy.Prediction)
    assert got.score == 0.0 and type(got.score) is float
    assert got.feedback == "wrong: answered 'lyon'; expected 'Paris'"


def test_gepa_feedback_score_equals_the_score_of_the_plain_call() -> None:
    # GEPA warns and overrides when the two differ (stanfordnlp/dspy#8703).
    metric = to_dspy(partial(0.25))
    assert metric(gold(), pred(), [], "self", []).score == metric(gold(), pred()) == 0.25


def test_feedback_off_gives_gepa_the_value() -> None:
    got = to_dspy(EXACT, feedback=False)(gold(), pred("Lyon"), [], "self", [])
    assert type(got) is float and got == 0.0


def test_the_metric_binds_five_positional_arguments_as_gepa_checks() -> None:
    # GEPA refuses, at construction, a metric that cannot take (gold, pred, trace, pred_name, pred_trace).
    metric = to_dspy(EXACT)
    bound = inspect.signature(metric).bind(None, None, None, None, None)
    assert list(bound.arguments) == ["gold", "pred", "trace", "pred_name", "pred_trace"]
    assert dspy.GEPA(metric=metric, max_metric_calls=1, instruction_proposer=lambda **kw: {}).metric_fn is metric


# The output


def test_the_output_is_the_only_field_of_the_prediction() -> None:
    scorer, calls = spy()
    to_dspy(scorer)(gold(), dspy.Prediction(response="Paris"))
    assert calls[0][1] == "Paris"


def test_the_output_is_answer_when_there_are_several_fields() -> None:
    scorer, calls = spy()
    to_dspy(scorer)(gold(), pred("Paris", confidence="high"))
    assert calls[0][1] == "Paris"


def test_chain_of_thought_reasoning_is_not_an_output_field() -> None:
    scorer, calls = spy()
    to_dspy(scorer)(gold(), dspy.Prediction(reasoning="It is Paris.", response="Paris"))
    assert calls[0][1] == "Paris"


def test_output_field_names_the_field_to_score() -> None:
    scorer, calls = spy()
    to_dspy(scorer, output_field="city")(gold(), pred("unused", city="Paris"))
    assert calls[0][1] == "Paris"


def test_a_prediction_without_the_output_field_is_an_error_naming_it() -> None:
    with pytest.raises(ScorerContractError, match=r"exact: the prediction has no field 'answer' \(it has 'x', 'y'\)"):
        to_dspy(EXACT)(gold(), dspy.Prediction(x=1, y=2))


def test_an_empty_prediction_is_a_parse_failure() -> None:
    metric = to_dspy(EXACT)
    assert metric.score(gold(), dspy.Prediction()).failure_kind == "parse_failure"
    assert metric(gold(), dspy.Prediction()) == 0.0


def test_no_prediction_is_a_parse_failure() -> None:
    # SIMBA passes pred=None when the program raised.
    assert to_dspy(EXACT).score(gold(), None).failure_kind == "parse_failure"


# The label and the item


def test_the_label_is_the_only_field_that_is_not_an_input() -> None:
    scorer, calls = spy()
    example = dspy.Example(question="Capital of France?", response="Paris").with_inputs("question")
    assert to_dspy(scorer)(example, pred("Paris")) == 1.0
    assert calls[0][2] == "Paris"


def test_dspy_own_fields_are_neither_labels_nor_outputs() -> None:
    # Example.keys() hides fields named dspy_*, which DSPy keeps for itself.
    scorer, calls = spy()
    example = dspy.Example(question="q", response="Paris", dspy_split="dev").with_inputs("question")
    to_dspy(scorer)(example, dspy.Prediction(city="Paris", dspy_uuid="1"))
    assert calls[0] == ({"question": "q"}, "Paris", "Paris")


def test_the_label_is_answer_when_several_fields_are_not_inputs() -> None:
    scorer, calls = spy()
    example = dspy.Example(question="q", answer="Paris", context="c").with_inputs("question")
    to_dspy(scorer)(example, pred())
    assert calls[0][2] == "Paris"


def test_label_field_names_the_label() -> None:
    scorer, calls = spy()
    example = dspy.Example(question="q", answer="Paris", gold_city="Lyon").with_inputs("question")
    to_dspy(scorer, label_field="gold_city")(example, pred())
    assert calls[0][2] == "Lyon"


def test_the_item_is_the_inputs_as_a_dict() -> None:
    scorer, calls = spy()
    example = dspy.Example(question="q", lang="fr", answer="Paris").with_inputs("question", "lang")
    to_dspy(scorer)(example, pred())
    assert calls[0][0] == {"question": "q", "lang": "fr"}
    assert type(calls[0][0]) is dict


def test_without_inputs_the_item_is_every_field_but_the_label() -> None:
    scorer, calls = spy()
    to_dspy(scorer)(dspy.Example(question="q", answer="Paris"), pred())
    assert calls[0][0] == {"question": "q"}


def test_item_function_builds_the_item_from_the_example() -> None:
    scorer, calls = spy()
    to_dspy(scorer, item=lambda g: g.question.upper())(gold(), pred())
    assert calls[0][0] == "CAPITAL OF FRANCE?"


def test_the_metric_does_not_change_the_example_or_prediction() -> None:
    # DSPy passes its devset's own Examples (not copies) to the metric.
    example, prediction = gold(), pred(" paris ")
    to_dspy(EXACT)(example, prediction, [], "self", [])
    assert example == gold() and example.inputs().toDict() == {"question": "Capital of France?"}
    assert prediction == pred(" paris ")


# Unscored and bad input: one clear error, never a silent zero


def test_an_example_without_a_label_is_an_error_naming_the_field() -> None:
    unlabelled = dspy.Example(question="Capital of France?").with_inputs("question")
    with pytest.raises(ScorerContractError, match=r"exact: the example has no label in its field 'answer'"):
        to_dspy(EXACT)(unlabelled, pred())


def test_an_example_without_a_label_names_the_label_field_given() -> None:
    # review: the error must say which field held no label, the one the user chose too
    unlabelled = dspy.Example(question="q", answer="Paris", gold_city=None).with_inputs("question")
    with pytest.raises(ScorerContractError, match=r"^exact: the example has no label in its field 'gold_city'"):
        to_dspy(EXACT, label_field="gold_city")(unlabelled, pred())


def test_a_blank_label_is_an_error_too() -> None:
    with pytest.raises(ScorerContractError, match="cannot be scored"):
        to_dspy(EXACT)(gold(answer="  "), pred())


def test_score_gives_the_unscored_score_without_raising() -> None:
    unlabelled = dspy.Example(question="q").with_inputs("question")
    assert to_dspy(EXACT).score(unlabelled, pred()) == Score(None, "paris")


def test_a_scorer_that_cannot_tell_is_an_error_with_its_explanation() -> None:
    unsure = sb.scorer(lambda i, o, lab: {"correct": None, "explanation": "judge said maybe"}, "unsure")
    with pytest.raises(ScorerContractError, match=r"unsure: the scorer left this example unscored.*judge said maybe"):
        to_dspy(unsure)(gold(), pred())


def test_a_gold_that_is_not_an_example_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"exact: the gold example must be a dspy\.Example; got dict"):
        to_dspy(EXACT)({"answer": "Paris"}, pred())


def test_an_exception_from_the_scorer_propagates_naming_it() -> None:
    def broken(item: Any, output: Any, label: Any) -> Any:
        raise KeyError("oops")

    with pytest.raises(KeyError) as info:
        to_dspy(sb.scorer(broken))(gold(), pred())
    assert "raised inside the scorer 'broken'" in getattr(info.value, "__notes__", [])


def _broken(item: Any, output: Any, label: Any) -> Any:
    raise KeyError("oops")


def test_on_error_record_gives_evaluate_zero_for_a_raising_scorer() -> None:
    metric = to_dspy(sb.scorer(_broken), on_error="record")
    assert (metric(gold(), pred()), type(metric(gold(), pred()))) == (0.0, float)


def test_on_error_record_gives_bootstrapping_false_for_a_raising_scorer() -> None:
    assert to_dspy(sb.scorer(_broken), on_error="record")(gold(), pred(), trace=[]) is False


def test_on_error_record_gives_gepa_feedback_naming_the_exception() -> None:
    got = to_dspy(sb.scorer(_broken), on_error="record")(gold(), pred(), None, "predict", None)
    assert got.score == 0.0
    assert "KeyError('oops')" in got.feedback


def test_on_error_record_gives_the_whole_error_score() -> None:
    score = to_dspy(sb.scorer(_broken), on_error="record").score(gold(), pred())
    assert (score.failure_kind, score.explanation) == ("error", "the scorer raised KeyError('oops')")


def test_on_error_is_shown_in_the_repr_when_record() -> None:
    assert repr(to_dspy(EXACT, on_error="record")) == "to_dspy(<Scorer exact(normalise=True)>, on_error='record')"


@pytest.mark.parametrize("on_error", ["ignore", None, 1])
def test_an_unknown_on_error_is_refused_at_construction(on_error: Any) -> None:
    with pytest.raises(ValueError, match=r"to_dspy\(exact\): on_error must be 'raise' or 'record'; got "):
        to_dspy(EXACT, on_error=on_error)


def test_on_error_record_on_a_round_trip_records_the_metrics_exception() -> None:
    from scorebridge_dspy import from_dspy

    def fussy(example: Any, prediction: Any, trace: Any = None) -> float:
        raise KeyError("oops")

    assert to_dspy(from_dspy(fussy), on_error="record")(gold(), pred()) == 0.0


def _near(item: Any, output: Any, label: float) -> Any:
    if label is None:
        return {"correct": None, "outcome": output, "failure_kind": None}
    return {"correct": abs(float(output) - label) <= 0.01 * abs(label), "outcome": output, "failure_kind": None}


def test_a_declared_float_label_gets_a_text_label_as_a_number() -> None:
    assert to_dspy(sb.scorer(_near))(gold("45.2"), pred("45.3")) == 1.0


def test_a_blank_label_reaches_the_scorer_as_none_and_is_unscored() -> None:
    with pytest.raises(ScorerContractError, match="the example has no label in its field 'answer'"):
        to_dspy(sb.scorer(_near))(gold(""), pred("45.3"))


def test_a_label_the_scorer_cannot_read_names_the_scorer_and_the_value() -> None:
    with pytest.raises(ScorerContractError, match="_near: cannot read the label 'n/a' as float"):
        to_dspy(sb.scorer(_near))(gold("n/a"), pred("45.3"))


def test_a_scorer_that_needs_no_label_scores_an_example_without_a_label_field() -> None:
    def short(item: Any, output: Any, label: Any) -> bool:
        return label is None and len(output) <= 5

    metric = to_dspy(sb.scorer(short, needs_label=False))
    example = dspy.Example(question="Capital of France?").with_inputs("question")
    assert (metric(example, pred("Paris")), metric(example, pred("Paris, France"))) == (1.0, 0.0)


def test_an_async_scorer_is_awaited() -> None:
    async def later(item: Any, output: Any, label: Any) -> bool:
        return bool(output == label)

    assert to_dspy(sb.scorer(later))(gold(), pred()) == 1.0


# The metric object


def test_the_metric_is_named_after_its_scorer() -> None:
    assert to_dspy(EXACT).__name__ == "exact"


def test_the_repr_shows_the_scorer_and_the_options_given() -> None:
    assert repr(to_dspy(EXACT)) == "to_dspy(<Scorer exact(normalise=True)>)"
    assert repr(to_dspy(EXACT, output_field="city", threshold=0.5, feedback=False)) == (
        "to_dspy(<Scorer exact(normalise=True)>, output_field='city', threshold=0.5, feedback=False)"
    )


def test_the_metric_is_immutable_and_copies_are_itself() -> None:
    metric = to_dspy(EXACT)
    with pytest.raises(AttributeError):
        metric.threshold = 0.5  # type: ignore[misc]
    assert copy.copy(metric) is metric
    assert copy.deepcopy(metric) is metric
    assert isinstance(metric, ScorerMetric)


# Arguments are checked when the metric is made


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"output_field": ""}, ValueError, "output_field must be a field name"),
        ({"output_field": 3}, TypeError, "output_field must be a field name, one string; got int"),
        ({"label_field": " answer"}, ValueError, "label_field must be a field name"),
        ({"item": "question"}, TypeError, "item must be a function of the gold example; got str"),
        ({"threshold": True}, TypeError, "threshold must be a number; got bool"),
        ({"threshold": "0.5"}, TypeError, "threshold must be a number; got str"),
        ({"threshold": float("nan")}, ValueError, "threshold must be a finite number"),
        ({"threshold": 10**400}, ValueError, "threshold must be a finite number"),
        ({"feedback": 1}, TypeError, "feedback must be True or False; got 1"),
    ],
)
def test_bad_arguments_are_refused_naming_the_scorer(kwargs: dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error, match=r"to_dspy\(exact\): " + message.replace("(", r"\(")):
        to_dspy(EXACT, **kwargs)


def test_a_plain_function_is_not_a_scorer() -> None:
    with pytest.raises(TypeError, match=r"to_dspy: scorer must be a scorebridge.Scorer .*got function"):
        to_dspy(lambda i, o, lab: True)  # type: ignore[arg-type]


def test_a_prediction_as_the_gold_example_is_read_as_one_without_inputs() -> None:
    # a Prediction is an Example that keeps no input names (DSPy's own code compares two predictions this way)
    assert to_dspy(EXACT)(dspy.Prediction(answer="Paris"), dspy.Prediction(answer="paris")) == 1.0
