"""The rows `scorebridge score --out` writes, with either engine: one shape, its names, and its reader.

One record per input row, in the input's order (JSONL, or Parquet with `--engine ray`), after a header line
naming the scorers and the input (a local engine's file; `scorebridge._cli.out`):

- `line`: the row's line in the input (a CSV row's first line; a Parquet row's number), counted from 1;
- the row's own fields, as read, at the top level (so `--id`, `--group-by` and pandas see them as columns);
- for each scorer, its Score in seven columns named `SCORER.FIELD`, in `SCORE_FIELDS` order:
  `exact.correct` (true, false, null when unscored), `exact.value` (a number, or null), `exact.grade`
  ("C", "P", "I" or "N"), `exact.outcome`, `exact.failure_kind`, `exact.explanation` (text or null) and
  `exact.metadata` (the metadata as JSON text, "{}" when empty: one type per column, as Parquet needs).

SCORER is the scorer's name; two scorers of one name are `exact` and `exact1`, as Inspect AI names them.
A row field named `line` or like a Score column is refused, never overwritten. `read_scored` reads
these files back, and the shape written before (`{"line", "row", "score"}` a line) too.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from .._protocol.score import Score, metadata_text
from .files import RowError, json_object

__all__ = [
    "LINE",
    "SCORE_FIELDS",
    "read_scored",
    "score_columns",
    "score_of_columns",
    "scored_record",
    "scorer_columns",
    "taken_columns",
    "unique_names",
]

LINE: Final = "line"
"""The column of the row's line in the input."""

SCORE_FIELDS: Final = ("correct", "value", "grade", "outcome", "failure_kind", "explanation", "metadata")
"""A Score's columns, in order, each after "SCORER." (the same as `scorebridge_ray.SCORE_COLUMNS`)."""


def unique_names(names: Sequence[str]) -> list[str]:
    """The scorers' names as the summary and the columns name them: a repeated name gets 1, 2, ... (Inspect AI's
    rule: match, match1)."""
    seen: dict[str, int] = {}
    unique = []
    for name in names:
        count = seen.get(name, 0)
        seen[name] = count + 1
        unique.append(name if count == 0 else f"{name}{count}")
    return unique


def scorer_columns(name: str) -> list[str]:
    """The seven columns of the scorer `name`, in order."""
    return [f"{name}.{field}" for field in SCORE_FIELDS]


def taken_columns(fields: Sequence[str] | Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """The row fields that --out would overwrite (`line`, or a Score column of one of `names`)."""
    added = {LINE, *(c for name in names for c in scorer_columns(name))}
    return [f for f in fields if f in added]


_COLUMNS: dict[str, tuple[str, ...]] = {}


def score_columns(name: str, score: Score) -> dict[str, Any]:
    """The columns of one Score of the scorer `name`."""
    columns = _COLUMNS.get(name)
    if columns is None:
        columns = _COLUMNS[name] = tuple(scorer_columns(name))
    correct, value, grade, outcome, kind, explanation, metadata = columns
    return {
        correct: score.correct,
        value: score.value,
        grade: score.grade,
        outcome: score.outcome,
        kind: score.failure_kind,
        explanation: score.explanation,
        metadata: metadata_text(score),
    }


def score_of_columns(row: Mapping[str, Any], name: str) -> Score:
    """The Score of the scorer `name` in a written row (a KeyError names a missing column)."""
    text = row[f"{name}.metadata"]
    metadata = json.loads(text) if text else {}
    return Score(
        row[f"{name}.correct"],
        row[f"{name}.outcome"],
        row[f"{name}.failure_kind"],
        row[f"{name}.value"],
        row[f"{name}.explanation"],
        metadata if isinstance(metadata, dict) else {"metadata": metadata},
    )


def _scorers_in(columns: Sequence[str]) -> list[str]:
    return [c[: -len(".grade")] for c in columns if c.endswith(".grade") and f"{c[:-6]}.correct" in columns]


def read_scored(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any], dict[str, Score]]]:
    """The rows of a file `scorebridge score --out` wrote: `(line, the row as read, {scorer: Score})`, lazily.

    JSONL or Parquet (by the name's ending), its header line (which names the scorers and the input) skipped, in
    this shape or in the one written before it, `{"line",
    "row", "score"}` a line (the scorer then unnamed: its Score is under ""). A record in neither shape is a
    `RowError` naming the file and line.
    """
    name = os.fspath(path)
    if name.lower().endswith((".parquet", ".pq")):
        from importlib import import_module

        pq = import_module("pyarrow.parquet")
        table_file = pq.ParquetFile(name)
        number = 0
        for batch in table_file.iter_batches(batch_size=1024):
            for record in batch.to_pylist():
                number += 1
                yield scored_record(name, number, record)
        return
    with open(name, encoding="utf-8-sig") as f:
        first = True
        for number, text in enumerate(f, start=1):
            if not text.strip():
                continue
            record = json_object(name, number, text)
            if first and record.get("scorebridge") == "score":  # the header (`_cli.out`)
                first = False
                continue
            first = False
            yield scored_record(name, number, record)


def scored_record(path: str, number: int, record: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, Score]]:
    """One record of an `--out` file (`number` its line there) as `(input line, the row, {scorer: Score})`; a
    `RowError` when it is no row `score --out` wrote."""
    try:
        if set(record) == {"line", "row", "score"} and isinstance(record["score"], dict):  # the shape before
            old = record["score"]
            score = Score(
                old["correct"], old["outcome"], old["failure_kind"], old["value"], old["explanation"], old["metadata"]
            )
            return int(record["line"]), dict(record["row"]), {"": score}
        names = _scorers_in(list(record))
        if not names:
            raise KeyError("no SCORER.grade column")
        scores = {n: score_of_columns(record, n) for n in names}
        added = set(taken_columns(list(record), names))
        row = {k: v for k, v in record.items() if k not in added}
        return int(record.get(LINE) or number), row, scores
    except (KeyError, TypeError, ValueError) as exc:
        raise RowError(path, number, f"not a row scorebridge score --out wrote ({exc})") from None
