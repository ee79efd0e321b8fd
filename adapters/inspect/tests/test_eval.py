"""End to end: `inspect_ai.eval()` offline (mockllm) with scorebridge scorers beside Inspect's own."""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, ModelOutput
from inspect_ai.scorer import match
from inspect_ai.solver import TaskState, generate

import scorebridge as sb
from scorebridge.testing import FakeGrader
from scorebridge_inspect import to_inspect


class Row(NamedTuple):
    target: str | list[str]
    reply: str
    stop: str
    # what to_inspect(exact()) must record: value ("nan" for unscored), answer, reason, failure_kind
    value: str
    answer: str | None
    reason: str | None
    kind: str | None
    match: str  # what Inspect's match() says, side by side


ROWS = [
    Row("Paris", "Paris", "stop", "C", "paris", None, None, "C"),
    Row("Paris", "  paris  ", "stop", "C", "paris", None, None, "C"),
    Row("Paris", "PARIS", "stop", "C", "paris", None, None, "C"),
    Row("Paris", "Lyon", "stop", "I", "lyon", None, "wrong", "I"),
    Row("Paris", "The answer is Paris.", "stop", "I", "the answer is paris.", None, "wrong", "C"),
    Row("42", "42", "stop", "C", "42", None, None, "C"),
    Row("42", "42.0", "stop", "I", "42.0", None, "wrong", "I"),
    Row(["Paris", "Paris, France"], "paris, france", "stop", "C", "paris, france", None, None, "C"),
    Row(["Paris", "Paris, France"], "France", "stop", "I", "france", None, "wrong", "I"),
    Row("Paris", "", "stop", "I", None, "invalid_response_format", "parse_failure", "I"),
    Row("Paris", "   ", "stop", "I", None, "invalid_response_format", "parse_failure", "I"),
    Row("Paris", "NOT_IN_DOCUMENT", "stop", "I", "NOT_IN_DOCUMENT", None, "not_in_document", "I"),
    Row("not_in_document", "NOT_IN_DOCUMENT", "stop", "C", "not_in_document", None, None, "C"),
    Row("Paris", "The capital is", "max_tokens", "I", "the capital is", None, "budget_stop", "I"),
    Row("Paris", "", "model_length", "I", None, None, "budget_stop", "I"),
    Row("Paris", "Paris", "max_tokens", "C", "paris", None, None, "C"),
    Row("Paris", "I can't help with that.", "content_filter", "I", None, "refusal", "refusal", "I"),
    Row("", "anything", "stop", "nan", "anything", None, None, "C"),  # inspect_ai#5525: match() says C
    Row("", "", "stop", "nan", None, "invalid_response_format", "parse_failure", "C"),
    Row("Lyon", "lyon\n", "stop", "C", "lyon", None, None, "C"),
    Row("Nice", "Nice city", "stop", "I", "nice city", None, "wrong", "I"),
    Row("100000", "100000", "stop", "C", "100000", None, None, "C"),
]


def _replies(make_output: Callable[..., ModelOutput], replies: dict[str, tuple[str, str]]) -> Any:
    """mockllm's custom_outputs as a function of the prompt, so the order of samples does not matter."""

    def reply(messages: Sequence[ChatMessage], *args: Any) -> ModelOutput:
        return make_output(*replies[messages[-1].text])

    return reply


def _run(
    task: Task, make_output: Callable[..., ModelOutput], replies: dict[str, tuple[str, str]], **kwargs: Any
) -> EvalLog:
    [log] = eval(
        task,
        model="mockllm/model",
        model_args={"custom_outputs": _replies(make_output, replies)},
        display="none",
        **kwargs,
    )
    return log


def _arm_output(state: TaskState) -> Any:
    """The arm's output as scorebridge reads it: a provider's content filter is the arm's refusal."""
    if state.output.stop_reason == "content_filter":
        return {"failure_kind": "refusal", "text": state.output.completion}
    return state.output.completion


@pytest.fixture(scope="module")
def side_by_side(make_output: Callable[..., ModelOutput]) -> EvalLog:
    samples = [Sample(id=i, input=f"{i:02d}. What is the answer?", target=row.target) for i, row in enumerate(ROWS)]
    replies = {f"{i:02d}. What is the answer?": (row.reply, row.stop) for i, row in enumerate(ROWS)}
    task = Task(dataset=samples, solver=generate(), scorer=[to_inspect(sb.exact(), output=_arm_output), match()])
    return _run(task, make_output, replies)


