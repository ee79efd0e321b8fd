"""A pytest plugin: every evaluator call pydantic-evals' own tests make, repeated from outside through scorebridge.

Loaded into a run of pydantic-evals' own tests (`-p pydantic_evals_shadow`, by
`run.py pydantic-evals`), it wraps the `evaluate` method of every pydantic-evals
`Evaluator` class, the library's built-ins and each one the tests define. When a
test (or `Dataset.evaluate`, `run_evaluators`, `evaluate_sync`) calls an
evaluator, the wrapper lets the call run untouched and returns what it returned
or raises what it raised, then asks the same evaluator again, from outside:
`from_pydantic_evals(evaluator)(item, ctx.output, ctx.expected_output)`, the
item a `Case` of the context's name, inputs and metadata. It compares the two
verdicts as pydantic-evals reads them:

- an assertion: `correct` is the bool, the reason is the explanation;
- a score: the value is the score on 0-1 (mapped by a declared `score_range`),
  correct at the top of the scale;
- a label: unscored, the label as the outcome; `{}`: unscored;
- several results: the first is the verdict (`result=` names it), the others'
  values are in the Score's metadata;
- an exception: the same exception type.

Each disagreement is classified: "explained" by a rule the spoke documents
(docs/pydantic_evals.md; the rule is named in the tally), or "real". A
disagreement is explained by the context rule only when the evaluator, asked
again natively on the context with what a call from outside cannot carry
(span tree, attributes, metrics, duration) taken away, gives the very verdict
scorebridge gave. Per call it also checks the round trip:
`to_pydantic_evals(from_pydantic_evals(x)) is x`.

The tally (one JSON line per call, then a summary) goes to the file named by
`SCOREBRIDGE_SHADOW_OUT`, and the summary to the terminal. Nothing here mocks
pydantic-evals: the evaluators run as the tests made them.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import math
from collections import Counter
from collections.abc import Awaitable, Callable, Generator, Mapping
from typing import Any

import shadow_tally
from pydantic_evals import Case
from pydantic_evals.evaluators import Contains, EvaluationReason, Evaluator, EvaluatorContext
from pydantic_evals.otel import SpanTreeRecordingError
from shadow_tally import pytest_runtest_setup, pytest_sessionfinish, pytest_terminal_summary

import scorebridge as sb
from scorebridge.kit import is_bool, is_number, label_is_missing
from scorebridge_pydantic_evals import from_pydantic_evals, to_pydantic_evals

__all__ = ["pytest_runtest_setup", "pytest_sessionfinish", "pytest_terminal_summary"]

_PHASE: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("shadow_phase", default=None)
"""None outside any shadowed call; inside one, the evaluator classes asked (a call inside is not shadowed)."""


Verdict = tuple[Any, ...]

AGENTIC_AND_GEVAL = (
    "ToolCorrectness",
    "TrajectoryMatch",
    "ArgumentCorrectness",
    "MaxToolCalls",
    "MaxModelRequests",
    "GEval",
)


# ---- what each side said, in one form ---------------------------------------------------------


def _rounded(x: float) -> float:
    return round(x, 9)


def _native_verdict(evaluator: Evaluator[Any, Any, Any], raised: BaseException | None, raw: Any) -> Verdict:
    """What pydantic-evals makes of an evaluator's call: its exception, its skip, or its first result."""
    if raised is not None:
        return ("raises", type(raised).__name__)
    if isinstance(raw, Mapping):
        if not raw:
            return ("skip",)
        if not all(isinstance(k, str) for k in raw):
            return ("invalid", type(raw).__name__)
        key = next(iter(raw))
        entry, others = raw[key], {k: _plain(v) for k, v in raw.items() if k != key}
    else:
        entry, others = raw, {}
    reason = entry.reason if isinstance(entry, EvaluationReason) else None
    value = entry.value if isinstance(entry, EvaluationReason) else entry
    if is_bool(value):
        return ("assert", bool(value), reason, others)
    if isinstance(value, str):
        return ("label", value, others)
    if is_number(value) and math.isfinite(float(value)):
        low, high = _range(evaluator)
        number = float(value)
        if not low <= number <= high:
            return ("out of range", number)
        return ("score", _rounded((number - low) / (high - low)), number >= high, reason, others)
    return ("invalid", type(value).__name__)


