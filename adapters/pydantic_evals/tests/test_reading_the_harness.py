"""from_pydantic_evals reads what an evaluator is from pydantic-evals itself: whether it reads the label (its
code, its declared fields), whether it is fast (the library runs it inline) and its range of points (GEval's
`score_range`). No list of built-ins is kept by hand: the table below is what the tests expect of every
built-in the installed pydantic-evals has, and the first test fails when it has one the table does not name.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from pe_support import context
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_evals import evaluators as pe
from pydantic_evals.evaluators import (
    ArgumentCorrectness,
    Contains,
    Equals,
    EqualsExpected,
    EvaluationReason,
    Evaluator,
    EvaluatorContext,
    GEval,
    HasMatchingSpan,
    IsInstance,
    LLMJudge,
    MaxDuration,
    MaxModelRequests,
    MaxToolCalls,
    ReportEvaluator,
    ToolCorrectness,
    TrajectoryMatch,
)
from pydantic_evals.online import run_evaluators
from pydantic_evals.otel.span_tree import SpanNode, SpanTree

import scorebridge as sb
from scorebridge_pydantic_evals import from_pydantic_evals, to_pydantic_evals

# (an instance, reads the label, fast, declared range): what from_pydantic_evals must read of each built-in
BUILT_INS: dict[type[Any], tuple[Evaluator[Any, Any, Any], bool, bool, tuple[int, int] | None]] = {
    Equals: (Equals(value="Paris"), False, True, None),
    EqualsExpected: (EqualsExpected(), True, True, None),
    Contains: (Contains(value="Paris"), False, True, None),
    IsInstance: (IsInstance(type_name="str"), False, True, None),
    MaxDuration: (MaxDuration(seconds=1), False, True, None),
    LLMJudge: (LLMJudge(rubric="polite", model=TestModel()), False, False, None),
    HasMatchingSpan: (HasMatchingSpan(query={"name_equals": "x"}), False, True, None),
    ToolCorrectness: (ToolCorrectness(expected_tools=["search"]), False, True, None),
    TrajectoryMatch: (TrajectoryMatch(expected_trajectory=["search"]), False, True, None),
    ArgumentCorrectness: (ArgumentCorrectness(tool_name="search", expected_arguments={}), False, True, None),
    MaxToolCalls: (MaxToolCalls(max_calls=1), False, True, None),
    MaxModelRequests: (MaxModelRequests(max_requests=1), False, True, None),
    GEval: (GEval(criteria="helpful", evaluation_steps=["read it"], model=TestModel()), False, False, (1, 5)),
}


def installed_built_ins() -> set[type[Any]]:
    """Every case evaluator the installed pydantic-evals exports (report evaluators score a whole report)."""
    found = {getattr(pe, name) for name in pe.__all__}
    return {
        kind
        for kind in found
        if isinstance(kind, type) and issubclass(kind, Evaluator) and kind is not Evaluator
        if not issubclass(kind, ReportEvaluator)
    }


def test_every_built_in_of_the_installed_pydantic_evals_is_classified() -> None:
    # the lists kept by hand fell behind within a minor series (GEval and five agentic evaluators were missing)
    unclassified = installed_built_ins() - set(BUILT_INS)
    assert not unclassified, f"built-ins this test does not classify: {sorted(k.__name__ for k in unclassified)}"


@pytest.mark.parametrize("kind", list(BUILT_INS), ids=lambda k: k.__name__)
def test_what_each_built_in_is_is_read_from_the_harness(kind: type[Any]) -> None:
    evaluator, reads, fast, score_range = BUILT_INS[kind]
    made = from_pydantic_evals(evaluator)
    assert (made.needs_label, made.fast) == (reads, fast)
    assert made.options.get("score_range") == (None if score_range is None else list(score_range))


def test_llm_judge_needs_a_label_exactly_when_it_shows_the_judge_the_expected_output() -> None:
    judge = LLMJudge(rubric="matches", model=TestModel(), include_expected_output=True)
    assert from_pydantic_evals(judge).needs_label is True


_EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _tool_span(span_id: int, tool: str) -> SpanNode:
    return SpanNode(
        name=f"execute_tool {tool}",
        trace_id=1,
        span_id=span_id,
        parent_span_id=None,
        start_timestamp=_EPOCH + timedelta(seconds=span_id),
        end_timestamp=_EPOCH + timedelta(seconds=span_id + 0.5),
        attributes={"gen_ai.tool.name": tool, "logfire.msg": f"running tool: {tool}"},
    )


def two_tool_calls() -> EvaluatorContext[Any, Any, Any]:
    """A case as pydantic-evals hands it to an evaluator: no output, no label, two tool calls in its spans."""
    tree = SpanTree()
    tree.add_spans([_tool_span(1, "search"), _tool_span(2, "search")])
    return EvaluatorContext(
        name="agent run",
        inputs="find it",
        metadata=None,
        expected_output=None,
        output=None,
        duration=0.1,
        _span_tree=tree,
        attributes={},
        metrics={},
    )


def test_max_tool_calls_is_asked_on_an_unlabelled_case_and_its_verdict_kept() -> None:
    # pydantic-evals gives EvaluationReason(False, '2 tool call(s), budget=1'); scorebridge gave
    # Score(correct=None, failure_kind='parse_failure', explanation='there is no output'): never asked
    ctx = two_tool_calls()
    budget = MaxToolCalls(max_calls=1)
    assert budget.evaluate(ctx) == EvaluationReason(False, "2 tool call(s), budget=1")
    wrapped = from_pydantic_evals(budget)

    @sb.scorer(needs_label=False)
    def mine(item: Any, output: Any, label: Any) -> sb.Score:
        return wrapped(item, output, label)  # inside Dataset.evaluate: pydantic-evals' own context, spans and all

    seen: list[sb.Score] = []

    @sb.scorer(needs_label=False)
    def keeps(item: Any, output: Any, label: Any) -> sb.Score:
        seen.append(score := mine(item, output, label))
        return score

    asyncio.run(run_evaluators([to_pydantic_evals(keeps)], ctx))
    [score] = seen
    assert (score.correct, score.explanation) == (False, "2 tool call(s), budget=1")


@pytest.mark.parametrize(
    "kind", [ToolCorrectness, TrajectoryMatch, ArgumentCorrectness, MaxToolCalls, MaxModelRequests, GEval]
)
def test_the_evaluators_that_never_read_the_label_are_asked_without_one(kind: type[Any]) -> None:
    evaluator = BUILT_INS[kind][0]
    if kind is GEval:
        evaluator = GEval(criteria="helpful", evaluation_steps=["read it"], model=scale_judge())
    score = from_pydantic_evals(evaluator)("find it", "done", None)
    assert score.correct is not None  # asked: a verdict, where a label-needing scorer is unscored


def _g_eval(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    prompt = str(messages[-1])
    points = 5 if "good" in prompt else 3 if "fair" in prompt else 1
    args = {"reason": {1: "poor", 3: "fair", 5: "good"}[points], "score": points}
    return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, args)])


def scale_judge() -> FunctionModel:
    """An offline GEval judge: 5 for an output saying "good", 3 for "fair", else 1."""
    return FunctionModel(_g_eval)


def test_a_g_eval_score_on_its_1_to_5_scale_is_a_value_in_0_1_correct_at_the_top() -> None:
    # GEval's 1 was the value 1.0, correct at the threshold 1.0, with the reason "poor"
    scorer = from_pydantic_evals(GEval(criteria="quality", evaluation_steps=["judge it"], model=scale_judge()))
    scores = [scorer("q", output, None) for output in ("bad", "fair", "good")]
    assert [(s.correct, s.value) for s in scores] == [(False, 0.0), (False, 0.5), (True, 1.0)]
    assert scores[0].explanation == "poor"


def test_benchmark_accuracy_over_g_eval_scores_of_1_3_5_stays_within_0_1() -> None:
    # a 1/3/5 set gave benchmark() an accuracy of 3.000
    scorer = from_pydantic_evals(GEval(criteria="quality", evaluation_steps=["judge it"], model=scale_judge()))
    outputs = ["bad", "fair", "good"]
    result = sb.benchmark({"arm": lambda i: outputs[i]}, [0, 1, 2], [None, None, None], scorer=scorer)
    summary = result.summary()["arm"]
    assert (summary.scored, summary.correct, summary.accuracy) == (3, 1, 0.5)


def test_a_threshold_is_on_the_evaluators_own_scale() -> None:
    judge = GEval(criteria="quality", evaluation_steps=["judge it"], model=scale_judge())
    assert from_pydantic_evals(judge, threshold=3)("q", "fair", None).correct is True
    with pytest.raises(ValueError, match="outside the scorer's range 1-5"):
        from_pydantic_evals(judge, threshold=0.8)


@dataclass
class Counts(Evaluator[Any, Any, Any]):
    """An evaluator of one's own that scores on a scale it does not declare."""

    def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> int:
        return len(str(ctx.output))


def test_an_evaluator_that_hands_the_label_to_a_helper_of_its_module_reads_it() -> None:
    assert from_pydantic_evals(Delegates()).needs_label is True
    assert from_pydantic_evals(Counts()).needs_label is False


def _matches(ctx: EvaluatorContext[Any, Any, Any]) -> bool:
    return bool(ctx.output == ctx.expected_output)


@dataclass
class Delegates(Evaluator[Any, Any, Any]):
    def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> bool:
        return _matches(ctx)


def test_an_evaluator_of_ones_own_is_not_fast_even_when_sync() -> None:
    # a sync evaluator of one's own may block on a model or a file: score_many runs it off the loop
    assert from_pydantic_evals(Counts()).fast is False
    assert Counts().evaluate(context("x")) == 1
