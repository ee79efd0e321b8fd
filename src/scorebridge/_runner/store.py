"""The `out` file of a benchmark: a header naming the scorer, then one record a line; one writer at a time.

The file is JSON Lines. Its first line is the header,
`{"scorebridge": "benchmark", "format": 1, "scorer": {"name": ..., "options": {...}}}`,
which says what scored the records, so a resume under another scorer (or other
options) is refused instead of mixing verdicts. Each further line is one
`BenchmarkRecord`, written as it is made (`LockedLines`: one unbuffered write a line, an fsync once a
second). `scorebridge score --out` files are held the same way (`scorebridge._cli.out`).

One process at a time: the file is locked for the whole run with an exclusive,
non-blocking `fcntl.flock` (`msvcrt.locking` on Windows) on the file itself. A
second process gets a clear error at once, and never reads a file another is
still appending to (which is how a resumer used to truncate a running writer's
fresh lines). The operating system drops the lock when the process ends, however
it ends, so no stale lock file is left behind; that is why it is flock and not a
lock file (filelock's default on Unix is the same system call, on a second file).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
import time
import warnings
from collections.abc import Collection, Hashable, Iterable, Iterator, Mapping
from typing import IO, Any, Final

from .._protocol.score import FAILURE_KINDS
from .._protocol.scorer import Scorer
from .._scorers.model_graded import grading_options
from .files import RowError, json_object
from .records import FIELDS, NEWER_FIELDS, BenchmarkRecord, json_safe
from .summary import grader_failed

__all__ = ["SYNC_EVERY", "LockedLines", "OutFile", "header_of", "scorer_identity", "shown_scorer"]

Key = tuple[str, Hashable, int]

_FORMAT: Final = 1


def scorer_identity(scorer: Scorer) -> dict[str, Any]:
    """What the header records of a scorer: its name and options, as JSON data.

    An option JSON cannot hold (a function, an object) is recorded by its
    type's name, so two of one kind count as the same option: the file cannot
    tell them apart, and says so nowhere else either. A model-graded scorer's
    grader is recorded as its cache knows it (`grader_identity`: the model,
    its API and sampling settings; a function's file and name), and its retry,
    rate and cache are not recorded: they change how its grader is asked, not
    what a reply grades.
    """

    def plain(value: Any) -> Any:
        if value is None or isinstance(value, (str, bool, int, float)):
            return json_safe(value)
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        if isinstance(value, Mapping):
            return {str(k): plain(v) for k, v in value.items()}
        return f"<{type(value).__qualname__}>"

    return {"name": scorer.name, "options": {str(k): plain(v) for k, v in grading_options(scorer).items()}}


def shown_scorer(identity: Mapping[str, Any]) -> str:
    """A scorer's identity (`scorer_identity`) as a call: `exact(normalise=True)`."""
    options = ", ".join(f"{k}={v!r}" for k, v in identity.get("options", {}).items())
    return f"{identity.get('name')}({options})"


def header_of(path: str, line: int, row: Mapping[str, Any], kind: str, field: tuple[str, type], not_ours: str) -> None:
    """Check that `row`, the first line of a file, is the header of a file of `kind` ("benchmark", "score") in
    the format this version reads, naming what made the file in `field` (its key, and the type of its value):
    a `RowError` saying `not_ours` when it is no such header, naming the format when it is another. What the
    header says of the scorers, its caller compares."""
    key, shape = field
    if row.get("scorebridge") != kind or not isinstance(row.get(key), shape):
        raise RowError(path, line, not_ours)
    if row.get("format") != _FORMAT:
        raise RowError(path, line, f"a {kind} file of format {row.get('format')!r}; this reads {_FORMAT}")


SYNC_EVERY: Final = 1.0
"""Seconds between two fsyncs of a file appended line by line (each line is flushed as it is written)."""


def _lock(f: IO[bytes], busy: str) -> None:
    """Take the exclusive lock of the open file `f`; a RuntimeError saying `busy` when another process holds it."""
    try:
        if sys.platform == "win32":
            import msvcrt

            f.seek(0)  # the lock covers bytes from the position: every writer locks the first one
            msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise RuntimeError(busy) from None


class LockedLines:
    """A JSON Lines file held for one writer: its whole lines read back, then whole lines appended.

    Opening takes the exclusive lock (`busy` is the RuntimeError's message when
    another process holds it). `lines()` reads the file from its start and,
    once read to its end, drops an incomplete last line (a crash mid-write: a
    line cut short, which a resume must not misread) or gives a whole last line
    the newline it lacks. `append` hands each line to the operating system in one
    write, unbuffered, so a process killed any way (SIGKILL included) loses no
    line it appended, and a line is never cut but by a full disk; the file is
    fsync'd at most once every `SYNC_EVERY` seconds and at `close`, so a crash
    of the machine itself loses at most the last second.
    """

    def __init__(self, path: str, busy: str) -> None:
        self.path = path
        self._file: IO[bytes] | None = open(path, "a+b")  # noqa: SIM115  # closed by close()
        _lock(self._file, busy)
        self._synced = time.monotonic()
        self._batch: list[bytes] | None = None  # lines held by `batch`
        self._most, self._wait, self._since = math.inf, math.inf, 0.0

    def lines(self, stacklevel: int = 2) -> Iterator[tuple[int, dict[str, Any]]]:
        """Each whole line from the start, as `(line number, object)` (blank lines skipped); a `RowError` names a
        line that is not a JSON object, or not UTF-8. Read to its end, the file is left ending in a whole line."""
        f = self._file
        assert f is not None
        f.seek(0)
        end = 0
        newline_missing = False
        for line, raw in enumerate(f, start=1):
            if not raw.endswith(b"\n"):
                try:  # a last line without its newline: whole (its newline never written), or cut short
                    row = json_object(self.path, line, raw.decode("utf-8"))
                except (RowError, UnicodeDecodeError):
                    warnings.warn(
                        f"{self.path}:{line}: dropped an incomplete last record (a crash mid-write?)",
                        stacklevel=stacklevel + 1,
                    )
                    break
                newline_missing = True
            else:
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise RowError(self.path, line, "not UTF-8 text") from None
                if not text.strip():
                    end += len(raw)
                    continue
                row = json_object(self.path, line, text)
            end += len(raw)
            yield line, row
        f.truncate(end)
        f.flush()
        if newline_missing:
            self.append(b"\n")

    def append(self, data: bytes) -> None:
        """Append `data` (whole lines) in one write to the file, not through a buffer (inside `batch`, when the
        batch is written); fsync'd when `SYNC_EVERY` seconds have passed since the last."""
        f = self._file
        if f is None:
            raise ValueError(f"{self.path} is closed")
        held = self._batch
        if held is not None:
            held.append(data)
            if len(held) < self._most and time.monotonic() - self._since < self._wait:
                return
            self._batch, data = [], b"".join(held)
            self._since = time.monotonic()
        fd = f.fileno()
        done = os.write(fd, data)
        if done < len(data):  # a regular file takes it whole; a full disk may take part and raise on the rest
            view = memoryview(data)[done:]
            while view:
                view = view[os.write(fd, view) :]
        now = time.monotonic()
        if now - self._synced >= SYNC_EVERY:
            os.fsync(fd)
            self._synced = now

    @contextlib.contextmanager
    def batch(self, most: float = math.inf, wait: float = math.inf) -> Iterator[None]:
        """While it lasts, the lines appended are written together: `most` lines at a time, or those appended
        within `wait` seconds of the first held, and the rest at its end (also when it ends by an exception)."""
        if self._batch is not None:
            yield
            return
        self._batch, self._most, self._wait, self._since = [], most, wait, time.monotonic()
        try:
            yield
        finally:
            pending, self._batch = self._batch, None
            if pending:
                self.append(b"".join(pending))

    def truncate(self) -> None:
        """Empty the file."""
        if self._file is None:
            raise ValueError(f"{self.path} is closed")
        self._file.truncate(0)
        self._file.flush()

    def replace(self, lines: Iterable[bytes]) -> None:
        """Make the file hold `lines` instead, atomically: a new file is written beside it, fsync'd, locked, then
        put in its place, so a crash leaves the old file or the new one whole, and the lock never lapses."""
        import tempfile

        folder = os.path.dirname(os.path.abspath(self.path))
        fd, temp = tempfile.mkstemp(prefix=".scorebridge-", suffix=".part", dir=folder)
        try:
            new: IO[bytes] = os.fdopen(fd, "a+b")
            with contextlib.suppress(OSError):  # keep the old file's permissions
                os.chmod(temp, os.stat(self.path).st_mode & 0o7777)
            new.writelines(lines)
            new.flush()
            os.fsync(new.fileno())
            _lock(new, f"{self.path}: cannot lock the rewritten file")
            os.replace(temp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        old, self._file = self._file, new
        if old is not None:
            old.close()

    def close(self) -> None:
        """fsync and close the file, which drops the lock; again does nothing."""
        f, self._file = self._file, None
        if f is not None:
            try:
                f.flush()
                os.fsync(f.fileno())
            finally:
                f.close()


def _record(path: str, line: int, row: dict[str, Any]) -> BenchmarkRecord:
    missing = [f for f in FIELDS if f not in row and f not in NEWER_FIELDS]
    if missing:
        raise RowError(path, line, f"not a benchmark record: no {', '.join(missing)}")
    if (
        not isinstance(row["arm"], str)
        or type(row["run"]) is not int
        or type(row["item_id"]) not in (int, str)
        or type(row["correct"]) not in (bool, type(None))
        or (row["failure_kind"] is not None and row["failure_kind"] not in FAILURE_KINDS)
        or not isinstance(row["metadata"], dict)
    ):
        raise RowError(path, line, "not a benchmark record: a field has the wrong type")
    return BenchmarkRecord(**{f: row[f] for f in FIELDS if f in row})


class OutFile:
    """An open, locked `out` file: the records it already holds, and a way to add more.

    Opening it takes the lock, reads what is there (checking the header against
    `identity`), drops an incomplete last line (a crash mid-write) and writes
    the header to a new or empty file (`LockedLines`). `records` are the ones
    whose (arm, item_id, run) is in `wanted`; the others stay in the file, with
    a warning. Of several records of one key the first is kept, but a later one
    replaces a record whose grader failed (`grader_failed`: a resume asked again).
    """

    def __init__(self, path: str, identity: Mapping[str, Any], wanted: Collection[Key]) -> None:
        self.path = path
        self.records: dict[Key, BenchmarkRecord] = {}
        busy = (
            f"benchmark: {path} is being written by another process (a benchmark that is still running); "
            "wait for it to finish, or give this one another out="
        )
        self._file: LockedLines | None = LockedLines(path, busy)
        try:
            self._load(identity, wanted)
        except BaseException:
            self.close()
            raise

    def _load(self, identity: Mapping[str, Any], wanted: Collection[Key]) -> None:
        f = self._file
        assert f is not None
        header: dict[str, Any] | None = None
        ignored = 0
        for line, row in f.lines(stacklevel=5):
            if header is None:
                header = self._header(line, row, identity)
                continue
            record = _record(self.path, line, row)
            key = (record.arm, record.item_id, record.run)
            if key in wanted:
                kept = self.records.get(key)
                if kept is None or grader_failed(kept):
                    self.records[key] = record
            else:
                ignored += 1
        if header is None:
            f.append(
                json.dumps({"scorebridge": "benchmark", "format": _FORMAT, "scorer": dict(identity)}).encode() + b"\n"
            )
        if ignored:
            warnings.warn(
                f"{self.path}: {ignored} record(s) are for arms, items or runs not in this benchmark; "
                "they stay in the file and are left out of the result",
                stacklevel=5,
            )

    def _header(self, line: int, row: dict[str, Any], identity: Mapping[str, Any]) -> dict[str, Any]:
        header_of(
            self.path,
            line,
            row,
            "benchmark",
            ("scorer", dict),
            "not a benchmark file of this scorebridge: its first line is not the "
            "header naming the scorer (give benchmark() a new out= file)",
        )
        if row["scorer"] != dict(identity):
            raise ValueError(
                f"benchmark: {self.path} holds records scored by {shown_scorer(row['scorer'])}; this benchmark scores "
                f"with {shown_scorer(identity)}. Resume with the same scorer and options, or give another out= file"
            )
        return row

    def write(self, record: BenchmarkRecord) -> None:
        """Append `record` as one line, flushed."""
        if self._file is None:
            raise ValueError(f"{self.path} is closed")
        self._file.append(json.dumps(record._asdict()).encode() + b"\n")

    def saved(self) -> int:
        """How many records the file holds, counted on disk: a count kept beside `write` could be one short,
        where a Ctrl-C lands between a line's write and the count (seen on Python 3.10, whose asyncio.run lets
        a KeyboardInterrupt out at any point)."""
        with open(self.path, "rb") as f:
            return max(sum(1 for line in f if line.strip()) - 1, 0)  # less the header

    def close(self) -> None:
        """Close the file, which drops the lock."""
        if self._file is not None:
            self._file.close()
            self._file = None
