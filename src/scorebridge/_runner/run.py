"""`benchmark()` and `abenchmark()`: the plain-Python harness (the hr package's `hr_benchmark`)."""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import os
import sys
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from .._protocol.record import recorded
from .._protocol.score import FailureKind, Score, ScorerContractError, naming_row
from .._protocol.scorer import OnError, Scorer, add_note, check_on_error, is_async
from .._protocol.sync import run_sync
from .._protocol.values import label_is_missing, seconds
from .._scorers.exact import exact
from .progress import Progress, progress_mode
from .records import BenchmarkRecord, is_budget_stop, json_safe
from .result import BenchmarkResult
from .store import Key, OutFile, scorer_identity
from .summary import grader_failed

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["abenchmark", "benchmark"]

_PROGRESS_DELAY = 1.0
"""Seconds a run lasts before the default progress bar (`progress=None` on a terminal) appears."""


def _error_text(exc: BaseException) -> str:
    message = str(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


_hook_installed = False
_INTERRUPT: Final = "scorebridge_benchmark_interrupt"


def _show_interrupts() -> None:
    """Make an uncaught interrupt of a benchmark end a script with its one line, not a traceback.

    Python's hook for uncaught exceptions is wrapped once, for the
    KeyboardInterrupts a benchmark raises (marked `_INTERRUPT`); every other
    exception goes to the hook there was before. They are KeyboardInterrupt
    itself, not a subclass, so Python still exits as killed by SIGINT (status
    130 in a shell). A notebook or pytest shows the exception its own way,
    message included.
    """
    global _hook_installed
    if _hook_installed:
        return
    previous = sys.excepthook

    def hook(kind: type[BaseException], exc: BaseException, tb: Any) -> None:
        if getattr(exc, _INTERRUPT, False):
            print(exc, file=sys.stderr)
        else:
            previous(kind, exc, tb)

    sys.excepthook = hook
    _hook_installed = True


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
        on_error: OnError,
        timeout: float | None = None,
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
        self.record_errors = check_on_error("benchmark", on_error) == "record"
        scorer = scorer.with_timeout(seconds("benchmark", timeout, none=True))

        if isinstance(items, Mapping):
            ids: list[Hashable] = list(items.keys())
            self.items = list(items.values())
        elif isinstance(items, Sequence) and not isinstance(items, (str, bytes, bytearray)):
            self.items = list(items)
            ids = list(range(len(self.items)))
        else:
            raise TypeError(f"benchmark: items must be a sequence or a mapping of ids; got {type(items).__name__}")
        if not ids:
            raise ValueError("benchmark: there are no items; give at least one item to run the arms on")
        if out is not None:
            ids = [self._json_id(k) for k in ids]
        self.ids = ids
        self.labels = self._aligned(labels)
        self._check_labels(scorer)

        self.names = list(arms)
        self.fns = list(arms.values())
        self.is_async = [is_async(fn) for fn in self.fns]
        self.scorer = scorer
        # a sync scorer that may block (a grader model, a regex, a function of yours) runs off the event loop
        self.scorer_inline = scorer.is_async or scorer.fast
        self.runs = runs
        self.concurrency = concurrency
        self.progress = progress
        self.out = None if out is None else os.fspath(out)
        self.done: dict[Key, BenchmarkRecord] = {}
        self.todo: list[tuple[int, int, int]] = []
        self.stop: BaseException | None = None
        self._file: OutFile | None = None
        self._workers: list[asyncio.Task[None]] = []
        self._task: asyncio.Task[Any] | None = None
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

    def _check_labels(self, scorer: Scorer) -> None:
        """Every label read as the scorer reads it (`Scorer.check_label`), before any arm runs (and is paid)."""
        check = scorer.check_label
        if check is None:
            return
        for i, label in enumerate(self.labels):
            try:
                check(label)
            except ScorerContractError as exc:  # the item in the message itself: it is the data's problem
                where = f"the label of item {self.ids[i]!r} (index {i}); no arm was run"
                raise naming_row(exc, where) from None
            except Exception as exc:
                add_note(exc, f"the label of item {self.ids[i]!r} (index {i}); no arm was run")
                raise

    @property
    def loop_free(self) -> bool:
        """True when the runs need no event loop: only sync arms and a sync scorer, one run at a time."""
        return self.concurrency == 1 and not any(self.is_async) and not self.scorer.is_async

    # --- opening and closing -----------------------------------------------------------------

    def _open(self) -> None:
        """Take the `out` file (its lock, its records), then what is left to do, the bar and the pool."""
        if self.out is not None:
            wanted = {(a, i, r) for a in self.names for i in self.ids for r in range(self.runs)}
            self._file = OutFile(self.out, scorer_identity(self.scorer), wanted)
            # a record whose grader failed is run again: a resume asks the grader once more
            self.done = {k: r for k, r in self._file.records.items() if not grader_failed(r)}
        self.todo = [
            (a, i, r)
            for r in range(self.runs)
            for i in range(len(self.ids))
            for a in range(len(self.names))
            if (self.names[a], self.ids[i], r) not in self.done
        ]
        pending = len(self.todo)
        mode = progress_mode(self.progress, lines_by_default=False)
        if mode != "off" and pending:
            delay = _PROGRESS_DELAY if self.progress is None else 0.0
            total = len(self.done) + pending
            self._bar = Progress("benchmark", "runs", total, mode, initial=len(self.done), delay=delay, notebook=True)
        if pending and not self.loop_free and not (all(self.is_async) and self.scorer_inline):
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="scorebridge-benchmark")

    def _close(self) -> None:
        if self._file is not None:
            self._file.close()
        if self._bar is not None:  # stopped by a Ctrl-C (raised through here, or the run's stop): "interrupted"
            stopped = isinstance(sys.exc_info()[1], KeyboardInterrupt) or isinstance(self.stop, KeyboardInterrupt)
            self._bar.close(interrupted=stopped)
            self._bar = None
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def interrupted(self) -> KeyboardInterrupt:
        """The KeyboardInterrupt that says how far an interrupted run got, and how to go on."""
        if self._file is not None:
            saved = self._file.saved()
            message = (
                f"benchmark interrupted: {saved} record{'' if saved == 1 else 's'} saved in {self.out}; "
                "run it again with the same out= to resume"
            )
        else:
            saved = len(self.done)
            message = (
                f"benchmark interrupted after {saved} record{'' if saved == 1 else 's'}, which are lost; "
                "give benchmark() out=FILE to keep them and resume"
            )
        interrupt = KeyboardInterrupt(message)
        setattr(interrupt, _INTERRUPT, True)
        return interrupt

    def _result(self) -> BenchmarkResult:
        records = [self.done[n, i, r] for n in self.names for i in self.ids for r in range(self.runs)]
        items = dict(zip(self.ids, self.items, strict=True))  # for summary(group_by=...): an item's fields
        return BenchmarkResult(records, self.names, self.scorer.name, items=items, runs=self.runs)

    # --- one run after another, in this thread -----------------------------------------------

    def execute_here(self) -> BenchmarkResult:
        """Run what is left to do one run after another in this thread, without an event loop."""
        try:
            self._open()
            for a, i, r in self.todo:
                self._keep(self._one_here(a, i, r))
        finally:
            self._close()
        return self._result()

    def _one_here(self, a: int, i: int, run: int) -> BenchmarkRecord:
        """`_one` for the loop-free path: the arm and the scorer called in this thread."""
        item, label = self.items[i], self.labels[i]
        start = time.perf_counter()
        try:
            output = self.fns[a](item)
            if type(output) is not str and inspect.isawaitable(output):  # a sync callable handing back a coroutine
                output = run_sync(output)
        except Exception as exc:
            return self._failed(a, i, run, exc, time.perf_counter() - start)
        seconds = time.perf_counter() - start
        try:
            score = self.scorer(item, output, label)
        except Exception as exc:
            if not self.record_errors:
                self._name_row(exc, a, i, run)
                raise
            score = self.scorer._raised(exc, label)
        except BaseException as exc:
            self._name_row(exc, a, i, run)
            raise
        return self._scored(a, i, run, score, seconds, output=output)

    # --- concurrently, in an event loop ------------------------------------------------------

    async def execute(self) -> BenchmarkResult | BaseException:
        """Run what is left to do; the result, or the exception that stopped the run (not raised, see benchmark)."""
        self._task = asyncio.current_task()
        try:
            self._open()
            jobs = iter(self.todo)
            size = min(self.concurrency, len(self.todo))
            self._workers = [asyncio.ensure_future(self._worker(jobs)) for _ in range(size)]
            if self._workers:
                await asyncio.wait(self._workers)  # the workers stop each other; they never raise here
        finally:
            for w in self._workers:
                w.cancel()
            await asyncio.gather(*self._workers, return_exceptions=True)
            self._close()
        return self._result() if self.stop is None else self.stop

    def cancel(self) -> None:
        """Stop a run going on in another thread's event loop; `execute()` cleans up there."""
        task = self._task
        if task is not None and not task.done():
            task.get_loop().call_soon_threadsafe(task.cancel)

    async def _worker(self, jobs: Iterator[tuple[int, int, int]]) -> None:
        for a, i, r in jobs:
            if self.stop is not None:
                return
            try:
                record = await self._one(a, i, r)
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # the scorer's exception, or an arm's BaseException: the run stops
                if self.stop is None:
                    self.stop = exc
                    for w in self._workers:
                        if w is not asyncio.current_task():
                            w.cancel()
                return
            self._keep(record)

    async def _one(self, a: int, i: int, run: int) -> BenchmarkRecord:
        item, label = self.items[i], self.labels[i]
        start = time.perf_counter()
        try:
            output = await self._call(a, item)
        except Exception as exc:
            return self._failed(a, i, run, exc, time.perf_counter() - start)
        seconds = time.perf_counter() - start
        try:
            if self.scorer_inline:
                score = await self.scorer.acall(item, output, label)
            else:
                score = await self._in_pool(self.scorer, item, output, label)
        except Exception as exc:
            if not self.record_errors:
                self._name_row(exc, a, i, run)
                raise
            score = self.scorer._raised(exc, label)
        except BaseException as exc:
            if not isinstance(exc, asyncio.CancelledError):
                self._name_row(exc, a, i, run)
            raise
        return self._scored(a, i, run, score, seconds, output=output)

    async def _in_pool(self, fn: Callable[..., Any], *args: Any) -> Any:
        # Off the loop's thread, so a call that blocks stalls no other run (and an arm may call asyncio.run);
        # with the caller's context variables.
        return await asyncio.get_running_loop().run_in_executor(self._pool, contextvars.copy_context().run, fn, *args)

    async def _call(self, a: int, item: Any) -> Any:
        fn = self.fns[a]
        if self.is_async[a]:
            return await fn(item)
        output = await self._in_pool(fn, item)
        if type(output) is not str and inspect.isawaitable(output):  # a sync callable handing back a coroutine
            output = await output
        return output

    # --- records -----------------------------------------------------------------------------

    def _name_row(self, exc: BaseException, a: int, i: int, run: int) -> None:
        add_note(exc, f"while scoring arm {self.names[a]!r} on item {self.ids[i]!r} (index {i}, run {run})")

    def _failed(self, a: int, i: int, run: int, exc: Exception, seconds: float) -> BenchmarkRecord:
        kind: FailureKind = "budget_stop" if is_budget_stop(exc) else "error"
        unlabelled = self.scorer.needs_label and label_is_missing(self.labels[i])
        score = recorded(self.scorer.name, False, None, kind, unlabelled=unlabelled)
        return self._scored(a, i, run, score, seconds, _error_text(exc))

    def _scored(
        self, a: int, i: int, run: int, score: Score, seconds: float, error: str | None = None, output: Any = None
    ) -> BenchmarkRecord:
        return BenchmarkRecord(
            self.names[a],
            self.ids[i],
            run,
            score.correct,
            score.value,
            score.outcome,
            score.failure_kind,
            score.explanation,
            json_safe(score.metadata) if score.metadata else {},
            seconds,
            error,
            json_safe(output),
        )

    def _keep(self, record: BenchmarkRecord) -> None:
        self.done[record.arm, record.item_id, record.run] = record
        if self._file is not None:
            self._file.write(record)
        if self._bar is not None:
            self._bar.update()


