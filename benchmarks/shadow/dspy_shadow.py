"""A pytest plugin: every metric call DSPy's own tests make, repeated from outside through scorebridge_dspy.

Loaded into a run of DSPy's own tests (`-p dspy_shadow`, by `run.py dspy`), it
wraps each metric DSPy is given: the built-in metric functions
(`answer_exact_match`, `answer_passage_match`) where the tests import them, and
the `metric` handed to `dspy.Evaluate` (made or called) or to an optimizer
(every `Teleprompter`). When DSPy or a test calls a wrapped metric, the call
runs untouched (what it returned is returned, what it raised is raised), then
the same metric is asked again, from outside:
`from_dspy(metric)(example, prediction, label)`, the label being the example's
gold field (its one non-input field, `answer` among several, else the one the
prediction also has). The two verdicts are compared as DSPy reads a metric:
the value (a bool as 1.0 or 0.0, a number, a Prediction's `score`), or the
same exception type.

Each disagreement is classified: "explained" by a rule docs/dspy.md states
(named in the tally), or "real". The tally (one JSON line per call, then a
summary) goes to the file named by `SCOREBRIDGE_SHADOW_OUT`, the summary to the
terminal. Nothing here mocks DSPy.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import math
from collections.abc import Callable
from typing import Any

import dspy
import dspy.evaluate
import dspy.evaluate.metrics
import shadow_tally
from dspy.evaluate import Evaluate
from dspy.teleprompt import Teleprompter
from shadow_tally import pytest_runtest_setup, pytest_sessionfinish, pytest_terminal_summary

import scorebridge as sb
from scorebridge.kit import is_bool, is_number, label_is_missing
from scorebridge_dspy import from_dspy, to_dspy

__all__ = ["pytest_runtest_setup", "pytest_sessionfinish", "pytest_terminal_summary"]

_INSIDE: contextvars.ContextVar[bool] = contextvars.ContextVar("dspy_shadow_inside", default=False)

Verdict = tuple[Any, ...]


def _native_verdict(raised: BaseException | None, raw: Any) -> Verdict:
    """What DSPy makes of a metric's answer: its exception, or the number it stands for."""
    if raised is not None:
        return ("raises", type(raised).__name__)
    if isinstance(raw, dspy.Prediction):
        raw = raw.get("score")
    if is_bool(raw):
        return ("value", float(bool(raw)))
    if is_number(raw) and math.isfinite(float(raw)):
        return ("value", round(float(raw), 9))
    return ("unreadable", type(raw).__name__)


def _score_verdict(raised: BaseException | None, score: sb.Score | None) -> Verdict:
    if raised is not None:
        return ("raises", type(raised).__name__)
    assert score is not None
    if score.value is None:
        return ("unscored",)
    return ("value", round(score.value, 9))


def _label(example: Any, prediction: Any) -> Any:
    """The example's gold answer: its one non-input field; `answer` among several; else one the prediction has."""
    if not isinstance(example, dspy.Example):
        return None
    try:
        gold = dict(example.labels())
    except Exception:  # an example without input keys: every field is an input
        return None
    if "answer" in gold or len(gold) == 1:
        return gold.get("answer", next(iter(gold.values()), None))
    shared = [k for k in gold if isinstance(prediction, dspy.Prediction) and k in prediction]
    return gold[shared[0]] if shared else next(iter(gold.values()), None)


def _rule(native: Verdict, ours: Verdict, trace: Any, prediction: Any, label: Any, again: Verdict) -> str | None:
    """The rule of docs/dspy.md that explains a disagreement, or None."""
    if not isinstance(prediction, (dspy.Prediction, str)):
        return (
            "an output that is not a dspy.Prediction becomes the prediction's output field (DSPy's own bootstrap_trace "
            "hands its internal metric wrapper a (prediction, trace) pair)"
        )
    if trace is not None:
        return "a bootstrapping call (trace given); from outside a metric is called in evaluation mode, trace None"
    if again != native:
        return "the metric answers differently each time it is asked (it counts its calls): no repeat agrees"
    if ours == ("raises", "ScorerContractError") and native[0] == "unreadable":
        return "a return that is not a number (None, a string, NaN) is a ScorerContractError"
    if ours == ("unscored",) and label_is_missing(label):
        return "an item with no label is not scored, for a metric that reads its example"
    return None


