"""The DSPy adapter passes scorebridge's conformance suite (`scorebridge.kit.testing`), on DSPy's own objects."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import dspy
import pytest

from scorebridge import ScorerContractError
from scorebridge.kit.testing import Adapter, Check, Judge, Row, checks
from scorebridge_dspy import from_dspy, to_dspy


def _judged(judge: Judge, example: Any, pred: Any) -> float:
    reference = example.get("answer")
    references = reference if isinstance(reference, list) else [reference]
    response = pred.get("answer")
    return judge(response if isinstance(response, str) else "", [r for r in references if isinstance(r, str)])


def dspy_metric(judge: Judge) -> Callable[..., float]:
    """A DSPy metric of DSPy's own kind: `judge` on the prediction's answer and the example's."""

    def conformance_judge(example: Any, pred: Any, trace: Any = None) -> float:
        return _judged(judge, example, pred)

    return conformance_judge


def async_dspy_metric(judge: Judge) -> Callable[..., Any]:
    async def conformance_judge(example: Any, pred: Any, trace: Any = None) -> float:
        return _judged(judge, example, pred)

    return conformance_judge


def label_free_dspy_metric(judge: Judge) -> Callable[..., float]:
    """A DSPy metric whose code never reads its example (a format check): from_dspy reads that it needs no label."""

    def conformance_free(example: Any, pred: Any, trace: Any = None) -> float:
        response = pred.get("answer")
        return judge(response if isinstance(response, str) else "", [])

    return conformance_free


def run(metric: Callable[..., Any], rows: list[Row]) -> Sequence[float | None]:
    """The metric called as dspy.Evaluate calls it, metric(example, pred), on each row; None where DSPy is
    refused a number (an unscored row: the adapter's documented ScorerContractError, never a made-up 0)."""
    values: list[float | None] = []
    for item, output, label in rows:
        example = dspy.Example(question=item, answer=label).with_inputs("question")
        try:
            values.append(metric(example, dspy.Prediction(answer=output)))
        except ScorerContractError:
            values.append(None)
    return values


DSPY = Adapter(
    "dspy",
    to_harness=to_dspy,
    run=run,
    from_harness=from_dspy,
    native=dspy_metric,
    native_async=async_dspy_metric,
    label_free=label_free_dspy_metric,
    to_recording=functools.partial(to_dspy, on_error="record"),
    from_recording=functools.partial(from_dspy, on_error="record"),
)


@pytest.mark.parametrize("check", checks(DSPY), ids=str)
def test_the_dspy_adapter_conforms(check: Check) -> None:
    check()