def _in_new_loop(run: _Run) -> BenchmarkResult | BaseException:
    """`run.execute()` to its end in an event loop of its own; a KeyboardInterrupt is the run's `interrupted()`.

    In a thread with no running loop the loop is this thread's (`asyncio.run`,
    which on Ctrl-C cancels the run's tasks and waits for them, so the file is
    closed and nothing is left pending); in a thread whose loop is running (a
    notebook) it is a new thread's, and a Ctrl-C here cancels it there.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        try:
            return asyncio.run(run.execute())
        except KeyboardInterrupt:
            raise run.interrupted() from None
    box: list[BenchmarkResult | BaseException] = []

    def work() -> None:
        try:
            box.append(asyncio.run(run.execute()))
        except BaseException as exc:  # carried back to the caller's thread
            box.append(exc)

    thread = threading.Thread(target=work, name="scorebridge-benchmark")
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.1)  # a timed join, so Ctrl-C reaches this thread
    except KeyboardInterrupt:
        run.cancel()
        thread.join()
        raise run.interrupted() from None
    outcome = box[0]
    if isinstance(outcome, asyncio.CancelledError):
        raise run.interrupted()
    return outcome


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
    on_error: OnError = "raise",
    timeout: float | None = None,
) -> BenchmarkResult:
    """Run every arm on every item `runs` times, score each output, and record it (the hr package's `hr_benchmark`).

    Args:
        arms: Names to callables `arm(item) -> output`, sync or async.
        items: A sequence (the item ids are the indices 0, 1, ...) or a
            mapping of item ids to items; at least one.
        labels: A mapping by item id, or a sequence aligned with `items` (in
            a mapping's iteration order). A label of None (or NaN, blank
            text, an empty list) means the item has no label: its runs are
            recorded unscored, unless the scorer needs none
            (`needs_label=False`).
        scorer: The scorer of every output; `exact()` by default.
        runs: How many times each arm runs on each item (runs count from 0).
        concurrency: How many runs at once. With 1 and only sync arms and a
            sync scorer, each arm and the scorer are called in the calling
            thread, one call after another, with no event loop. Otherwise
            async arms (and an async scorer) run in one event loop, and sync
            arms in a pool of `concurrency` threads (so an arm may still call
            `asyncio.run`), each call with the caller's context variables; a
            sync scorer runs in that pool too, so a slow grader or regex stalls
            no other run, but for the built-ins that never wait (exact and the
            detect scorers but detect_pattern), which run inline.
        progress: A tqdm progress bar on stderr: None shows it when stderr is
            a terminal and the run lasts more than a second; True or False
            forces it on (at once) or off.
        out: A JSON Lines file that gets a header naming the scorer, then
            every record as it is made (flushed line by line), so a crash or
            Ctrl-C loses nothing. Running again with the same `out` resumes:
            the (arm, item_id, run) already in the file are loaded, not run
            again, but for those whose grader failed (a model-graded scorer's
            `grader_failed`), which are run again, arm and grader, their new
            record appended. Item ids must then be strings or ints. Resuming under
            another scorer, or other options, is refused (a ValueError naming
            both), and so is a file another process is writing (a RuntimeError:
            one writer per file, see docs/benchmark.md).
        on_error: What an exception from the scorer does: "raise" (the
            default) stops the benchmark (see below); "record" records the
            run wrong with failure kind "error" and the exception in its
            explanation (`kit.raised_score`), counted in the accuracy, and
            the benchmark goes on. A ValueError for anything else.
        timeout: Seconds the scorer may take on one output (None, the
            default: no limit; `Scorer.with_timeout`). A call past it has
            raised a `ScorerTimeout` (a TimeoutError), recorded or raised as
            `on_error` says. A sync scorer's call past it is abandoned on its
            thread, still running: Python cannot stop a thread. The arms are
            not timed.

    Every label is read as the scorer reads it (`Scorer.check_label`) before
    any arm runs: a label the scorer cannot read is a `ScorerContractError`,
    with a note naming the item, and no arm has been called (or paid for).

    An arm that raises an `Exception` is recorded with failure kind "error"
    (or "budget_stop" for `BudgetExceeded`, see there) and its `error` text;
    the benchmark goes on. An exception from the scorer (with
    `on_error="raise"`), or another BaseException from an arm, stops the
    benchmark and propagates, with a note naming the arm, item and run; what
    was recorded is in `out`. Ctrl-C
    (a KeyboardInterrupt) stops it at any concurrency and raises a
    KeyboardInterrupt whose message says how many records are in which file
    and that running again resumes; uncaught, a script ends with that one
    line (and status 130). Runs start run by run, item by item, arm by arm, so
    an interrupted benchmark has every arm on the same items; the result
    keeps the records in arm, item, run order.

    Works from sync code and from inside a running event loop (then its event
    loop runs on a thread of its own); `abenchmark` is the async twin.
    """
    run = _Run(arms, items, labels, scorer, runs, concurrency, progress, out, on_error, timeout)
    _show_interrupts()
    if run.loop_free:
        try:
            return run.execute_here()
        except KeyboardInterrupt:
            raise run.interrupted() from None
    outcome = _in_new_loop(run)
    if isinstance(outcome, KeyboardInterrupt):  # raised inside an arm
        raise run.interrupted() from outcome
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
    on_error: OnError = "raise",
    timeout: float | None = None,
) -> BenchmarkResult:
    """The async twin of `benchmark` (the same arguments), run in the current event loop.

    Cancelled (as `asyncio.run` cancels it on Ctrl-C), it closes `out` and
    writes one line to stderr, how many records are saved where and that
    running again resumes, then lets the cancellation go on.
    """
    run = _Run(arms, items, labels, scorer, runs, concurrency, progress, out, on_error, timeout)
    try:
        outcome = await run.execute()
    except (asyncio.CancelledError, KeyboardInterrupt):
        print(run.interrupted(), file=sys.stderr)
        raise
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome
