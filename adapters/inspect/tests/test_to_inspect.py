"""`to_inspect()`: a scorebridge scorer as an Inspect AI scorer, called the way Inspect calls it."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any

import anyio.to_thread
import pytest
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ModelName, ModelOutput, ModelUsage
from inspect_ai.scorer import Score, Target, mean
from inspect_ai.solver import TaskState
from inspect_ai.util import registry_create, registry_info

import scorebridge as sb
from scorebridge_inspect import _to_inspect, to_inspect


def run(inspect_scorer: Any, state: TaskState, target: str | list[str]) -> Score:
    result: Score = asyncio.run(inspect_scorer(state, Target(target)))
    return result


def model_output(content: str) -> ModelOutput:
    output = ModelOutput.from_content(model="mockllm/model", content=content)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def fixed(**fields: Any) -> sb.Scorer:
    """A scorebridge scorer that returns the protocol's mapping `fields` whatever it is given."""
    return sb.scorer(lambda item, output, label: dict(fields), name="fixed")


# --- registration -----------------------------------------------------------------


def test_result_is_a_registered_inspect_scorer_named_after_the_scorer() -> None:
    info = registry_info(to_inspect(sb.exact()))
    assert info.type == "scorer"
    assert info.name.rsplit("/", 1)[-1] == "exact"


def test_name_overrides_the_registered_name() -> None:
    assert registry_info(to_inspect(sb.exact(), name="strict")).name.endswith("/strict")


def test_scorer_options_are_recorded_as_its_arguments() -> None:
    # eval() needs __registry_params__ on every scorer; the log shows them as the scorer's options
    assert to_inspect(sb.exact(normalise=False)).__registry_params__ == {"normalise": False}  # type: ignore[attr-defined]


def test_default_metrics_are_accuracy_stderr_and_the_failure_kinds() -> None:
    metrics = registry_info(to_inspect(sb.exact())).metadata["metrics"]
    names = [registry_info(m).name for m in metrics]
    assert names == ["inspect_ai/accuracy", "inspect_ai/stderr", "scorebridge/failure_kinds"]


def test_metrics_argument_replaces_the_defaults() -> None:
    metrics = registry_info(to_inspect(sb.exact(), metrics=[mean()])).metadata["metrics"]
    assert [registry_info(m).name for m in metrics] == ["inspect_ai/mean"]


# Inspect's registry maps a name to the last factory registered under it, and eval-retry and `inspect score`
# rebuild a scorer by name with the options in the log.


def test_rebuilding_by_name_with_other_options_makes_that_builtin_again(make_state: Callable[..., TaskState]) -> None:
    # review: the registered factory ignored its options, so after to_inspect(exact()) and
    # to_inspect(exact(normalise=False)) a rebuild by name got the last one, whatever the log said
    loose = to_inspect(sb.exact(), name="rebuilt_exact")
    strict = to_inspect(sb.exact(normalise=False), name="rebuilt_exact")
    assert run(strict, make_state("PARIS"), "Paris").value == "I"
    again = registry_create("scorer", registry_info(loose).name, normalise=True)
    assert again.__registry_params__ == {"normalise": True}  # type: ignore[attr-defined]
    assert run(again, make_state("PARIS"), "Paris").value == "C"


def test_rebuilding_ones_own_scorer_with_other_options_is_an_error_naming_it() -> None:
    # review: a scorer of one's own cannot be made from options; it must not silently be another one
    mine = sb.Scorer("within", lambda item, output, label: True, {"tolerance": 0.01})
    registered = registry_info(to_inspect(mine, name="rebuilt_own")).name
    with pytest.raises(ValueError, match=r"to_inspect\(within\): cannot make the scorer 'within' again"):
        registry_create("scorer", registered, tolerance=0.5)


# --- what the scorer is given -----------------------------------------------------


def test_item_is_the_input_text_and_output_the_completion(make_state: Callable[..., TaskState]) -> None:
    seen: list[Any] = []
    spy = sb.scorer(lambda item, output, label: seen.append((item, output, label)) or True, name="spy")
    run(to_inspect(spy), make_state("Paris.", input="Capital of France?"), "Paris")
    assert seen == [("Capital of France?", "Paris.", "Paris")]


def test_several_targets_are_one_label_list(make_state: Callable[..., TaskState]) -> None:
    seen: list[Any] = []
    spy = sb.scorer(lambda item, output, label: seen.append(label) or True, name="spy")
    run(to_inspect(spy), make_state("Paris"), ["Paris", "Paris, France"])
    assert seen == [["Paris", "Paris, France"]]


