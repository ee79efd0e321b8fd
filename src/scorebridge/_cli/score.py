"""`scorebridge score`: score a file of outputs with one or more scorers, stream the scored rows, print the summaries.

Each row is read once and scored by every scorer. Scorers that wait (async ones, and sync ones that may
block: a grader model, an API of yours) score up to `--concurrency` rows at once, async ones on one event
loop and sync ones on threads; the fast built-ins run inline. Rows are written to `--out` in the input's
order as soon as they and every row before them are scored, and at most twice `--concurrency` rows are
held at a time, so memory stays flat however long the file is; the summaries are counted on the way.
Everything that can be checked before scoring is: the scorers and their options (each value against its
option), the input's first row, the output file.
"""

from __future__ import annotations

import argparse
import collections
import contextvars
import itertools
import json
import math
import os
import sys
import threading
import warnings
from collections.abc import Iterator, Mapping, Sequence
from importlib import import_module
from typing import IO, TYPE_CHECKING, Any, Final

from .._protocol.score import FAILURE_KINDS, Score, ScorerContractError, UnreadableLabel
from .._protocol.scorer import Scorer
from .._runner.files import RowError, format_of, read_rows, read_stream
from .._runner.groups import GroupedSummaries, group_key, group_name, parse_group_by
from .._runner.progress import Progress, count_rows, progress_mode
from .._runner.scored import LINE, score_columns, scorer_columns, unique_names
from .._runner.summary import Summaries, Summary
from .compare import check_report
from .load import Maker, describe, load_for_workers, load_scorers
from .main import EXIT, ITEM_FIELDS, UsageError
from .out import Lines, ScoredOut, open_out

if TYPE_CHECKING:
    import asyncio

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

    __slots__ = ("correct", "kinds", "rows", "scored", "total")

    def __init__(self) -> None:
        self.rows = self.scored = self.correct = 0
        self.total = 0.0
        self.kinds = dict.fromkeys(FAILURE_KINDS, 0)

    def add(self, score: Score) -> None:
        self.rows += 1
        if score.correct is None:
            return
        self.scored += 1
        self.correct += score.correct is True
        self.total += score.value if score.value is not None else float(score.correct)
        if score.failure_kind is not None:
            self.kinds[score.failure_kind] += 1

    def summary(self, name: str) -> Summary:
        return Summary.from_counts(name, self.rows, self.scored, self.correct, self.total, self.kinds)


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
        self._added = {LINE, *(c for name in self.names for c in scorer_columns(name))}

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
        if isinstance(exc, ScorerContractError):
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

    def count(self, row: Mapping[str, Any], scores: Sequence[Score]) -> None:
        """Count one row's Scores in the summaries (and its group's)."""
        for tally, score in zip(self.tallies, scores):  # noqa: B905  # one Score per scorer, by construction
            tally.add(score)
        if self.group_by:
            key = group_key(row, self.group_by)
            for groups, score in zip(self.grouped, scores, strict=True):
                groups.setdefault(key, _Tally()).add(score)

    def resumed(self, out: ScoredOut) -> None:
        """Count the rows an `--out` held when a `--resume` began, so the summary counts the whole file."""
        for _, row, scores in out.rows():
            self.count(row, [scores[name] for name in self.names])

    def keep(self, line: int, row: Mapping[str, Any], scores: Sequence[Score]) -> None:
        self.count(row, scores)
        self.scored += 1
        out = self.out
        if out is not None:
            if not self._added.isdisjoint(row):
                taken = ", ".join(sorted(self._added.intersection(row)))
                raise RowError(self.path, line, f"the row has a field --out writes ({taken}); rename it")
            out.write(json_line(self.path, line, row, dict(zip(self.names, scores))))  # noqa: B905
            if out is sys.stdout:
                out.flush()
            self.written += 1
        if self.bar is not None:
            self.bar.update()

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
        """True when no scorer waits (all fast), or one row at a time with sync scorers: no event loop."""
        scorers = self.scorers
        return all(s.fast for s in scorers) or (self.args.concurrency == 1 and not any(s.is_async for s in scorers))

    def run_here(self, rows: Iterator[tuple[int, dict[str, Any]]]) -> None:
        count = range(len(self.scorers))
        for line, row in rows:
            item, output, label = self.inputs(line, row)
            try:
                scores = [self.call(i, line, item, output, label) for i in count]
            except _Raised as raised:
                raise self.failed(raised.scorer, line, raised.exc) from None
            self.keep(line, row, scores)

    # --- up to --concurrency rows at once, in an event loop ----------------------------------

    async def run_concurrently(self, rows: Iterator[tuple[int, dict[str, Any]]]) -> None:
        import asyncio
        from concurrent.futures import ThreadPoolExecutor

        n = self.args.concurrency
        blocking = any(not s.fast and not s.is_async for s in self.scorers)
        pool = ThreadPoolExecutor(n, thread_name_prefix="scorebridge-score") if blocking else None
        gate = asyncio.Semaphore(n)
        window: collections.deque[tuple[int, dict[str, Any], asyncio.Future[list[Score]]]] = collections.deque()

        async def one(i: int, line: int, item: Any, output: Any, label: Any) -> Score:
            scorer = self.scorers[i]
            if scorer.fast:
                return self.call(i, line, item, output, label)
            async with gate:
                if pool is not None and not scorer.is_async:
                    run = contextvars.copy_context().run
                    loop = asyncio.get_running_loop()
                    return await loop.run_in_executor(pool, run, self.call, i, line, item, output, label)
                _SCORING.set((self.names[i], line))
                try:
                    return await scorer.acall(item, output, label)
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

        async def write_first() -> None:
            line, row, task = window.popleft()
            try:
                scores = await task
            except _Raised as raised:
                raise self.failed(raised.scorer, line, raised.exc) from None
            self.keep(line, row, scores)

        stop: RowError | None = None
        try:
            while True:
                try:
                    line, row = next(rows)
                except StopIteration:
                    break
                except RowError as exc:  # a row that cannot be read: the rows before it are written first
                    stop = exc
                    break
                task: asyncio.Future[list[Score]]
                try:
                    task = asyncio.ensure_future(scored(line, *self.inputs(line, row)))
                except RowError as exc:  # a missing field: raised at its turn
                    task = asyncio.get_running_loop().create_future()
                    task.set_exception(exc)
                window.append((line, row, task))
                while len(window) >= 2 * n or (window and window[0][2].done()):
                    await write_first()
            while window:
                await write_first()
        finally:
            for _, _, task in window:
                task.cancel()
            await asyncio.gather(*(t for _, _, t in window), return_exceptions=True)
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
        if stop is not None:
            raise stop

    def close(self) -> None:
        """Close the progress bar and `--out` (flushing the rows written); again does nothing."""
        bar, out, self.bar, self.out = self.bar, self.out, None, None
        if bar is not None:
            bar.close()
        if out is not None and out is not sys.stdout:
            out.close()


