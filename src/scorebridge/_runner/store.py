"""The `out` file of a benchmark: a header naming the scorer, then one record a line; one writer at a time.

The file is JSON Lines. Its first line is the header,
`{"scorebridge": "benchmark", "format": 1, "scorer": {"name": ..., "options": {...}}}`,
which says what scored the records, so a resume under another scorer (or other
options) is refused instead of mixing verdicts. Each further line is one
`BenchmarkRecord`, written and flushed as it is made.

One process at a time: the file is locked for the whole run with an exclusive,
non-blocking `fcntl.flock` (`msvcrt.locking` on Windows) on the file itself. A
second process gets a clear error at once, and never reads a file another is
still appending to (which is how a resumer used to truncate a running writer's
fresh lines). The operating system drops the lock when the process ends, however
it ends, so no stale lock file is left behind; that is why it is flock and not a
lock file (filelock's default on Unix is the same system call, on a second file).
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Collection, Hashable, Mapping
from typing import IO, Any, Final

from .._protocol.score import FAILURE_KINDS
from .._protocol.scorer import Scorer
from .._scorers.model_graded import grading_options
from .files import RowError, json_object
from .records import FIELDS, NEWER_FIELDS, BenchmarkRecord, json_safe
from .summary import grader_failed

__all__ = ["OutFile", "scorer_identity"]

Key = tuple[str, Hashable, int]

_FORMAT: Final = 1


def scorer_identity(scorer: Scorer) -> dict[str, Any]:
    """What the header records of a scorer: its name and options, as JSON data.

    An option JSON cannot hold (a grader model, a function) is recorded by its
    type's name, so two graders of one kind count as the same option: the file
    cannot tell them apart, and says so nowhere else either. A model-graded
    scorer's retry, rate and cache are not recorded: they change how its
    grader is asked, not what a reply grades.
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


def _shown(identity: Mapping[str, Any]) -> str:
    options = ", ".join(f"{k}={v!r}" for k, v in identity.get("options", {}).items())
    return f"{identity.get('name')}({options})"


def _lock(f: IO[bytes], path: str) -> None:
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
        raise RuntimeError(
            f"benchmark: {path} is being written by another process (a benchmark that is still running); "
            "wait for it to finish, or give this one another out="
        ) from None


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
    the header to a new or empty file. `records` are the ones whose (arm,
    item_id, run) is in `wanted`; the others stay in the file, with a warning.
    Of several records of one key the first is kept, but a later one replaces
    a record whose grader failed (`grader_failed`: a resume asked again).
    """

    def __init__(self, path: str, identity: Mapping[str, Any], wanted: Collection[Key]) -> None:
        self.path = path
        self.records: dict[Key, BenchmarkRecord] = {}
        self.count = 0  # records in the file
        self._file: IO[bytes] | None = open(path, "a+b")  # noqa: SIM115  # closed by close()
        _lock(self._file, path)
        try:
            self._load(identity, wanted)
        except BaseException:
            self.close()
            raise

    def _load(self, identity: Mapping[str, Any], wanted: Collection[Key]) -> None:
        f = self._file
        assert f is not None
        f.seek(0)
        end = 0
        header: dict[str, Any] | None = None
        ignored = 0
        newline_missing = False
        for line, raw in enumerate(f, start=1):
            if not raw.endswith(b"\n"):
                try:  # a last line without its newline: whole (its newline never written), or cut short
                    row = json_object(self.path, line, raw.decode("utf-8"))
                except (RowError, UnicodeDecodeError):
                    warnings.warn(
                        f"{self.path}:{line}: dropped an incomplete last record (a crash mid-write?)", stacklevel=5
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
            if header is None:
                header = self._header(line, row, identity)
                continue
            record = _record(self.path, line, row)
            self.count += 1
            key = (record.arm, record.item_id, record.run)
            if key in wanted:
                kept = self.records.get(key)
                if kept is None or grader_failed(kept):
                    self.records[key] = record
            else:
                ignored += 1
        f.truncate(end)
        if newline_missing:
            f.write(b"\n")
        if header is None:
            f.write(
                json.dumps({"scorebridge": "benchmark", "format": _FORMAT, "scorer": dict(identity)}).encode() + b"\n"
            )
        f.flush()
        if ignored:
            warnings.warn(
                f"{self.path}: {ignored} record(s) are for arms, items or runs not in this benchmark; "
                "they stay in the file and are left out of the result",
                stacklevel=5,
            )

    def _header(self, line: int, row: dict[str, Any], identity: Mapping[str, Any]) -> dict[str, Any]:
        if row.get("scorebridge") != "benchmark" or not isinstance(row.get("scorer"), dict):
            raise RowError(
                self.path,
                line,
                "not a benchmark file of this scorebridge: its first line is not the header naming the scorer "
                "(give benchmark() a new out= file)",
            )
        if row.get("format") != _FORMAT:
            raise RowError(self.path, line, f"a benchmark file of format {row.get('format')!r}; this reads {_FORMAT}")
        if row["scorer"] != dict(identity):
            raise ValueError(
                f"benchmark: {self.path} holds records scored by {_shown(row['scorer'])}; this benchmark scores "
                f"with {_shown(identity)}. Resume with the same scorer and options, or give another out= file"
            )
        return row

    def write(self, record: BenchmarkRecord) -> None:
        """Append `record` as one line, flushed."""
        if self._file is None:
            raise ValueError(f"{self.path} is closed")
        self._file.write(json.dumps(record._asdict()).encode() + b"\n")
        self._file.flush()
        self.count += 1

    def close(self) -> None:
        """Close the file, which drops the lock."""
        if self._file is not None:
            self._file.close()
            self._file = None
