"""CSV cells that may be meant as a list: their text, and where they are (the file, the row, the column).

A CSV cell is always one string, so a list label needs a way to be written in
one: a JSON array, `["name", "age"]`. The CSV reader (`read_rows`) gives every
cell that could be meant as a list (it starts with "[" or "{", or holds a
comma) as a `CsvCell`, a `str` that also knows where it is; every other cell
is a plain `str`. A scorer that declares `label: list[...]` reads a cell that
is a JSON array as that list, and warns, naming the row and the column, about
one that stays one accepted answer though it looks like JSON or holds a
comma (`list_label`). Everywhere else a `CsvCell` is the text it holds: equal
to it, hashed as it, and pickled (to a Ray worker, a process pool) as a plain
`str`.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

__all__ = ["CsvCell", "ListLabelWarning", "csv_cell", "list_label"]

SEPARATOR = ","
"""What a user puts between the answers of a list written as plain text (`name,age`)."""


class ListLabelWarning(UserWarning):
    """A CSV cell read for a `list[...]` label stays one accepted answer though it may be meant as a list."""


class CsvCell(str):
    """The text of a CSV cell that could be meant as a list, and `where` it is: "FILE:LINE, column 'NAME'"."""

    where: str

    def __new__(cls, text: str, where: str) -> CsvCell:
        cell = super().__new__(cls, text)
        cell.where = where
        return cell

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        return (str, (str(self),))


def csv_cell(text: str, path: str, line: int | None, column: str) -> str:
    """The cell as a CSV reader gives it: a `CsvCell` when it could be meant as a list, else `text` itself.

    `line` is the row's first line in the file; None where it is not known (Ray's CSV reader, on a worker).
    """
    if SEPARATOR in text or text.lstrip()[:1] in ("[", "{"):
        return CsvCell(text, f"{path}{'' if line is None else f':{line}'}, column {column!r}")
    return text


def list_label(scorer: str, cell: CsvCell) -> Any:
    """A CSV cell read for a `list[...]` label: the list a JSON array holds, else the cell's text, warned about.

    The text stays one accepted answer; when it looks like JSON (it starts with
    "[" or "{" but is no JSON array of answers) or holds a comma, a
    `ListLabelWarning` (a UserWarning) names the scorer, the row and the column, and says how to write
    a list: as a JSON array.
    """
    text = str(cell)
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            value = json.loads(stripped)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, list):
            return value
    looks = "looks like JSON but is no JSON array" if stripped[:1] in ("[", "{") else "holds a comma"
    warnings.warn(
        f"{cell.where}: {scorer} reads the label {text[:60]!r} as one accepted answer: it {looks}. "
        'To give several accepted answers in a CSV cell, write them as a JSON array: ["name", "age"] '
        '(in the file, quoted: "[""name"", ""age""]")',
        ListLabelWarning,
        stacklevel=4,
    )
    return text
