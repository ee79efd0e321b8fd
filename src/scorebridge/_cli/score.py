"""`scorebridge score`: score a file of outputs with one or more scorers, stream the scored rows, print the summaries.

Each row is read once and scored by every scorer. Scorers that wait (async ones, and sync ones that may
block: a grader model, an API of yours) score up to `--concurrency` rows at once, async ones on one event
loop and sync ones on daemon threads (`pool.DaemonPool`); the fast built-ins run inline. Rows are written to
`--out` (`out.open_out`: its header, --resume, --force) in the input's order as soon as they and every row
before them are scored; a slow row does not hold back the others, up to `HELD` x `--concurrency` rows held
behind it, so memory stays flat however long the file is; the summaries are counted on the way (a resumed
file's rows first). `--timeout` gives each call a limit, `--on-bad-row` says what a row that cannot be read
does, and SIGINT or SIGTERM stops the run with every scored row written (`pool.Stop`). Everything that can
be checked before scoring is: the scorers and their options (each value against its option), the input's
first row, the output file.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import contextvars
import itertools
import json
import math
import os
import signal
import sys
import threading
import warnings
from collections.abc import Iterator, Mapping, Sequence
from importlib import import_module
from typing import IO, TYPE_CHECKING, Any, Final

from .._protocol.cells import ListLabelWarning
from .._protocol.record import recorded
from .._protocol.score import FAILURE_KINDS, Score, ScorerContractError, UnreadableLabel
from .._protocol.scorer import Scorer
from .._protocol.timeout import ScorerTimeout, wait_within
from .._runner.files import RowError, format_of, read_rows_each, read_stream_each
from .._runner.groups import GroupedSummaries, group_key, group_name, parse_group_by
from .._runner.progress import Progress, count_rows, progress_mode
from .._runner.scored import LINE, score_columns, scorer_columns, unique_names
from .._runner.summary import Summaries, Summary, grader_failed
from .._scorers.grader_cache import cache_lines, cache_of
from .compare import check_report
from .load import Maker, describe, load_for_workers, load_scorers
from .main import EXIT, ITEM_FIELDS, UsageError
from .out import Lines, ScoredOut, open_out
from .pool import GRACE, DaemonPool, Stop, terminate_as_interrupt

if TYPE_CHECKING:
    import asyncio

    from .._runner.report import FailingRows

__all__ = ["grade_line", "json_line", "run"]

STDIN = "<stdin>"
"""How standard input is named in errors ("<stdin>:3: problem")."""

_SCORING: contextvars.ContextVar[tuple[str, int]] = contextvars.ContextVar("scorebridge_cli_scoring")
"""The scorer (its name in the summary) and the line being scored, where a grade warning is raised."""


def _finite(value: Any) -> Any:
    """`value` as standard JSON holds it, in lists and dicts at any depth: NaN as None, an infinity as its text.

    NaN is None because a NaN label is no label, as null is; an infinity is "inf" or "-inf", the text a
    scorer compares it as (`plain_digits`), so the file says what the row was scored against.
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None if math.isnan(value) else repr(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


_JSON: Final = json.JSONEncoder(default=str, allow_nan=False)
"""--out's encoder, made once (`json.dumps` with an argument makes one a call)."""


def json_line(path: str, line: int, row: Mapping[str, Any], scores: Mapping[str, Score]) -> str:
    """One line of `--out`: the row's line, its fields, each scorer's Score columns (`_runner.scored`).

    A NaN in the row (JSON's non-standard `NaN`, which the reader accepts) is
    written as null, an infinity as "inf" or "-inf": standard JSON has no such
    number. A value JSON cannot hold (a Parquet timestamp, bytes) is written as
    its `str`.
    """
    record = {LINE: line, **row}
    for name, score in scores.items():
        record.update(score_columns(name, score))
    try:
        return _JSON.encode(record) + "\n"
    except ValueError:  # a NaN or an infinity
        pass
    except RecursionError:
        raise RowError(path, line, "cannot be written as JSON: nested too deeply") from None
    try:
        return _JSON.encode(_finite(record)) + "\n"
    except (ValueError, RecursionError) as exc:
        raise RowError(path, line, f"cannot be written as JSON ({exc})") from None


class _Tally:
    """A scorer's counts so far, as `Summary.of` counts (a test holds the two to the same numbers)."""

    __slots__ = ("correct", "failed", "kinds", "rows", "scored", "total")

    def __init__(self) -> None:
        self.rows = self.scored = self.correct = self.failed = 0
        self.total = 0.0
        self.kinds = dict.fromkeys(FAILURE_KINDS, 0)

    def add(self, score: Score) -> None:
        self.rows += 1
        if score.correct is None:
            self.failed += grader_failed(score)
            return
        self.scored += 1
        self.correct += score.correct is True
        self.total += score.value if score.value is not None else float(score.correct)
        if score.failure_kind is not None:
            self.kinds[score.failure_kind] += 1

    def summary(self, name: str) -> Summary:
        return Summary.from_counts(
            name, self.rows, self.scored, self.correct, self.total, self.kinds, grader_failed=self.failed
        )


class _Grades:
    """The grades a scorer returned that no rule reads ("yes", "maybe"): counted per scorer, said once each.

    The core warns once per such grade (a UserWarning naming the value only); while the run lasts, those
    warnings are caught here, wherever the scorer ran (this thread, a pool thread, a task of the loop),
    and named by the scorer and line `_SCORING` holds there.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.seen: dict[str, tuple[int, int, str]] = {}  # scorer: (count, first line, first message)
        self._lock = threading.Lock()
        self._catch = warnings.catch_warnings()
        self._previous: Any = None

    def __enter__(self) -> _Grades:
        self._catch.__enter__()
        warnings.filterwarnings("always", message="unrecognised grade", category=UserWarning)
        self._previous = warnings.showwarning
        warnings.showwarning = self._show
        return self

    def __exit__(self, *exc: Any) -> None:
        self._catch.__exit__(*exc)

    def _show(self, message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        text = str(message)
        if issubclass(category, ListLabelWarning):  # it names its row and column: one plain line
            print(f"scorebridge score: {text}", file=sys.stderr)
            return
        where = _SCORING.get(None)
        if where is None or not text.startswith("unrecognised grade"):
            self._previous(message, category, *args, **kwargs)
            return
        name, line = where
        with self._lock:  # rows are scored N at a time, in any order: the first is the lowest line
            count, first, said = self.seen.get(name, (0, line, text))
            if line < first:
                first, said = line, text
            self.seen[name] = (count + 1, first, said)

    def report(self) -> None:
        """One line on stderr per scorer that returned an unreadable grade: how many rows, the first."""
        for name, (count, first, said) in self.seen.items():
            grade = said.removeprefix("unrecognised grade ").partition(";")[0]
            print(grade_line(name, count, self.path, first, grade), file=sys.stderr)


def grade_line(name: str, count: int, path: str, first: int, grade: str) -> str:
    """What both engines say of a scorer that returned a grade no rule reads on `count` rows, `first` the first."""
    rows = f"{count} row{'' if count == 1 else 's'}"
    return (
        f"scorebridge score: {name} returned a grade no rule reads on {rows} (the first: {path}:{first}, {grade}), "
        "recorded unscored; a grade is True or False, a number, or C, P, I, correct, partial, incorrect, pass, fail"
    )


class _Raised(Exception):
    """A scorer's exception on a row, carried to where the row is written (its turn, in the input's order)."""

    def __init__(self, scorer: Scorer, exc: BaseException) -> None:
        super().__init__(scorer.name)
        self.scorer = scorer
        self.exc = exc


HELD: Final = 64
"""Rows held per --concurrency (64 x N) while an earlier row is still being scored: so many rows go on being
scored behind a slow row, written in the input's order once it is done (or past --timeout)."""

