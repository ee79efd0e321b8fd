"""Reading rows of data files (JSONL, CSV, Parquet) with their line numbers, and one clear error per bad line."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import IO, Any, Literal

from .._protocol.cells import csv_cell

__all__ = [
    "FORMATS",
    "SUFFIXES",
    "Each",
    "Format",
    "RowError",
    "format_of",
    "json_object",
    "read_rows",
    "read_rows_each",
    "read_stream",
    "read_stream_each",
]

JSONL_SUFFIXES = (".jsonl", ".ndjson")
CSV_SUFFIXES = (".csv",)
PARQUET_SUFFIXES = (".parquet", ".pq")

Format = Literal["jsonl", "csv", "parquet"]
SUFFIXES: Mapping[Format, tuple[str, ...]] = {"jsonl": JSONL_SUFFIXES, "csv": CSV_SUFFIXES, "parquet": PARQUET_SUFFIXES}
"""Each format, and the endings of the file names read in it."""
FORMATS: tuple[Format, ...] = tuple(SUFFIXES)


class RowError(ValueError):
    """A data file that cannot be read; the message is "FILE:LINE: problem" (or "FILE: problem")."""

    def __init__(self, path: str | os.PathLike[str], line: int | None, problem: str) -> None:
        self.path = os.fspath(path)
        self.line = line
        self.problem = problem
        super().__init__(f"{self.path}:{line}: {problem}" if line is not None else f"{self.path}: {problem}")


def json_object(path: str | os.PathLike[str], line: int, text: str) -> dict[str, Any]:
    """One line of a JSONL file as a dict; a `RowError` naming the file and line if it is not a JSON object."""
    import json

    try:
        row = json.loads(text.rstrip("\r\n"))
    except json.JSONDecodeError as exc:
        where = "" if exc.msg.endswith(" at") else " at"  # "Unterminated string starting at": where it starts
        raise RowError(path, line, f"not valid JSON ({exc.msg}{where} column {exc.colno})") from None
    except RecursionError:  # arrays or objects nested deeper than the interpreter's recursion limit
        raise RowError(path, line, "not readable JSON (arrays or objects nested too deeply)") from None
    except ValueError as exc:  # an integer of more digits than int() converts (sys.get_int_max_str_digits)
        limit: int = getattr(sys, "get_int_max_str_digits", lambda: 0)()
        problem = f"a number of more than {limit} digits" if limit and "digits" in str(exc) else str(exc)
        raise RowError(path, line, f"not readable JSON ({problem})") from None
    if not isinstance(row, dict):
        raise RowError(path, line, f"expected a JSON object, got a JSON {type(row).__name__}")
    return row


Each = Iterator[tuple[int, dict[str, Any] | RowError]]
"""Rows as a reader gives them: `(line, row)`, or `(line, RowError)` for a line that cannot be read."""


def _decoded(path: str | os.PathLike[str], lines: Iterable[bytes]) -> Iterator[tuple[int, str | RowError]]:
    for number, raw in enumerate(lines, start=1):
        try:
            yield number, raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            yield number, RowError(path, number, f"not UTF-8 text ({exc.reason} at byte {exc.start})")


def _jsonl(path: str | os.PathLike[str], lines: Iterable[bytes]) -> Each:
    for number, text in _decoded(path, lines):
        if isinstance(text, RowError):
            yield number, text
        elif text.strip():
            try:
                yield number, json_object(path, number, text)
            except RowError as exc:
                yield number, exc


def _csv(path: str | os.PathLike[str], lines: Iterable[bytes]) -> Each:
    import csv

    bad: list[tuple[int, RowError]] = []  # lines that are not UTF-8, said at their turn

    def texts() -> Iterator[str]:
        for number, text in _decoded(path, lines):
            if isinstance(text, RowError):
                bad.append((number, text))
                yield "\n"  # a blank line in its place, so the line numbers still count
            else:
                yield text

    reader = csv.reader(texts(), strict=True)
    header: list[str] | None = None
    while True:
        start = reader.line_num + 1  # a quoted field may hold line breaks: a row is named by its first line
        try:
            row: list[str] | RowError | None = next(reader)
        except StopIteration:
            row = None
        except csv.Error as exc:
            row = RowError(path, start, f"not valid CSV ({exc})")
        for number, error in bad:
            if header is None:  # before the header is read, no row can be
                raise error
            yield number, error
        bad.clear()
        if row is None:
            return
        if isinstance(row, RowError):
            if header is None:
                raise row
            yield start, row
        elif not row:  # a blank line
            continue
        elif header is None:
            blank = [i + 1 for i, name in enumerate(row) if not name.strip()]
            twice = sorted({name for name in row if row.count(name) > 1})
            if blank or twice:
                problem = f"column {blank[0]} has no name" if blank else f"the column {twice[0]!r} appears twice"
                raise RowError(path, start, f"the header row is not usable: {problem}")
            header = row
        elif len(row) != len(header):
            yield start, RowError(path, start, f"{len(row)} fields, but the header has {len(header)}")
        else:
            where = os.fspath(path)
            yield start, {name: csv_cell(text, where, start, name) for name, text in zip(header, row, strict=True)}


def _parquet(path: str | os.PathLike[str], f: IO[bytes]) -> Each:
    from importlib import import_module

    try:
        pq = import_module("pyarrow.parquet")  # optional, and untyped: mypy need not know it
    except ImportError:
        raise RowError(path, None, "reading Parquet needs pyarrow: pip install pyarrow") from None
    try:
        batches = pq.ParquetFile(f).iter_batches(batch_size=1024)
    except Exception as exc:  # pyarrow's ArrowInvalid and OSError: not Parquet, or cut short
        raise RowError(path, None, f"not a readable Parquet file ({exc})") from None
    number = 0
    for batch in batches:
        for row in batch.to_pylist():
            number += 1
            yield number, row


_READERS: dict[str, Callable[[str | os.PathLike[str], IO[bytes]], Each]] = {
    "jsonl": _jsonl,
    "csv": _csv,
    "parquet": _parquet,
}


def format_of(
    path: str | os.PathLike[str], what: str = "the input", formats: Mapping[Format, tuple[str, ...]] = SUFFIXES
) -> Format:
    """The format of the file `path` (`what`, in the message) from its name's ending, one of `formats`."""
    name = os.fspath(path).lower()
    for fmt, suffixes in formats.items():
        if name.endswith(suffixes):
            return fmt
    endings = ", ".join(s for suffixes in formats.values() for s in suffixes)
    raise RowError(path, None, f"unknown format for {what}; the file name must end in {endings}")


