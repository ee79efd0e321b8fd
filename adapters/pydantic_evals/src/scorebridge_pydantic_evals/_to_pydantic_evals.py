"""`to_pydantic_evals()`: a scorebridge scorer as a pydantic-evals `Evaluator`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import InitVar, dataclass, field
from typing import Any, Literal

import anyio.to_thread
from pydantic_evals.evaluators import EvaluationReason, Evaluator, EvaluatorContext
from pydantic_evals.evaluators.evaluator import EvaluationScalar

import scorebridge as sb
from scorebridge.kit import BUILTINS, defined_scorers, is_builtin, label_is_missing, note_scorer, raised_score, rebuild

from ._keys import kind_key, value_key
from ._native import NATIVE

__all__ = ["OnError", "ScorerEvaluator", "evaluator_output", "to_pydantic_evals"]

OnError = Literal["raise", "record"]
"""What an exception inside the scorer becomes: pydantic-evals' EvaluatorFailure ("raise") or an "error" Score."""

Output = dict[str, EvaluationScalar | EvaluationReason]


def evaluator_output(score: sb.Score, name: str, value: bool) -> Output:
    """A scorebridge Score in pydantic-evals' own kinds: `{}` when unscored, else an assertion named `name`
    (reason: the explanation), the value as the score `NAME_value` (with `value`), and a wrong Score's
    failure kind as the label `NAME_failure_kind`."""
    correct = score.correct
    if correct is None:
        return {}  # the library's own "skip": nothing recorded, out of every average
    out: Output = {name: EvaluationReason(correct, score.explanation)}
    if value:
        out[value_key(name)] = score.value if score.value is not None else float(correct)
    if score.failure_kind is not None:
        out[kind_key(name)] = score.failure_kind
    return out


def _as_seen(label: Any) -> Any:
    """The label as a scorer's fn sees it (every form of "no label" is None), which is what a scorer of one's
    own passes on to a `from_pydantic_evals` scorer: the call `NATIVE` must recognise."""
    return None if label_is_missing(label) else label


def _scorer_named(name: str, options: Mapping[str, Any]) -> sb.Scorer:
    """The scorer a spec names: a built-in made with its options, else a scorer defined with `@scorer`."""
    if name in BUILTINS:
        return rebuild(name, dict(options))
    found = defined_scorers().get(name)
    if found is None:
        raise ValueError(
            f"ScorerEvaluator: no scorer named {name!r}: a spec names a built-in scorer "
            f"({', '.join(sorted(BUILTINS))}) "
            "or one defined with @scorer in a module imported first; give the scorer itself with to_pydantic_evals()"
        )
    return found if dict(found.options) == dict(options) or not options else found.with_options(**options)


@dataclass(repr=False)
class ScorerEvaluator(Evaluator[Any, Any, Any]):
    """A scorebridge scorer as a pydantic-evals Evaluator: what `to_pydantic_evals(scorer)` gives.

    A dataclass, as the library expects: its fields are its spec, so reports and
    saved datasets name the scorer and its options (`scorer`, `options`, and
    `on_error`/`value` when not the defaults). Made from a spec (a dataset file
    loaded with `custom_evaluator_types=[ScorerEvaluator]`), `scorer` names a
    built-in scorer or one defined with `@scorer`, made again with `options`.
    """

    scorer: str
    options: dict[str, Any] = field(default_factory=dict)
    on_error: OnError = "raise"
    value: bool = True
    made_from: InitVar[sb.Scorer | None] = None

    def __post_init__(self, made_from: sb.Scorer | None) -> None:
        if on_error_invalid(self.on_error):
            raise ValueError(
                f"to_pydantic_evals({self.scorer}): on_error must be 'raise' or 'record'; got {self.on_error!r}"
            )
        if not isinstance(self.value, bool):
            raise TypeError(f"to_pydantic_evals({self.scorer}): value must be True or False; got {self.value!r:.80}")
        the_scorer = made_from if made_from is not None else _scorer_named(self.scorer, self.options)
        self._scorer = the_scorer
        self._carry = not is_builtin(the_scorer)  # a built-in calls no wrapped evaluator: nothing to carry
        self._in_thread = not the_scorer.is_async and not the_scorer.fast

    @property
    def the_scorer(self) -> sb.Scorer:
        """The scorebridge scorer this evaluator runs."""
        return self._scorer

    def get_default_evaluation_name(self) -> str:
        return self.scorer

    def build_serialization_arguments(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"scorer": self.scorer}
        if self.options:
            arguments["options"] = dict(self.options)
        if self.on_error != "raise":
            arguments["on_error"] = self.on_error
        if not self.value:
            arguments["value"] = False
        return arguments

    def _failed(self, exc: Exception, label: Any) -> sb.Score:
        if self.on_error == "raise":
            note_scorer(exc, self.scorer)
            raise exc
        return raised_score(self.scorer, exc, label, needs_label=self._scorer.needs_label)

    def _score(self, ctx: EvaluatorContext[Any, Any, Any]) -> Output:
        item, output, label = ctx.inputs, ctx.output, ctx.expected_output
        scorer = self._scorer
        token = NATIVE.carry(item, output, _as_seen(label), ctx) if self._carry else None
        try:
            result = scorer(item, output, label)
        except Exception as exc:
            result = self._failed(exc, label)
        finally:
            if token is not None:
                NATIVE.drop(token)
        return evaluator_output(result, self.scorer, self.value)

    async def _ascore(self, ctx: EvaluatorContext[Any, Any, Any]) -> Output:
        item, output, label = ctx.inputs, ctx.output, ctx.expected_output
        token = NATIVE.carry(item, output, _as_seen(label), ctx)
        try:
            result = await self._scorer.acall(item, output, label)
        except Exception as exc:
            result = self._failed(exc, label)
        finally:
            NATIVE.drop(token)
        return evaluator_output(result, self.scorer, self.value)

    def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> Any:
        """Score `ctx.output` on `ctx.inputs` against `ctx.expected_output` (an awaitable for an async scorer)."""
        if self._scorer.is_async:
            return self._ascore(ctx)
        return self._score(ctx)

    async def evaluate_async(self, ctx: EvaluatorContext[Any, Any, Any]) -> Output:
        """What `Dataset.evaluate` and `run_evaluators` call: an async scorer awaited on the loop, a `fast`
        one inline, any other sync scorer (which may block) in a worker thread, so it stalls no other case."""
        if self._scorer.is_async:
            return await self._ascore(ctx)
        if self._in_thread:
            return await anyio.to_thread.run_sync(self._score, ctx)
        return self._score(ctx)