def test_item_and_output_readers_take_the_task_state(make_state: Callable[..., TaskState]) -> None:
    seen: list[Any] = []
    spy = sb.scorer(lambda item, output, label: seen.append((item, output)) or True, name="spy")
    wrapped = to_inspect(spy, item=lambda s: s.metadata, output=lambda s: s.output.stop_reason)
    run(wrapped, make_state("x", metadata={"doc": "d1"}), "x")
    assert seen == [({"doc": "d1"}, "stop")]


def test_async_scorer_runs_in_inspects_own_event_loop(make_state: Callable[..., TaskState]) -> None:
    # awaited through acall, not run_sync on a helper thread: async scorers run concurrently in an eval
    loops: list[asyncio.AbstractEventLoop] = []

    async def probe(item: Any, output: Any, label: Any) -> bool:
        loops.append(asyncio.get_running_loop())
        return True

    async def main() -> asyncio.AbstractEventLoop:
        await to_inspect(sb.scorer(probe))(make_state("x"), Target("x"))
        return asyncio.get_running_loop()

    assert loops == [asyncio.run(main())]


@pytest.mark.parametrize(
    ("given", "item"),
    [
        ([ChatMessageSystem(content="Grade this."), ChatMessageAssistant(content="Paris")], "Paris"),
        ([ChatMessageSystem(content="System only.")], "System only."),
        ([], ""),
    ],
)
def test_an_input_with_no_user_message_is_read_without_raising(given: list[Any], item: str) -> None:
    # Inspect's state.input_text raises here (its own test states, samples of a system prompt alone): the
    # default item reader once made every such sample an error, for every scorer of one's own
    seen: list[Any] = []
    spy = sb.scorer(lambda item, output, label: seen.append(item) or True, name="spy")
    state = TaskState(ModelName("mockllm/model"), 1, 1, given, list(given), output=model_output("x"))
    run(to_inspect(spy), state, "x")
    assert seen == [item]


class _Spy:
    """anyio.to_thread.run_sync, recording which scorers it ran: those that ran off Inspect's event loop."""

    def __init__(self) -> None:
        self.ran: list[str] = []
        self._run_sync = anyio.to_thread.run_sync

    async def run_sync(self, fn: Any, *args: Any) -> Any:
        self.ran.append(fn.name)
        return await self._run_sync(fn, *args)


@pytest.mark.parametrize(
    ("scorer", "in_thread"),
    [
        (sb.exact(), False),
        (sb.detect_includes(), False),
        (sb.detect_match(), False),
        (sb.detect_exact(), False),
        (sb.detect_answer(), False),
        (sb.detect_pattern(r"(a+)+$"), True),  # its regex may run until its timeout: never on the loop
        (sb.scorer(lambda item, output, label: True, name="mine"), True),
    ],
)
def test_only_the_always_fast_builtins_run_on_inspects_event_loop(
    monkeypatch: pytest.MonkeyPatch, make_state: Callable[..., TaskState], scorer: sb.Scorer, in_thread: bool
) -> None:
    spy = _Spy()
    monkeypatch.setattr(_to_inspect.anyio, "to_thread", spy)
    run(to_inspect(scorer), make_state("aaaa!"), "a")
    assert spy.ran == ([scorer.name] if in_thread else [])


# --- the Inspect Score -------------------------------------------------------------


def test_correct_is_value_c_with_outcome_as_answer(make_state: Callable[..., TaskState]) -> None:
    score = run(to_inspect(sb.exact()), make_state("  PARIS "), "Paris")
    assert (score.value, score.answer, score.reason) == ("C", "paris", None)


def test_wrong_is_value_i_and_failure_kind_wrong_in_metadata(make_state: Callable[..., TaskState]) -> None:
    score = run(to_inspect(sb.exact()), make_state("Lyon"), "Paris")
    assert (score.value, score.reason, score.metadata) == ("I", None, {"failure_kind": "wrong"})


def test_correct_score_carries_failure_kind_none(make_state: Callable[..., TaskState]) -> None:
    assert run(to_inspect(sb.exact()), make_state("Paris"), "Paris").metadata == {"failure_kind": None}


def test_half_credit_is_value_p(make_state: Callable[..., TaskState]) -> None:
    score = run(to_inspect(fixed(correct=False, outcome="half", failure_kind=None, value=0.5)), make_state("x"), "y")
    assert score.value == "P"


def test_other_partial_credit_is_the_number(make_state: Callable[..., TaskState]) -> None:
    score = run(to_inspect(fixed(correct=False, outcome="most", failure_kind=None, value=0.75)), make_state("x"), "y")
    assert score.value == 0.75


