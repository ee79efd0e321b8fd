"""The `inspect_ai` entry point: every built-in scorer in Inspect AI's registry as `scorebridge/NAME`.

Inspect loads this module when it looks up a name that starts with
`scorebridge/` (the entry point is named `scorebridge`), so

    inspect score --scorer scorebridge/exact -S normalise=false LOG.eval

rescores a log with `exact(normalise=False)`. The `-S` options are the
built-in factory's own arguments.

Inspect names a registered factory after the installed package its module
belongs to. Each factory here takes the module, name, docstring and
signature of the built-in factory it wraps (in `scorebridge`), so the name
is `scorebridge/NAME`, and `-S` options are bound against the built-in's
signature (an unknown option is a TypeError naming it).
"""

import functools
from collections.abc import Callable
from typing import Any

from inspect_ai.scorer import Scorer, accuracy, scorer, stderr

import scorebridge as sb
from scorebridge.kit import BUILTINS

from ._to_inspect import score_fn

__all__: list[str] = []


def _register(name: str, factory: Callable[..., sb.Scorer]) -> None:
    def make(*args: Any, **kwargs: Any) -> Scorer:
        return score_fn(factory(*args, **kwargs), name)

    functools.update_wrapper(make, factory, assigned=("__module__", "__name__", "__qualname__", "__doc__"), updated=())
    scorer(metrics=[accuracy(), stderr()], name=name)(make)


for _name, _factory in BUILTINS.items():
    _register(_name, _factory)