def _repeat(metric: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], native: Verdict) -> None:
    example = args[0] if args else kwargs.get("example", kwargs.get("gold"))
    prediction = args[1] if len(args) > 1 else kwargs.get("pred", kwargs.get("prediction"))
    trace = args[2] if len(args) > 2 else kwargs.get("trace")
    label = _label(example, prediction)
    token = _INSIDE.set(True)
    try:
        try:
            score, error = from_dspy(metric)(example, prediction, label), None
        except Exception as exc:
            score, error = None, exc
        ours = _score_verdict(error, score)
        again = native
        if ours != native:
            try:
                again = _native_verdict(None, metric(*args, **kwargs))
            except Exception as exc:
                again = _native_verdict(exc, None)
    finally:
        _INSIDE.reset(token)
    rule = None if ours == native else _rule(native, ours, trace, prediction, label, again)
    name = getattr(metric, "__name__", type(metric).__name__)
    shadow_tally.add(
        {
            "scorer": name,
            "native": repr(native),
            "scorebridge": repr(ours),
            "result": "agree" if ours == native else ("explained" if rule else "real"),
            "rule": rule,
            "round_trip_identity": to_dspy(from_dspy(metric)) is metric,
        }
    )


class Shadowed:
    """A metric, run as it is, then repeated from outside through `from_dspy`. To DSPy and the tests it is the
    metric: equal to it, hashed as it, its name, signature (`__wrapped__`) and attributes."""

    __shadowed__ = True

    def __init__(self, metric: Callable[..., Any]) -> None:
        self.metric = metric
        functools.update_wrapper(self, metric)

    def __eq__(self, other: object) -> bool:
        return bool(self.metric == (other.metric if isinstance(other, Shadowed) else other))

    def __hash__(self) -> int:
        return hash(self.metric)

    def __getattr__(self, attr: str) -> Any:
        if attr == "metric":
            raise AttributeError(attr)
        return getattr(self.metric, attr)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        metric = self.metric
        if _INSIDE.get():
            return metric(*args, **kwargs)
        token = _INSIDE.set(True)
        try:
            raw = metric(*args, **kwargs)
        except Exception as exc:
            _INSIDE.reset(token)
            _guarded(metric, args, kwargs, _native_verdict(exc, None))
            raise
        _INSIDE.reset(token)
        _guarded(metric, args, kwargs, _native_verdict(None, raw))
        return raw


def shadowed(metric: Any) -> Any:
    """`metric` shadowed (itself when it is not callable or is shadowed already)."""
    if not callable(metric) or isinstance(metric, Shadowed):
        return metric
    return Shadowed(metric)


def _guarded(metric: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], native: Verdict) -> None:
    try:
        _repeat(metric, args, kwargs, native)
    except Exception as exc:
        shadow_tally.broken(getattr(metric, "__name__", type(metric).__name__), exc)


def _with_metric(method: Callable[..., Any]) -> Callable[..., Any]:
    """`method` (an `__init__` or `__call__` taking `metric`) with its metric argument shadowed."""
    signature = inspect.signature(method)

    @functools.wraps(method)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return method(*args, **kwargs)
        if bound.arguments.get("metric") is not None:
            bound.arguments["metric"] = shadowed(bound.arguments["metric"])
        return method(*bound.args, **bound.kwargs)

    return wrapped


def _install() -> None:
    for module in (dspy.evaluate, dspy.evaluate.metrics):
        for name in ("answer_exact_match", "answer_passage_match"):
            setattr(module, name, shadowed(getattr(module, name)))
    for kind in [Evaluate, *shadow_tally.subclasses(Teleprompter)]:  # Evaluate, and every optimizer however deep
        for method in ("__init__", "__call__"):
            found = kind.__dict__.get(method)
            if found is not None and "metric" in inspect.signature(found).parameters:
                setattr(kind, method, _with_metric(found))


_install()