GATHER: Final = 64
GATHER_WAIT: Final = 0.005
"""Rows of fast scorers written to --out together: at most 64, or those scored within 5 ms of the first."""

_NAMED: Final = 20
"""Bad rows named one by one on stderr; the rest are counted."""


class _Held:
    """A row read and not yet written: its line, the row (or why it cannot be read), and its scoring."""

    __slots__ = ("error", "line", "row", "task")

    def __init__(
        self,
        line: int,
        row: dict[str, Any] | RowError,
        task: asyncio.Future[list[Score]] | None,
        error: RowError | None = None,
    ) -> None:
        self.line, self.row, self.task, self.error = line, row, task, error

    def ready(self) -> bool:
        return self.task is None or self.task.done()


class _Scoring:
    """One local run: the rows in, the scored rows out, the counts, and how far it got."""

    def __init__(self, args: argparse.Namespace, scorers: Sequence[Scorer], path: str) -> None:
        self.args = args
        self.scorers = list(scorers)
        self.names = unique_names([s.name for s in scorers])
        self.path = path
        self.record = args.on_error == "record"
        self.tallies = [_Tally() for _ in scorers]
        self.group_by = parse_group_by(args.group_by)
        self.grouped: list[dict[tuple[Any, ...], _Tally]] = [{} for _ in scorers]
        self.out: ScoredOut | IO[str] | None = None
        self.bar: Progress | None = None
        self.scored = 0
        self.written = 0
        self.timeout: float | None = getattr(args, "timeout", None)
        self.on_bad_row: str = getattr(args, "on_bad_row", "stop")
        self.bad: list[RowError] = []  # the bad rows, recorded or skipped (--on-bad-row)
        self.stop = Stop()
        self.window: collections.deque[_Held] = collections.deque()  # rows read, not yet written
        self._added = {LINE, *(c for name in self.names for c in scorer_columns(name))}
        # the --report page's failing rows (made by `run`; none for the Ray engine, which writes through this too)
        self.failing: FailingRows | None = getattr(args, "failing", None)

    # --- a row's inputs, one scorer's call --------------------------------------------------

    def _field(self, line: int, row: Mapping[str, Any], field: str) -> Any:
        if field not in row:
            fields = ", ".join(map(str, row)) or "no fields"
            raise RowError(self.path, line, f"no field {field!r}; the row has {fields}")
        return row[field]

    def inputs(self, line: int, row: Mapping[str, Any]) -> tuple[Any, Any, Any]:
        args = self.args
        item_field = args.item_field
        if item_field is None:
            for field in ITEM_FIELDS:
                if field in row:
                    item_field = field
                    break
        try:
            return (
                None if item_field is None else row[item_field],
                row[args.output_field],
                row[args.label_field],
            )
        except KeyError:  # named below, field by field
            pass
        item = None if item_field is None else self._field(line, row, item_field)
        return item, self._field(line, row, args.output_field), self._field(line, row, args.label_field)

    def failed(self, scorer: Scorer, line: int, exc: BaseException) -> RowError:
        if isinstance(exc, (ScorerContractError, ScorerTimeout)):
            return RowError(self.path, line, str(exc))
        if isinstance(exc, RecursionError):
            return RowError(self.path, line, f"the scorer {scorer.name!r} cannot read it: nested too deeply")
        return RowError(self.path, line, f"the scorer {scorer.name!r} raised {describe(exc)}")

    def call(self, i: int, line: int, item: Any, output: Any, label: Any) -> Score:
        """Scorer `i` on one row, in this thread (`_SCORING` set for the grade warnings)."""
        scorer = self.scorers[i]
        _SCORING.set((self.names[i], line))
        try:
            return scorer(item, output, label)
        except Exception as exc:
            return self.raised(scorer, exc, label)

    def raised(self, scorer: Scorer, exc: Exception, label: Any) -> Score:
        """The row's Score with --on-error record; else (and for a label the scorer cannot read, which
        `raised_score` raises whatever on_error says) the exception, to be named with its line."""
        if self.record:
            try:
                return scorer._raised(exc, label)  # its needs_label decides an unlabelled row's count
            except UnreadableLabel:
                pass
        raise _Raised(scorer, exc) from None

    # --- a scored row, in the input's order --------------------------------------------------

    def count(self, line: int, row: Mapping[str, Any], scores: Sequence[Score]) -> None:
        """Count one row's Scores in the summaries (and its group's), and keep it for --report's failing rows."""
        if self.failing is not None:
            self.failing.add(line, row, scores)
        for tally, score in zip(self.tallies, scores):  # noqa: B905  # one Score per scorer, by construction
            tally.add(score)
        if self.group_by:
            key = group_key(row, self.group_by)
            for groups, score in zip(self.grouped, scores, strict=True):
                groups.setdefault(key, _Tally()).add(score)

    def resumed(self, out: ScoredOut) -> None:
        """Count the rows an `--out` held when a `--resume` began, so the summary counts the whole file."""
        for line, row, scores in out.rows():
            self.count(line, row, [scores[name] for name in self.names])

    def keep(self, line: int, row: Mapping[str, Any], scores: Sequence[Score]) -> None:
        """Count and write one scored row (a row --out cannot hold is a bad row, `bad_row`)."""
        out = self.out
        if out is not None:
            try:
                if not self._added.isdisjoint(row):
                    taken = ", ".join(sorted(self._added.intersection(row)))
                    raise RowError(self.path, line, f"the row has a field --out writes ({taken}); rename it")
                text = json_line(self.path, line, row, dict(zip(self.names, scores)))  # noqa: B905
            except RowError as exc:
                self.bad_row(exc)
                return
            out.write(text)
            if out is sys.stdout:
                out.flush()
            self.written += 1
        self.count(line, row, scores)
        self.scored += 1
        if self.bar is not None:
            self.bar.update()

    def bad_row(self, error: RowError, row: Mapping[str, Any] | None = None) -> None:
        """A row that cannot be read or scored as given: raised (--on-bad-row stop), written as an error naming
        its line and why, counted wrong (record), or left out, to be named on stderr (skip)."""
        if self.on_bad_row == "stop":
            raise error
        self.bad.append(error)
        if self.on_bad_row == "skip":
            if self.bar is not None:
                self.bar.update()
            return
        why = f"bad row: {error}"
        scores = [recorded(name, False, None, "error", None, why, {"bad_row": error.problem}) for name in self.names]
        fields = {} if row is None or not self._added.isdisjoint(row) else row
        self.keep(error.line or 0, fields, scores)

    def said_bad_rows(self) -> None:
        """The bad rows on stderr: how many, and each line with why (the first 20)."""
        if not self.bad:
            return
        done = "left out" if self.on_bad_row == "skip" else "recorded as errors"
        count = len(self.bad)
        print(f"scorebridge score: {count} bad row{'' if count == 1 else 's'} {done}:", file=sys.stderr)
        for error in self.bad[:_NAMED]:
            print(f"  {error}", file=sys.stderr)
        if count > _NAMED:
            print(f"  ... and {count - _NAMED} more", file=sys.stderr)

    def summaries(self) -> list[Summary]:
        return [t.summary(name) for t, name in zip(self.tallies, self.names, strict=True)]

    def grouped_summaries(self) -> list[GroupedSummaries]:
        """Per scorer, a summary per group of `--group-by` (none without it)."""
        if not self.group_by:
            return []
        columns = self.group_by
        return [
            GroupedSummaries(columns, [(k, t.summary(group_name(k, columns))) for k, t in groups.items()], whole)
            for groups, whole in zip(self.grouped, self.summaries(), strict=True)
        ]

    # --- one row after another, in this thread -----------------------------------------------

    @property
    def inline(self) -> bool:
        """True when no scorer waits (all fast), or one row at a time with sync scorers and no --timeout: no
        event loop, and a signal stops the run at once (the row being scored is not written)."""
        scorers = self.scorers
        if all(s.fast for s in scorers):
            return True
        return self.args.concurrency == 1 and self.timeout is None and not any(s.is_async for s in scorers)

    def run_here(self, rows: Iterator[tuple[int, dict[str, Any] | RowError]]) -> None:
        count = range(len(self.scorers))
        for line, row in rows:
            if isinstance(row, RowError):
                self.bad_row(row)
                continue
            try:
                item, output, label = self.inputs(line, row)
                scores = [self.call(i, line, item, output, label) for i in count]
            except RowError as exc:
                self.bad_row(exc, row)
                continue
            except _Raised as raised:
                self.bad_row(self.unreadable(raised, line), row)
                continue
            self.keep(line, row, scores)

    def unreadable(self, raised: _Raised, line: int) -> RowError:
        """The RowError of a scorer's exception on the row at `line`: a bad row when it is a label the scorer
        cannot read (the data's fault); any other (a scorer's bug) is raised, whatever --on-bad-row says."""
        error = self.failed(raised.scorer, line, raised.exc)
        if not isinstance(raised.exc, UnreadableLabel):
            raise error
        return error

    # --- up to --concurrency rows at once, in an event loop ----------------------------------

    async def run_concurrently(self, rows: Iterator[tuple[int, dict[str, Any] | RowError]]) -> None:
        """Score up to --concurrency rows at once and write them in the input's order, holding at most
        `HELD` times --concurrency rows behind a slower one; a signal stops it (`Stop`)."""
        import asyncio

        loop = asyncio.get_running_loop()
        n = self.args.concurrency
        timeout = self.timeout
        blocking = any(not s.fast and not s.is_async for s in self.scorers)
        pool = DaemonPool(n, "scorebridge-score") if blocking else None
        gate = asyncio.Semaphore(n)
        window = self.window
        wake = asyncio.Event()  # a row finished, or a signal came
        at_once = asyncio.Event()  # a second signal
        in_flight = 0
        tasks: set[asyncio.Future[list[Score]]] = set()

        def asked(count: int) -> None:
            (wake if count == 1 else at_once).set()
            wake.set()

        async def sync_call(i: int, line: int, item: Any, output: Any, label: Any) -> Score:
            assert pool is not None
            future, job = pool.submit(loop, self.call, i, line, item, output, label)
            if timeout is None:
                return await future  # type: ignore[no-any-return]
            try:
                return await asyncio.wait_for(future, timeout)
            except asyncio.TimeoutError:  # the call's own exceptions come back inside its Score or _Raised
                pool.abandon(job)
                return self.raised(self.scorers[i], ScorerTimeout(self.scorers[i].name, timeout), label)

        async def one(i: int, line: int, item: Any, output: Any, label: Any) -> Score:
            scorer = self.scorers[i]
            if scorer.fast:
                return self.call(i, line, item, output, label)
            async with gate:
                if not scorer.is_async:
                    return await sync_call(i, line, item, output, label)
                _SCORING.set((self.names[i], line))
                try:
                    call = scorer.acall(item, output, label)
                    return await (call if timeout is None else wait_within(scorer.name, timeout, call))
                except Exception as exc:
                    return self.raised(scorer, exc, label)

        async def scored(line: int, item: Any, output: Any, label: Any) -> list[Score]:
            calls = [one(i, line, item, output, label) for i in range(len(self.scorers))]
            if len(calls) == 1:
                return [await calls[0]]
            done = await asyncio.gather(*calls, return_exceptions=True)  # every call's end, so none is left unread
            for outcome in done:
                if isinstance(outcome, BaseException):  # the first scorer's, in --scorer order
                    raise outcome
            return list(done)  # type: ignore[arg-type]

        def finished(task: asyncio.Future[list[Score]]) -> None:
            nonlocal in_flight
            in_flight -= 1
            tasks.discard(task)
            wake.set()

        held = HELD * n
        read_all = False
        with self.stop.on(loop, asked):
            try:
                while True:
                    if window and window[0].ready():
                        with self.out.batch() if isinstance(self.out, ScoredOut) else contextlib.nullcontext():
                            while window and window[0].ready():
                                self.write(window.popleft())
                    if self.stop.count:
                        break
                    if read_all and not window:
                        return
                    if not read_all and len(window) < held and in_flight < n:
                        try:
                            line, row = next(rows)
                        except StopIteration:
                            read_all = True
                            continue
                        if isinstance(row, RowError):
                            window.append(_Held(line, row, None))
                            read_all = read_all or self.on_bad_row == "stop"  # no row after it is read
                            continue
                        try:
                            inputs = self.inputs(line, row)
                        except RowError as exc:  # a missing field: a bad row, at its turn
                            window.append(_Held(line, row, None, exc))
                            continue
                        task = asyncio.ensure_future(scored(line, *inputs))
                        in_flight += 1
                        tasks.add(task)
                        task.add_done_callback(finished)
                        window.append(_Held(line, row, task))
                        continue
                    wake.clear()
                    await wake.wait()
                # a signal: the rows in flight have GRACE seconds (none after a second signal), then the rows
                # scored are written, those after a row still running too (each names its line)
                deadline = loop.time() + GRACE
                while tasks and not at_once.is_set() and loop.time() < deadline:
                    wake.clear()
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(wake.wait(), deadline - loop.time())
                self.salvage()
            finally:
                left = list(tasks)
                for each in left:
                    each.cancel()
                await asyncio.gather(*left, return_exceptions=True)
                if pool is not None:
                    pool.close()

    def write(self, held: _Held) -> None:
        """Write a row that is ready, at its turn in the input's order (a bad row as --on-bad-row says)."""
        if held.task is None:
            error = held.error if held.error is not None else held.row
            assert isinstance(error, RowError)
            self.bad_row(error, None if held.error is None else held.row)  # type: ignore[arg-type]
            return
        row = held.row
        assert not isinstance(row, RowError)
        try:
            scores = held.task.result()
        except _Raised as raised:
            self.bad_row(self.unreadable(raised, held.line), row)
            return
        self.keep(held.line, row, scores)

    def salvage(self) -> None:
        """At a stop: every row of the window that is scored written (the rest left), so no scored row is lost."""
        window = self.window
        while window:
            held = window.popleft()
            task = held.task
            if task is not None and (not task.done() or task.cancelled() or task.exception() is not None):
                continue  # still running, or raised: not written (a resume scores it again)
            with contextlib.suppress(RowError):  # a bad row under --on-bad-row stop, at a stop: left out
                self.write(held)

    def close(self, *, interrupted: bool = False) -> None:
        """Close the progress bar (its last line "interrupted", not "done", after a signal) and `--out` (flushing
        the rows written); again does nothing."""
        bar, out, self.bar, self.out = self.bar, self.out, None, None
        if bar is not None:
            bar.close(interrupted=interrupted)
        if out is not None and out is not sys.stdout:
            out.close()


