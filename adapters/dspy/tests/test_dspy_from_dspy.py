"""`from_dspy`: any DSPy metric as a scorer, what it is called with and how its return is read."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import dspy
import numpy as np
import pytest
from dspy.evaluate import SemanticF1, answer_exact_match, answer_passage_match
from dspy.utils import DummyLM
from hostile import BrokenRepr, nested

import scorebridge as sb
from scorebridge import Score, ScorerContractError
from scorebridge_dspy import from_dspy


def returning(value: Any, name: str = "fixed") -> Any:
    """A DSPy metric that always returns `value`."""

    def metric(example: Any, pred: Any, trace: Any = None) -> Any:
        return value

    metric.__name__ = name
    return metric


def spy() -> tuple[Any, list[tuple[Any, ...]]]:
    """A DSPy metric recording its arguments; exact match on `answer`."""
    calls: list[tuple[Any, ...]] = []

    def spied(*args: Any, **kwargs: Any) -> bool:
        calls.append((*args, kwargs))
        return bool(args[0].answer == args[1].answer)

    return spied, calls


def spy_on(field: str) -> tuple[Any, list[tuple[Any, ...]]]:
    """A DSPy metric recording its arguments; exact match on `field`."""
    calls: list[tuple[Any, ...]] = []

    def spied(*args: Any, **kwargs: Any) -> bool:
        calls.append((*args, kwargs))
        return bool(args[0][field] == args[1][field])

    return spied, calls


# DSPy's built-in metrics


def test_answer_exact_match_scores_like_dspy() -> None:
    scorer = from_dspy(answer_exact_match)
    assert scorer("Capital of France?", "paris", "Paris") == Score(True, "paris")
    assert scorer("Capital of France?", "Lyon", "Paris") == Score(False, "Lyon", "wrong")


def test_answer_exact_match_accepts_any_of_several_answers() -> None:
    assert from_dspy(answer_exact_match)("q", "Lyon", ["Paris", "Lyon"]).correct is True


def test_a_tuple_label_becomes_a_list_dspy_can_read() -> None:
    # answer_exact_match raises "Invalid answer type" on a tuple; scorebridge labels may be tuples.
    assert from_dspy(answer_exact_match)("q", "Lyon", ("Paris", "Lyon")).correct is True


def test_a_prediction_output_brings_all_its_fields() -> None:
    # answer_passage_match reads pred.context, a list of passages.
    output = dspy.Prediction(answer="?", context=["The capital of France is Paris."])
    assert from_dspy(answer_passage_match)("q", output, "Paris").correct is True


def test_an_lm_judge_module_is_named_by_its_class_and_graded_on_its_scale() -> None:
    judge = DummyLM({"": {"reasoning": "Half of it.", "recall": 0.5, "precision": 0.4}})
    scorer = from_dspy(SemanticF1(), output_field="response", label_field="response", threshold=0.66)
    with dspy.context(lm=judge):
        score = scorer({"question": "Why is the sky blue?"}, "Scattering.", "Rayleigh scattering.")
    assert scorer.name == "SemanticF1"
    # 0.444 is the F1 of evaluation mode; with a trace SemanticF1 would return a bool.
    assert score.value == pytest.approx(2 * 0.5 * 0.4 / 0.9)
    assert score.correct is False and score.failure_kind == "wrong"


# What the metric is called with


def test_the_metric_is_called_with_example_and_prediction_as_evaluate_calls_it() -> None:
    # Evaluate calls metric(example, pred): never trace=[], which built-in metrics read as bootstrapping, and no
    # third argument a two-argument metric would refuse.
    metric, calls = spy()
    from_dspy(metric, name="spied")({"question": "q"}, "Paris", "Paris")
    example, prediction, kwargs = calls[0]
    assert kwargs == {}
    assert isinstance(example, dspy.Example) and isinstance(prediction, dspy.Prediction)
    assert example.toDict() == {"question": "q", "answer": "Paris"}
    assert example.inputs().toDict() == {"question": "q"}
    assert prediction.toDict() == {"answer": "Paris"}


def test_a_plain_item_is_the_question() -> None:
    metric, calls = spy()
    from_dspy(metric, name="spied")("Capital of France?", "Paris", "Paris")
    assert calls[0][0].inputs().toDict() == {"question": "Capital of France?"}


def test_a_plain_item_goes_under_the_one_input_field() -> None:
    metric, calls = spy()
    from_dspy(metric, name="spied", input_fields=["query"])("Capital of France?", "Paris", "Paris")
    assert calls[0][0].inputs().toDict() == {"query": "Capital of France?"}


def test_a_plain_item_with_several_input_fields_is_an_error() -> None:
    metric, _ = spy()
    scorer = from_dspy(metric, name="spied", input_fields=["a", "b"])
    with pytest.raises(ScorerContractError, match="spied: the item is a str, not a mapping, but input_fields names 2"):
        scorer("Capital of France?", "Paris", "Paris")


def test_input_fields_choose_the_inputs_among_the_item_fields() -> None:
    metric, calls = spy()
    from_dspy(metric, name="spied", input_fields=["question"])({"question": "q", "context": "c"}, "P", "P")
    assert calls[0][0].inputs().toDict() == {"question": "q"}
    assert calls[0][0].labels().toDict() == {"context": "c", "answer": "P"}


def test_an_example_item_keeps_its_fields_and_inputs() -> None:
    metric, calls = spy()
    item = dspy.Example(question="q", context="c").with_inputs("question")
    from_dspy(metric, name="spied")(item, "P", "P")
    assert calls[0][0].toDict() == {"question": "q", "context": "c", "answer": "P"}
    assert calls[0][0].inputs().toDict() == {"question": "q"}


def test_no_item_gives_an_example_of_just_the_label() -> None:
    metric, calls = spy()
    from_dspy(metric, name="spied")(None, "P", "P")
    assert calls[0][0].toDict() == {"answer": "P"}


def test_fields_are_named_by_output_field_and_label_field() -> None:
    def response_match(example: Any, pred: Any, trace: Any = None) -> bool:
        return bool(example.response == pred.response)

    scorer = from_dspy(response_match, output_field="response", label_field="response")
    assert scorer("q", "Paris", "Paris").correct is True


def test_an_item_without_a_label_is_not_scored_and_the_metric_not_called() -> None:
    metric, calls = spy()
    assert from_dspy(metric, name="spied")("q", "Paris", None) == Score(None, "Paris")
    assert calls == []


def test_a_two_argument_metric_is_called_with_two() -> None:
    # DSPy's own tests write metrics of two arguments; metric(example, pred, None) once raised TypeError on each
    def hour_of(example: Any, pred: Any) -> bool:
        return bool(example.answer == pred.answer)

    assert from_dspy(hour_of)("q", "3", "3").correct is True


def test_a_metric_requiring_a_trace_gets_none_for_it() -> None:
    seen: list[Any] = []

    def strict(example: Any, pred: Any, trace: Any, pred_name: Any) -> bool:
        seen.append((trace, pred_name))
        return True

    assert from_dspy(strict)("q", "3", "3").correct is True
    assert seen == [(None, None)]


def clock_item(hour: Any) -> Any:
    return dspy.Example(question="What time is it?", hour=hour, minute=30, dspy_uuid="u1").with_inputs("question")


def test_an_example_item_holding_its_label_names_the_label_field() -> None:
    # DSPy's tests label examples `hour`, `output`, `date_diff`: the label's field is read off the item, the one
    # field that is not an input and holds the label (`minute` is another gold field)
    metric, calls = spy_on("hour")
    assert from_dspy(metric, name="spied")(clock_item("3"), "3", "3").correct is True
    example, prediction = calls[0][0], calls[0][1]
    assert (example.hour, prediction.hour) == ("3", "3")  # the output goes under the label's field too


def test_an_example_item_keeps_every_field_dspy_s_own_too() -> None:
    metric, calls = spy_on("hour")
    from_dspy(metric, name="spied")(clock_item("3"), "3", "3")
    example = calls[0][0]
    assert (example.minute, example.get("dspy_uuid"), example.inputs().toDict()) == (
        30,
        "u1",
        {"question": "What time is it?"},
    )


def test_an_example_item_with_no_field_holding_the_label_keeps_answer() -> None:
    metric, calls = spy()
    from_dspy(metric, name="spied")(clock_item("3"), "5", "5")
    assert (calls[0][0].answer, calls[0][0].hour) == ("5", "3")


def test_label_field_given_wins_over_the_item() -> None:
    metric, calls = spy_on("when")
    from_dspy(metric, name="spied", label_field="when")(clock_item("3"), "3", "3")
    assert (calls[0][0].when, calls[0][1].when) == ("3", "3")


# The protocol's pre-sorting: "an output with a failure_kind is wrong" for that reason, before any comparison.
# review: from_dspy skipped it, so these outputs made answer_exact_match raise a TypeError from inside DSPy,
# where exact() and from_inspect(match()) record "refusal" and "error".


def test_an_output_reporting_a_refusal_is_recorded_refusal_without_calling_the_metric() -> None:
    metric, calls = spy()
    score = from_dspy(metric, name="spied")("q", {"failure_kind": "refusal", "text": "Paris"}, "Paris")
    assert (score.correct, score.failure_kind, score.value) == (False, "refusal", 0.0)
    assert calls == []


def test_an_output_with_ok_false_is_recorded_error_without_calling_the_metric() -> None:
    metric, calls = spy()
    score = from_dspy(metric, name="spied")("q", {"ok": False}, "Paris")
    assert (score.correct, score.failure_kind, score.value) == (False, "error", 0.0)
    assert calls == []


@pytest.mark.parametrize("output", [{"failure_kind": "refusal", "text": "Paris"}, {"ok": False}])
def test_answer_exact_match_records_what_exact_records_for_a_failed_output(output: Any) -> None:
    assert from_dspy(answer_exact_match)("q", output, "Paris") == sb.exact()("q", output, "Paris")


def test_an_output_reporting_a_failure_on_an_unlabelled_item_is_unscored_keeping_its_kind() -> None:
    score = from_dspy(answer_exact_match)("q", {"failure_kind": "refusal"}, None)
    assert (score.correct, score.failure_kind, score.value) == (None, "refusal", None)


@pytest.mark.parametrize(
    "output",
    [SimpleNamespace(answer="paris"), {"answer": "paris"}, SimpleNamespace(text="paris"), {"text": "paris"}],
    ids=["answer-attribute", "answer-key", "text-attribute", "text-key"],
)
def test_answer_exact_match_reads_the_text_of_an_output_object_as_exact_does(output: Any) -> None:
    # The object itself once became pred.answer, and answer_exact_match raised TypeError inside its normalising;
    # by the protocol's rule an output's text is its answer (else text) element, as exact() reads it.
    assert from_dspy(answer_exact_match)("q", output, "Paris").correct is sb.exact()("q", output, "Paris").correct


def test_a_metric_is_handed_the_answer_element_of_an_output_object_as_it_is() -> None:
    # a number stays a number, as a bare output 5 does: a metric comparing pred.hour == example.hour gets 5
    metric, calls = spy_on("hour")
    assert from_dspy(metric, name="spied", label_field="hour")("q", {"answer": 5}, 5).correct is True
    assert calls[0][1].hour == 5


def test_an_output_with_no_text_is_still_judged_by_the_metric() -> None:
    # no failure reported: the metric decides (an exact-match metric of one's own may read an empty output)
    metric, calls = spy()
    from_dspy(metric, name="spied")("q", {"note": "no answer here"}, "Paris")
    assert len(calls) == 1


# Reading what the metric returns


@pytest.mark.parametrize(
    ("returned", "value", "correct"),
    [
        (True, 1.0, True),
        (False, 0.0, False),
        (np.bool_(True), 1.0, True),
        (np.bool_(False), 0.0, False),
        (1, 1.0, True),
        (0, 0.0, False),  # f1_score returns int 0 when nothing overlaps
        (0.5, 0.5, False),
        (np.float32(0.25), 0.25, False),
        (np.int64(1), 1.0, True),
        (Decimal("1.5"), 1.5, True),
    ],
)
def test_bools_and_numbers_are_read_as_values(returned: Any, value: float, correct: bool) -> None:
    score = from_dspy(returning(returned))("q", "a", "a")
    assert score.value == value and type(score.value) is float
    assert score.correct is correct


def test_the_threshold_decides_correct() -> None:
    assert from_dspy(returning(0.7), threshold=0.66)("q", "a", "a").correct is True
    assert from_dspy(returning(65), threshold=70)("q", "a", "a").correct is False  # a 0-100 metric


def test_a_prediction_is_read_before_any_truth_test() -> None:
    # stanfordnlp/dspy#10473: bool(Prediction(score=False)) is True.
    score = from_dspy(returning(dspy.Prediction(score=False, feedback="too long")))("q", "a", "a")
    assert score == Score(False, "a", "wrong", 0.0, "too long")


def test_a_gepa_style_prediction_gives_value_and_explanation() -> None:
    score = from_dspy(returning(dspy.Prediction(score=0.8, feedback="close")), threshold=0.75)("q", "a", "a")
    assert score == Score(True, "a", None, 0.8, "close")


def test_other_fields_of_a_returned_prediction_are_metadata() -> None:
    returned = dspy.Prediction(score=1.0, feedback=None, objective_scores={"brevity": 0.5})
    score = from_dspy(returning(returned))("q", "a", "a")
    assert score.explanation is None
    assert dict(score.metadata) == {"objective_scores": {"brevity": 0.5}}


def test_a_dict_with_a_score_is_read_leniently() -> None:
    # GEPA's docstring suggests this form; DSPy itself crashes adding it up.
    assert from_dspy(returning({"score": 1, "feedback": "ok"}))("q", "a", "a") == Score(True, "a", None, 1.0, "ok")


def test_an_async_metric_is_awaited() -> None:
    async def later(example: Any, pred: Any, trace: Any = None) -> float:
        return 1.0

    assert from_dspy(later)("q", "a", "a").correct is True


@pytest.mark.parametrize(
    "returned",
    [None, float("nan"), float("inf"), "1.0", [1.0], {"feedback": "no score"}, np.float64("nan"), 10**400],
    ids=["None", "nan", "inf", "str", "list", "dict-without-score", "numpy-nan", "huge-int"],
)
def test_unreadable_returns_are_an_error_naming_the_metric(returned: Any) -> None:
    with pytest.raises(ScorerContractError, match="fixed: the DSPy metric 'fixed' returned"):
        from_dspy(returning(returned))("q", "a", "a")


def test_a_prediction_without_a_score_is_an_error() -> None:
    with pytest.raises(ScorerContractError, match=r"returned a Prediction with no score \(fields: 'feedback'\)"):
        from_dspy(returning(dspy.Prediction(feedback="hm")))("q", "a", "a")


def test_outcome_is_the_output_text() -> None:
    assert from_dspy(returning(True))("q", " Paris ", "Paris").outcome == " Paris "
    assert from_dspy(returning(True))("q", 1e5, "100000").outcome == "100000"
    assert from_dspy(returning(True))("q", ["a"], "a").outcome is None


# A metric that fails is never a silent zero


def test_an_exception_propagates_with_a_note_naming_the_metric() -> None:
    with pytest.raises(TypeError) as info:
        from_dspy(answer_exact_match)("q", None, "Paris")  # DSPy's EM cannot normalise None
    assert getattr(info.value, "__notes__", []) == ["raised inside the DSPy metric 'answer_exact_match'"]


def test_the_note_names_the_scorer_too_when_renamed() -> None:
    with pytest.raises(TypeError) as info:
        from_dspy(answer_exact_match, name="em")("q", None, "Paris")
    assert getattr(info.value, "__notes__", []) == [
        "raised inside the DSPy metric 'answer_exact_match' (the scorer 'em')"
    ]


def test_on_error_record_records_an_error_with_the_message() -> None:
    score = from_dspy(answer_exact_match, on_error="record")("q", None, "Paris")
    assert score.correct is False and score.failure_kind == "error" and score.value == 0.0
    assert score.explanation is not None
    assert score.explanation.startswith("the DSPy metric failed: TypeError: ")
    assert dict(score.metadata) == {"error": "TypeError", "metric": "answer_exact_match"}


def test_on_error_record_records_an_unreadable_return_too() -> None:
    score = from_dspy(returning(None), on_error="record")("q", "a", "a")
    assert score.failure_kind == "error"
    assert dict(score.metadata) == {"error": "ScorerContractError", "metric": "fixed"}


# Names, options and checks


def test_the_scorer_is_named_after_the_metric_or_its_class() -> None:
    class Judge:
        def __call__(self, example: Any, pred: Any, trace: Any = None) -> bool:
            return True

    assert from_dspy(answer_exact_match).name == "answer_exact_match"
    assert from_dspy(Judge()).name == "Judge"
    assert from_dspy(answer_exact_match, name="em").name == "em"


def test_a_lambda_is_named_dspy_metric_unless_named() -> None:
    # DSPy takes lambdas as metrics (its own tests pass them to Evaluate and GEPA), so a round trip must too
    assert from_dspy(lambda e, p, t=None: True).name == "dspy_metric"
    assert from_dspy(lambda e, p, t=None: True, name="always")("q", "a", "a").correct is True


def test_the_repr_shows_the_options() -> None:
    assert repr(from_dspy(answer_exact_match, threshold=0.5)) == (
        "<Scorer answer_exact_match(output_field=None, label_field=None, input_fields=None, "
        "threshold=0.5, on_error='raise')>"
    )


def test_a_scorer_from_dspy_scores_a_batch() -> None:
    scores = from_dspy(answer_exact_match).score_many(["q1", "q2"], ["Paris", "Lyon"], ["paris", "Paris"])
    assert [s.correct for s in scores] == [True, False]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"output_field": ""}, ValueError, "output_field must be a field name"),
        ({"label_field": 3}, TypeError, "label_field must be a field name, one string; got int"),
        ({"input_fields": "question"}, TypeError, "input_fields must be a list of field names, not one string"),
        ({"input_fields": ["question", 1]}, TypeError, "input_fields must be a field name, one string; got int"),
        (
            {"input_fields": ["answer"], "label_field": "answer"},
            ValueError,
            "the label field 'answer' cannot also be an input field",
        ),
        ({"threshold": None}, TypeError, "threshold must be a number; got NoneType"),
        ({"threshold": float("inf")}, ValueError, "threshold must be a finite number"),
        ({"on_error": "ignore"}, ValueError, "on_error must be 'raise' or 'record'; got 'ignore'"),
    ],
)
def test_bad_arguments_are_refused_naming_the_metric(kwargs: dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error, match=r"from_dspy\(answer_exact_match\): " + message):
        from_dspy(answer_exact_match, **kwargs)


def test_a_metric_must_be_callable() -> None:
    with pytest.raises(TypeError, match="from_dspy: metric must be callable; got str"):
        from_dspy("answer_exact_match")  # type: ignore[arg-type]


# Hostile input: a ScorerContractError naming the scorer ("raise"), a recorded error ("record"), never a crash inside


HOSTILE: dict[str, Any] = {
    "a field name that is not a string": lambda: ({1: "q", "question": "q"}, "Paris", "Paris"),
    "a 5000-digit output": lambda: ("q", 10**5000, "Paris"),
    "an output whose failure_kind's repr raises": lambda: ("q", {"failure_kind": BrokenRepr()}, "Paris"),
    "an example item whose label field's == raises": lambda: (clock_item(BrokenRepr()), "3", "3"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_input_is_a_contract_error_naming_the_scorer(case: str) -> None:
    with pytest.raises(ScorerContractError, match=r"^answer_exact_match: "):
        from_dspy(answer_exact_match)(*HOSTILE[case]())


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_input_is_recorded_as_an_error_with_on_error_record(case: str) -> None:
    score = from_dspy(answer_exact_match, on_error="record")(*HOSTILE[case]())
    assert (score.correct, score.failure_kind) == (False, "error")
    assert score.explanation is not None and score.explanation.startswith("the scorer could not read its input: ")


def test_a_label_nested_deep_reaches_the_metric_whose_own_error_names_it() -> None:
    # A label nested 100,000 deep raised RecursionError in scorebridge's own reading; it is read now, and what
    # the metric makes of it is the metric's: answer_exact_match raises TypeError, noted with its name.
    with pytest.raises(TypeError) as caught:
        from_dspy(answer_exact_match)("q", "Paris", nested(100_000))
    assert "raised inside the DSPy metric 'answer_exact_match'" in caught.value.__notes__
    recorded = from_dspy(answer_exact_match, on_error="record")("q", "Paris", nested(100_000))
    assert (recorded.failure_kind, recorded.metadata["error"]) == ("error", "TypeError")


def test_a_recorded_error_cuts_a_huge_exception_message() -> None:
    def verbose(example: Any, pred: Any) -> Any:
        raise ValueError("x" * 10_000_000)

    explanation = from_dspy(verbose, on_error="record")("q", "a", "a").explanation
    assert explanation is not None and len(explanation) < 600
    assert explanation.endswith("... (cut; 10000012 characters in all)")


# --- structured predictions: DSPy's own entity-extraction tests score a prediction whose field is a list ----------
# from_dspy recorded such a metric's 0.0 as a parse failure ("the output is a list, not text"): the 12 calls of
# DSPy's own tests that disagreed. A structured output reaches the metric as DSPy hands it, and a wrong is wrong.

ENTITIES = [{"name": "United States", "type": "location"}]


def entities_match(example: Any, pred: Any, trace: Any = None) -> float:
    """A metric of one's own over a list field, as DSPy's tests write them: the entities as extracted."""
    return float(pred.entities == example.entities)


def test_a_list_field_reaches_the_metric_whole_and_a_match_is_correct() -> None:
    scorer = from_dspy(entities_match, output_field="entities", label_field="entities")
    score = scorer({"text": "Born in the United States"}, dspy.Prediction(entities=ENTITIES), ENTITIES)
    assert (score.correct, score.value) == (True, 1.0)


def test_a_wrong_list_field_is_wrong_as_dspy_says_not_a_parse_failure() -> None:
    example = dspy.Example(text="Born in the United States", entities=ENTITIES).with_inputs("text")
    pred = dspy.Prediction(entities=[{"name": "Paris", "type": "location"}])
    native = entities_match(example, pred)
    score = from_dspy(entities_match, output_field="entities", label_field="entities")(example, pred, ENTITIES)
    assert native == 0.0 and (score.correct, score.failure_kind, score.value) == (False, "wrong", 0.0)


def test_an_empty_list_field_is_an_answer_the_metric_judges() -> None:
    def no_entities(example: Any, pred: Any, trace: Any = None) -> float:
        return float(pred.entities == [])

    scorer = from_dspy(no_entities, output_field="entities", label_field="entities")
    assert scorer({"text": "Nothing here"}, dspy.Prediction(entities=[]), "none expected").correct is True


def test_a_missing_field_is_still_a_parse_failure() -> None:
    scorer = from_dspy(entities_match, output_field="entities", label_field="entities")
    score = scorer({"text": "x"}, dspy.Prediction(entities=None), ENTITIES)
    assert (score.correct, score.failure_kind) == (False, "parse_failure")
