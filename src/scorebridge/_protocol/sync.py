"""Running a coroutine to completion from synchronous code, without `asyncio.run` per call.

A thread with no running event loop keeps one loop of its own and reuses it, so
scoring many outputs with an async scorer (or an Inspect AI scorer) does not pay
for a new loop each time, and DSPy's worker threads each get theirs. A thread
whose loop is already running (a notebook, an async test) cannot block that loop
on itself, so the coroutine is handed to a helper thread that owns a loop, and
the caller waits for the result. Each such thread has a helper of its own: a
helper whose coroutine makes a plain call again (a sync scorer wrapping an async
one, inside a notebook) gets a helper in turn, instead of waiting on itself.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable
from typing import TypeVar

__all__ = ["run_sync"]

T = TypeVar("T")

_local = threading.local()  # .loop: this thread's own loop; .helper: the loop of its helper thread


async def _await(aw: Awaitable[T]) -> T:
    return await aw


def _thread_loop() -> asyncio.AbstractEventLoop:
    loop: asyncio.AbstractEventLoop | None = getattr(_local, "loop", None)
    if loop is None or loop.is_closed():
        loop = asyncio.new_event_loop()
        _local.loop = loop
    return loop


def _helper() -> asyncio.AbstractEventLoop:
    loop: asyncio.AbstractEventLoop | None = getattr(_local, "helper", None)
    if loop is None:
        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, name="scorebridge-loop", daemon=True).start()
        _local.helper = loop
    return loop


async def _caught(aw: Awaitable[T]) -> tuple[T | None, BaseException | None]:
    # A KeyboardInterrupt or SystemExit escaping a coroutine would stop the helper's
    # loop for good, and every caller waiting on it would hang: carry it back instead.
    try:
        return await aw, None
    except (KeyboardInterrupt, SystemExit) as exc:
        return None, exc


def run_sync(aw: Awaitable[T]) -> T:
    """Wait for `aw` from synchronous code, in this thread's loop or, if it runs, the helper's."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _thread_loop().run_until_complete(_await(aw))
    result, interrupt = asyncio.run_coroutine_threadsafe(_caught(aw), _helper()).result()
    if interrupt is not None:
        raise interrupt
    return result  # type: ignore[return-value]
