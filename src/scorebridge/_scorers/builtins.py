"""The built-in scorers made from plain options, by name: for the CLI and Inspect AI's registry."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Final

from .._protocol.scorer import Scorer
from .detect import detect_exact, detect_includes, detect_match
from .exact import exact
from .pattern import detect_answer, detect_pattern

__all__ = ["BUILTINS", "is_builtin", "rebuild"]

BUILTINS: Final[Mapping[str, Callable[..., Scorer]]] = MappingProxyType(
    {
        "detect_answer": detect_answer,
        "detect_exact": detect_exact,
        "detect_includes": detect_includes,
        "detect_match": detect_match,
        "detect_pattern": detect_pattern,
        "exact": exact,
    }
)
"""Every built-in scorer factory that can be made from plain options (text, numbers, flags), by name.

The model-graded scorers are built in too, but need a grader model, which no
option written as text can give: they are not here."""


def is_builtin(scorer: Scorer) -> bool:
    """True for a scorer made by the `BUILTINS` factory of its name (`exact()`, the `detect_*` scorers).

    Those can be made again from their options alone. All but `detect_pattern`
    are `fast` (they never wait on anything); `detect_pattern` may run its
    regex up to its `timeout`, so it is not: read `scorer.fast` to decide
    whether a scorer may run inline on an event loop.
    """
    factory = BUILTINS.get(scorer.name)
    return factory is not None and scorer.factory is factory


def rebuild(name: str, options: Mapping[str, Any]) -> Scorer:
    """The built-in scorer `name` made with `options`; KeyError naming the built-ins for an unknown name."""
    factory = BUILTINS.get(name)
    if factory is None:
        raise KeyError(f"no built-in scorer {name!r}; the built-in scorers are {', '.join(sorted(BUILTINS))}")
    return factory(**options)