def _rows(args: argparse.Namespace) -> Iterator[tuple[int, dict[str, Any]]]:
    if args.file == "-":
        if args.input_format == "parquet":
            raise UsageError("Parquet cannot be read from standard input (it is read by seeking); name the file")
        return read_stream(STDIN, sys.stdin.buffer, args.input_format or "jsonl")
    return read_rows(args.file, args.input_format)


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


def _unscored(rows: Iterator[tuple[int, dict[str, Any]]], done: Lines) -> Iterator[tuple[int, dict[str, Any]]]:
    """The rows whose line `--resume` found no row of in `--out`."""
    for line, row in rows:
        if line not in done:
            yield line, row


def _interrupted(args: argparse.Namespace, run: _Scoring, kept: int) -> int:
    if args.out is None:
        where = "nothing written (no --out)"
    else:
        to = "stdout" if args.out == "-" else args.out
        where = f"{run.written} row{'' if run.written == 1 else 's'} written to {to}"
        if kept:
            where += f", which holds {kept + run.written} in all; --resume goes on from there"
        elif args.out != "-":
            where += "; --resume goes on from there"
    print(f"scorebridge score: interrupted after {run.scored} scored rows; {where}", file=sys.stderr)
    return EXIT["interrupted"]


def _local(args: argparse.Namespace, scorers: Sequence[Scorer]) -> tuple[list[Summary], list[GroupedSummaries]] | int:
    name = STDIN if args.file == "-" else args.file
    rows = _rows(args)
    first = next(rows)  # a missing, empty or unreadable input is found before --out is opened
    run = _Scoring(args, scorers, name)
    grades = _Grades(name)
    kept = 0
    try:
        out = open_out(args, scorers)
        run.out = sys.stdout if args.out == "-" else out
        every: Iterator[tuple[int, dict[str, Any]]] = itertools.chain([first], rows)
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
                run.run_here(every)
            else:
                import asyncio  # only for scorers that wait: a run of fast built-ins never imports it

                asyncio.run(run.run_concurrently(every))
        run.close()
        grades.report()
        return run.summaries(), run.grouped_summaries()
    except KeyboardInterrupt:
        run.close()
        return _interrupted(args, run, kept)
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
    page = summary_page(f"scorebridge score {name}", summaries, kind="scorer", grouped=grouped, provenance=provenance)
    write_page(args.report, page)


def _report(
    args: argparse.Namespace, scorers: Sequence[Scorer], summaries: Sequence[Summary], grouped: Sequence[Any] = ()
) -> int:
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
            print(json.dumps(data), file=to)
    else:
        name = STDIN if args.file == "-" else args.file
        rows = summaries[0].rows
        made = ", ".join(map(repr, scorers))
        print(f"{name}: {rows} row{'' if rows == 1 else 's'} scored with {made}", file=to)
        print(Summaries(summaries, kind="scorer"), file=to)
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
    sources = load_for_workers(args.scorers, args.options) if args.engine == "ray" else None
    scorers = [s for s, _ in sources] if sources is not None else load_scorers(args.scorers, args.options)
    _check_out(args)
    _check_group_by(args)
    if args.report is not None:
        check_report(args.report)  # before any row is scored
    outcome = _with_ray(args, sources) if sources is not None else _local(args, scorers)
    if isinstance(outcome, int):
        return outcome
    return _report(args, scorers, *outcome)


def _check_group_by(args: argparse.Namespace) -> None:
    """Refuse a `--group-by` with a blank name or a name given twice, before any row is scored (exit status 2)."""
    try:
        parse_group_by(args.group_by)
    except ValueError as exc:
        raise UsageError(f"--group-by: {str(exc).removeprefix('group_by: ')}") from None