def on_error_invalid(on_error: object) -> bool:
    return on_error not in ("raise", "record")


def to_pydantic_evals(
    scorer: sb.Scorer, *, on_error: OnError = "raise", value: bool = True, timeout: float | None = None
) -> Evaluator[Any, Any, Any]:
    """A scorebridge scorer as a pydantic-evals Evaluator, for `Dataset(evaluators=[...])`, `Case(evaluators=[...])`
    and `pydantic_evals.online.run_evaluators`.

    Per case the scorer is called on item `ctx.inputs`, output `ctx.output` and
    label `ctx.expected_output` (None: no label). Its Score is given back in
    the library's own kinds, so the report shows it in its own columns:

    - an assertion named after the scorer, an `EvaluationReason` whose reason
      is the Score's explanation (pass: correct);
    - the Score's value as the score `NAME_value` (1.0, 0.0, or the partial
      credit), so the report's averages hold the scorer's accuracy, the
      number `scorebridge.Summary` gives (`value=False` leaves it out, for a
      scorer that never gives partial credit);
    - a wrong Score's failure kind as the label `NAME_failure_kind`, so the
      averages show how often each kind came up among the wrong cases;
    - an unscored Score (no label) is `{}`: the library's own skip, out of
      every average.

    An async scorer is awaited on pydantic-evals' event loop; a `fast` one
    (`exact()`, the detect scorers but `detect_pattern`) runs inline; any
    other sync scorer may block, and runs in a worker thread (anyio's), so it
    does not stall the other cases (the library would run it inline).

    on_error: with "raise" (the default) an exception inside the scorer
    propagates, with a note naming it, and pydantic-evals records it as an
    `EvaluatorFailure` on the case (out of the averages; the case's other
    evaluators still count). With "record" the case gets the wrong Score of
    failure kind "error" (`scorebridge.kit.raised_score`), counted, as
    `on_error="record"` counts it everywhere.

    Round trip: for a scorer made by `from_pydantic_evals(x)`, `x` itself (a
    thin wrapper when a name other than x's, or `on_error="record"`, asks for
    something else).

    timeout: seconds the scorer may take on one case (None, the default: no
    limit), as `Scorer.with_timeout` gives it (pydantic-evals has no limit of its own
    for a evaluator): a call past it has raised a `scorebridge.ScorerTimeout` (a
    TimeoutError), recorded or raised as `on_error` says. A sync scorer's call
    past it is abandoned on its thread, still running (Python cannot stop a
    thread).
    """
    if not isinstance(scorer, sb.Scorer):
        raise TypeError(f"to_pydantic_evals: scorer must be a scorebridge Scorer; got {type(scorer).__name__}")
    if on_error_invalid(on_error):
        raise ValueError(
            f"to_pydantic_evals({scorer.name}): on_error must be 'raise' or 'record'; got {on_error!r:.80}"
        )
    from ._round_trip import evaluator_again

    if timeout is not None:
        scorer = scorer.with_timeout(timeout)

    again = evaluator_again(scorer, on_error)
    if again is not None:
        return again
    return ScorerEvaluator(scorer.name, dict(scorer.options), on_error, value, made_from=scorer)
