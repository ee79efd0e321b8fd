"""Round trips: DSPy's metric in and back out is DSPy's metric; a scorer out and back is the scorer.

Each behaviour DSPy's own tests check of a metric (tests/evaluate, tests/teleprompt)
is checked here in the round-trip form, `to_dspy(from_dspy(m))` beside `m`, in the real
DSPy, offline (DummyLM). The bugs guarded against are the ones the round trip had
when it rebuilt the call: a two-argument metric called with three and zeroed on every
row, a label field other than `answer` refused, other gold fields dropped, a
prediction that is not a `Prediction` wrapped, GEPA's `pred_name`/`pred_trace` and
signature check lost, BootstrapFewShot's `metric_threshold` ignored, the return type
changed.
"""

from __future__ import annotations

import inspect
import logging
from typing import Any

import dspy
import pytest
from dspy.evaluate import SemanticF1, answer_exact_match, answer_passage_match
from dspy.utils import DummyLM
from hypothesis import given, settings
from hypothesis import strategies as st

import scorebridge as sb
from scorebridge import FAILURE_KINDS
from scorebridge_dspy import from_dspy, to_dspy

EXACT = sb.exact()


def question(i: int) -> str:
    return f"[q{i:03d}] What is the hour of clock {i}?"  # tagged: no question is a substring of another


def lm_answering(field: str, answers: list[Any]) -> DummyLM:
    return DummyLM({question(i): {field: answer} for i, answer in enumerate(answers)})


def hour_of(example: Any, pred: Any) -> bool:
    """A two-argument metric on the label field `hour`, as DSPy's own tests write them."""
    return bool(example.hour == pred.hour)


def clock(example: Any, pred: Any, trace: Any = None, pred_name: Any = None, pred_trace: Any = None) -> Any:
    """A GEPA metric reading another gold field (`minute`), with feedback that names the predictor."""
    right = str(example.hour) == str(pred.hour)
    score = 1.0 if right else 0.0
    if pred_name is None:
        return score
    where = f"{pred_name} ({len(pred_trace or [])} steps)"
    return dspy.Prediction(score=score, feedback=f"{where}: expected {example.hour}:{example.minute}")


def clocks(hours: list[Any]) -> list[Any]:
    return [
        dspy.Example(question=question(i), hour=hour, minute=i % 60).with_inputs("question")
        for i, hour in enumerate(hours)
    ]


# --- the round trip is the metric itself -----------------------------------------------


@pytest.mark.parametrize("metric", [answer_exact_match, answer_passage_match, hour_of, clock, SemanticF1()])
def test_a_dspy_metric_in_and_back_out_is_the_metric_itself(metric: Any) -> None:
    assert to_dspy(from_dspy(metric)) is metric


def test_a_lambda_in_and_back_out_is_the_lambda() -> None:
    # DSPy's tests pass lambdas as metrics; the round trip must take them as DSPy does
    metric = lambda example, pred, trace=None: 1.0  # noqa: E731
    assert to_dspy(from_dspy(metric)) is metric


@pytest.mark.parametrize("scorer", [EXACT, sb.scorer(lambda item, output, label: output == label, name="hours")])
def test_a_scorer_out_and_back_is_the_scorer_itself(scorer: sb.Scorer) -> None:
    assert from_dspy(to_dspy(scorer)) is scorer
    assert from_dspy(to_dspy(scorer, label_field="hour", feedback=False)) is scorer  # DSPy-side options


# --- inside DSPy: what DSPy's own tests check of a metric ------------------------------------


def evaluate(metric: Any, examples: list[Any], lm: Any, field: str = "hour", **kwargs: Any) -> Any:
    with dspy.context(lm=lm):
        return dspy.Evaluate(devset=examples, metric=metric, **kwargs)(dspy.Predict(f"question -> {field}"))


def test_evaluate_scores_a_two_argument_metric_on_any_label_field_as_dspy_does() -> None:
    # The round trip once called metric(example, pred, None): TypeError on every row, scored 0.
    hours = ["3", "4", "5", "6"]
    lm = lm_answering("hour", ["3", "9", "5", "1"])
    native = evaluate(hour_of, clocks(hours), lm, num_threads=1)
    through = evaluate(to_dspy(from_dspy(hour_of)), clocks(hours), lm, num_threads=1)
    assert through.score == native.score == 50.0
    assert [row[2] for row in through.results] == [row[2] for row in native.results] == [True, False, True, False]


