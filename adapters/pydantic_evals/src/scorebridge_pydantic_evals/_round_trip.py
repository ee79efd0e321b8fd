"""Round trips: `to_pydantic_evals(from_pydantic_evals(x))` is `x`, `from_pydantic_evals(to_pydantic_evals(s))` is `s`.

Only options that ask for something else wrap the original: another name, or
`on_error="record"`, make `x` a `NativeEvaluator`, a thin Evaluator that awaits
`x` on pydantic-evals' own context, untouched, and changes only that.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable
from dataclasses import InitVar, dataclass
from typing import Any

from pydantic_evals.evaluators import Evaluator, EvaluatorContext, EvaluatorSpec

import scorebridge as sb
from scorebridge.kit import note_scorer, raised_score

from ._from_pydantic_evals import call_of
from ._reading import is_fast, reads_label
from ._to_pydantic_evals import OnError, ScorerEvaluator, evaluator_output

__all__ = ["NativeEvaluator", "evaluator_again", "scorer_again"]


@dataclass(repr=False)
class NativeEvaluator(Evaluator[Any, Any, Any]):
    """pydantic-evals' evaluator `evaluator`, its scalar result named `name` and its exceptions
    recorded as wrong Scores of kind "error" with `on_error="record"`; what `to_pydantic_evals` gives for a
    `from_pydantic_evals(x, name=...)` scorer, or with `on_error="record"`.

    To pydantic-evals it is `evaluator`: its spec and serialization arguments
    (a saved dataset names and loads the wrapped evaluator), its version
    (`get_evaluator_version`, which online sinks filter on) and its attributes
    (`.query`, `.rubric`, ...) are the wrapped evaluator's. `evaluate` and
    `evaluate_async` agree: both give what the wrapped evaluator gives (a
    scalar result is named `name` by pydantic-evals, from
    `get_default_evaluation_name`) and apply `on_error`, whether the wrapped
    evaluator is sync or async.
    """

    evaluator: Evaluator[Any, Any, Any]
    name: str
    on_error: OnError = "raise"
    made_from: InitVar[sb.Scorer | None] = None

    def __post_init__(self, made_from: sb.Scorer | None) -> None:
        self._scorer = made_from

    def __getattr__(self, attr: str) -> Any:
        # only called for what this wrapper lacks: the wrapped evaluator's own fields and methods
        if attr.startswith("__") or attr in ("evaluator", "_scorer"):
            raise AttributeError(attr)
        return getattr(self.evaluator, attr)

    def get_default_evaluation_name(self) -> str:
        return self.name

    def get_evaluator_version(self) -> str | None:
        return self.evaluator.get_evaluator_version()

    def as_spec(self) -> EvaluatorSpec:
        """The wrapped evaluator's own spec: a saved dataset names pydantic-evals' evaluator, and loads it."""
        return self.evaluator.as_spec()

    def build_serialization_arguments(self) -> dict[str, Any]:
        return self.evaluator.build_serialization_arguments()

    def _scorebridge_reads_label(self) -> bool:
        return reads_label(self.evaluator)

    def _scorebridge_fast(self) -> bool:
        return is_fast(self.evaluator)

    def _failed(self, exc: Exception, ctx: EvaluatorContext[Any, Any, Any]) -> Any:
        if self.on_error == "raise":
            note_scorer(exc, self.name)
            raise exc
        needs = self._scorer.needs_label if self._scorer is not None else reads_label(self.evaluator)
        raised = raised_score(self.name, exc, ctx.expected_output, needs_label=needs)
        return evaluator_output(raised, self.name, True)

    async def _finish(self, pending: Awaitable[Any], ctx: EvaluatorContext[Any, Any, Any]) -> Any:
        try:
            return await pending
        except Exception as exc:
            return self._failed(exc, ctx)

    def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> Any:
        """The wrapped evaluator's `evaluate`, its exceptions as `on_error` says (an awaitable when the wrapped
        one gives one)."""
        try:
            out = self.evaluator.evaluate(ctx)
        except Exception as exc:
            return self._failed(exc, ctx)
        if inspect.isawaitable(out):
            return self._finish(out, ctx)
        return out

    async def evaluate_async(self, ctx: EvaluatorContext[Any, Any, Any]) -> Any:
        """What `Dataset.evaluate` awaits: the wrapped evaluator's `evaluate_async` (its own way of running),
        its exceptions as `on_error` says."""
        return await self._finish(self.evaluator.evaluate_async(ctx), ctx)


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
