"""What an evaluator says about itself, read from pydantic-evals' evaluator, not from a list kept by hand.

- `reads_label(evaluator)`: whether it reads `ctx.expected_output`, from its code
  (its `evaluate`, the methods of its class and the functions of its module they
  name), and from its declared fields (`include_expected_output`, LLMJudge's);
- `is_fast(evaluator)`: whether it is one of pydantic-evals' own evaluators that
  the library runs inline on its event loop (a sync `evaluate`, `evaluate_async`
  not overridden to run it elsewhere);
- `declared_range(evaluator)`: the range of points it declares (`score_range`,
  GEval's), or None.

Our own two evaluators (`ScorerEvaluator`, `NativeEvaluator`) say it through
`_scorebridge_reads_label()` and `_scorebridge_fast()`, as their code only runs
another scorer or evaluator.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
from collections.abc import Iterator
from typing import Any, Final

from pydantic_evals.evaluators import Evaluator

from scorebridge.kit import is_bool, is_number

__all__ = ["declared_range", "is_fast", "reads_label"]

_LABEL: Final = "expected_output"
_GATE: Final = "include_expected_output"
"""A declared field that says whether the evaluator shows the expected output to its judge (LLMJudge's)."""
_DEPTH: Final = 3
"""How many calls deep the code read follows a function its module or class defines."""


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _function(found: Any) -> types.FunctionType | None:
    """The Python function `found` is (a method, a static or class method, a decorated function), or None."""
    try:
        found = inspect.unwrap(found.__func__ if isinstance(found, (classmethod, staticmethod)) else found)
    except Exception:  # an object whose __wrapped__ raises, or loops
        return None
    return found if isinstance(found, types.FunctionType) else None


def _reads(fn: types.FunctionType, kind: type, seen: set[types.CodeType], depth: int) -> bool:
    """Whether `fn` reads `expected_output` (an attribute, or the name as a string), or a function it names
    that its own module or `kind`'s class defines does (`_named`), `depth` calls deep."""
    if fn.__code__ in seen:
        return False
    seen.add(fn.__code__)
    module = fn.__module__
    names: set[str] = set()
    for code in _codes(fn.__code__):
        if _LABEL in code.co_names or _LABEL in code.co_consts:
            return True
        names.update(code.co_names)
    if depth == 0:
        return False
    for name in names:
        for called in _named(fn.__globals__.get(name), module, inspect.getattr_static(kind, name, None)):
            if _reads(called, kind, seen, depth - 1):
                return True
    return False


def _named(found: Any, module: str, method: Any) -> Iterator[types.FunctionType]:
    """The functions a name in the code may call: a function of the same module, the methods of a class of the
    same module (an evaluator that runs another), or a method of the evaluator's own class."""
    if isinstance(found, type) and found.__module__ == module:
        for attr in vars(found).values():
            if (inner := _function(attr)) is not None:
                yield inner
    elif (called := _function(found)) is not None and called.__module__ == module:
        yield called
    if (own := _function(method)) is not None:
        yield own


def _own(evaluator: Evaluator[Any, Any, Any], hook: str) -> bool | None:
    """What one of our own evaluators says of itself (`hook`), or None for any other."""
    found = inspect.getattr_static(type(evaluator), hook, None)
    if not callable(found):
        return None
    said = found(evaluator)
    return said if isinstance(said, bool) else None


def reads_label(evaluator: Evaluator[Any, Any, Any]) -> bool:
    """Whether `evaluator` reads `ctx.expected_output`, so a row with no label is not its to judge.

    Read from the evaluator: a declared `include_expected_output` field says it
    (LLMJudge shows the expected output to its judge only then); else its code:
    `evaluate`, and the functions of its module and the methods of its class it
    names, three calls deep, reading `expected_output` (as an attribute, or the
    name as text, as `getattr(ctx, "expected_output")` does). EqualsExpected
    does; Equals, Contains, IsInstance, MaxDuration, HasMatchingSpan, GEval and
    the agentic evaluators (ToolCorrectness, TrajectoryMatch, ArgumentCorrectness,
    MaxToolCalls, MaxModelRequests) do not. An `evaluate` whose code cannot be
    read (not a Python function) is taken to read it. An evaluator that hands
    the context to a function of another module is not followed there: say so
    with `from_pydantic_evals(..., needs_label=True)`.
    """
    own = _own(evaluator, "_scorebridge_reads_label")
    if own is not None:
        return own
    if dataclasses.is_dataclass(evaluator) and any(f.name == _GATE for f in dataclasses.fields(evaluator)):
        gate = getattr(evaluator, _GATE)
        if is_bool(gate):
            return bool(gate)
    kind = type(evaluator)
    evaluate = _function(inspect.getattr_static(kind, "evaluate", None))
    if evaluate is None:
        return True
    return _reads(evaluate, kind, set(), _DEPTH)


def is_fast(evaluator: Evaluator[Any, Any, Any]) -> bool:
    """Whether `evaluator` is one of pydantic-evals' own that the library runs inline on its event loop.

    pydantic-evals awaits `evaluate_async`, which calls a sync `evaluate` inline
    (an evaluator that may block overrides `evaluate_async` to run it in a
    thread): its own sync evaluators are checks of microseconds. An evaluator of
    one's own may block on anything (a model, a file), so it is not fast, even
    when pydantic-evals would run it inline.
    """
    own = _own(evaluator, "_scorebridge_fast")
    if own is not None:
        return own
    kind = type(evaluator)
    if not kind.__module__.startswith("pydantic_evals."):
        return False
    evaluate = inspect.getattr_static(kind, "evaluate", None)
    inline = inspect.getattr_static(kind, "evaluate_async", None) is inspect.getattr_static(Evaluator, "evaluate_async")
    return inline and evaluate is not None and not inspect.iscoroutinefunction(evaluate)


def declared_range(evaluator: Evaluator[Any, Any, Any]) -> tuple[float, float] | None:
    """The points the evaluator declares it scores on: a `score_range` of two numbers (GEval's, 1 to 5 by
    default), or None when it declares none."""
    found = getattr(evaluator, "score_range", None)
    if isinstance(found, (tuple, list)) and len(found) == 2 and all(is_number(x) for x in found):
        return (found[0], found[1])
    return None