def test_evaluate_on_several_threads_gives_what_the_metric_gives() -> None:
    hours = [str(i % 12) for i in range(24)]
    lm = lm_answering("hour", [h if i % 3 else "0" for i, h in enumerate(hours)])
    native = evaluate(hour_of, clocks(hours), lm, num_threads=4)
    through = evaluate(to_dspy(from_dspy(hour_of)), clocks(hours), lm, num_threads=4)
    assert [(r[0], r[2]) for r in through.results] == [(r[0], r[2]) for r in native.results]


def test_evaluate_counts_a_raising_metric_as_dspy_does(caplog: pytest.LogCaptureFixture) -> None:
    # a metric that raises is DSPy's to count (failure_score, max_errors), not wrapped in scorebridge's error
    def picky(example: Any, pred: Any) -> bool:
        if pred.hour == "9":
            raise ValueError("nine is not an hour here")
        return bool(example.hour == pred.hour)

    lm = lm_answering("hour", ["3", "9"])
    with caplog.at_level(logging.ERROR):
        native = evaluate(picky, clocks(["3", "4"]), lm, num_threads=1, failure_score=-1.0)
        through = evaluate(to_dspy(from_dspy(picky)), clocks(["3", "4"]), lm, num_threads=1, failure_score=-1.0)
    assert [row[2] for row in through.results] == [row[2] for row in native.results] == [True, -1.0]
    assert caplog.text.count("nine is not an hour here") == 2


def test_evaluate_returns_what_the_metric_returns() -> None:
    # the return type was changed: a float where the metric returned a bool (or a Prediction)
    lm = lm_answering("answer", ["Paris"])
    examples = [dspy.Example(question=question(0), answer="Paris").with_inputs("question")]
    result = evaluate(to_dspy(from_dspy(answer_exact_match)), examples, lm, field="answer")
    assert result.results[0][2] is True


def test_a_prediction_that_is_not_a_prediction_reaches_the_metric_as_it_is() -> None:
    # SIMBA hands a metric None when the program raised; a program may return any object. It was wrapped.
    seen: list[Any] = []

    def spy(example: Any, pred: Any) -> float:
        seen.append(pred)
        return 0.0

    metric = to_dspy(from_dspy(spy))
    odd = {"hour": "3"}
    metric(clocks(["3"])[0], odd)
    metric(clocks(["3"])[0], None)
    assert seen[0] is odd and seen[1] is None


def bootstrap(metric: Any, hours: list[Any], answers: list[Any], **kwargs: Any) -> dict[str, Any]:
    """The demos BootstrapFewShot keeps (question -> hour), every train example tried once."""
    optimizer = dspy.BootstrapFewShot(metric=metric, max_bootstrapped_demos=len(hours), max_labeled_demos=0, **kwargs)
    with dspy.context(lm=lm_answering("hour", answers)):
        compiled = optimizer.compile(dspy.Predict("question -> hour"), trainset=clocks(hours))
    return {demo.question: demo.hour for demo in compiled.predictors()[0].demos}


def half_credit(example: Any, pred: Any, trace: Any = None) -> float:
    """1 for the hour, 0.5 for an hour off by one, else 0: a partial-credit metric."""
    off = abs(int(example.hour) - int(pred.hour))
    return 1.0 if off == 0 else 0.5 if off == 1 else 0.0


def hour_or_trace(example: Any, pred: Any, trace: Any = None) -> Any:
    """The hour, as a float in evaluation and as the bool DSPy's own metrics give while bootstrapping."""
    right = example.hour == pred.hour
    return right if trace is not None else float(right)


def test_bootstrap_accepts_the_demos_the_metric_accepts() -> None:
    hours, answers = ["3", "4", "5", "6"], ["3", "5", "5", "1"]
    native = bootstrap(hour_or_trace, hours, answers)
    through = bootstrap(to_dspy(from_dspy(hour_or_trace)), hours, answers)
    assert through == native == {question(0): "3", question(2): "5"}


def test_bootstrap_fails_a_two_argument_metric_as_dspy_does() -> None:
    # BootstrapFewShot passes a trace: a metric of two arguments raises there, natively too, and keeps no demo
    hours, answers = ["3", "4"], ["3", "4"]
    assert bootstrap(to_dspy(from_dspy(hour_of)), hours, answers) == bootstrap(hour_of, hours, answers) == {}


def test_bootstrap_keeps_the_meaning_of_metric_threshold() -> None:
    # metric_threshold=0.5 accepts half credit; the round trip once returned a bool and rejected it
    hours, answers = ["3", "4", "5", "6"], ["3", "5", "9", "6"]
    native = bootstrap(half_credit, hours, answers, metric_threshold=0.5)
    through = bootstrap(to_dspy(from_dspy(half_credit)), hours, answers, metric_threshold=0.5)
    assert through == native == {question(0): "3", question(1): "5", question(3): "6"}


