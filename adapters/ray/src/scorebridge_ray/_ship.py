"""Sending a scorer to the Ray workers: pickled once on the driver, your code by value, the libraries by reference.

cloudpickle (Ray's) pickles a function by reference, as "module.name", when its
module is imported in the driver, and the worker then imports that module. A
scorer of yours often lives where a worker cannot import it: a test module
(pytest imports it under a name of its own), a file loaded by path (the CLI's
`file.py@name`), a module next to your script that a cluster node does not
have. So the modules of the scorer's function, its factory (and of the function
that makes a scorer, when one is given) are pickled by value, as `__main__` is,
unless they are installed libraries (in site-packages, or scorebridge itself),
which the workers import as the driver did. What those modules import must be
importable on the workers.
"""

from __future__ import annotations

import functools
import os
import pickle
import sys
import sysconfig
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any, cast

from scorebridge import Scorer

__all__ = ["ScorerSource", "ship", "unpack"]

ScorerSource = Scorer | Callable[[], Scorer]
"""A scorer, or a function of no arguments that makes one (called once in each actor)."""


def _library_folders() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    folders = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    folders.update(p for p in sys.path if p.endswith(("site-packages", "dist-packages")))
    return tuple(os.path.join(os.path.realpath(f), "") for f in folders)


def _is_library(module: ModuleType) -> bool:
    """True for a module the workers import by name as the driver did: installed, built in, or scorebridge's."""
    top = module.__name__.partition(".")[0]
    if top in sys.builtin_module_names or top == "scorebridge" or top.startswith("scorebridge_"):
        return True
    path = getattr(module, "__file__", None)
    if not isinstance(path, str):  # built in, or a namespace package: nothing to send by value
        return True
    return os.path.realpath(path).startswith(_library_folders())


def _makers(source: ScorerSource) -> Iterator[Any]:
    """The functions and objects whose modules define the scorer: its function, factory and options."""
    if isinstance(source, Scorer):  # its options too: a model-graded scorer's grader, say
        makers: list[Any] = [source.fn, source.factory, *source.options.values()]
    else:
        makers = [source]
    for maker in makers:
        while isinstance(maker, functools.partial):
            yield from maker.keywords.values()  # the options of a scorer made with `scorer()`
            maker = maker.func
        if maker is not None:
            yield getattr(maker, "__func__", maker)  # a bound method's function


def _user_modules(source: ScorerSource) -> list[ModuleType]:
    found: dict[str, ModuleType] = {}
    for maker in _makers(source):
        for name in (getattr(maker, "__module__", None), type(maker).__module__):
            if not isinstance(name, str) or name == "__main__":  # cloudpickle sends __main__ by value itself
                continue
            module = sys.modules.get(name)
            if module is not None and not _is_library(module):
                found[name] = module
    return list(found.values())


def ship(source: ScorerSource, what: str) -> bytes:
    """`source` pickled for the workers (see the module's docstring); TypeError naming `what` if it cannot be."""
    from ray import cloudpickle

    by_value: Callable[[ModuleType], None] = cloudpickle.register_pickle_by_value
    by_reference: Callable[[ModuleType], None] = cloudpickle.unregister_pickle_by_value
    dumps = cast(Callable[[Any], bytes], cloudpickle.dumps)
    registered = []
    for module in _user_modules(source):
        try:
            by_value(module)
        except ValueError:  # already registered (by you, or by a call running in another thread)
            continue
        registered.append(module)
    try:
        return dumps(source)
    except Exception as exc:
        raise TypeError(
            f"{what} cannot be sent to the Ray workers, as it cannot be pickled: {exc}. Pass a function of no "
            "arguments that makes the scorer instead (each actor calls it once): open the grader's client or "
            "load what cannot be pickled inside that function"
        ) from exc
    finally:
        for module in registered:
            by_reference(module)


def unpack(shipped: bytes, what: str) -> Scorer:
    """The scorer `ship` sent: unpickled, and made by its function when a function was sent."""
    source = pickle.loads(shipped)
    if isinstance(source, Scorer):
        return source
    made = source()
    if not isinstance(made, Scorer):
        raise TypeError(f"{what}: the function given as the scorer returned {type(made).__name__}, not a Scorer")
    return made
