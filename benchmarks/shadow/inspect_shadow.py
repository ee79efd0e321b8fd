"""A pytest plugin: every scorer call Inspect AI's own scorer tests make, repeated from outside through
scorebridge_inspect.

Loaded into a run of Inspect's own tests (`-p inspect_shadow`, by `run.py inspect`),
it wraps each scorer an Inspect scorer factory makes: the built-ins' factories
(`match`, `includes`, `choice`, ...) where `inspect_ai.scorer` and its modules
export them, and each factory a test defines with `@scorer` (the decorator is
wrapped too). A wrapped scorer is the scorer to Inspect (its name, metrics and
registry information are kept); when a test or an evaluation awaits it on a
`TaskState` and a `Target`, the call runs untouched, then the same scorer is
asked again, from outside: `from_inspect(scorer)(item, output, label)`, the
item the sample as the state has it (input, choices, metadata, id, epoch), the
output the state's `ModelOutput`, the label the target's answers. The two
verdicts are compared as Inspect reads a score (`value_to_float`), or by the
same exception type. A disagreement is "real" unless a rule docs/inspect.md
states explains it (named in the tally). Nothing here mocks Inspect.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import math
from collections.abc import Callable
from typing import Any

import inspect_ai.scorer
import inspect_ai.scorer._scorer as scorer_module
import shadow_tally
from inspect_ai.scorer import Score, Target, value_to_float
from inspect_ai.solver import TaskState
from inspect_ai.util import registry_info
from shadow_tally import pytest_runtest_setup, pytest_sessionfinish, pytest_terminal_summary

import scorebridge as sb
from scorebridge_inspect import from_inspect, to_inspect

__all__ = ["pytest_runtest_setup", "pytest_sessionfinish", "pytest_terminal_summary"]

_INSIDE: contextvars.ContextVar[bool] = contextvars.ContextVar("inspect_shadow_inside", default=False)
_TO_FLOAT = value_to_float()

Verdict = tuple[Any, ...]


def _native_verdict(raised: BaseException | None, score: Any) -> Verdict:
    if raised is not None:
        return ("raises", type(raised).__name__)
    if not isinstance(score, Score):
        return ("not a score", type(score).__name__)
    if isinstance(score.value, (dict, list)):
        return ("several values", type(score.value).__name__)
    number = _TO_FLOAT(score.value)
    if score.value == "N" or math.isnan(number):
        return ("none",)
    return ("value", round(number, 9))


def _score_verdict(raised: BaseException | None, score: sb.Score | None) -> Verdict:
    if raised is not None:
        return ("raises", type(raised).__name__)
    assert score is not None
    if score.value is None:
        return ("none",)
    return ("value", round(score.value, 9))


def _item(state: TaskState) -> dict[str, Any]:
    """The sample as the state holds it, in the shape `from_inspect` reads an item."""
    item: dict[str, Any] = {"input": state.input, "metadata": dict(state.metadata or {}), "epoch": state.epoch}
    if state.choices:
        item["choices"] = [choice.value for choice in state.choices]
    if state.sample_id is not None:
        item["id"] = state.sample_id
    return item


def _label(target: Target) -> Any:
    answers = list(target.target) if isinstance(target, Target) else target
    return answers[0] if isinstance(answers, list) and len(answers) == 1 else answers


CHOICES_RULE = (
    "an item's choices reach the state marked from the output as the multiple_choice() solver marks them; marks "
    "and a shuffle the test set on the state by hand are not the item's"
)
STATEFUL_RULE = (
    "the scorer answers differently each time it is asked (a test fake that counts its calls, or a mock model with "
    "one reply): asked natively once more, it no longer gives its first verdict, so no repeat can agree"
)
EMPTY_TARGET_RULE = 'an empty target (Inspect\'s default "") means no label: the sample is unscored'
EPOCH_RULE = (
    "an epoch below 1 is a ScorerContractError (Inspect counts epochs from 1; the tests' helper state has epoch 0); "
    "asked with the epoch left out, scorebridge gives Inspect's verdict"
)


async def _ask(made: sb.Scorer, item: dict[str, Any], output: Any, label: Any) -> Verdict:
    try:
        found: Any = made(item, output, label)
        if inspect.isawaitable(found):
            found = await found
        return _score_verdict(None, found)
    except Exception as exc:
        return _score_verdict(exc, None)


async def _repeat(inner: Any, state: Any, target: Any, native: Verdict) -> None:
    name = _name(inner)
    rule = None
    token = _INSIDE.set(True)
    try:
        made = from_inspect(inner)
        item = _item(state)
        ours = await _ask(made, item, state.output, _label(target))
        again = ours
        if ours != native and ours == ("raises", "ScorerContractError") and state.epoch < 1:
            item.pop("epoch")
            again = await _ask(made, item, state.output, _label(target))
            rule = EPOCH_RULE if again == native else None
        if ours != native and again == ("none",) and not "".join(target.target).strip():
            rule = EMPTY_TARGET_RULE
        elif ours != native and rule is None and state.choices and any(c.correct is not None for c in state.choices):
            rule = CHOICES_RULE
        if ours != native and rule is None and await _native_again(inner, state, target) != native:
            rule = STATEFUL_RULE
    finally:
        _INSIDE.reset(token)
    record: dict[str, Any] = {"scorer": name, "native": repr(native), "scorebridge": repr(ours)}
    record["round_trip_identity"] = to_inspect(made) is inner
    record["result"] = "agree" if ours == native else ("explained" if rule else "real")
    record["rule"] = rule
    if ours != native and rule is None:
        record["row"] = repr({"input": state.input, "output": state.output.completion, "target": target.target})[:300]
    shadow_tally.add(record)


async def _native_again(inner: Any, state: Any, target: Any) -> Verdict:
    """The scorer's verdict asked natively once more on the same state and target (not shadowed: `_INSIDE`)."""
    try:
        return _native_verdict(None, await inner(state, target))
    except Exception as exc:
        return _native_verdict(exc, None)


