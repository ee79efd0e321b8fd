"""A pytest plugin: every scorer call MLflow's own scorer tests make, repeated from outside through scorebridge_mlflow.

Loaded into a run of MLflow's own tests (`-p mlflow_shadow`, by `run.py mlflow`),
it wraps `Scorer.run` and the `__call__` of every MLflow `Scorer` class: the
built-ins, the judges, each `@scorer` function (MLflow makes a class per
function) and each subclass a test defines (hooked at its definition). When a
test or `mlflow.genai.evaluate` calls a scorer, the call runs untouched (what it
returned is returned, what it raised is raised), then the same scorer is asked
again, from outside: `from_mlflow(scorer)(inputs, outputs, label)`, the label
being the call's `expectations` (a mapping is handed over as the expectations
themselves; None is no label). A call inside a shadowed call (`run` calling
`__call__`, a judge inside a scorer) is not shadowed again.

The two verdicts are compared as MLflow reads a scorer's value (aggregation.py):
yes/no and bools 1/0, numbers as they are (mapped onto 0-1 where the judge
declares a range), None and NaN no assessment, a Feedback with an `error` an
error, a list the Feedback named for the scorer (else the first), an exception
its type. Each disagreement is "explained" by a rule docs/mlflow.md states
(named in the tally), "set aside" when the call carried a trace the scorer
reads (there is none outside MLflow: `trace=None`), or "real".

The tally (one JSON line per call, then a summary) goes to the file named by
`SCOREBRIDGE_SHADOW_OUT`, the summary to the terminal. Nothing here mocks MLflow:
the scorers run as the tests made them, with the tests' own fakes of a judge
model where a test patches one.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import math
from collections import Counter
from collections.abc import Callable
from typing import Any

import shadow_tally
from mlflow.entities import Feedback
from mlflow.genai.scorers import Scorer
from shadow_tally import pytest_runtest_setup, pytest_sessionfinish, pytest_terminal_summary

import scorebridge as sb
from scorebridge.kit import grade_value, is_bool, is_number, label_is_missing
from scorebridge_mlflow import from_mlflow, to_mlflow

__all__ = ["pytest_runtest_setup", "pytest_sessionfinish", "pytest_terminal_summary"]

_INSIDE: contextvars.ContextVar[bool] = contextvars.ContextVar("mlflow_shadow_inside", default=False)

Verdict = tuple[Any, ...]
_ROW = ("inputs", "outputs", "expectations", "trace", "session")


def _rounded(x: float) -> float:
    return round(x, 9)


def _one(name: str, result: Any) -> Any:
    """MLflow's list of Feedbacks as one: the one named for the scorer, else the first (docs/mlflow.md)."""
    if not isinstance(result, list):
        return result
    named = [f for f in result if isinstance(f, Feedback) and f.name == name]
    return (named or result or [None])[0]


def _native_verdict(scorer: Scorer, raised: BaseException | None, raw: Any, low: float, high: float) -> Verdict:
    """What MLflow makes of a scorer's answer, on the scorer's declared scale (`low` to `high`)."""
    if raised is not None:
        return ("raises", type(raised).__name__)
    result = _one(scorer.name, raw)
    if isinstance(result, Feedback):
        if result.error is not None:
            return ("error",)
        result = result.value
    if result is None:
        return ("none",)
    if isinstance(result, str) and result.strip().lower() in ("yes", "no"):
        return ("value", 1.0 if result.strip().lower() == "yes" else 0.0)
    if is_bool(result):
        return ("value", float(bool(result)))
    if is_number(result):
        number = float(result)
        if math.isnan(number):
            return ("none",)
        if not low <= number <= high:
            return ("out of range", number)
        return ("value", _rounded((number - low) / (high - low)))
    if isinstance(result, str) and grade_value(result) is not None:
        return ("grade word", result)
    return ("no grade", type(result).__name__)


def _score_verdict(raised: BaseException | None, score: sb.Score | None) -> Verdict:
    if raised is not None:
        return ("raises", type(raised).__name__)
    assert score is not None
    if score.failure_kind == "error" and "mlflow_error" in (score.metadata or {}):
        return ("error",)
    if score.value is None:
        return ("none",)
    return ("value", _rounded(score.value))


def _reads_trace(scorer: Scorer) -> bool:
    """Whether `Scorer.run` hands the scorer a trace (its `__call__` names one, or takes **kwargs)."""
    try:
        parameters = inspect.signature(scorer.__call__).parameters
    except (TypeError, ValueError):
        return True
    return "trace" in parameters


def _rule(native: Verdict, ours: Verdict, scorer: sb.Scorer, label: Any, again: Verdict, run: Verdict) -> str | None:
    """The rule of docs/mlflow.md that explains a disagreement, or None (`run`: the verdict of MLflow's own
    `Scorer.run` on the same row, for a call of `__call__`)."""
    if run == ours and run[0] == "raises" and native[0] == "no grade":
        return (
            "a return Scorer.run refuses (a test's bare MagicMock judge): from outside a scorer is run by "
            "Scorer.run, which raises MlflowException, as in mlflow.genai.evaluate"
        )
    if again != native:
        return "the scorer answers differently each time it is asked (it counts its calls): no repeat agrees"
    needs = getattr(scorer.fn, "needs_label", False)
    if ours == ("none",) and needs and (label_is_missing(label) or label == {}):
        return "a scorer that reads expectations is not asked on a row without a label (needs_label=False asks it)"
    if ours == ("raises", "ScorerContractError") and native[0] == "out of range":
        return "a number outside 0-1 from a scorer that declares no range is a ScorerContractError (score_range=)"
    if native[0] == "grade word" and ours[0] == "value":
        return "a grade word MLflow does not aggregate (pass, C, '0.75') is read by the grade mapping"
    if native[0] == "no grade" and ours == ("none",):
        return "a value that is no grade (a dict, a list of other things) is unscored"
    return None