def _rows(args: argparse.Namespace) -> Iterator[tuple[int, dict[str, Any] | RowError]]:
    """The input's rows, a line that cannot be read in its place as a RowError (`--on-bad-row` decides)."""
    if args.file == "-":
        if args.input_format == "parquet":
            raise UsageError("Parquet cannot be read from standard input (it is read by seeking); name the file")
        return read_stream_each(STDIN, sys.stdin.buffer, args.input_format or "jsonl")
    return read_rows_each(args.file, args.input_format)


def _check_out(args: argparse.Namespace) -> None:
    """Refuse an `--out` that cannot be written, before any row is scored."""
    out: str | None = args.out
    if out is None or out == "-":
        return
    if args.engine == "local" and out.lower().endswith((".parquet", ".pq")):
        raise UsageError("--out: this engine writes JSONL; Parquet is written by --engine ray")
    if os.path.isdir(out):
        raise RowError(out, None, "cannot be written: it is a folder")
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder):
        raise RowError(out, None, f"cannot be written: no folder {folder}")
    if args.file != "-" and os.path.exists(out) and os.path.exists(args.file) and os.path.samefile(out, args.file):
        raise UsageError(f"--out {out} is the input file; it would be overwritten")


def _unscored(rows: Iterator[tuple[int, dict[str, Any] | RowError]], done: Lines) -> Iterator[tuple[int, Any]]:
    """The rows whose line `--resume` found no row of in `--out`."""
    for line, row in rows:
        if line not in done:
            yield line, row


