"""The pydantic-evals adapter passes scorebridge's conformance suite (scorebridge.kit.testing), run for real.

The harness is pydantic-evals itself: `run` scores each row in `Dataset.evaluate_sync`
(one case: inputs = the item, expected_output = the label, the task answering the
output) and gives the number the report averages for the evaluator: its score (our
`NAME_value`, else a score of its own), else its assertion as 1.0 or 0.0; None for a
case it skipped. pydantic-evals records an evaluator's exception as the case's
EvaluatorFailure, named after the evaluator, with the exception's stack trace (notes
and all) and the exception's type: `run` raises it as the run's error (a ScorerContractError as one),
so the suite can read who raised, and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic_evals import Case, Dataset
from pydantic_evals.evaluators import Contains, Evaluator, EvaluatorContext

from scorebridge.kit import ScorerContractError, element
from scorebridge.kit.testing import Adapter, Check, Judge, Row, checks
from scorebridge_pydantic_evals import from_pydantic_evals, to_pydantic_evals


class EvaluatorFailed(Exception):
    """A case's EvaluatorFailure in a pydantic-evals report, raised: its name, message and stack trace."""


def run(evaluator: Evaluator[Any, Any, Any], rows: list[Row]) -> Sequence[float | None]:
    numbers: list[float | None] = []
    name = evaluator.get_default_evaluation_name()
    for item, output, label in rows:
        dataset = Dataset[Any, Any, Any](
            name="conformance", cases=[Case(name="row", inputs=item, expected_output=label)], evaluators=[evaluator]
        )
        [case] = dataset.evaluate_sync(lambda inputs, output=output: output, progress=False).cases
        for failure in case.evaluator_failures:  # the report names the exception's type: raised as that kind
            message = f"{failure.name}: {failure.error_message}\n{failure.error_stacktrace}"
            contract = failure.error_type in ("ScorerContractError", "UnreadableLabel")
            raise (ScorerContractError if contract else EvaluatorFailed)(message)
        if f"{name}_value" in case.scores:
            numbers.append(float(case.scores[f"{name}_value"].value))
        elif name in case.scores:
            numbers.append(float(case.scores[name].value))
        elif name in case.assertions:
            numbers.append(float(case.assertions[name].value))
        else:
            numbers.append(None)  # skipped: out of every average
    return numbers


def _references(label: Any) -> list[str]:
    if label is None:
        return []
    if isinstance(label, (list, tuple, set, frozenset)):
        return [_text(x) for x in label]
    return [_text(label)]


def _text(output: Any) -> str:
    """The output's text, as an evaluator of text reads a task's output: the string, else its `answer` field.

    pydantic-evals hands an evaluator the task's output as it is (a string, a mapping, a model): reading it
    is the evaluator's, so one that cannot (a number too long to write, an object whose repr raises) reads
    no text here rather than failing.
    """
    if isinstance(output, str):
        return output
    answer = element(output, "answer")
    if isinstance(answer, str):
        return answer
    try:
        return "" if output is None else str(output)
    except Exception:
        return ""


@dataclass
class Judged(Evaluator[Any, Any, Any]):
    """An evaluator of pydantic-evals' own kind: the judgement on the output's text and the expected output."""

    judge: Judge

    def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> float:
        return self.judge(_text(ctx.output), _references(ctx.expected_output))


@dataclass
class JudgedLater(Evaluator[Any, Any, Any]):
    """`Judged`, async."""

    judge: Judge

    async def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> float:
        return Judged(self.judge).evaluate(ctx)


@dataclass
class OnScale(Evaluator[Any, Any, Any]):
    """`Judged` on a scale of its own, declared as GEval declares it: a `score_range` field."""

    judge: Judge
    score_range: tuple[float, float]

    def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> float:
        low, high = self.score_range
        return low + Judged(self.judge).evaluate(ctx) * (high - low)


PYDANTIC_EVALS = Adapter(
    "pydantic-evals",
    to_harness=to_pydantic_evals,
    run=run,
    from_harness=from_pydantic_evals,
    native=Judged,
    native_async=JudgedLater,
    to_recording=lambda scorer: to_pydantic_evals(scorer, on_error="record"),
    variants=lambda: (Contains(value="Paris"), Contains(value="Paris"), Contains(value="Paris", case_sensitive=False)),
    ranged=OnScale,
)


@pytest.mark.parametrize("check", checks(PYDANTIC_EVALS), ids=str)
def test_the_pydantic_evals_adapter_conforms(check: Check) -> None:
    check()
