"""Running a coroutine to completion from synchronous code, without `asyncio.run` per call.

Each thread keeps event loops of its own and reuses them, so scoring many
outputs with an async scorer (or an Inspect AI scorer) does not pay for a new
loop each time, and DSPy's worker threads each get theirs. No thread is ever
started: the coroutine runs in the calling thread.

A thread whose loop is already running (a notebook, an async test, a sync
scorer called from a coroutine) is blocked in the sync call anyway, so the
coroutine runs to completion on another loop of this thread, nested: the
running loop is set aside for the call (`asyncio._set_running_loop`, the hook
loop implementations use) and put back after it. A nested call that makes a
plain call again (a sync scorer wrapping an async one) nests one loop deeper,
instead of waiting on itself. Context variables are the caller's. (Before, the
coroutine ran on a helper thread per calling thread that was never stopped.)

The loops are closed when their thread ends, and the main thread's when the
interpreter exits: no `ResourceWarning: unclosed event loop`.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
import weakref
from collections.abc import Awaitable
from typing import TypeVar

__all__ = ["run_sync"]

T = TypeVar("T")


class _OwnLoops:
    """A thread's own event loops, one per nesting depth, closed when the thread ends.

    The thread-local that holds this object is cleared when its thread ends,
    which closes the loops; `_close_open_loops` closes the rest at exit.
    """

    __slots__ = ("__weakref__", "loops")

    def __init__(self) -> None:
        self.loops: list[asyncio.AbstractEventLoop] = []
        _open.add(self)

    def free(self) -> asyncio.AbstractEventLoop:
        """A loop of this thread that is not running: the outermost free one, or a new one."""
        for loop in self.loops:
            if not loop.is_running() and not loop.is_closed():
                return loop
        loop = asyncio.new_event_loop()
        self.loops.append(loop)
        return loop

    def close(self) -> None:
        for loop in self.loops:
            if not loop.is_closed() and not loop.is_running():
                loop.close()

    __del__ = close


_local = threading.local()  # .own: this thread's _OwnLoops
_open: weakref.WeakSet[_OwnLoops] = weakref.WeakSet()  # every thread's, for the close at exit


@atexit.register
def _close_open_loops() -> None:
    # the main thread's loops live until here; a loop running on a daemon thread is left alone
    for own in list(_open):
        own.close()


async def _await(aw: Awaitable[T]) -> T:
    return await aw


def _own_loops() -> _OwnLoops:
    own: _OwnLoops | None = getattr(_local, "own", None)
    if own is None:
        own = _local.own = _OwnLoops()
    return own


def run_sync(aw: Awaitable[T]) -> T:
    """Wait for `aw` from synchronous code, on an event loop of this thread's own (nested if one runs here)."""
    loop = _own_loops().free()
    running = asyncio._get_running_loop()
    if running is None:
        return loop.run_until_complete(_await(aw))
    asyncio._set_running_loop(None)  # run_until_complete refuses to start while a loop runs in this thread
    try:
        return loop.run_until_complete(_await(aw))
    finally:
        asyncio._set_running_loop(running)