def _interrupted(args: argparse.Namespace, run: _Scoring, kept: int, signum: int) -> int:
    """Say how far a run stopped by a signal got, and where the rows are; 130 for SIGINT, 143 for SIGTERM."""
    if args.out is None:
        where = "nothing written (no --out)"
    else:
        to = "stdout" if args.out == "-" else args.out
        where = f"{run.written} row{'' if run.written == 1 else 's'} written to {to}"
        if kept:
            where += f", which holds {kept + run.written} in all; --resume goes on from there"
        elif args.out != "-":
            where += "; --resume goes on from there"
    by = "" if signum == signal.SIGINT else f" by {signal.Signals(signum).name}"
    print(f"scorebridge score: interrupted{by} after {run.scored} scored rows; {where}", file=sys.stderr)
    return EXIT["interrupted"] if signum == signal.SIGINT else EXIT["terminated"]


def _local(
    args: argparse.Namespace, scorers: Sequence[Scorer]
) -> tuple[list[Summary], list[GroupedSummaries], int | None] | int:
    """Score here: the summaries, the groups and the bad rows' count (None under --on-bad-row stop), or the
    exit status of a run a signal stopped."""
    name = STDIN if args.file == "-" else args.file
    rows = _rows(args)
    first = next(rows)  # a missing, empty or unreadable input is found before --out is opened
    if isinstance(first[1], RowError) and args.on_bad_row == "stop":
        raise first[1]
    run = _Scoring(args, scorers, name)
    grades = _Grades(name)
    kept = 0
    try:
        out = open_out(args, scorers)
        run.out = sys.stdout if args.out == "-" else out
        every: Iterator[tuple[int, dict[str, Any] | RowError]] = itertools.chain([first], rows)
        if out is not None and out.prior.kept:
            kept = out.prior.kept
            run.resumed(out)
            every = _unscored(every, out.prior.done)
        mode = progress_mode(None, lines_by_default=True)
        if mode != "off":
            total = None if args.file == "-" else count_rows(args.file, args.input_format or format_of(args.file))
            run.bar = Progress(
                "scoring", "rows", total, mode, initial=kept, delay=0.5, every=args.progress_interval, final=False
            )
        with grades:
            if run.inline:
                fast = out is not None and args.file != "-" and all(s.fast for s in scorers)
                # rows of fast scorers from a file come in microseconds: written GATHER rows at a time, or
                # GATHER_WAIT after the first held, whichever is first (never a row held longer than that)
                with out.batch(GATHER, GATHER_WAIT) if fast and out is not None else contextlib.nullcontext():
                    run.run_here(every)
            else:
                import asyncio  # only for scorers that wait: a run of fast built-ins never imports it

                asyncio.run(run.run_concurrently(every))
        run.close(interrupted=run.stop.signum is not None)
        if run.stop.signum is not None:
            return _interrupted(args, run, kept, run.stop.signum)
        grades.report()
        run.said_bad_rows()
        return run.summaries(), run.grouped_summaries(), None if args.on_bad_row == "stop" else len(run.bad)
    except KeyboardInterrupt as exc:
        run.salvage()
        run.close(interrupted=True)
        return _interrupted(args, run, kept, getattr(exc, "signum", signal.SIGINT))
    finally:
        run.close()


