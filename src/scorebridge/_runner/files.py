"""Reading rows of data files (JSONL, CSV) with their line numbers, and one clear error per bad line."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["RowError", "json_object", "read_rows"]

JSONL_SUFFIXES = (".jsonl", ".ndjson")
CSV_SUFFIXES = (".csv",)


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
        raise RowError(path, line, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(row, dict):
        raise RowError(path, line, f"expected a JSON object, got a JSON {type(row).__name__}")
    return row


def _decoded(path: str | os.PathLike[str], lines: Iterable[bytes]) -> Iterator[tuple[int, str]]:
    for number, raw in enumerate(lines, start=1):
        try:
            yield number, raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            raise RowError(path, number, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _jsonl(path: str | os.PathLike[str], lines: Iterable[bytes]) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, text in _decoded(path, lines):
        if text.strip():
            yield number, json_object(path, number, text)


def _csv(path: str | os.PathLike[str], lines: Iterable[bytes]) -> Iterator[tuple[int, dict[str, Any]]]:
    import csv

    reader = csv.reader((text for _, text in _decoded(path, lines)), strict=True)
    header: list[str] | None = None
    while True:
        start = reader.line_num + 1  # a quoted field may hold line breaks: a row is named by its first line
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise RowError(path, start, f"not valid CSV ({exc})") from None
        if not row:  # a blank line
            continue
        if header is None:
            blank = [i + 1 for i, name in enumerate(row) if not name.strip()]
            twice = sorted({name for name in row if row.count(name) > 1})
            if blank or twice:
                problem = f"column {blank[0]} has no name" if blank else f"the column {twice[0]!r} appears twice"
                raise RowError(path, start, f"the header row is not usable: {problem}")
            header = row
        elif len(row) != len(header):
            raise RowError(path, start, f"{len(row)} fields, but the header has {len(header)}")
        else:
            yield start, dict(zip(header, row, strict=True))


def read_rows(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The rows of a JSONL or CSV file, as `(line number, row)` pairs, lazily; the one reader of data files.

    The format is the file's extension: `.jsonl`/`.ndjson` (one JSON object per
    line; blank lines skipped) or `.csv` (a header row, then one row per record;
    every value a string, an empty cell ""). The line number is the row's
    (first) line in the file, counted from 1. A UTF-8 byte-order mark is
    allowed. A line that is not a JSON object, a CSV row with the wrong number
    of fields, a CSV header with a blank or repeated column name, text that is
    not UTF-8, an unknown extension, a file that cannot be opened and a file
    with no row at all raise `RowError` ("FILE:LINE: problem", or "FILE:
    problem"). The CLI and the pytest plugin's case files read with this, so
    they word every problem alike.
    """
    name = os.fspath(path).lower()
    if name.endswith(JSONL_SUFFIXES):
        reader = _jsonl
    elif name.endswith(CSV_SUFFIXES):
        reader = _csv
    else:
        raise RowError(path, None, "unknown format; the file name must end in .jsonl, .ndjson or .csv")
    try:
        f = open(path, "rb")  # noqa: SIM115  # closed below, after the last row
    except OSError as exc:
        raise RowError(path, None, f"cannot be read: {exc.strerror or exc}") from None
    with f:
        empty = True
        for row in reader(path, f):
            empty = False
            yield row
    if empty:
        raise RowError(path, None, "holds no rows")
