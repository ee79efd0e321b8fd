"""`summarize(log)`: scorebridge's Summary of a scorer in an Inspect AI eval log, the grader's failures apart.

Before, a grader's failure inside Inspect was only a sample's reason: the
eval's results counted it in `unscored_samples` with the samples that have no
label, and no metric could tell them apart.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ModelOutput, get_model
from inspect_ai.scorer import SampleScore, match, metric, model_graded_qa
from inspect_ai.solver import generate

import scorebridge as sb
from scorebridge.testing import FakeGrader
from scorebridge_inspect import from_inspect, summarize, to_inspect

QUESTIONS = ["Capital of France?", "Capital of Italy?", "Capital of Spain?", "Capital of Peru?"]
TARGETS = ["Paris", "Rome", "Madrid", ""]  # the last sample has no label
ANSWERS = ["It is Paris.", "Milan", "Madrid, of course.", "Lima"]
# the grader fails on Madrid's row, and calls Milan wrong
GRADER = {"<answer>\nMadrid": RuntimeError("grader down"), "<answer>\nMilan": "GRADE: I", "": "GRADE: C"}


@pytest.fixture
def run_eval(tmp_path: Path, make_output: Callable[..., ModelOutput]) -> Callable[..., Any]:
    """An offline eval of the four samples with `scorer` (mockllm answers ANSWERS), its log written to tmp."""
    return functools.partial(_run_eval, tmp_path, make_output)


def _run_eval(log_dir: Path, reply: Callable[..., ModelOutput], scorer: Any, epochs: int = 1) -> Any:
    by_question = dict(zip(QUESTIONS, ANSWERS, strict=True))

    def solve(messages: list[ChatMessage], *_: Any) -> ModelOutput:
        return reply(by_question[messages[-1].text])

    task = Task(
        dataset=[Sample(input=q, target=t) for q, t in zip(QUESTIONS, TARGETS, strict=True)],
        solver=generate(),
        scorer=scorer,
        epochs=epochs,
    )
    model = get_model("mockllm/model", custom_outputs=solve, memoize=False)
    (log,) = eval(task, model=model, log_dir=str(log_dir), display="none")
    return log


def test_summarize_counts_the_graders_failures_apart_from_the_samples_with_no_label(
    run_eval: Callable[..., Any],
) -> None:
    log = run_eval(to_inspect(sb.model_graded_qa(FakeGrader(GRADER, asynchronous=True))))
    summary = summarize(log)
    assert (summary.scored, summary.correct, summary.unscored, summary.grader_failed) == (2, 1, 2, 1)
    assert summary.unscored_because() == "1 row: the grader failed; 1 row: no label or no verdict"


def test_summarize_gives_the_summary_score_many_gives(run_eval: Callable[..., Any]) -> None:
    scorer = sb.model_graded_qa(FakeGrader(GRADER, asynchronous=True))
    direct = sb.Summary.of("model_graded_qa", scorer.score_many(QUESTIONS, ANSWERS, TARGETS))
    assert summarize(run_eval(to_inspect(scorer))) == direct


def test_inspects_metrics_see_only_the_scored_samples(run_eval: Callable[..., Any]) -> None:
    # why summarize reads the samples: Inspect leaves an unscored (NaN) Score out of every metric, so a
    # metric cannot count the grader's failures (this fails when an Inspect release hands metrics them all)
    seen: list[int] = []

    @metric
    def samples_seen() -> Any:
        def count(scores: list[SampleScore]) -> float:
            seen.append(len(scores))
            return float(len(scores))

        return count

    scorer = sb.model_graded_qa(FakeGrader(GRADER, asynchronous=True))
    log = run_eval(to_inspect(scorer, metrics=[samples_seen()]))
    (result,) = log.results.scores
    assert max(seen) == 2 and (result.scored_samples, result.unscored_samples) == (2, 2)


def test_summarize_counts_inspects_own_grader_failed_reason(
    run_eval: Callable[..., Any], make_output: Callable[..., ModelOutput]
) -> None:
    # Inspect's own model_graded_qa records a reply with no grade as Score.unscored(reason="grader_failed")
    grader = get_model("mockllm/model", custom_outputs=lambda *_: make_output("I cannot decide."), memoize=False)
    summary = summarize(run_eval(model_graded_qa(model=grader)))
    assert (summary.scored, summary.grader_failed) == (0, 4)


def test_from_inspect_counts_a_no_grade_reply_of_inspects_grader_as_the_graders_failure(
    make_output: Callable[..., ModelOutput],
) -> None:
    grader = get_model("mockllm/model", custom_outputs=lambda *_: make_output("I cannot decide."), memoize=False)
    score = from_inspect(model_graded_qa(model=grader))("q", "Paris", "Paris")
    assert (score.correct, score.metadata["inspect_reason"]) == (None, "grader_failed")
    assert sb.Summary.of("qa", [score]).grader_failed == 1


def test_summarize_reads_a_log_file(run_eval: Callable[..., Any]) -> None:
    log = run_eval(to_inspect(sb.model_graded_qa(FakeGrader(GRADER, asynchronous=True))))
    assert summarize(log.location) == summarize(log)


def test_summarize_counts_each_epoch_of_a_sample_as_a_row(run_eval: Callable[..., Any]) -> None:
    summary = summarize(run_eval(to_inspect(sb.detect_match()), epochs=2))
    assert (summary.scored, summary.unscored) == (6, 2)


def test_summarize_keeps_the_failure_kinds_to_inspect_wrote(run_eval: Callable[..., Any]) -> None:
    def refusing(item: Any, output: Any, label: Any) -> dict[str, Any]:
        if output == "Milan":
            return {"correct": None, "failure_kind": "refusal"}
        return {"correct": output.endswith(f"{label}."), "failure_kind": None}

    summary = summarize(run_eval(to_inspect(sb.scorer(refusing, "refusing"))))
    assert (summary.failure_kinds["refusal"], summary.failure_kinds["wrong"], summary.correct) == (1, 1, 1)


def test_summarize_gives_inspects_own_accuracy_for_its_own_scorer(run_eval: Callable[..., Any]) -> None:
    log = run_eval(match())  # Inspect's match scores the blank target too: 4 scored
    (result,) = log.results.scores
    summary = summarize(log)
    assert (summary.scored, summary.accuracy) == (4, pytest.approx(result.metrics["accuracy"].value))


def test_summarize_asks_for_a_name_when_the_log_has_several_scorers(run_eval: Callable[..., Any]) -> None:
    log = run_eval([to_inspect(sb.detect_match()), to_inspect(sb.exact())])
    with pytest.raises(ValueError, match=r"the log has 2 scorers \['detect_match', 'exact'\]; name the one"):
        summarize(log)
    assert summarize(log, "exact").scored == 3


def test_summarize_names_a_scorer_the_log_does_not_have(run_eval: Callable[..., Any]) -> None:
    log = run_eval(to_inspect(sb.detect_match()))
    with pytest.raises(ValueError, match=r"no scorer named 'exact'; it has \['detect_match'\]"):
        summarize(log, "exact")


def test_summarize_refuses_a_log_read_without_its_samples(run_eval: Callable[..., Any]) -> None:
    from inspect_ai.log import read_eval_log

    log = run_eval(to_inspect(sb.detect_match()))
    with pytest.raises(ValueError, match="holds no samples"):
        summarize(read_eval_log(log.location, header_only=True))