_RAY_ONLY: Final = ("address", "actors", "num_cpus", "batch_size", "working_dir", "py_modules", "stall_timeout")
"""The options of --engine ray alone (their dest)."""


def _with_ray(
    args: argparse.Namespace, sources: Sequence[tuple[Scorer, Maker | None]]
) -> tuple[list[Summary], list[GroupedSummaries]] | int:
    if args.file == "-":
        raise UsageError("--engine ray reads files, not standard input")
    try:
        engine = import_module(f"{__package__}.ray_engine")
    except ImportError as exc:
        raise UsageError(f'--engine ray needs Ray: pip install "scorebridge[ray]" ({exc})') from None
    outcome: tuple[list[Summary], list[GroupedSummaries]] | int = engine.score_with_ray(
        args, [s for s, _ in sources], [m for _, m in sources]
    )
    return outcome


_BELOW: Final = "below --fail-under"


def _page(args: argparse.Namespace, scorers: Sequence[Scorer], summaries: Sequence[Summary], grouped: Any) -> None:
    """--report: the summaries (and groups) as one HTML page."""
    from .._runner.report import scorer_text, summary_page, write_page
    from .._runner.store import scorer_identity

    name = STDIN if args.file == "-" else args.file
    provenance: list[tuple[str, Any]] = [("file", os.path.abspath(name) if args.file != "-" else name)]
    if args.file != "-" and os.path.isfile(args.file):
        provenance.append(("file size", f"{os.path.getsize(args.file):,} bytes"))
    provenance.append(("rows", summaries[0].rows))
    for shown, scorer in zip(unique_names([s.name for s in scorers]), scorers, strict=True):
        provenance.append((f"scorer {shown}", scorer_text(scorer_identity(scorer))))
    item = args.item_field or "the first of item, input, question"
    fields = f"output {args.output_field}, label {args.label_field}, item {item}"
    provenance += [("fields", fields), ("engine", args.engine), ("--out", args.out)]
    if args.group_by:
        provenance.append(("group by", ", ".join(parse_group_by(args.group_by))))
    scored_by = ", ".join(unique_names([s.name for s in scorers]))
    page = summary_page(
        f"scorebridge score {name}: {scored_by}",
        summaries,
        kind="scorer",
        grouped=grouped,
        provenance=provenance,
        failing=args.failing,
    )
    write_page(args.report, page)


