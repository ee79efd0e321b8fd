"""The sync-over-async bridge (`scorebridge.kit.run_sync`): closes what it opens, starts no thread, keeps the context.

The bridge once left every thread's event loop unclosed (`ResourceWarning:
unclosed event loop` at exit) and started a helper thread per caller inside a
running loop that outlived the caller (the hardening issue, item 13).
"""

from __future__ import annotations

import asyncio
import contextvars
import subprocess
import sys
import threading
from typing import Any

import pytest

import scorebridge as sb
from scorebridge.kit import run_sync

SCRIPT = """
import asyncio, gc, threading
import scorebridge as sb

async def asame(item, output, label):
    await asyncio.sleep(0)
    return output == label

s = sb.scorer(asame)
before = threading.active_count()
threads = [threading.Thread(target=lambda: [s(None, "a", "a") for _ in range(20)]) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()

async def inside():
    return [s(None, "a", "a") for _ in range(5)] + s.score_many(None, ["a"] * 4, ["a"] * 4)

asyncio.run(inside())
s(None, "a", "a")  # the main thread's own loop, closed at exit
gc.collect()
print(before, threading.active_count())
"""


def test_async_scorers_called_from_eight_threads_leave_no_loop_open_and_no_thread_behind() -> None:
    done = subprocess.run(
        [sys.executable, "-W", "error::ResourceWarning", "-c", SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # an unclosed loop is reported here ("Exception ignored in ...")
    before, after = done.stdout.split()
    assert after == before


async def _where(item: Any, output: Any, label: Any) -> dict[str, Any]:
    return {"correct": True, "metadata": {"thread": threading.get_ident()}}


def test_a_plain_call_inside_a_running_loop_runs_in_the_callers_thread() -> None:
    async def inside() -> int:
        return sb.scorer(_where)(None, "a", "a").metadata["thread"]  # type: ignore[no-any-return]

    assert asyncio.run(inside()) == threading.get_ident()


def test_a_plain_call_inside_a_running_loop_sees_the_callers_context_variables() -> None:
    var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")

    async def read() -> str:
        return var.get()

    async def inside() -> str:
        var.set("the caller's")
        return run_sync(read())

    assert asyncio.run(inside()) == "the caller's"


def test_the_running_loop_is_the_callers_again_after_a_nested_call() -> None:
    async def inside() -> bool:
        outer = asyncio.get_running_loop()
        run_sync(asyncio.sleep(0))
        await asyncio.sleep(0)  # the outer loop still runs this task
        return asyncio.get_running_loop() is outer

    assert asyncio.run(inside()) is True


def test_a_nested_call_that_raises_gives_the_running_loop_back() -> None:
    async def boom() -> None:
        raise LookupError("inner")

    async def inside() -> bool:
        outer = asyncio.get_running_loop()
        with pytest.raises(LookupError):
            run_sync(boom())
        return asyncio.get_running_loop() is outer

    assert asyncio.run(inside()) is True