def _name(inner: Any) -> str:
    try:
        return str(registry_info(inner).name)
    except Exception:  # a scorer made by no registered factory
        return str(getattr(inner, "__name__", "?"))


def _shadowed(inner: Any) -> Any:
    """The scorer `inner`, its outermost calls repeated from outside (registry information kept)."""
    if getattr(inner, "__shadowed__", False) or not callable(inner):
        return inner

    async def score(state: TaskState, target: Target) -> Any:
        if _INSIDE.get():
            return await inner(state, target)
        token = _INSIDE.set(True)
        try:
            result = await inner(state, target)
        except Exception as exc:
            _INSIDE.reset(token)
            await _guarded(inner, state, target, _native_verdict(exc, None))
            raise
        _INSIDE.reset(token)
        await _guarded(inner, state, target, _native_verdict(None, result))
        return result

    functools.update_wrapper(score, inner)  # the registry information is in the scorer's __dict__
    del score.__wrapped__  # type: ignore[attr-defined]  # from_inspect is handed the scorer itself
    score.__shadowed__ = True  # type: ignore[attr-defined]
    return score


async def _guarded(inner: Any, state: Any, target: Any, native: Verdict) -> None:
    try:
        await _repeat(inner, state, target, native)
    except Exception as exc:
        shadow_tally.broken(_name(inner), exc)


def _factory(make: Callable[..., Any]) -> Callable[..., Any]:
    """A scorer factory whose scorers are shadowed (its registry information kept)."""
    if getattr(make, "__shadowed__", False):
        return make

    @functools.wraps(make)
    def made(*args: Any, **kwargs: Any) -> Any:
        return _shadowed(make(*args, **kwargs))

    made.__shadowed__ = True  # type: ignore[attr-defined]
    return made


def _is_factory(x: Any) -> bool:
    try:
        return callable(x) and registry_info(x).type == "scorer" and not inspect.iscoroutinefunction(x)
    except Exception:
        return False


def _install() -> None:
    import sys

    for module in [m for n, m in list(sys.modules.items()) if n.startswith("inspect_ai.scorer") and m]:
        for name, value in list(vars(module).items()):
            if _is_factory(value):
                setattr(module, name, _factory(value))
    decorator = scorer_module.scorer

    @functools.wraps(decorator)
    def scorer(*args: Any, **kwargs: Any) -> Any:
        made = decorator(*args, **kwargs)
        return lambda kind: _factory(made(kind))

    inspect_ai.scorer.scorer = scorer  # type: ignore[assignment]
    scorer_module.scorer = scorer  # type: ignore[assignment]


_install()