def _report(
    args: argparse.Namespace,
    scorers: Sequence[Scorer],
    summaries: Sequence[Summary],
    grouped: Sequence[Any] = (),
    bad: int | None = None,
) -> int:
    """Print the summaries (and the groups, the bad rows' count under --on-bad-row record or skip), write
    --report, and give the exit status --fail-under sets."""
    to = sys.stderr if args.out == "-" else sys.stdout
    absent = list(dict.fromkeys(c for groups in grouped for c in groups.absent()))
    if absent:  # the summaries are still printed (the rows are scored, --out written), then the usage error
        grouped = ()
    if args.report:
        _page(args, scorers, summaries, grouped)
    if args.format == "json":
        for n, summary in enumerate(summaries):
            data = summary.as_dict()
            if grouped:
                data["groups"] = grouped[n].as_dict()
            if bad is not None:
                data["bad_rows"] = bad
            cache = cache_of(scorers[n]) if args.engine != "ray" else None  # Ray's workers keep their own counts
            if cache is not None:
                data["grader_cache"] = {"path": str(cache.path), "from_cache": cache.hits, "kept": cache.stored}
            print(json.dumps(data), file=to)
    else:
        name = STDIN if args.file == "-" else args.file
        rows = summaries[0].rows
        made = ", ".join(map(repr, scorers))
        print(f"{name}: {rows} row{'' if rows == 1 else 's'} scored with {made}", file=to)
        print(Summaries(summaries, kind="scorer"), file=to)
        for summary in summaries:
            if summary.grader_failed:  # told apart from the rows with no label, which are expected
                print(f"{summary.name} unscored: {summary.unscored_because()}", file=to)
        if args.engine != "ray":  # Ray's workers keep their own counts
            for line in cache_lines(scorers):
                print(line, file=to)
        if bad is not None:
            done = "left out" if args.on_bad_row == "skip" else "recorded as errors, counted wrong"
            print(f"bad rows: {bad}" + (f" ({done}; each is named on stderr)" if bad else ""), file=to)
        for n, groups in enumerate(grouped):
            whose = f"{summaries[n].name} " if len(summaries) > 1 else ""
            print(f"\n{whose}by {', '.join(groups.columns)}:", file=to)
            print(groups.table(), file=to)
        if args.report:
            print(f"report: {args.report}", file=to)
    bar = args.fail_under
    status = EXIT["ok"]
    for summary in summaries if bar is not None else ():
        if summary.accuracy is not None and summary.accuracy >= bar:
            continue
        figure = (
            "no row was scored, so there is no accuracy"
            if summary.accuracy is None
            else f"accuracy {summary.accuracy:.4f} over {summary.scored} scored rows"
        )
        if summary.grader_failed:  # the grader's failures are why, or part of it
            figure += f" ({summary.unscored_because()})"
        whose = f"{summary.name}: " if len(summaries) > 1 else ""
        print(f"scorebridge score: {whose}{figure}: {_BELOW} {bar:g}", file=sys.stderr)
        status = EXIT["below"]
    if absent:
        names = ", ".join(map(repr, absent))
        print(f"scorebridge score: --group-by: no row has the column {names}, so no groups", file=sys.stderr)
        return EXIT["usage"]
    return status