def test_gepa_checks_the_metric_signature_of_the_metric_itself() -> None:
    # GEPA refuses a metric that cannot take five arguments, at construction; a five-argument wrapper hid it
    reflection = DummyLM([{"new_instruction": "x"}], adapter=dspy.JSONAdapter())
    with pytest.raises(TypeError, match="GEPA metric must accept five arguments"):
        dspy.GEPA(metric=hour_of, reflection_lm=reflection, max_metric_calls=1)
    with pytest.raises(TypeError, match="GEPA metric must accept five arguments"):
        dspy.GEPA(metric=to_dspy(from_dspy(hour_of)), reflection_lm=reflection, max_metric_calls=1)
    with pytest.raises(TypeError, match="GEPA metric must accept five arguments"):
        dspy.GEPA(metric=to_dspy(from_dspy(hour_of), threshold=0.5), reflection_lm=reflection, max_metric_calls=1)


def gepa_feedback(metric: Any) -> tuple[list[str], list[float]]:
    """The feedback GEPA's proposer is shown, and the candidates' validation scores, of one offline run."""
    hours = ["3", "4", "5", "6", "7", "8"]
    shown: list[str] = []

    def proposer(candidate: dict[str, str], reflective_dataset: Any, components_to_update: list[str]) -> Any:
        shown.extend(record["Feedback"] for name in components_to_update for record in reflective_dataset[name])
        return {name: candidate[name] + " Read the clock." for name in components_to_update}

    optimizer = dspy.GEPA(
        metric=metric,
        max_metric_calls=24,
        instruction_proposer=proposer,
        reflection_minibatch_size=3,
        num_threads=1,
        seed=0,
        track_stats=True,
    )
    examples = clocks(hours)
    with dspy.context(lm=lm_answering("hour", ["3", "9", "5", "6", "1", "8"])):
        compiled = optimizer.compile(dspy.Predict("question -> hour"), trainset=examples[:3], valset=examples[3:])
    return shown, list(compiled.detailed_results.val_aggregate_scores)


def test_gepa_sees_the_metric_s_own_feedback_and_scores() -> None:
    # pred_name and pred_trace reach the metric, so its predictor-level feedback is what GEPA shows
    native = gepa_feedback(clock)
    through = gepa_feedback(to_dspy(from_dspy(clock)))
    assert through == native
    assert "self (1 steps): expected 4:1" in native[0]  # the metric's own words, with GEPA's pred_name


# --- options on a round trip: a thin wrapper, or a clear error ---------------------------------


def test_a_renamed_round_trip_calls_the_metric_with_what_dspy_passes() -> None:
    metric = to_dspy(from_dspy(clock, name="o_clock"))
    assert metric.__name__ == "o_clock"
    gold, pred = clocks(["3"])[0], dspy.Prediction(hour="3")
    assert metric(gold, pred) == clock(gold, pred) == 1.0
    assert metric(gold, pred, [], "predict", []) == clock(gold, pred, [], "predict", [])


def test_a_wrapped_round_trip_keeps_the_metric_s_signature() -> None:
    # GEPA and DSPy read a metric's parameters: the wrapper shows the metric's own
    assert inspect.signature(to_dspy(from_dspy(clock), feedback=False)) == inspect.signature(clock)
    assert inspect.signature(to_dspy(from_dspy(hour_of), threshold=0.5)) == inspect.signature(hour_of)


def test_threshold_on_a_round_trip_decides_the_bootstrapping_bool() -> None:
    metric = to_dspy(from_dspy(half_credit), threshold=0.5)
    gold = clocks(["4"])[0]
    assert metric(gold, dspy.Prediction(hour="5"), []) is True
    assert metric(gold, dspy.Prediction(hour="7"), []) is False
    assert metric(gold, dspy.Prediction(hour="5")) == 0.5  # without a trace, what the metric returns


def test_feedback_false_on_a_round_trip_gives_gepa_the_score_alone() -> None:
    metric = to_dspy(from_dspy(clock), feedback=False)
    assert metric(clocks(["3"])[0], dspy.Prediction(hour="4"), None, "predict", None) == 0.0