def test_eval_succeeds_with_both_scorers(side_by_side: EvalLog) -> None:
    assert side_by_side.status == "success"
    assert len(side_by_side.samples or []) == len(ROWS) >= 20


@pytest.mark.parametrize("i", range(len(ROWS)))
def test_every_samples_score_is_recorded_as_expected(side_by_side: EvalLog, i: int) -> None:
    row = ROWS[i]
    [sample] = [s for s in side_by_side.samples or [] if s.id == i]
    score = (sample.scores or {})["exact"]
    value = "nan" if isinstance(score.value, float) and math.isnan(score.value) else score.value
    assert (value, score.answer, score.reason, score.metadata) == (
        row.value,
        row.answer,
        row.reason,
        {"failure_kind": row.kind},
    )
    assert (sample.scores or {})["match"].value == row.match


def test_accuracy_counts_the_scored_samples_and_leaves_out_the_unscored(side_by_side: EvalLog) -> None:
    assert side_by_side.results is not None
    [ours] = [s for s in side_by_side.results.scores if s.name == "exact"]
    scored = [r for r in ROWS if r.value != "nan"]
    assert (ours.scored_samples, ours.unscored_samples) == (len(scored), len(ROWS) - len(scored))
    assert ours.metrics["accuracy"].value == pytest.approx(sum(r.value == "C" for r in scored) / len(scored))


def test_the_results_count_each_failure_kind_among_the_scored_samples(side_by_side: EvalLog) -> None:
    # The failure kinds sat in each sample's metadata only; results (what `inspect eval` prints and `inspect
    # view` shows) held accuracy and stderr. Counted as scorebridge.Summary counts: scored samples only.
    assert side_by_side.results is not None
    [ours] = [s for s in side_by_side.results.scores if s.name == "exact"]
    scored = [r for r in ROWS if r.value != "nan"]
    expected = {kind: float(sum(r.kind == kind for r in scored)) for kind in sb.FAILURE_KINDS}
    assert {kind: ours.metrics[kind].value for kind in sb.FAILURE_KINDS} == expected
    assert expected["budget_stop"] == 2 and expected["parse_failure"] == 2  # the unscored "" row is left out


def test_inspects_match_accuracy_beside_ours(side_by_side: EvalLog) -> None:
    assert side_by_side.results is not None
    [theirs] = [s for s in side_by_side.results.scores if s.name == "match"]
    assert theirs.metrics["accuracy"].value == pytest.approx(sum(r.match == "C" for r in ROWS) / len(ROWS))


def test_log_records_the_scorer_and_its_options(side_by_side: EvalLog) -> None:
    [ours] = [s for s in side_by_side.eval.scorers or [] if s.name == "exact"]
    assert ours.options == {"normalise": True}


# --- errors inside an eval ---------------------------------------------------------


def _picky(item: Any, output: Any, label: Any) -> bool:
    if output == "boom":
        raise ValueError("cannot read 'boom'")
    return bool(output == label)


def _small_task(
    make_output: Callable[..., ModelOutput], on_error: Any = "raise"
) -> tuple[Task, dict[str, tuple[str, str]]]:
    replies = {"a?": ("a", "stop"), "b?": ("boom", "stop"), "c?": ("x", "stop")}
    samples = [Sample(id=q, input=q, target=q[0]) for q in replies]
    return Task(dataset=samples, solver=generate(), scorer=to_inspect(sb.scorer(_picky), on_error=on_error)), replies


def test_raising_scorer_is_a_sample_error_showing_the_exception_and_naming_the_scorer(
    make_output: Callable[..., ModelOutput],
) -> None:
    task, replies = _small_task(make_output)
    log = _run(task, make_output, replies, fail_on_error=False)
    [errored] = [s for s in log.samples or [] if s.error is not None]
    assert errored.id == "b?"
    assert errored.error is not None
    assert errored.error.message == "ValueError(\"cannot read 'boom'\")"  # as Inspect shows its own scorers' errors
    # one line naming the scorer and the sample: the traceback once named the scorer only, 90 lines up from nothing
    assert errored.error.traceback.endswith(
        "ValueError: cannot read 'boom'\nraised inside the scorer '_picky' on sample 'b?'\n"
    )