def run(args: argparse.Namespace) -> int:
    """Run `scorebridge score`; the exit status (usage and file errors are raised for `main` to report)."""
    if args.engine != "ray":
        for dest in _RAY_ONLY:
            if getattr(args, dest, None) is not None:
                raise UsageError(f"--{dest.replace('_', '-')} is for --engine ray")
    with terminate_as_interrupt():  # SIGTERM (a CI job's timeout) stops the run as Ctrl-C does
        sources = load_for_workers(args.scorers, args.options) if args.engine == "ray" else None
        scorers = [s for s, _ in sources] if sources is not None else load_scorers(args.scorers, args.options)
        _check_out(args)
        _check_group_by(args)
        if args.report is not None:
            check_report(args.report)  # before any row is scored
        names = unique_names([s.name for s in scorers])
        fields = (args.item_field, args.output_field, args.label_field)
        args.failing = None
        if args.report is not None and args.engine == "local":
            from .._runner.report import FailingRows

            args.failing = FailingRows(names, args.show, fields=fields)
        if sources is not None:
            _check_ray(args)
            on_ray = _with_ray(args, sources)
            return on_ray if isinstance(on_ray, int) else _report(args, scorers, *on_ray)
        outcome = _local(args, scorers)
        if isinstance(outcome, int):
            return outcome
        summaries, grouped, bad = outcome
        return _report(args, scorers, summaries, grouped, bad)


def _check_ray(args: argparse.Namespace) -> None:
    """Refuse what --engine ray does not do (another engine's options must not be dropped silently)."""
    for flag, given in (
        ("--timeout", args.timeout is not None),
        ("--on-bad-row", args.on_bad_row != "stop"),
    ):
        if given:
            raise UsageError(f"{flag} is for the local engine; --engine ray does not take it")


def _check_group_by(args: argparse.Namespace) -> None:
    """Refuse a `--group-by` with a blank name or a name given twice, before any row is scored (exit status 2)."""
    try:
        parse_group_by(args.group_by)
    except ValueError as exc:
        raise UsageError(f"--group-by: {str(exc).removeprefix('group_by: ')}") from None