def test_record_errors_on_a_round_trip_scores_a_raising_metric_zero() -> None:
    def broken(example: Any, pred: Any, trace: Any = None, pred_name: Any = None, pred_trace: Any = None) -> Any:
        raise RuntimeError("no clock")

    metric = to_dspy(from_dspy(broken, on_error="record"))
    gold, pred = clocks(["3"])[0], dspy.Prediction(hour="3")
    assert metric(gold, pred) == 0.0
    assert metric(gold, pred, []) is False
    feedback = metric(gold, pred, None, "predict", None)
    assert (feedback.score, feedback.feedback) == (0.0, "the DSPy metric failed: RuntimeError('no clock')")


def test_a_raising_metric_on_a_wrapped_round_trip_raises_its_own_exception() -> None:
    def broken(example: Any, pred: Any) -> Any:
        raise KeyError("no clock")

    with pytest.raises(KeyError) as caught:
        to_dspy(from_dspy(broken, name="clockless"))(clocks(["3"])[0], dspy.Prediction(hour="3"))
    assert "raised inside the DSPy metric 'clockless'" in caught.value.__notes__


@pytest.mark.parametrize("option", [{"output_field": "hour"}, {"label_field": "hour"}, {"item": lambda g: g}])
def test_field_options_on_a_round_trip_are_a_clear_error(option: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"to_dspy\(hour_of\): .* 'hour_of' is the DSPy metric 'hour_of', which"):
        to_dspy(from_dspy(hour_of), **option)


# --- a scorer of one's own around a from_dspy scorer: DSPy's objects travel with the call -------


def test_a_scorer_calling_a_from_dspy_scorer_hands_it_dspy_s_own_example_and_prediction() -> None:
    seen: list[Any] = []

    def spy(example: Any, pred: Any) -> bool:
        seen.append((example, pred))
        return bool(example.hour == pred.hour)

    inner = from_dspy(spy)
    outer = sb.scorer(lambda item, output, label: inner(item, output, label), name="outer")
    gold, pred = clocks(["3"])[0], dspy.Prediction(hour="3", reasoning="r")
    assert to_dspy(outer, output_field="hour", label_field="hour")(gold, pred) == 1.0
    assert seen[0][0] is gold and seen[0][1] is pred  # minute and reasoning reach the metric too


def test_a_from_dspy_scorer_called_with_other_arguments_builds_its_own_example() -> None:
    seen: list[Any] = []

    def spy(example: Any, pred: Any) -> bool:
        seen.append(example)
        return True

    inner = from_dspy(spy)
    outer = sb.scorer(lambda item, output, label: inner({"question": "other"}, output, label), name="outer")
    to_dspy(outer, output_field="hour", label_field="hour")(clocks(["3"])[0], dspy.Prediction(hour="3"))
    assert seen[0].toDict() == {"question": "other", "answer": "3"}


# --- the wrapped paths keep Scores and values ----------------------------------------------------


def kinds(item: Any, output: Any, label: Any) -> Any:
    """A scorer of every failure kind: the output names the kind, or is compared with the label."""
    if output in FAILURE_KINDS:
        return {"correct": False, "outcome": output, "failure_kind": output, "explanation": f"it was {output}"}
    return EXACT(item, output, label)


KINDS = sb.scorer(kinds)
TEXT = st.text(alphabet="aAbB .,-é\t", max_size=6)


@settings(max_examples=100, deadline=None)
@given(output=st.one_of(TEXT, st.sampled_from(FAILURE_KINDS)), label=st.one_of(TEXT, st.lists(TEXT, max_size=3)))
def test_a_scorer_out_and_back_under_another_name_keeps_its_whole_score(output: str, label: Any) -> None:
    # from_dspy asks a to_dspy metric for its whole Score, not the float, so the failure kind is kept
    direct = KINDS({"question": "q"}, output, label)
    assert from_dspy(to_dspy(KINDS), name="renamed")({"question": "q"}, output, label) == direct


def gold(answer: Any) -> Any:
    return dspy.Example(question="q", answer=answer).with_inputs("question")


@settings(max_examples=100, deadline=None)
@given(
    answer=TEXT.filter(str.strip),
    label=st.one_of(TEXT.filter(str.strip), st.lists(TEXT.filter(str.strip), min_size=1, max_size=3)),
    trace=st.sampled_from([None, []]),
)
def test_a_renamed_round_trip_returns_what_the_metric_returns(answer: str, label: Any, trace: Any) -> None:
    example, prediction = gold(label), dspy.Prediction(answer=answer)
    metric = to_dspy(from_dspy(answer_exact_match, name="em"))
    assert metric(example, prediction, trace) is answer_exact_match(example, prediction, trace)
