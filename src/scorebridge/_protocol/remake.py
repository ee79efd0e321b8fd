"""How a scorer factory says its scorers are made again from their options alone (for pickling).

A built-in scorer's function is a closure over caches that do not pickle; its
factory makes it again from its options. The factory says so itself, marked by
`remade_from_options`, and `Scorer.__reduce__` reads the mark: the protocol
needs nothing from the layer of the scorers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

__all__ = ["remade_as", "remade_from_options"]

_REMADE_AS: Final = "__scorebridge_remade_as__"

Factory = TypeVar("Factory", bound=Callable[..., Any])


def remade_from_options(factory: Factory) -> Factory:
    """Mark `factory` (a decorator) as making its scorers again from their options alone: `factory(**options)`.

    A Scorer named as the factory, whose `factory` it is, then pickles as that
    call rather than as its fields, so its `fn` need not pickle.
    """
    setattr(factory, _REMADE_AS, factory.__name__)
    return factory


def remade_as(factory: object) -> object:
    """The scorer name `factory` was marked with by `remade_from_options`; None when it was not."""
    try:
        return vars(factory).get(_REMADE_AS) if callable(factory) else None
    except Exception:  # a callable with no __dict__ (a builtin), or one whose lookup raises
        return None