def test_value_other_than_the_letters_worth_is_the_number(make_state: Callable[..., TaskState]) -> None:
    # correct with value 2: "C" would read as 1 in Inspect's metrics
    score = run(to_inspect(fixed(correct=True, outcome="x", failure_kind=None, value=2.0)), make_state("x"), "y")
    assert score.value == 2.0


def test_explanation_and_metadata_are_kept(make_state: Callable[..., TaskState]) -> None:
    scorer = fixed(correct=False, outcome="o", failure_kind="refusal", explanation="said no", metadata={"k": 1})
    score = run(to_inspect(scorer), make_state("x"), "y")
    assert (score.explanation, score.metadata) == ("said no", {"k": 1, "failure_kind": "refusal"})


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("parse_failure", "invalid_response_format"),
        ("refusal", "refusal"),
        ("error", "scoring_failed"),
        ("not_in_document", None),
        ("wrong", None),
        ("budget_stop", None),
    ],
)
def test_reason_comes_from_the_failure_kind(
    make_state: Callable[..., TaskState], kind: str, reason: str | None
) -> None:
    score = run(to_inspect(fixed(correct=False, outcome=None, failure_kind=kind)), make_state("x"), "y")
    assert (score.value, score.reason, score.metadata) == ("I", reason, {"failure_kind": kind})


def test_empty_output_is_a_parse_failure_with_invalid_response_format(make_state: Callable[..., TaskState]) -> None:
    score = run(to_inspect(sb.exact()), make_state("   "), "Paris")
    assert (score.value, score.reason, score.metadata) == (
        "I",
        "invalid_response_format",
        {"failure_kind": "parse_failure"},
    )


def test_not_in_document_is_wrong_with_its_kind_in_metadata(make_state: Callable[..., TaskState]) -> None:
    score = run(to_inspect(sb.exact()), make_state("NOT_IN_DOCUMENT"), "Paris")
    assert (score.value, score.reason, score.metadata) == ("I", None, {"failure_kind": "not_in_document"})


def test_empty_target_is_unscored(make_state: Callable[..., TaskState]) -> None:
    # inspect_ai#5525: a blank target made match()/includes() score every output C
    score = run(to_inspect(sb.exact()), make_state("anything"), "")
    assert math.isnan(score.value)  # type: ignore[arg-type]  # Score.unscored(): out of the metrics
    assert (score.answer, score.metadata) == ("anything", {"failure_kind": None})


def test_unscored_keeps_the_failure_kind_and_its_reason(make_state: Callable[..., TaskState]) -> None:
    # the recording rules: an item with no label is recorded NA, with its failure_kind kept
    score = run(to_inspect(sb.exact()), make_state(""), "")
    assert math.isnan(score.value)  # type: ignore[arg-type]
    assert (score.reason, score.metadata) == ("invalid_response_format", {"failure_kind": "parse_failure"})


def test_kept_inspect_reason_is_written_back_instead_of_the_tables(make_state: Callable[..., TaskState]) -> None:
    # from_inspect keeps "no_response" (read back as parse_failure) so that it survives a round trip
    score = sb.Score(False, "", "parse_failure", metadata={"inspect_reason": "no_response", "k": 1})
    result = run(to_inspect(sb.scorer(lambda item, output, label: score, name="kept")), make_state(""), "x")
    assert (result.reason, result.metadata) == ("no_response", {"k": 1, "failure_kind": "parse_failure"})


# --- budget stop -------------------------------------------------------------------


@pytest.mark.parametrize("stop_reason", ["max_tokens", "model_length"])
def test_wrong_answer_cut_off_by_the_budget_is_budget_stop(
    make_state: Callable[..., TaskState], stop_reason: str
) -> None:
    score = run(to_inspect(sb.exact()), make_state("The answer is", stop_reason=stop_reason), "Paris")
    assert (score.value, score.reason, score.metadata) == ("I", None, {"failure_kind": "budget_stop"})


def test_empty_output_cut_off_by_the_budget_is_budget_stop(make_state: Callable[..., TaskState]) -> None:
    score = run(to_inspect(sb.exact()), make_state("", stop_reason="max_tokens"), "Paris")
    assert score.metadata == {"failure_kind": "budget_stop"}


def test_correct_answer_at_the_budget_stays_correct(make_state: Callable[..., TaskState]) -> None:
    score = run(to_inspect(sb.exact()), make_state("Paris", stop_reason="max_tokens"), "Paris")
    assert (score.value, score.metadata) == ("C", {"failure_kind": None})