def _plain(entry: Any) -> Any:
    value = entry.value if isinstance(entry, EvaluationReason) else entry
    return value


def _range(evaluator: Evaluator[Any, Any, Any]) -> tuple[float, float]:
    found = getattr(evaluator, "score_range", None)
    if isinstance(found, (tuple, list)) and len(found) == 2 and all(is_number(x) for x in found):
        return float(found[0]), float(found[1])
    return 0.0, 1.0


def _score_verdict(native: Verdict, raised: BaseException | None, score: sb.Score | None) -> Verdict:
    """What scorebridge said, in the form of the native verdict it is compared with."""
    if raised is not None:
        return ("raises", type(raised).__name__)
    assert score is not None
    others = (score.metadata or {}).get("pydantic_evals_results", {})
    if score.correct is None:
        if native[0] == "label" and score.outcome == native[1]:
            return ("label", score.outcome, others)
        return ("skip",)
    if native[0] == "score":
        value = None if score.value is None else _rounded(score.value)
        return ("score", value, score.correct, score.explanation, others)
    return ("assert", score.correct, score.explanation, others)


def _agree(native: Verdict, ours: Verdict) -> bool:
    if native[0] in ("assert", "score") and ours[0] == native[0] and native[-2] is None:
        return native[:-2] == ours[:-2] and native[-1] == ours[-1]  # no reason given: any explanation
    return native == ours


# ---- why a disagreement happens ---------------------------------------------------------------


def _field(ctx: Any, name: str, default: Any = None) -> Any:
    """A context's field; a test's own stand-in context (a subclass that sets only some) may lack it."""
    return getattr(ctx, name, default)


def _carries_more(ctx: EvaluatorContext[Any, Any, Any]) -> bool:
    """Whether the context holds what a call from outside cannot carry (docs/pydantic_evals.md, "What does not
    survive"): a recorded span tree, attributes, metrics, a duration."""
    spans = not isinstance(_field(ctx, "_span_tree", SpanTreeRecordingError("")), SpanTreeRecordingError)
    extra = _field(ctx, "attributes") or _field(ctx, "metrics")
    return spans or bool(extra) or _field(ctx, "duration", 0.0) != 0.0


def _stripped(ctx: EvaluatorContext[Any, Any, Any]) -> EvaluatorContext[Any, Any, Any]:
    """The context as a call from outside builds it: the same name, inputs, metadata, output and label, and no
    span tree, attributes, metrics or duration."""
    return EvaluatorContext(
        name=_field(ctx, "name"),
        inputs=_field(ctx, "inputs"),
        metadata=_field(ctx, "metadata"),
        expected_output=_field(ctx, "expected_output"),
        output=_field(ctx, "output"),
        duration=0.0,
        _span_tree=SpanTreeRecordingError("no spans were recorded"),
        attributes={},
        metrics={},
    )


def _fails_itself(output: Any) -> bool:
    if not isinstance(output, Mapping):
        return False
    return output.get("failure_kind") is not None or output.get("ok") is False


def _documented(
    evaluator: Evaluator[Any, Any, Any], ctx: EvaluatorContext[Any, Any, Any], native: Verdict, ours: Verdict
) -> str | None:
    """The documented rule that explains a disagreement without the context rule, or None."""
    if ours == ("raises", "ScorerContractError") and native[0] in ("out of range", "invalid"):
        return "a result pydantic-evals rejects, or a score outside 0-1 with no declared range: ScorerContractError"
    if ctx.expected_output is not None and label_is_missing(ctx.expected_output):
        return "an empty label ('', NaN, an empty list) is no label"
    if ours == ("skip",) and ctx.expected_output is None and from_pydantic_evals(evaluator).needs_label:
        return "an evaluator whose code reads ctx.expected_output needs a label: unasked on an unlabelled row"
    if _fails_itself(ctx.output):
        return "an output that reports its own failure is recorded wrong, unasked"
    if ours == ("raises", "ValueError") and isinstance(evaluator, Contains) and evaluator.value == "":
        return "Contains(value='') is refused"
    return None


# ---- the repeated call ------------------------------------------------------------------------


