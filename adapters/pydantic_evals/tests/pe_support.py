"""Helpers of the pydantic-evals adapter's tests: pydantic-evals run for real, offline.

`evaluate(evaluators, rows)` runs `Dataset.evaluate_sync` on cases made from
`(item, output, label)` rows (the task answers each case with its row's output);
`context(...)` is an EvaluatorContext as the library builds one; `judge_model()` is an
offline LLM judge (pydantic-ai's FunctionModel) that passes an output naming Paris.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from pydantic import BaseModel
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_evals import Case, Dataset
from pydantic_evals.evaluators import (
    Contains,
    Equals,
    EqualsExpected,
    Evaluator,
    EvaluatorContext,
    IsInstance,
    MaxDuration,
)
from pydantic_evals.otel import SpanTreeRecordingError
from pydantic_evals.reporting import EvaluationReport

Row = tuple[Any, Any, Any]  # (item, output, label)


def evaluate(
    evaluators: Sequence[Evaluator[Any, Any, Any]], rows: Sequence[Row], **options: Any
) -> EvaluationReport[Any, Any, Any]:
    """`Dataset.evaluate_sync` over `rows`: case i has inputs i, the row's label; the task answers its output."""
    cases = [Case(name=f"case {i}", inputs=i, expected_output=label) for i, (_, _, label) in enumerate(rows)]
    outputs = [output for _, output, _ in rows]

    async def task(i: int) -> Any:
        return outputs[i]

    dataset = Dataset(name="scorebridge tests", cases=cases, evaluators=list(evaluators))
    return dataset.evaluate_sync(task, progress=False, **options)


def context(
    output: Any, label: Any = None, inputs: Any = None, duration: float = 0.0
) -> EvaluatorContext[Any, Any, Any]:
    """An EvaluatorContext as pydantic-evals builds one (no spans recorded)."""
    return EvaluatorContext(
        name="case",
        inputs=inputs,
        metadata=None,
        expected_output=label,
        output=output,
        duration=duration,
        _span_tree=SpanTreeRecordingError("no spans in this test"),
        attributes={},
        metrics={},
    )


def _judge(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    prompt = str(messages[-1].parts[-1].content)  # type: ignore[union-attr]
    output = prompt.split("<Output>")[1].split("</Output>")[0]
    passed = "Paris" in output
    args = {"reason": "names Paris" if passed else "does not name Paris", "pass": passed, "score": float(passed)}
    return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, args)])


def judge_model() -> FunctionModel:
    """An offline judge: passes an output that names Paris, with a reason."""
    return FunctionModel(_judge)


class Answer(BaseModel):
    key: str | None = None
    extra: str | None = None


@dataclass
class Record:
    key: str | None = None
    extra: str | None = None


class Unhashable:
    __hash__ = None  # type: ignore[assignment]


class Outer:
    class Inner:
        pass


# (evaluator, output, label, duration): every case pydantic-evals' own tests give these built-ins
CASES: list[tuple[Evaluator[Any, Any, Any], Any, Any, float]] = [
    (Equals(value=42), 42, None, 0.0),
    (Equals(value=42), 43, None, 0.0),
    (Equals(value=Answer(key="4")), Answer(key="4"), None, 0.0),
    (Equals(value="not a model"), Answer(key="4"), None, 0.0),
    (EqualsExpected(), 42, 42, 0.0),
    (EqualsExpected(), 42, 43, 0.0),
    (EqualsExpected(), Answer(key="4"), Answer(key="4"), 0.0),
    (EqualsExpected(), Answer(key="4"), Answer(key="5"), 0.0),
    (Contains(value="test"), "this is a test", None, 0.0),
    (Contains(value="test"), "no match", None, 0.0),
    (Contains(value="TEST", case_sensitive=False), "this is a test", None, 0.0),
    (Contains(value={"key": "value"}), {"key": "value", "extra": "data"}, None, 0.0),
    (Contains(value={"key": "value"}), {"different": "value"}, None, 0.0),
    (Contains(value={"key": "value"}), {"key": "different"}, None, 0.0),
    (Contains(value="key"), {"key": "value"}, None, 0.0),
    (Contains(value={"key": "value"}), Answer(key="value", extra="data"), None, 0.0),
    (Contains(value={"key": "value"}), Answer(extra="data"), None, 0.0),
    (Contains(value={"key": "value"}), Record(key="value", extra="data"), None, 0.0),
    (Contains(value={"key": "value"}), Record(key="different"), None, 0.0),
    (Contains(value=42), [1, 42, 3], None, 0.0),
    (Contains(value=42), [1, 2, 3], None, 0.0),
    (Contains(value=42, as_strings=True), "The answer is 42", None, 0.0),
    (Contains(value=42, as_strings=True), [1, 42, 3], None, 0.0),
    (Contains(value=42), Unhashable(), None, 0.0),
    (IsInstance(type_name="str"), "test", None, 0.0),
    (IsInstance(type_name="str"), 42, None, 0.0),
    (IsInstance(type_name="Inner"), Outer.Inner(), None, 0.0),
    (IsInstance(type_name="Answer"), Answer(key="4"), None, 0.0),
    (MaxDuration(seconds=1.0), "x", None, 0.5),
    (MaxDuration(seconds=1.0), "x", None, 1.5),
    (MaxDuration(seconds=timedelta(seconds=1)), "x", None, 0.5),
    (MaxDuration(seconds=timedelta(seconds=1)), "x", None, 1.5),
]


def case_id(value: object, width: int = 40) -> str:
    """A parametrised case's id: its repr without memory addresses, which differ between pytest-xdist's
    workers (and a run whose workers collect different ids fails as a whole)."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))[:width]
