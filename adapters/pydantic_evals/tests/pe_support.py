"""Helpers of the pydantic-evals adapter's tests: pydantic-evals run for real, offline.

`evaluate(evaluators, rows)` runs `Dataset.evaluate_sync` on cases made from
`(item, output, label)` rows (the task answers each case with its row's output);
`context(...)` is an EvaluatorContext as the library builds one; `judge_model()` is an
offline LLM judge (pydantic-ai's FunctionModel) that passes an output naming Paris.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_evals import Case, Dataset
from pydantic_evals.evaluators import Evaluator, EvaluatorContext
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
