"""What the adapter's two directions tell each other.

- `NATIVE`: `to_langsmith` carries LangSmith's own run and example with a
  scorebridge scorer's call, so a `from_langsmith` scorer called inside with
  those very arguments hands its evaluator LangSmith's objects;
- `MADE_FROM`: the attribute an evaluator made by `to_langsmith` keeps its
  scorer in, so `from_langsmith` gives that scorer back.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

from scorebridge.kit import NativeCalls

__all__ = ["MADE_FROM", "NATIVE", "carrying"]

NATIVE: Final[NativeCalls[tuple[Any, Any]]] = NativeCalls("scorebridge_langsmith_native")
MADE_FROM: Final = "scorebridge_scorer"


@contextmanager
def carrying(row: tuple[Any, Any, Any], native: tuple[Any, Any] | None) -> Iterator[None]:
    """Carry LangSmith's run and example with a scorer's call on `row` (nothing when there are none)."""
    token = None if native is None else NATIVE.carry(*row, native)
    try:
        yield
    finally:
        if token is not None:
            NATIVE.drop(token)
