"""`NativeEvaluator` (what `to_pydantic_evals` gives for a renamed or recording `from_pydantic_evals` scorer) is
the wrapped evaluator to pydantic-evals: its serialization, its attributes and its version; and its sync and
async calls agree, the name and on_error included."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
from pe_support import context
from pydantic_evals.evaluators import Evaluator, EvaluatorContext, HasMatchingSpan, LLMJudge

from scorebridge_pydantic_evals import from_pydantic_evals, to_pydantic_evals
from scorebridge_pydantic_evals._round_trip import NativeEvaluator


@dataclass
class Versioned(Evaluator[Any, Any, Any]):
    """An evaluator of one's own with a version and fields of its own."""

    limit: int = 3

    def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> bool:
        return len(str(ctx.output)) <= self.limit

    def get_evaluator_version(self) -> str | None:
        return "v2"


@dataclass
class Raising(Evaluator[Any, Any, Any]):
    def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> bool:
        raise ValueError("boom")


@dataclass
class RaisingLater(Evaluator[Any, Any, Any]):
    async def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> bool:
        raise ValueError("boom")


def recording(x: Evaluator[Any, Any, Any], **options: Any) -> Evaluator[Any, Any, Any]:
    made = to_pydantic_evals(from_pydantic_evals(x, **options), on_error="record")
    assert isinstance(made, NativeEvaluator)
    return made


def test_it_serializes_as_the_wrapped_evaluator() -> None:
    # with on_error="record" pydantic-evals' own spec tests saw the wrapper's fields, not LLMJudge's
    judge = LLMJudge(rubric="polite", model="test")
    wrapped = recording(judge)
    assert wrapped.build_serialization_arguments() == judge.build_serialization_arguments()
    assert wrapped.as_spec() == judge.as_spec()


def test_the_wrapped_evaluators_attributes_are_its_own() -> None:
    # pydantic-evals' tests read evaluator.query of a HasMatchingSpan: an AttributeError through the wrapper
    query = {"name_equals": "agent run"}
    assert recording(HasMatchingSpan(query=query)).query == query  # type: ignore[attr-defined]
    assert recording(Versioned(limit=9)).limit == 9  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        _ = recording(Versioned()).nowhere  # type: ignore[attr-defined]


def test_it_carries_the_wrapped_evaluators_version() -> None:
    # online sinks filter results on get_evaluator_version(): the wrapper had none
    assert recording(Versioned()).get_evaluator_version() == "v2"


def test_a_sync_call_records_an_exception_as_the_async_call_does() -> None:
    # the sync evaluate skipped on_error: pydantic-evals' evaluate_sync raised where evaluate_async recorded
    ctx = context("Paris", "Paris")
    for x in (Raising(), RaisingLater()):
        wrapped = recording(x, name="renamed")
        sync = wrapped.evaluate_sync(ctx)
        assert sync == asyncio.run(wrapped.evaluate_async(ctx))
        assert sync["renamed"].value is False and sync["renamed_failure_kind"] == "error"


def test_a_sync_and_an_async_call_give_the_same_results_under_another_name() -> None:
    ctx = context("Paris", None)
    wrapped = to_pydantic_evals(from_pydantic_evals(Versioned(limit=9), name="short"))
    assert wrapped.get_default_evaluation_name() == "short"
    assert wrapped.evaluate_sync(ctx) == asyncio.run(wrapped.evaluate_async(ctx)) is True