def _row(scorer: Scorer, args: tuple[Any, ...], kwargs: dict[str, Any], method: str) -> dict[str, Any]:
    """The call's inputs, outputs, expectations, trace and session, by name (positional ones bound)."""
    if args and method == "__call__":
        bound = inspect.signature(scorer.__call__).bind_partial(*args, **kwargs)
        kwargs = dict(bound.arguments)
    return {k: kwargs.get(k) for k in _ROW}


def _repeat(
    scorer: Scorer, row: dict[str, Any], raised: BaseException | None, raw: Any, redo: Callable[[], Any]
) -> None:
    name = scorer.name
    if scorer.is_session_level_scorer or row["session"] is not None:
        shadow_tally.add({"scorer": name, "result": "set aside", "why": "session-level: called on a list of traces"})
        return
    made = from_mlflow(scorer)
    low, high = made.fn.scale.low, made.fn.scale.high
    native = _native_verdict(scorer, raised, raw, low, high)
    label = row["expectations"]  # a mapping is handed over as the expectations themselves; None is no label
    token = _INSIDE.set(True)
    try:
        try:
            score, error = made(row["inputs"], row["outputs"], label), None
        except Exception as exc:
            score, error = None, exc
        ours = _score_verdict(error, score)
        again = run = native
        if ours != native:
            again = _verdict_of(scorer, redo, low, high)
            given = {k: v for k, v in row.items() if v is not None and k != "session"}
            run = _verdict_of(scorer, lambda: scorer.run(**given), low, high)
    finally:
        _INSIDE.reset(token)
    record: dict[str, Any] = {"scorer": name, "kind": type(scorer).__name__}
    record.update(native=repr(native), scorebridge=repr(ours), round_trip_identity=to_mlflow(made) is scorer)
    if ours == native:
        record["result"] = "agree"
    elif row["trace"] is not None and _reads_trace(scorer):
        record.update(result="set aside", why="needs the trace MLflow handed it (outside MLflow: trace=None)")
    else:
        rule = _rule(native, ours, made, label, again, run)
        record.update(result="explained" if rule else "real", rule=rule)
        if rule is None:
            record["row"] = repr({k: v for k, v in row.items() if v is not None})[:300]
    shadow_tally.add(record)


def _verdict_of(scorer: Scorer, call: Callable[[], Any], low: float, high: float) -> Verdict:
    """The native verdict of one more call (inside the shadow: not shadowed itself)."""
    try:
        return _native_verdict(scorer, None, call(), low, high)
    except Exception as exc:
        return _native_verdict(scorer, exc, None, low, high)


def _guarded(
    scorer: Scorer, row: dict[str, Any], raised: BaseException | None, raw: Any, redo: Callable[[], Any]
) -> None:
    try:
        _repeat(scorer, row, raised, raw, redo)
    except Exception as exc:
        shadow_tally.broken(getattr(scorer, "name", type(scorer).__name__), exc)


def _shadowed(method: Callable[..., Any], name: str) -> Callable[..., Any]:
    """`method` (`run` or `__call__`), its outermost calls repeated from outside."""
    if getattr(method, "__shadowed__", False):
        return method

    @functools.wraps(method)
    def wrapped(self: Scorer, *args: Any, **kwargs: Any) -> Any:
        if _INSIDE.get():
            return method(self, *args, **kwargs)
        try:
            row = _row(self, args, kwargs, name)
        except TypeError:  # a call that does not bind: MLflow's own error, not ours to repeat
            return method(self, *args, **kwargs)

        def redo() -> Any:
            return method(self, *args, **kwargs)

        token = _INSIDE.set(True)
        try:
            raw = method(self, *args, **kwargs)
        except Exception as exc:
            _INSIDE.reset(token)
            _guarded(self, row, exc, None, redo)
            raise
        _INSIDE.reset(token)
        _guarded(self, row, None, raw, redo)
        return raw

    wrapped.__shadowed__ = True  # type: ignore[attr-defined]
    return wrapped


def _wrap_call(kind: type) -> None:
    found = kind.__dict__.get("__call__")
    if found is not None:
        shadowed = _shadowed(found, "__call__")
        if hasattr(found, "__signature__"):  # a @scorer function's class: MLflow reads the signature from it
            shadowed.__signature__ = found.__signature__  # type: ignore[attr-defined]
        kind.__call__ = shadowed  # type: ignore[method-assign]


def _install() -> None:
    Scorer.run = _shadowed(Scorer.run, "run")  # type: ignore[method-assign]
    for kind in shadow_tally.subclasses(Scorer):
        _wrap_call(kind)
    hook = Scorer.__dict__["__init_subclass__"].__func__

    def init_subclass(cls: type, **kwargs: Any) -> None:  # a class defined later: a test's, a @scorer's
        hook(cls, **kwargs)
        _wrap_call(cls)

    Scorer.__init_subclass__ = classmethod(init_subclass)  # type: ignore[assignment,method-assign]


def _set_aside(records: list[dict[str, Any]]) -> dict[str, Any]:
    aside = [r for r in records if r["result"] == "set aside"]
    return {"set aside": len(aside), "set aside, why": dict(Counter(r["why"] for r in aside))}


shadow_tally.EXTRA.append(_set_aside)
_install()