def _item(ctx: EvaluatorContext[Any, Any, Any]) -> Case[Any, Any, Any]:
    return Case(name=_field(ctx, "name"), inputs=_field(ctx, "inputs"), metadata=_field(ctx, "metadata"))


def _scorer(evaluator: Evaluator[Any, Any, Any], raw: Any) -> sb.Scorer:
    several = isinstance(raw, Mapping) and len(raw) > 1 and all(isinstance(k, str) for k in raw)
    return from_pydantic_evals(evaluator, result=next(iter(raw)) if several else None)


def _record(
    evaluator: Evaluator[Any, Any, Any],
    ctx: EvaluatorContext[Any, Any, Any],
    native: Verdict,
    ours: Verdict,
    asked: list[str],
    same: Verdict | None,
    again: Verdict | None,
) -> None:
    """One call's line of the tally. `same`: the evaluator asked natively once more on the same context; `again`:
    on the context stripped of what a call from outside cannot carry (each only after a disagreement)."""
    agree = _agree(native, ours)
    rule = None
    if not agree:
        rule = _documented(evaluator, ctx, native, ours)
        if rule is None and same is not None and same != native:
            rule = "the evaluator answers differently each time it is asked (it counts its calls): no repeat agrees"
        if rule is None and again is not None and _agree(again, ours):
            rule = "the span tree, attributes, metrics and duration do not survive outside Dataset.evaluate"
    kind = type(evaluator).__name__
    try:
        identity = to_pydantic_evals(from_pydantic_evals(evaluator)) is evaluator
    except Exception:
        identity = None  # an evaluator from_pydantic_evals refuses (Contains(value=""))
    shadow_tally.add(
        {
            "scorer": kind,
            "labelled": ctx.expected_output is not None,
            "asked": kind in asked,
            "native": repr(native),
            "scorebridge": repr(ours),
            "result": "agree" if agree else ("explained" if rule else "real"),
            "rule": rule,
            "round_trip_identity": identity,
        }
    )


Request = tuple[str, Any]
"""What the comparison asks its driver to run: ("scorebridge", what the evaluator returned): the scorer
`from_pydantic_evals` makes of the evaluator (its result chosen by that), on the call's item, output and label;
or ("native", a context): the evaluator itself, natively."""
Answer = tuple[BaseException | None, Any]
"""The exception the request raised, or None and what it returned."""


def _steps(
    evaluator: Evaluator[Any, Any, Any], ctx: Any, raised: BaseException | None, raw: Any
) -> Generator[Request, Answer, None]:
    """One call compared: the repeat through scorebridge and, after a disagreement, the evaluator asked natively
    again (on the same context, and on the context stripped of what a call from outside cannot carry). A
    generator, so that the sync and the async driver share it: each yields a request and gets its answer."""
    native = _native_verdict(evaluator, raised, raw)
    asked: list[str] = []
    token = _PHASE.set(asked)
    try:
        error, score = yield ("scorebridge", raw)
        ours, asked = _score_verdict(native, error, score), list(asked)  # the native calls below are not ours
        same = again = None
        if not _agree(native, ours):
            same = _native_verdict(evaluator, *(yield ("native", ctx)))
            if _carries_more(ctx):
                again = _native_verdict(evaluator, *(yield ("native", _stripped(ctx))))
    finally:
        _PHASE.reset(token)
    _record(evaluator, ctx, native, ours, asked, same, again)


def _answer_sync(evaluator: Evaluator[Any, Any, Any], ctx: Any, request: Request) -> Answer:
    what, on = request
    try:
        if what == "scorebridge":
            return None, _scorer(evaluator, on)(_item(ctx), ctx.output, ctx.expected_output)
        return None, evaluator.evaluate(on)
    except Exception as exc:
        return exc, None


async def _answer_async(evaluator: Evaluator[Any, Any, Any], ctx: Any, request: Request) -> Answer:
    what, on = request
    try:
        if what == "scorebridge":
            return None, await _scorer(evaluator, on).acall(_item(ctx), ctx.output, ctx.expected_output)
        return None, await evaluator.evaluate_async(on)
    except Exception as exc:
        return exc, None


