"""Case files for `@pytest.mark.scorebridge_cases`: JSONL or CSV, one case a row, read strictly.

Every problem is a `CaseFileError` whose message starts `FILE:LINE:` (or
`FILE:` when no line is at fault), so pytest reports it as a collection error
that points at the row.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

__all__ = ["Case", "CaseFileError", "read_cases"]

Case = tuple[str, dict[str, Any]]
"""A case: its test id and the row as a dict."""

_SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}


class CaseFileError(Exception):
    """A case file that cannot be read: missing, of an unknown type, or with a bad row."""


def _text(path: Path, shown: str) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CaseFileError(f"{shown}: no such case file") from None
    except OSError as exc:
        raise CaseFileError(f"{shown}: cannot read the case file: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")  # a byte order mark (Excel's CSV) is dropped
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CaseFileError(f"{shown}:{line}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _jsonl(text: str, shown: str) -> list[tuple[int, dict[str, Any]]]:
    # Split on "\n" only: str.splitlines() would also split on U+2028 and the other
    # line breaks that JSON allows raw inside a string.
    rows = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CaseFileError(f"{shown}:{number}: not valid JSON: {exc.msg} (column {exc.colno})") from None
        if not isinstance(row, dict):
            raise CaseFileError(f"{shown}:{number}: a case must be a JSON object; got {type(row).__name__}")
        rows.append((number, row))
    return rows


def _csv(text: str, shown: str) -> list[tuple[int, dict[str, Any]]]:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    rows = []
    while True:
        start = reader.line_num + 1  # a quoted field may hold line breaks: a row starts here
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise CaseFileError(f"{shown}:{start}: not valid CSV: {exc}") from None
        if not fields:  # a blank line
            continue
        if header is None:
            blank = [i + 1 for i, name in enumerate(fields) if not name.strip()]
            twice = sorted({name for name in fields if fields.count(name) > 1})
            if blank or twice:
                problem = f"column {blank[0]} has no name" if blank else f"the column {twice[0]!r} appears twice"
                raise CaseFileError(f"{shown}:{start}: the header row is not usable: {problem}")
            header = fields
        elif len(fields) != len(header):
            raise CaseFileError(f"{shown}:{start}: {len(fields)} fields where the header has {len(header)}")
        else:
            rows.append((start, dict(zip(header, fields, strict=True))))
    return rows


def _case_id(row: dict[str, Any], shown: str, number: int) -> str | None:
    value = row.get("id")
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise CaseFileError(f"{shown}:{number}: the id must be a string or a number; got {type(value).__name__}")
    return str(value)


def read_cases(path: Path, shown: str) -> list[Case]:
    """The cases in the JSONL or CSV file at `path`, in file order, with their test ids.

    `shown` is how messages name the file. A JSONL file holds one JSON object a
    line; a CSV file has a header row, and its values stay strings. Blank lines
    are skipped. A row's id is its `id` value as text when it has a non-blank
    one, else `row<N>` (N counts the cases from 1). A file with no case, a bad
    row, or an id used twice raises `CaseFileError`.
    """
    kind = _SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise CaseFileError(f"{shown}: not a case file: the name must end in .jsonl, .ndjson or .csv")
    text = _text(path, shown)
    rows = _jsonl(text, shown) if kind == "jsonl" else _csv(text, shown)
    if not rows:
        raise CaseFileError(f"{shown}: the case file holds no case")
    cases: list[Case] = []
    seen: dict[str, int] = {}
    for n, (number, row) in enumerate(rows, start=1):
        case_id = _case_id(row, shown, number) or f"row{n}"
        if case_id in seen:
            raise CaseFileError(f"{shown}:{number}: the id {case_id!r} is already used on line {seen[case_id]}")
        seen[case_id] = number
        cases.append((case_id, row))
    return cases