def read_stream_each(name: str | os.PathLike[str], f: IO[bytes], format: Format = "jsonl") -> Each:
    """The rows of an open binary file as `read_stream` reads them, a line that cannot be read given as
    `(line, RowError)` in its place and the reading going on (`scorebridge score --on-bad-row`).

    What stops every row is still raised: an unknown format, a file that is no Parquet, a CSV header that
    cannot be read, no row at all.
    """
    if format not in _READERS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {format!r}")
    empty = True
    for row in _READERS[format](name, f):
        empty = False
        yield row
    if empty:
        raise RowError(name, None, "holds no rows")


def read_stream(
    name: str | os.PathLike[str], f: IO[bytes], format: Format = "jsonl"
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The rows of an open binary file (standard input, say) in `format`, as `read_rows` reads a file.

    `name` names the stream in errors ("<stdin>:3: problem"). The stream is not
    closed. An empty stream is a `RowError`, as an empty file is.
    """
    for line, row in read_stream_each(name, f, format):
        if type(row) is not dict:
            raise row  # type: ignore[misc]
        yield line, row


def _opened(path: str | os.PathLike[str]) -> IO[bytes]:
    try:
        return open(path, "rb")  # closed by the caller, after the last row
    except OSError as exc:
        raise RowError(path, None, f"cannot be read: {exc.strerror or exc}") from None


def read_rows_each(path: str | os.PathLike[str], format: Format | None = None) -> Each:
    """The rows of a file as `read_rows` reads them, a line that cannot be read given as `(line, RowError)` in
    its place and the reading going on (see `read_stream_each`)."""
    chosen = format_of(path) if format is None else format
    with _opened(path) as f:
        yield from read_stream_each(path, f, chosen)


def read_rows(path: str | os.PathLike[str], format: Format | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """The rows of a JSONL, CSV or Parquet file, as `(line number, row)` pairs, lazily; the one reader of data files.

    The format is `format`, else the file's extension: `.jsonl`/`.ndjson` (one
    JSON object per line; blank lines skipped), `.csv` (a header row, then one
    row per record; every value a string, an empty cell ""; a cell that could
    be meant as a list, one starting with "[" or "{" or holding a comma, a
    `str` that knows its row and column, so a `list[...]` label reads a JSON
    array cell as the list) or `.parquet` (one
    row per record, its values as pyarrow gives them; needs pyarrow, read in
    batches, so a large file is never held whole). The line number is the row's
    (first) line in the file, counted from 1; in a Parquet file, the row's
    number, counted from 1. A UTF-8 byte-order mark is allowed. A line that is
    not a JSON object (or is nested deeper than the interpreter's recursion
    limit, or holds an integer of more digits than `int()` converts), a CSV row
    with the wrong number of fields, a CSV header with a blank or repeated
    column name, text that is not UTF-8, an unknown extension, a file that
    cannot be opened or read and a file with no row at all raise `RowError`
    ("FILE:LINE: problem", or "FILE: problem"). JSON's non-standard `NaN` and
    `Infinity` are read, as Python's json module reads them, as float NaN and
    infinity. The CLI and the pytest plugin's case files read with this, so
    they word every problem alike.
    """
    chosen = format_of(path) if format is None else format
    with _opened(path) as f:
        yield from read_stream(path, f, chosen)
