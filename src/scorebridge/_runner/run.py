"""`benchmark()` and `abenchmark()`: the plain-Python harness (the hr package's `hr_benchmark`)."""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import os
import sys
import time
import warnings
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from .._protocol.record import recorded
from .._protocol.score import FAILURE_KINDS, FailureKind, Score
from .._protocol.scorer import Scorer, is_async
from .._protocol.sync import run_sync
from .._protocol.values import label_is_missing
from .._scorers.exact import exact
from .files import RowError, json_object
from .records import FIELDS, BenchmarkRecord, is_budget_stop
from .result import BenchmarkResult

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor
    from typing import IO

__all__ = ["abenchmark", "benchmark"]

_PROGRESS_DELAY = 1.0
"""Seconds a run lasts before the default progress bar (`progress=None` on a terminal) appears."""


class _Halt(Exception):
    """A worker stopped the benchmark; the reason is in `_Run.stop`."""


def _error_text(exc: BaseException) -> str:
    message = str(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False


def _record_from(path: str, line: int, raw: bytes) -> BenchmarkRecord | None:
    """One line of an `out` file as a record (None for a blank line); a `RowError` if it is not one."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RowError(path, line, "not UTF-8 text") from None
    if not text.strip():
        return None
    row = json_object(path, line, text)
    missing = [f for f in FIELDS if f not in row]
    if missing:
        raise RowError(path, line, f"not a benchmark record: no {', '.join(missing)}")
    if (
        not isinstance(row["arm"], str)
        or type(row["run"]) is not int
        or type(row["item_id"]) not in (int, str)
        or type(row["correct"]) not in (bool, type(None))
        or (row["failure_kind"] is not None and row["failure_kind"] not in FAILURE_KINDS)
    ):
        raise RowError(path, line, "not a benchmark record: a field has the wrong type")
    return BenchmarkRecord(*(row[f] for f in FIELDS))


Key = tuple[str, Hashable, int]


class _Run:
    """One call of benchmark(): the validated arguments, the records so far, and the running state."""

    def __init__(
        self,
        arms: Mapping[str, Callable[[Any], Any]],
        items: Sequence[Any] | Mapping[Hashable, Any],
        labels: Sequence[Any] | Mapping[Hashable, Any],
        scorer: Scorer,
        runs: int,
        concurrency: int,
        progress: bool | None,
        out: str | os.PathLike[str] | None,
    ) -> None:
        if not isinstance(arms, Mapping) or not arms:
            raise TypeError("benchmark: arms must be a non-empty mapping of names to callables")
        for name, fn in arms.items():
            if not isinstance(name, str) or not name.strip():
                raise TypeError(f"benchmark: an arm's name must be a non-blank string; got {name!r:.80}")
            if not callable(fn):
                raise TypeError(f"benchmark: arm {name!r} is not callable; got {type(fn).__name__}")
        if not isinstance(scorer, Scorer):
            raise TypeError(
                f"benchmark: scorer must be a Scorer; got {type(scorer).__name__} "
                "(wrap a function with scorebridge.scorer)"
            )
        for arg, n in (("runs", runs), ("concurrency", concurrency)):
            if type(n) is not int or n < 1:
                raise ValueError(f"benchmark: {arg} must be an int of at least 1; got {n!r:.80}")
        if progress not in (None, True, False):
            raise TypeError(f"benchmark: progress must be None, True or False; got {progress!r:.80}")

        if isinstance(items, Mapping):
            ids: list[Hashable] = list(items.keys())
            self.items = list(items.values())
        elif isinstance(items, Sequence) and not isinstance(items, (str, bytes, bytearray)):
            self.items = list(items)
            ids = list(range(len(self.items)))
        else:
            raise TypeError(f"benchmark: items must be a sequence or a mapping of ids; got {type(items).__name__}")
        if out is not None:
            ids = [self._json_id(k) for k in ids]
        self.ids = ids
        self.labels = self._aligned(labels)

        self.names = list(arms)
        self.fns = list(arms.values())
        self.is_async = [is_async(fn) for fn in self.fns]
        self.scorer = scorer
        self.runs = runs
        self.concurrency = concurrency
        self.progress = progress
        self.out = None if out is None else os.fspath(out)
        self.done: dict[Key, BenchmarkRecord] = {}
        self.stop: BaseException | None = None
        self._newline_first = False
        if self.out is not None:
            self._resume(self.out)
        self.todo = [
            (a, i, r)
            for r in range(runs)
            for i in range(len(ids))
            for a in range(len(self.names))
            if (self.names[a], ids[i], r) not in self.done
        ]
        self._task: asyncio.Task[Any] | None = None
        self._workers: list[asyncio.Task[None]] = []
        self._cancelling = False
        self._file: IO[str] | None = None
        self._bar: Any = None
        self._pool: ThreadPoolExecutor | None = None

    @staticmethod
    def _json_id(k: Hashable) -> int | str:
        if isinstance(k, bool) or not isinstance(k, (int, str)):
            raise TypeError(
                f"benchmark: with out=, item ids must be strings or ints (they are written as JSON); "
                f"got {type(k).__name__} {k!r:.80}"
            )
        return int(k) if isinstance(k, int) else str(k)

    def _aligned(self, labels: Sequence[Any] | Mapping[Hashable, Any]) -> list[Any]:
        if isinstance(labels, Mapping):
            missing = [k for k in self.ids if k not in labels]
            if missing:
                raise ValueError(
                    f"benchmark: labels has no entry for {len(missing)} item id(s), e.g. {missing[:5]}; "
                    "give None for an item with no label"
                )
            return [labels[k] for k in self.ids]
        if isinstance(labels, Sequence) and not isinstance(labels, (str, bytes, bytearray)):
            if len(labels) != len(self.ids):
                raise ValueError(f"benchmark: {len(self.ids)} items but {len(labels)} labels")
            return list(labels)
        raise TypeError(f"benchmark: labels must be a sequence or a mapping by item id; got {type(labels).__name__}")

    def _resume(self, path: str) -> None:
        """Load the records already in `out`; drop an incomplete last line (a crash mid-write)."""
        wanted = {(a, i, r) for a in self.names for i in self.ids for r in range(self.runs)}
        ignored = 0
        end = 0
        if not os.path.exists(path):
            return
        with open(path, "rb") as f:
            for line, raw in enumerate(f, start=1):
                try:
                    record = _record_from(path, line, raw)
                except RowError:
                    if raw.endswith(b"\n"):
                        raise
                    warnings.warn(f"{path}:{line}: dropped an incomplete last record (crash mid-write?)", stacklevel=4)
                    break
                end += len(raw)
                self._newline_first = not raw.endswith(b"\n")  # a whole record, but its newline never written
                if record is None:
                    continue
                key = (record.arm, record.item_id, record.run)
                if key in wanted:
                    self.done.setdefault(key, record)
                else:
                    ignored += 1
        if end < os.path.getsize(path):
            os.truncate(path, end)
        if ignored:
            warnings.warn(
                f"{path}: {ignored} record(s) are for arms, items or runs not in this benchmark; "
                "they stay in the file and are left out of the result",
                stacklevel=4,
            )

    async def execute(self) -> BenchmarkResult | BaseException:
        """Run what is left to do; the result, or the exception that stopped the run (not raised, see benchmark)."""
        self._task = asyncio.current_task()
        try:
            self._open()
            jobs = iter(self.todo)
            size = min(self.concurrency, len(self.todo))
            self._workers = [asyncio.ensure_future(self._worker(jobs)) for _ in range(size)]
            if self._workers:
                await asyncio.wait(self._workers, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            self._cancelling = True
            for w in self._workers:
                w.cancel()
            await asyncio.gather(*self._workers, return_exceptions=True)
            self._close()
        return self._result() if self.stop is None else self.stop

    @property
    def loop_free(self) -> bool:
        """True when the runs need no event loop: only sync arms, one run at a time."""
        return self.concurrency == 1 and not any(self.is_async)

    def execute_here(self) -> BenchmarkResult:
        """Run what is left to do one run after another in this thread, without an event loop."""
        try:
            self._open()
            for a, i, r in self.todo:
                self._keep(self._one_here(a, i, r))
        finally:
            self._close()
        return self._result()

    def _result(self) -> BenchmarkResult:
        records = [self.done[n, i, r] for n in self.names for i in self.ids for r in range(self.runs)]
        return BenchmarkResult(records, self.names, self.scorer.name)

    def abandon(self) -> None:
        """Stop a run whose event loop was interrupted (Ctrl-C outside any arm): no record is written after this."""
        task = self._task
        if task is None or task.done():
            return
        self._cancelling = True
        loop = task.get_loop()
        if loop.is_running():  # the helper thread's loop: cancel there; execute() cleans up
            loop.call_soon_threadsafe(task.cancel)
            return
        for t in (task, *self._workers):  # this thread's loop, stopped: the tasks end when it next runs
            t.cancel()
        self._close()

    def _open(self) -> None:
        pending = len(self.todo)
        if self.out is not None and pending:
            self._file = open(self.out, "a", encoding="utf-8")  # noqa: SIM115  # closed by _close()
            if self._newline_first:
                self._file.write("\n")
        show = _stderr_is_terminal() if self.progress is None else self.progress
        if show and pending:
            from tqdm.auto import tqdm

            total = len(self.done) + pending
            delay = _PROGRESS_DELAY if self.progress is None else 0.0
            self._bar = tqdm(total=total, initial=len(self.done), unit="run", desc="benchmark", delay=delay)
        if pending and not all(self.is_async):
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="scorebridge-arm")

    def _close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    async def _worker(self, jobs: Iterator[tuple[int, int, int]]) -> None:
        for a, i, r in jobs:
            try:
                record = await self._one(a, i, r)
            except BaseException as exc:
                if isinstance(exc, asyncio.CancelledError) and self._cancelling:
                    raise
                if self.stop is None:
                    self.stop = exc
                raise _Halt from None
            self._keep(record)

    async def _one(self, a: int, i: int, run: int) -> BenchmarkRecord:
        item, label = self.items[i], self.labels[i]
        start = time.perf_counter()
        try:
            output = await self._call(a, item)
        except Exception as exc:
            return self._failed(a, i, run, exc, time.perf_counter() - start)
        seconds = time.perf_counter() - start
        return self._scored(a, i, run, await self.scorer.acall(item, output, label), seconds)

    def _one_here(self, a: int, i: int, run: int) -> BenchmarkRecord:
        """`_one` for the loop-free path: the arm and the scorer called in this thread."""
        item, label = self.items[i], self.labels[i]
        start = time.perf_counter()
        try:
            output = self.fns[a](item)
            if inspect.isawaitable(output):  # a sync callable that hands back a coroutine
                output = run_sync(output)
        except Exception as exc:
            return self._failed(a, i, run, exc, time.perf_counter() - start)
        seconds = time.perf_counter() - start
        return self._scored(a, i, run, self.scorer(item, output, label), seconds)

    def _failed(self, a: int, i: int, run: int, exc: Exception, seconds: float) -> BenchmarkRecord:
        kind: FailureKind = "budget_stop" if is_budget_stop(exc) else "error"
        score = recorded(self.scorer.name, False, None, kind, unlabelled=label_is_missing(self.labels[i]))
        return self._scored(a, i, run, score, seconds, _error_text(exc))

    def _scored(
        self, a: int, i: int, run: int, score: Score, seconds: float, error: str | None = None
    ) -> BenchmarkRecord:
        return BenchmarkRecord(
            self.names[a],
            self.ids[i],
            run,
            score.correct,
            score.value,
            score.outcome,
            score.failure_kind,
            seconds,
            error,
        )

    async def _call(self, a: int, item: Any) -> Any:
        fn = self.fns[a]
        if self.is_async[a]:
            return await fn(item)
        # Off the loop's thread, so the arm may call asyncio.run; with the caller's context variables.
        output = await asyncio.get_running_loop().run_in_executor(self._pool, contextvars.copy_context().run, fn, item)
        if inspect.isawaitable(output):  # a sync callable that hands back a coroutine
            output = await output
        return output

    def _keep(self, record: BenchmarkRecord) -> None:
        self.done[record.arm, record.item_id, record.run] = record
        if self._file is not None:
            import json

            self._file.write(json.dumps(record._asdict()) + "\n")
            self._file.flush()
        if self._bar is not None:
            self._bar.update()


_EXACT: Final = exact()


def benchmark(
    arms: Mapping[str, Callable[[Any], Any]],
    items: Sequence[Any] | Mapping[Hashable, Any],
    labels: Sequence[Any] | Mapping[Hashable, Any],
    scorer: Scorer = _EXACT,
    runs: int = 1,
    concurrency: int = 1,
    progress: bool | None = None,
    out: str | os.PathLike[str] | None = None,
) -> BenchmarkResult:
    """Run every arm on every item `runs` times, score each output, and record it (the hr package's `hr_benchmark`).

    Args:
        arms: Names to callables `arm(item) -> output`, sync or async.
        items: A sequence (the item ids are the indices 0, 1, ...) or a
            mapping of item ids to items.
        labels: A mapping by item id, or a sequence aligned with `items` (in
            a mapping's iteration order). A label of None (or blank) means the
            item has no label: its runs are recorded unscored.
        scorer: The scorer of every output; `exact()` by default.
        runs: How many times each arm runs on each item (runs count from 0).
        concurrency: How many runs at once. With 1 and only sync arms, each
            arm is called in the calling thread, one call after another, with
            no event loop. Otherwise async arms run in one event loop, and
            sync arms in a thread pool of `concurrency` threads (so an arm may
            still call `asyncio.run`), each call with the caller's context
            variables.
        progress: A tqdm progress bar on stderr: None shows it when stderr is
            a terminal and the run lasts more than a second; True or False
            forces it on (at once) or off.
        out: A JSONL file that gets every record as it is made (flushed line
            by line), so a crash or Ctrl-C loses nothing. Running again with
            the same `out` resumes: the (arm, item_id, run) already in the file
            are loaded, not run again. Item ids must then be strings or ints.

    An arm that raises an `Exception` is recorded with failure kind "error"
    (or "budget_stop" for `BudgetExceeded`, see there) and its `error` text;
    the benchmark goes on. An exception from the scorer, a KeyboardInterrupt
    or another BaseException from an arm stops the benchmark and propagates;
    what was recorded is in `out`. Runs start run by run, item by item, arm by
    arm, so an interrupted benchmark has every arm on the same items; the
    result keeps the records in arm, item, run order.

    Works from sync code and from inside a running event loop (then its event
    loop work runs on scorebridge's helper thread); `abenchmark` is the async
    twin.
    """
    run = _Run(arms, items, labels, scorer, runs, concurrency, progress, out)
    if run.loop_free:
        return run.execute_here()
    try:
        outcome = run_sync(run.execute())
    except BaseException:
        run.abandon()
        raise
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome


async def abenchmark(
    arms: Mapping[str, Callable[[Any], Any]],
    items: Sequence[Any] | Mapping[Hashable, Any],
    labels: Sequence[Any] | Mapping[Hashable, Any],
    scorer: Scorer = _EXACT,
    runs: int = 1,
    concurrency: int = 1,
    progress: bool | None = None,
    out: str | os.PathLike[str] | None = None,
) -> BenchmarkResult:
    """The async twin of `benchmark`, run in the current event loop."""
    outcome = await _Run(arms, items, labels, scorer, runs, concurrency, progress, out).execute()
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome
