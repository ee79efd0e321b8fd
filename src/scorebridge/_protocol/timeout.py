"""A per-row timeout for any scorer: the call is waited on for so long, then given up as a `ScorerTimeout`.

An async scorer's call is cancelled at the timeout (`asyncio.wait_for`). A sync scorer's call runs on a
daemon thread of its own, waited on with a timed join: Python cannot stop a thread, so a call past its
timeout is abandoned there, still running, holding whatever it holds (a connection, memory) until it
returns or the process ends; it never holds the caller, nor the exit of the process. That is the cost of a
timeout on a blocking sync scorer: a thread per call (about 0.1 ms), and one more thread for each call that
hangs. Make the scorer async, or give its client a timeout of its own, where that matters.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

__all__ = ["ScorerTimeout", "call_within", "wait_within"]

T = TypeVar("T")


class ScorerTimeout(TimeoutError):
    """A scorer gave no Score within its timeout (`timeout=` of `score_many`, `benchmark()`, `with_timeout`,
    `scorebridge score --timeout`). A TimeoutError: with on_error="record" the row is recorded wrong, failure
    kind "error", as for any exception of the scorer's; with "raise" it propagates, naming the row."""

    def __init__(self, name: str, seconds: float, where: str | None = None) -> None:
        super().__init__(name, seconds, where)
        self.name = name
        self.seconds = seconds
        self.where = where

    def __str__(self) -> str:
        said = f"the scorer {self.name!r} gave no score within {self.seconds:g} s (its timeout)"
        return said if self.where is None else f"{said}, {self.where}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.name, self.seconds, self.where))


def call_within(name: str, seconds: float, fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` on a daemon thread, with this context's variables; a `ScorerTimeout` for the scorer `name` when
    it has not returned within `seconds` (the thread is then abandoned, see the module). Its exception is
    raised here. A KeyboardInterrupt while waiting propagates at once, the call left running."""
    box: list[tuple[bool, Any]] = []
    context = contextvars.copy_context()

    def work() -> None:
        try:
            box.append((True, context.run(fn, *args)))
        except BaseException as exc:  # carried back to the caller
            box.append((False, exc))

    thread = threading.Thread(target=work, name=f"scorebridge-timed-{name}", daemon=True)
    thread.start()
    thread.join(seconds)
    if not box:
        raise ScorerTimeout(name, seconds)
    ok, result = box[0]
    if not ok:
        raise result
    return result  # type: ignore[no-any-return]


async def wait_within(name: str, seconds: float, call: Awaitable[T]) -> T:
    """`await call`, cancelled after `seconds` as a `ScorerTimeout` for the scorer `name`."""
    import asyncio

    try:
        return await asyncio.wait_for(call, seconds)
    except ScorerTimeout:  # a scorer inside this one timed out: its own
        raise
    except asyncio.TimeoutError:  # an alias of TimeoutError from Python 3.11; a ScorerTimeout raised inside passes
        raise ScorerTimeout(name, seconds) from None
