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

    numbered = _decoded(path, lines)
    line = 0

    def texts() -> Iterator[str]:
        nonlocal line
        for number, text in numbered:
            line = number
            yield text

    reader = csv.reader(texts(), strict=True)
    header: list[str] | None = None
    try:
        for row in reader:
            if not row:  # a blank line
                continue
            if header is None:
                header = row
                if len(set(header)) != len(header):
                    raise RowError(path, line, f"the header repeats a column name: {header}")
                continue
            if len(row) != len(header):
                raise RowError(path, line, f"{len(row)} fields, but the header has {len(header)}")
            yield line, dict(zip(header, row, strict=True))
    except csv.Error as exc:
        raise RowError(path, line, f"not valid CSV ({exc})") from None


def read_rows(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The rows of a JSONL or CSV file, as `(line number, row)` pairs, lazily.

    The format is the file's extension: `.jsonl`/`.ndjson` (one JSON object per
    line; blank lines skipped) or `.csv` (a header row, then one row per record;
    every value a string, an empty cell ""). The line number is the row's
    (last) line in the file, counted from 1. A UTF-8 byte-order mark is
    allowed. A line that is not a JSON object, a CSV row with the wrong number
    of fields, a repeated CSV column, text that is not UTF-8 or an unknown
    extension raises `RowError` ("FILE:LINE: problem"); a missing file raises
    `FileNotFoundError`.
    """
    name = os.fspath(path).lower()
    if name.endswith(JSONL_SUFFIXES):
        reader = _jsonl
    elif name.endswith(CSV_SUFFIXES):
        reader = _csv
    else:
        raise RowError(path, None, "unknown format; the file name must end in .jsonl, .ndjson or .csv")
    with open(path, "rb") as f:
        yield from reader(path, f)
