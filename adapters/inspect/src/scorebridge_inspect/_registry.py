"""The `inspect_ai` entry point: scorebridge scorers in Inspect AI's registry, found by name.

Inspect AI imports this module when a command starts (`inspect eval`,
`inspect score`, and `eval()` in Python: Inspect loads every `inspect_ai`
entry point then), and when it looks up a name that starts with
`scorebridge/` (the entry point is named `scorebridge`). It registers:

- every built-in scorer as `scorebridge/NAME`, so

      inspect score --scorer scorebridge/exact -S normalise=false LOG.eval

  rescores a log with `exact(normalise=False)`; the `-S` options are the
  built-in factory's own arguments, bound against its signature (an unknown
  option is a TypeError naming it);
- every scorer of yours made with `@scorer` on a function at the top of a
  module, under its name, as soon as the module is imported (it subscribes
  to `scorebridge.kit.on_scorer_defined`). So Inspect's own lookups find it:
  `inspect score --scorer my_scorers.py@within_1pct` (Inspect imports the
  file, finds the function decorated `@scorer` in its source, then looks the
  name up here), and `inspect score LOG` without `--scorer`, which rebuilds
  each scorer of the log by its name and options once the task's file is
  imported. `-S` options are the scorer's options (the keyword-only
  parameters of its function), made with `Scorer.with_options`.

Every name also takes `-S on_error=record` (or `raise`, the default): not an
option of the scorer but `to_inspect`'s, so a row whose scoring raises is
recorded wrong with failure kind "error" and the rescore goes on (the log
records it among the scorer's arguments, so `inspect score LOG` rebuilds it
alike). Under "raise" the exception's last line names the scorer and the
sample ("raised inside the scorer 'boom' on sample 's2'").

Each name is registered as a factory that makes the scorebridge scorer with
the options it is given and hands it to `to_inspect`, so the Inspect scorer
is exactly the one `to_inspect` gives, and the log records its options.
Inspect names a registered factory after the installed package its module
belongs to: each factory takes the module of the scorer's function (for a
built-in, `scorebridge`, hence `scorebridge/NAME`; for a file Inspect
imported by path, no package, hence the bare name).
"""

# No `from __future__ import annotations`: Inspect reads a registered factory's return annotation with
# `get_annotations(eval_str=True)`, in the globals of the function it wraps (a built-in factory's module).
import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any

from inspect_ai.scorer import Scorer, scorer

import scorebridge as sb
from scorebridge.kit import BUILTINS, on_scorer_defined

from ._metrics import default_metrics
from ._to_inspect import to_inspect

__all__: list[str] = []

_log = logging.getLogger(__name__)

ON_ERROR = "on_error"
"""The `-S` option every registered name takes beside the scorer's own: `to_inspect`'s `on_error`."""


def _register(name: str, make: Callable[..., sb.Scorer], module: str, like: Callable[..., Any] | None) -> None:
    """Register `name` in Inspect's registry as a factory of `to_inspect(make(**options))`.

    The factory takes `module`, and the name, docstring and signature of `like` when given (a built-in
    factory, whose signature Inspect then binds `-S` options against).
    """

    def factory(*args: Any, **options: Any) -> Scorer:
        on_error = options.pop(ON_ERROR, "raise")  # to_inspect's, not the scorer's: `-S on_error=record`
        made = to_inspect(make(*args, **options), name=name, on_error=on_error)
        # to_inspect registered a factory of its own under this name, for the scorer it was given: the
        # registry keeps the last one, so put back this one, which makes the scorer for any options
        _register(name, make, module, like)
        return made

    if like is not None:
        functools.update_wrapper(factory, like, assigned=("__name__", "__qualname__", "__doc__"), updated=())
        # Inspect binds `-S` options against this signature: the built-in's own, and on_error
        own = inspect.signature(like)
        extra = inspect.Parameter(ON_ERROR, inspect.Parameter.KEYWORD_ONLY, default="raise")
        factory.__signature__ = own.replace(parameters=[*own.parameters.values(), extra])  # type: ignore[attr-defined]
    else:
        factory.__name__ = factory.__qualname__ = name
        factory.__doc__ = getattr(make, "__doc__", None)
    factory.__module__ = module
    scorer(metrics=default_metrics(), name=name)(factory)


def _fn_module(made: sb.Scorer) -> str | None:
    fn = made.fn
    while isinstance(fn, functools.partial):  # a scorer with options is a partial of its function
        fn = fn.func
    module = getattr(fn, "__module__", None)
    return module if isinstance(module, str) else None


def _defined(made: sb.Scorer) -> None:
    """Register a scorer defined with `@scorer` under its name; never raise into the module defining it."""
    module = _fn_module(made)
    if module is None:
        return

    def make(**options: Any) -> sb.Scorer:
        return made.with_options(**options)

    try:
        _register(made.name, make, module, None)
    except Exception as exc:  # a name Inspect refuses must not break the import of the user's module
        _log.warning("scorebridge: the scorer %r could not be registered in Inspect AI: %r", made.name, exc)


for _name, _factory in BUILTINS.items():
    _register(_name, _factory, _factory.__module__, _factory)

on_scorer_defined(_defined)