def test_raising_scorer_fails_the_eval_by_default(make_output: Callable[..., ModelOutput]) -> None:
    # Inspect's default fail_on_error: one sample error fails the eval, with no results
    task, replies = _small_task(make_output)
    log = _run(task, make_output, replies)
    assert (log.status, log.results) == ("error", None)
    assert log.error is not None and "cannot read 'boom'" in log.error.message


def test_raise_with_fail_on_error_false_leaves_the_errored_sample_out_of_the_metrics(
    make_output: Callable[..., ModelOutput],
) -> None:
    # Where Inspect cannot follow on_error="raise": it goes on, and divides by the samples that did not
    # fail (0.5 over 2, where on_error="record" gives every other harness's 0.333 over 3)
    task, replies = _small_task(make_output)
    log = _run(task, make_output, replies, fail_on_error=False)
    assert log.results is not None
    [s] = log.results.scores
    assert (s.metrics["accuracy"].value, s.scored_samples) == (pytest.approx(0.5), 2)


def test_on_error_record_scores_the_sample_as_an_error(make_output: Callable[..., ModelOutput]) -> None:
    task, replies = _small_task(make_output, on_error="record")
    log = _run(task, make_output, replies)
    assert log.status == "success"
    scores = {s.id: (s.scores or {})["_picky"] for s in log.samples or []}
    assert (scores["b?"].value, scores["b?"].reason, scores["b?"].metadata) == (
        "I",
        "scoring_failed",
        {"failure_kind": "error"},
    )
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(1 / 3)  # the error counts as wrong


def _threads_of(
    scorer: sb.Scorer, calls: list[int], make_output: Callable[..., ModelOutput]
) -> tuple[EvalLog, set[int], set[int]]:
    """Run `scorer` on 8 samples; the log, the threads of Inspect's event loop, and those `calls` recorded."""
    loop_threads: set[int] = set()

    def on_the_loop(state: TaskState) -> str:  # the item reader runs where Inspect awaits the scorer
        asyncio.get_running_loop()  # raises when not on an event loop
        loop_threads.add(threading.get_ident())
        return state.input_text

    replies = {f"q{i}": (str(i % 2), "stop") for i in range(8)}
    samples = [Sample(input=q, target="1") for q in replies]
    task = Task(dataset=samples, solver=generate(), scorer=to_inspect(scorer, item=on_the_loop))
    log = _run(task, make_output, replies)
    return log, loop_threads, set(calls)


def test_sync_scorer_runs_in_a_worker_thread_not_on_inspects_event_loop(
    make_output: Callable[..., ModelOutput],
) -> None:
    # review: a sync scorer ran inline on Inspect's event loop, so a blocking one (a DSPy LM judge through
    # from_dspy) stalled every sample: 10 samples with a 0.3 s scorer took 6.5 s, against 0.5 s async
    calls: list[int] = []

    def judge(item: Any, output: Any, label: Any) -> bool:
        calls.append(threading.get_ident())
        return bool(output == label)

    log, loop_threads, scorer_threads = _threads_of(sb.scorer(judge), calls, make_output)
    assert log.status == "success" and len(calls) == 8 and len(loop_threads) == 1
    assert scorer_threads.isdisjoint(loop_threads)
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(0.5)


def test_model_graded_scorer_with_a_sync_grader_runs_in_a_worker_thread(
    make_output: Callable[..., ModelOutput],
) -> None:
    # review: model_graded_qa(dspy_grader()) blocks on its grader; a built-in, but not a fast one
    calls: list[int] = []

    def grade(prompt: str) -> str:
        calls.append(threading.get_ident())
        return "GRADE: C"

    log, loop_threads, grader_threads = _threads_of(sb.model_graded_qa(FakeGrader(grade)), calls, make_output)
    assert log.status == "success" and len(calls) == 8 and len(loop_threads) == 1
    assert grader_threads.isdisjoint(loop_threads)


def test_async_scorebridge_scorer_in_an_eval(make_output: Callable[..., ModelOutput]) -> None:
    async def slow_exact(item: Any, output: Any, label: Any) -> bool:
        return bool(output == label)

    replies = {f"q{i}": (str(i % 2), "stop") for i in range(6)}
    samples = [Sample(input=q, target="1") for q in replies]
    log = _run(Task(dataset=samples, solver=generate(), scorer=to_inspect(sb.scorer(slow_exact))), make_output, replies)
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(0.5)