def _after_sync(evaluator: Evaluator[Any, Any, Any], ctx: Any, raised: BaseException | None, raw: Any) -> None:
    steps = _steps(evaluator, ctx, raised, raw)
    try:
        request = next(steps)
        while True:
            request = steps.send(_answer_sync(evaluator, ctx, request))
    except StopIteration:
        pass
    except Exception as exc:
        shadow_tally.broken(type(evaluator).__name__, exc)


async def _after_async(evaluator: Evaluator[Any, Any, Any], ctx: Any, raised: BaseException | None, raw: Any) -> None:
    steps = _steps(evaluator, ctx, raised, raw)
    try:
        request = next(steps)
        while True:
            request = steps.send(await _answer_async(evaluator, ctx, request))
    except StopIteration:
        pass
    except Exception as exc:
        shadow_tally.broken(type(evaluator).__name__, exc)


def _shadowed(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` (an `evaluate`), run as it is, then repeated from outside through scorebridge."""
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def evaluate_async(self: Evaluator[Any, Any, Any], ctx: Any) -> Any:
            inside = _PHASE.get()
            if inside is not None:
                inside.append(type(self).__name__)
                return await fn(self, ctx)
            token = _PHASE.set([])
            try:
                raw = await fn(self, ctx)
            except Exception as exc:
                _PHASE.reset(token)
                await _after_async(self, ctx, exc, None)
                raise
            _PHASE.reset(token)
            await _after_async(self, ctx, None, raw)
            return raw

        evaluate_async.__shadowed__ = True  # type: ignore[attr-defined]
        return evaluate_async

    @functools.wraps(fn)
    def evaluate(self: Evaluator[Any, Any, Any], ctx: Any) -> Any:
        inside = _PHASE.get()
        if inside is not None:
            inside.append(type(self).__name__)
            return fn(self, ctx)
        token = _PHASE.set([])
        try:
            raw = fn(self, ctx)
        except Exception as exc:
            _PHASE.reset(token)
            _after_sync(self, ctx, exc, None)
            raise
        _PHASE.reset(token)
        if inspect.isawaitable(raw):  # a sync evaluate that hands back an awaitable
            return _awaited(self, ctx, raw)
        _after_sync(self, ctx, None, raw)
        return raw

    evaluate.__shadowed__ = True  # type: ignore[attr-defined]
    return evaluate


async def _awaited(evaluator: Evaluator[Any, Any, Any], ctx: Any, pending: Awaitable[Any]) -> Any:
    try:
        raw = await pending
    except Exception as exc:
        await _after_async(evaluator, ctx, exc, None)
        raise
    await _after_async(evaluator, ctx, None, raw)
    return raw


def _wrap(kind: type) -> None:
    fn = kind.__dict__.get("evaluate")
    if fn is None or getattr(fn, "__shadowed__", False) or getattr(fn, "__isabstractmethod__", False):
        return
    if kind.__module__.startswith("scorebridge"):
        return  # our own evaluators run a scorer; what they give is the spoke's own tests' to check
    kind.evaluate = _shadowed(fn)  # type: ignore[attr-defined]


def _install() -> None:
    for kind in shadow_tally.subclasses(Evaluator):
        _wrap(kind)
    before = Evaluator.__dict__.get("__init_subclass__")

    def __init_subclass__(cls: Any, /, **kwargs: Any) -> None:
        if before is not None:
            before.__func__(cls, **kwargs)
        else:
            super(Evaluator, cls).__init_subclass__(**kwargs)
        _wrap(cls)

    Evaluator.__init_subclass__ = classmethod(__init_subclass__)  # type: ignore[assignment,method-assign]


_install()


def _unlabelled(records: list[dict[str, Any]]) -> dict[str, Any]:
    """How often the agentic evaluators and GEval were asked on an unlabelled row, of the calls on one."""
    rows: Counter[str] = Counter()
    asked: Counter[str] = Counter()
    for r in records:
        if r["result"] != "shadow error" and not r["labelled"] and r["scorer"] in AGENTIC_AND_GEVAL:
            rows[r["scorer"]] += 1
            asked[r["scorer"]] += r["asked"]
    return {"unlabelled_agentic_and_geval": {k: f"{asked[k]} of {rows[k]} asked" for k in sorted(rows)}}


shadow_tally.EXTRA.append(_unlabelled)
