"""Case files for `@pytest.mark.scorebridge_cases`: JSONL or CSV, one case a row, read by the core's reader.

The rows are read by `scorebridge.kit.read_rows`, the reader of the `scorebridge
score` command too, so a bad file gets the same "FILE:LINE: problem" message in
both. Every problem is a `CaseFileError`, which pytest reports as a collection
error that points at the row.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scorebridge.kit import RowError, read_rows

__all__ = ["Case", "CaseFileError", "read_cases"]

Case = tuple[str, dict[str, Any]]
"""A case: its test id and the row as a dict."""


class CaseFileError(Exception):
    """A case file that cannot be read: missing, of an unknown type, or with a bad row."""


def _where(shown: str, line: int | None) -> str:
    return shown if line is None else f"{shown}:{line}"


def _case_id(row: dict[str, Any], shown: str, number: int) -> str | None:
    value = row.get("id")
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise CaseFileError(f"{shown}:{number}: the id must be a string or a number; got {type(value).__name__}")
    return str(value)


def read_cases(path: Path, shown: str) -> list[Case]:
    """The cases in the JSONL or CSV file at `path`, in file order, with their test ids.

    `shown` is how messages name the file. The rows are read as `scorebridge
    score` reads them (`scorebridge.kit.read_rows`: JSONL, one JSON object a
    line; CSV with a header row, values kept as strings; blank lines skipped;
    no row at all is an error). A row's id is its `id` value as text when it
    has a non-blank one, else `row<N>` (N counts the cases from 1); an id used
    twice raises `CaseFileError`.
    """
    cases: list[Case] = []
    seen: dict[str, int] = {}
    try:
        for n, (number, row) in enumerate(read_rows(path), start=1):
            case_id = _case_id(row, shown, number) or f"row{n}"
            if case_id in seen:
                raise CaseFileError(f"{shown}:{number}: the id {case_id!r} is already used on line {seen[case_id]}")
            seen[case_id] = number
            cases.append((case_id, row))
    except RowError as exc:
        raise CaseFileError(f"{_where(shown, exc.line)}: {exc.problem}") from None
    return cases