@pytest.mark.parametrize("kind", ["refusal", "not_in_document", "error"])
def test_budget_stop_keeps_the_more_telling_kinds(make_state: Callable[..., TaskState], kind: str) -> None:
    score = run(
        to_inspect(fixed(correct=False, outcome=None, failure_kind=kind)),
        make_state("x", stop_reason="max_tokens"),
        "y",
    )
    assert score.metadata == {"failure_kind": kind}


def test_other_stop_reasons_are_not_budget_stop(make_state: Callable[..., TaskState]) -> None:
    score = run(to_inspect(sb.exact()), make_state("Lyon", stop_reason="content_filter"), "Paris")
    assert score.metadata == {"failure_kind": "wrong"}


def test_state_without_any_output_is_scored_not_crashed() -> None:
    from inspect_ai.model import ModelName

    state = TaskState(model=ModelName("mockllm/model"), sample_id=1, epoch=1, input="q", messages=[])
    score = asyncio.run(to_inspect(sb.exact())(state, Target("Paris")))
    assert score.metadata == {"failure_kind": "parse_failure"}


# --- errors ------------------------------------------------------------------------


def _boom(item: Any, output: Any, label: Any) -> Any:
    raise KeyError("no such field")


def test_raising_scorer_raises_its_own_exception_with_a_note_naming_it(make_state: Callable[..., TaskState]) -> None:
    # An Inspect user writes pytest.raises(KeyError) around a scorer that raises KeyError: a wrapper
    # exception type (scorebridge once raised ScoringError) would slip past it.
    with pytest.raises(KeyError, match="no such field") as caught:
        run(to_inspect(sb.scorer(_boom, name="boom")), make_state("x"), "y")
    [note] = caught.value.__notes__  # the scorer and the sample in one line, the core's own note replaced
    assert note.startswith("raised inside the scorer 'boom' on sample ")


def test_a_scorer_raising_in_a_worker_thread_raises_the_same_exception(make_state: Callable[..., TaskState]) -> None:
    # sync scorers of one's own run in a worker thread; the exception comes back through anyio unchanged
    raised = ValueError("x" * 100_000)

    def verbose(item: Any, output: Any, label: Any) -> Any:
        raise raised

    with pytest.raises(ValueError) as caught:
        run(to_inspect(sb.scorer(verbose)), make_state("x"), "y")
    assert caught.value is raised


def test_on_error_record_gives_a_wrong_error_score(make_state: Callable[..., TaskState]) -> None:
    score = run(to_inspect(sb.scorer(_boom, name="boom"), on_error="record"), make_state("x"), "y")
    assert (score.value, score.reason, score.metadata) == ("I", "scoring_failed", {"failure_kind": "error"})
    assert score.explanation == "the scorer raised KeyError('no such field')"


def test_on_error_record_on_an_unlabelled_sample_is_unscored(make_state: Callable[..., TaskState]) -> None:
    score = run(to_inspect(sb.scorer(_boom, name="boom"), on_error="record"), make_state("x"), "")
    assert math.isnan(score.value)  # type: ignore[arg-type]
    assert score.metadata == {"failure_kind": "error"}


# --- labels: Inspect's targets are text ------------------------------------------------


def _near(item: Any, output: Any, label: float) -> Any:
    if label is None:
        return {"correct": None, "outcome": output, "failure_kind": None, "metadata": {"label": None}}
    correct = abs(float(output) - label) <= 0.01 * abs(label)
    return {"correct": correct, "outcome": output, "failure_kind": None, "metadata": {"label": label}}


def test_a_declared_float_label_gets_the_target_as_a_number(make_state: Callable[..., TaskState]) -> None:
    score = run(to_inspect(sb.scorer(_near)), make_state("45.3"), "45.2")
    assert (score.value, score.metadata) == ("C", {"failure_kind": None, "label": 45.2})


def test_an_empty_target_reaches_the_scorer_as_none(make_state: Callable[..., TaskState]) -> None:
    score = run(to_inspect(sb.scorer(_near)), make_state("45.3"), "")
    assert math.isnan(score.value)  # type: ignore[arg-type]
    assert score.metadata == {"failure_kind": None, "label": None}


def test_a_target_the_scorer_cannot_read_names_the_scorer_and_the_sample(make_state: Callable[..., TaskState]) -> None:
    with pytest.raises(sb.ScorerContractError) as caught:
        run(to_inspect(sb.scorer(_near)), make_state("45.3"), "about 45")
    assert str(caught.value) == "_near: cannot read the label 'about 45' as float: it is not a number (sample 1)"


