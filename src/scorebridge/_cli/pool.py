"""What lets `scorebridge score` stop at once: threads it never waits for, and signals turned into a stop.

`DaemonPool` runs blocking sync scorers on daemon threads, not a `ThreadPoolExecutor`: Python joins an
executor's threads at exit (`concurrent.futures.thread._python_exit`), so one call that never returns
held the process after Ctrl-C, and a second Ctrl-C ended it with a traceback. A daemon thread is never
joined: a call past its timeout, or still running at a stop, is abandoned there, and the process exits.

`Stop` turns SIGINT and SIGTERM into a stop of the run (SIGTERM, which a CI job's timeout sends, is
handled as Ctrl-C is): the first asks the run to stop (start no row, give the rows in flight a grace
second, write what is scored), the second to stop at once, a third raises KeyboardInterrupt wherever the
process is.
"""

from __future__ import annotations

import contextlib
import contextvars
import queue
import signal
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import asyncio

__all__ = ["GRACE", "DaemonPool", "Interrupted", "Stop", "reclaim_terminate", "terminate_as_interrupt"]

GRACE: Final = 1.0
"""Seconds the rows in flight at a first SIGINT or SIGTERM have to finish and be written."""


class Interrupted(KeyboardInterrupt):
    """A KeyboardInterrupt raised for a signal: `signum` is SIGINT or SIGTERM."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise(signum: int, frame: Any) -> None:
    raise Interrupted(signum)


_TERMINATING: list[bool] = []  # one entry while `terminate_as_interrupt` lasts (in the main thread)


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """While it lasts, SIGTERM raises `Interrupted(SIGTERM)` in the main thread, as Ctrl-C raises
    KeyboardInterrupt (elsewhere than the main thread, or where it cannot be set, nothing changes)."""
    try:
        previous = signal.signal(signal.SIGTERM, _raise)
    except (ValueError, OSError):  # not the main thread
        yield
        return
    _TERMINATING.append(True)
    try:
        yield
    finally:
        _TERMINATING.pop()
        signal.signal(signal.SIGTERM, previous)


def reclaim_terminate() -> None:
    """Set again the SIGTERM handler of `terminate_as_interrupt`, which a library replaced (`ray.init` sets
    one that ends the process with status 15, without the run's summary). Outside `terminate_as_interrupt`
    it does nothing."""
    if _TERMINATING:
        with contextlib.suppress(ValueError):  # not the main thread: signals are not this thread's to set
            signal.signal(signal.SIGTERM, _raise)


class _Job:
    __slots__ = ("abandoned", "args", "fn", "future", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], fn: Any, args: Any) -> None:
        self.loop, self.future, self.fn, self.args = loop, future, fn, args
        self.abandoned = False


def _deliver(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    if not future.done():  # a call given up (its timeout, a stop) is cancelled: its late reply is dropped
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)


class DaemonPool:
    """`size` daemon threads running calls for an event loop; a call given up is abandoned, its thread replaced."""

    def __init__(self, size: int, name: str) -> None:
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._name = name
        self._size = size
        self._started = 0
        for _ in range(size):
            self._start()

    def _start(self) -> None:
        self._started += 1
        thread = threading.Thread(target=self._work, name=f"{self._name}-{self._started}", daemon=True)
        thread.start()

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                ok, value = True, job.fn(*job.args)
            except BaseException as exc:  # carried to the awaiting task
                ok, value = False, exc
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
                job.loop.call_soon_threadsafe(_deliver, job.future, ok, value)
            if job.abandoned:  # another thread took this one's place while it was held
                return

    def submit(
        self, loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], *args: Any
    ) -> tuple[asyncio.Future[Any], _Job]:
        """Run `fn(*args)` on a thread, in a copy of this context: the future of its result, and its job."""
        job = _Job(loop, loop.create_future(), contextvars.copy_context().run, (fn, *args))
        self._jobs.put(job)
        return job.future, job

    def abandon(self, job: _Job) -> None:
        """Give up `job` (its call past its timeout): its thread may be held, so another takes its place."""
        if not job.abandoned:
            job.abandoned = True
            self._start()

    def close(self) -> None:
        """Let the idle threads end; a thread still in a call is not waited for (it is a daemon)."""
        for _ in range(self._started):
            self._jobs.put(None)


class Stop:
    """The signals that stop a run: how many came (`count`), the first (`signum`), and what each asks."""

    def __init__(self) -> None:
        self.count = 0
        self.signum: int | None = None
        self.asked: Callable[[int], None] | None = None

    def __call__(self, signum: int) -> None:
        self.count += 1
        self.signum = self.signum or signum
        if self.count > 2:
            raise Interrupted(self.signum)
        if self.asked is not None:
            self.asked(self.count)

    @contextlib.contextmanager
    def on(self, loop: asyncio.AbstractEventLoop, asked: Callable[[int], None]) -> Iterator[None]:
        """While it lasts, SIGINT and SIGTERM call `asked(count)` in `loop` (1: stop, 2: at once, 3: raise);
        where the loop cannot take signals (Windows, not the main thread) they raise as before."""
        self.asked = asked
        taken = []
        before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
        try:
            for signum in (signal.SIGINT, signal.SIGTERM):
                try:
                    loop.add_signal_handler(signum, self, signum)
                except (NotImplementedError, RuntimeError, ValueError):
                    continue
                taken.append(signum)
            yield
        finally:
            self.asked = None
            for signum in taken:
                loop.remove_signal_handler(signum)  # which leaves SIGINT to Python's default, SIGTERM to a kill
                if before[signum] is not None:
                    signal.signal(signum, before[signum])
