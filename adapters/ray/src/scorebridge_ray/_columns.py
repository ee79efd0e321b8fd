"""The Score's columns in a Ray Dataset: their names and Arrow types, a batch of Scores as columns, a row as a Score."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

import pyarrow as pa

from scorebridge import FAILURE_KINDS, Score
from scorebridge.kit import metadata_text

__all__ = ["SCORE_COLUMNS", "column_names", "score_arrays", "score_of"]

SCORE_COLUMNS: Final = ("correct", "value", "grade", "outcome", "failure_kind", "explanation", "metadata")
"""The columns `score_dataset` adds to each row, in order (each after a `prefix`, if given)."""

_TYPES: Final = {
    "correct": pa.bool_(),
    "value": pa.float64(),
    "grade": pa.string(),
    "outcome": pa.string(),
    "failure_kind": pa.string(),
    "explanation": pa.string(),
    "metadata": pa.string(),
}


def column_names(prefix: str) -> dict[str, str]:
    """Each Score field's column name: the field after `prefix`."""
    return {field: prefix + field for field in SCORE_COLUMNS}


def score_arrays(scores: Sequence[Score]) -> list[pa.Array]:
    """One Arrow array per column of `SCORE_COLUMNS`, in order, for a batch of Scores."""
    texts: dict[int, str] = {}  # Scores of one scorer often share one metadata mapping: its JSON is made once

    def metadata(score: Score) -> str:
        key = id(score.metadata)  # the Scores, and so their metadata, live until the batch is done
        text = texts.get(key)
        if text is None:
            text = texts[key] = metadata_text(score)
        return text

    values = {
        "correct": [s.correct for s in scores],
        "value": [s.value for s in scores],
        "grade": [s.grade for s in scores],
        "outcome": [s.outcome for s in scores],
        "failure_kind": [s.failure_kind for s in scores],
        "explanation": [s.explanation for s in scores],
        "metadata": [metadata(s) for s in scores],
    }
    return [pa.array(values[field], type=_TYPES[field]) for field in SCORE_COLUMNS]


def score_of(row: Mapping[str, Any], *, prefix: str = "") -> Score:
    """The Score in a row of a dataset made by `score_dataset` (a dict from `take`, `iter_rows`, ...).

    `metadata` is read back from its JSON text, so a value JSON cannot hold
    comes back as the text it was written as, and a tuple as a list. Raises
    KeyError naming a missing column, ValueError for a failure kind that is not
    one of scorebridge's six or metadata that is not a JSON object.
    """
    names = column_names(prefix)
    missing = [name for name in names.values() if name not in row]
    if missing:
        raise KeyError(f"score_of: the row has no column {', '.join(missing)}; it was not made by score_dataset")
    kind = row[names["failure_kind"]]
    if kind is not None and kind not in FAILURE_KINDS:
        raise ValueError(f"score_of: failure_kind {kind!r:.80} is not one of {FAILURE_KINDS}")
    text = row[names["metadata"]]
    metadata = json.loads(text) if text else {}
    if not isinstance(metadata, dict):
        raise ValueError(f"score_of: metadata must be a JSON object; got {text!r:.80}")
    return Score(
        row[names["correct"]],
        row[names["outcome"]],
        kind,
        row[names["value"]],
        row[names["explanation"]],
        metadata,
    )
