"""Round trips: `to_pydantic_evals(from_pydantic_evals(x))` is `x`, `from_pydantic_evals(to_pydantic_evals(s))` is `s`.

Only options that ask for something else wrap the original: another name, or
`on_error="record"`, make `x` a `NativeEvaluator`, a thin Evaluator that awaits
`x` on pydantic-evals' own context, untouched, and changes only that.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import InitVar, dataclass
from typing import Any

from pydantic_evals.evaluators import Evaluator, EvaluatorContext, EvaluatorSpec

import scorebridge as sb
from scorebridge.kit import note_scorer, raised_score

from ._from_pydantic_evals import call_of
from ._to_pydantic_evals import OnError, ScorerEvaluator, evaluator_output

__all__ = ["NativeEvaluator", "evaluator_again", "scorer_again"]


@dataclass(repr=False)
class NativeEvaluator(Evaluator[Any, Any, Any]):
    """pydantic-evals' evaluator `evaluator`, its results named `name` (a scalar result) and its exceptions
    recorded as wrong Scores of kind "error" with `on_error="record"`; what `to_pydantic_evals` gives for a
    `from_pydantic_evals(x, name=...)` scorer, or with `on_error="record"`."""

    evaluator: Evaluator[Any, Any, Any]
    name: str
    on_error: OnError = "raise"
    made_from: InitVar[sb.Scorer | None] = None

    def __post_init__(self, made_from: sb.Scorer | None) -> None:
        self._scorer = made_from

    def get_default_evaluation_name(self) -> str:
        return self.name

    def as_spec(self) -> EvaluatorSpec:
        """The wrapped evaluator's own spec: a saved dataset names pydantic-evals' evaluator, and loads it."""
        return self.evaluator.as_spec()

    def _named(self, out: Any) -> Any:
        return out if isinstance(out, Mapping) else {self.name: out}

    def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> Any:
        return self.evaluator.evaluate(ctx)

    async def evaluate_async(self, ctx: EvaluatorContext[Any, Any, Any]) -> Any:
        try:
            return self._named(await self.evaluator.evaluate_async(ctx))
        except Exception as exc:
            if self.on_error == "raise":
                note_scorer(exc, self.name)
                raise
            needs = self._scorer.needs_label if self._scorer is not None else True
            raised = raised_score(self.name, exc, ctx.expected_output, needs_label=needs)
            return evaluator_output(raised, self.name, True)


def evaluator_again(scorer: sb.Scorer, on_error: OnError) -> Evaluator[Any, Any, Any] | None:
    """The evaluator `to_pydantic_evals` gives for a `from_pydantic_evals` scorer: `x` itself, else `x` thinly
    wrapped; None for any other scorer."""
    call = call_of(scorer)
    if call is None:
        return None
    if on_error == "raise" and scorer.name == call.default_name:
        return call.evaluator
    return NativeEvaluator(call.evaluator, scorer.name, on_error, made_from=scorer)


def scorer_again(evaluator: Evaluator[Any, Any, Any], name: str | None) -> sb.Scorer | None:
    """The scorer `from_pydantic_evals` gives for an evaluator `to_pydantic_evals` made: the scorer itself,
    when nothing asks for another; None otherwise."""
    if isinstance(evaluator, ScorerEvaluator):
        scorer: sb.Scorer | None = evaluator.the_scorer if evaluator.on_error == "raise" else None
    elif isinstance(evaluator, NativeEvaluator):
        scorer = evaluator._scorer if evaluator.on_error == "raise" else None
    else:
        return None
    if scorer is not None and name in (None, scorer.name):
        return scorer
    return None