def test_a_target_the_scorer_cannot_read_is_raised_even_with_on_error_record(
    make_state: Callable[..., TaskState],
) -> None:
    # A typo in the labels is the data's fault, not the scorer's: recorded as an error it counted wrong here
    # while MLflow and pydantic-evals left the same row out of their means.
    with pytest.raises(sb.UnreadableLabel, match="_near: cannot read the label 'about 45' as float"):
        run(to_inspect(sb.scorer(_near), on_error="record"), make_state("45.3"), "about 45")


def test_a_target_the_scorer_cannot_read_names_the_sample_with_on_error_record(
    make_state: Callable[..., TaskState],
) -> None:
    # With "record" the eval's error said which label it could not read, but not which sample held it
    # ("raise" named it): in an eval of thousands of samples the typo could not be found.
    with pytest.raises(sb.UnreadableLabel) as caught:
        run(to_inspect(sb.scorer(_near), on_error="record"), make_state("45.3"), "about 45")
    assert str(caught.value) == "_near: cannot read the label 'about 45' as float: it is not a number (sample 1)"


def test_a_target_the_scorer_cannot_read_is_an_unreadable_label_with_on_error_raise(
    make_state: Callable[..., TaskState],
) -> None:
    # With "raise" the error became a plain ScorerContractError: `except UnreadableLabel`, which catches it in
    # every other harness, missed it inside Inspect.
    with pytest.raises(sb.UnreadableLabel):
        run(to_inspect(sb.scorer(_near)), make_state("45.3"), "about 45")


def _short(item: Any, output: Any, label: Any) -> bool:
    return len(output) <= 5


def test_a_scorer_that_needs_no_label_scores_a_sample_with_an_empty_target(
    make_state: Callable[..., TaskState],
) -> None:
    made = to_inspect(sb.scorer(_short, needs_label=False))
    assert [run(made, make_state(text), "").value for text in ("abc", "abcdefgh")] == ["C", "I"]


def test_a_scorer_that_needs_no_label_counts_a_recorded_error_on_an_empty_target(
    make_state: Callable[..., TaskState],
) -> None:
    score = run(to_inspect(sb.scorer(_boom, name="boom", needs_label=False), on_error="record"), make_state("x"), "")
    assert (score.value, score.metadata) == ("I", {"failure_kind": "error"})


def test_raising_reader_raises_its_exception_naming_the_scorer(make_state: Callable[..., TaskState]) -> None:
    with pytest.raises(KeyError, match="missing") as caught:
        run(to_inspect(sb.exact(), item=lambda s: s.metadata["missing"]), make_state("x"), "y")
    assert caught.value.__notes__[-1].startswith("raised inside the scorer 'exact' on sample ")


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"on_error": "ignore"}, ValueError, "on_error must be 'raise' or 'record'"),
        ({"name": "  "}, ValueError, "name must be a non-blank string"),
        ({"item": "input"}, TypeError, "item must be a function of the TaskState"),
        ({"output": 3}, TypeError, "output must be a function of the TaskState"),
        ({"metrics": "accuracy"}, TypeError, "metrics must be a list or dict"),
    ],
)
def test_bad_arguments_fail_at_construction_naming_the_scorer(
    kwargs: dict[str, Any], error: type, message: str
) -> None:
    with pytest.raises(error, match=rf"to_inspect\(exact\): {message}"):
        to_inspect(sb.exact(), **kwargs)


def test_non_scorebridge_scorer_is_rejected() -> None:
    with pytest.raises(TypeError, match="to_inspect: scorer must be a scorebridge Scorer; got function"):
        to_inspect(lambda item, output, label: True)  # type: ignore[arg-type]


def test_grader_failure_of_a_model_graded_scorer_is_unscored_with_grader_failed(
    make_state: Callable[..., TaskState],
) -> None:
    from scorebridge.testing import FakeGrader

    undecided = sb.model_graded_qa(FakeGrader(["I cannot decide."]))
    score = run(to_inspect(undecided), make_state("Paris"), "Paris")
    assert math.isnan(score.value) and score.reason == "grader_failed"  # type: ignore[arg-type]


def test_empty_target_reaches_the_scorer_as_no_label(make_state: Callable[..., TaskState]) -> None:
    # Inspect's Sample target defaults to "": the scorer sees None, as a plain call with no label does
    seen: list[Any] = []
    spy = sb.scorer(lambda item, output, label: seen.append(label) or True, "spy")
    run(to_inspect(spy), make_state("x"), "")
    assert seen == [None]
