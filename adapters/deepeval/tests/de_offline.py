"""deepeval, offline: a scripted judge model, and deepeval's own `evaluate` over scorebridge rows.

The judge (`ScriptedJudge`, a `DeepEvalBaseLLM`) answers G-Eval's two questions (its evaluation steps, then
a score out of 10) without a request: 10 when the test case's actual output, stripped and folded, equals its
expected output (or, with no expected output, is at most five words), else 0. conftest refuses and records
every socket connection but to 127.0.0.1 (`CONNECTIONS`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import deepeval
from deepeval.evaluate.configs import AsyncConfig, CacheConfig, DisplayConfig, ErrorConfig
from deepeval.metrics import BaseMetric
from deepeval.models import DeepEvalBaseLLM
from deepeval.test_case import LLMTestCase

from scorebridge.kit.testing import Row
from scorebridge_deepeval import as_test_case

CONNECTIONS: list[str] = []

_FIELD = re.compile(r"^(Actual Output|Expected Output):\n(.*?) \n", re.MULTILINE | re.DOTALL)


class ScriptedJudge(DeepEvalBaseLLM):
    """A judge model that sends nothing: G-Eval's steps, then a score of 10 or 0 by the rule above."""

    def __init__(self, model: str = "scripted-judge") -> None:
        super().__init__(model)
        self.asked = 0

    def load_model(self, *args: Any, **kwargs: Any) -> ScriptedJudge:
        return self

    def get_model_name(self, *args: Any, **kwargs: Any) -> str:
        return "scripted-judge"

    def generate(self, prompt: str, schema: Any = None, **kwargs: Any) -> Any:
        self.asked += 1
        fields = {name: text.strip() for name, text in _FIELD.findall(prompt)}
        if schema is not None and "steps" in schema.model_fields:
            return schema(steps=["Compare the actual output with the expected output."])
        actual, expected = fields.get("Actual Output", ""), fields.get("Expected Output")
        right = actual.casefold() == expected.casefold() if expected is not None else len(actual.split()) <= 5
        found = {"score": 10 if right else 0, "reason": "matches" if right else "does not match"}
        return schema(**found) if schema is not None else str(found)

    async def a_generate(self, prompt: str, schema: Any = None, **kwargs: Any) -> Any:
        return self.generate(prompt, schema, **kwargs)


def cases(rows: Sequence[Row]) -> list[LLMTestCase]:
    """deepeval test cases of the rows (`scorebridge_deepeval.as_test_case`), named by row."""
    return [as_test_case(*row, name=f"row {n}") for n, row in enumerate(rows)]


def evaluated(metric: BaseMetric, rows: Sequence[Row], *, ignore_errors: bool = False) -> list[Any]:
    """`deepeval.evaluate` over the rows with one metric, offline, async: each row's metric data (None: skipped)."""
    result = deepeval.evaluate(
        cases(rows), [metric], async_config=AsyncConfig(run_async=True, max_concurrent=8),
        display_config=DisplayConfig(print_results=False, show_indicator=False, inspect_after_run=False),
        error_config=ErrorConfig(ignore_errors=ignore_errors), cache_config=CacheConfig(write_cache=False),
    )  # fmt: skip
    by_name = {r.name: r for r in result.test_results}
    return [next(iter(by_name[f"row {n}"].metrics_data or []), None) for n in range(len(rows))]


def run(metric: BaseMetric, rows: list[Row]) -> Sequence[float | None]:
    """deepeval's evaluate scoring the rows with one metric: each row's score (None: skipped, left out)."""
    return [None if data is None else data.score for data in evaluated(metric, rows)]
