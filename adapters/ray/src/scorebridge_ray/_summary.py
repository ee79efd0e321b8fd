"""`summarize()` and `summarize_groups()`: a scored dataset's summary, and one per group, counted where the rows are."""

from __future__ import annotations

import json
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any, Final, cast

from scorebridge import FAILURE_KINDS, GroupedSummaries, Score, Summary
from scorebridge.kit import grader_failed, group_key, group_name, parse_group_by

from ._columns import column_names

if TYPE_CHECKING:
    import pyarrow as pa
    from ray.data import Dataset

__all__ = ["summarize", "summarize_groups"]

_COUNTS: Final = (
    "rows",
    "scored",
    "correct",
    "value_sum",
    "unknown_kinds",
    "grader_failed",
    *(f"kind_{k}" for k in FAILURE_KINDS),
)
_GROUP: Final = "group"
"""The column of a block's group tally holding the group's key, as JSON text."""
_HAS: Final = "columns"
"""The column of a block's group tally holding the block's column names, as JSON text."""


def _each_row(batch: pa.Table, correct: str, value: str, kind: str, metadata: str) -> dict[str, pa.Array]:
    """Each row's part of every count of `_COUNTS`, as `Summary.of` counts: one array per count, a value per row.

    A row counts 1 in `rows`; it is scored when it has a verdict (`correct` not null), and then adds its
    value, or its verdict (1 or 0) where it has no value, to `value_sum`, and 1 to the count of its failure
    kind (an unscored row adds to neither). An unscored row whose grader failed (`kit.grader_failed` of its
    `metadata`, read only for the unscored rows; a batch without the column has none) counts in
    `grader_failed`. A failure kind that is none of the six counts in `unknown_kinds`, scored or not, for the
    caller to refuse.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    def ones(mask: Any) -> pa.Array:
        return pc.cast(pc.fill_null(mask, False), pa.int64())

    # A column with no value in a block has Arrow's null type: cast to the types score_dataset writes.
    verdicts = pc.cast(batch.column(correct), pa.bool_())
    scored = pc.is_valid(verdicts)
    values = pc.coalesce(pc.cast(batch.column(value), pa.float64()), pc.cast(verdicts, pa.float64()))
    kinds = pc.cast(batch.column(kind), pa.string())
    known = pc.is_in(kinds, value_set=pa.array(FAILURE_KINDS))
    counts = {
        "rows": pa.repeat(1, batch.num_rows),
        "scored": ones(scored),
        "correct": ones(verdicts),
        "value_sum": pc.if_else(scored, values, 0.0),
        "unknown_kinds": ones(pc.and_(pc.is_valid(kinds), pc.invert(known))),
        "grader_failed": _grader_failures(batch, scored, metadata),
    }
    for name in FAILURE_KINDS:
        counts[f"kind_{name}"] = ones(pc.and_kleene(scored, pc.equal(kinds, name)))
    return counts


def _grader_failures(batch: pa.Table, scored: pa.Array, metadata: str) -> pa.Array:
    """1 for each unscored row of `batch` whose grader failed, 0 for every other row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    failed = [0] * batch.num_rows
    if metadata in batch.column_names:
        unscored = pc.indices_nonzero(pc.invert(scored)).to_pylist()
        texts = pc.take(pc.cast(batch.column(metadata), pa.string()), pa.array(unscored, pa.int64())).to_pylist()
        for row, text in zip(unscored, texts, strict=True):
            failed[row] = int(grader_failed(Score(None, metadata=json.loads(text) if text else {})))
    return pa.array(failed, pa.int64())


def _tally(correct: str, value: str, kind: str, metadata: str) -> Any:
    """A function of a batch (a pyarrow Table with the three columns) to its counts, one row."""

    def tally(batch: pa.Table) -> pa.Table:
        import pyarrow as pa
        import pyarrow.compute as pc

        each = _each_row(batch, correct, value, kind, metadata)
        return pa.table({count: [pc.sum(each[count]).as_py() or 0] for count in _COUNTS})

    return tally


def _tally_groups(columns: Sequence[str], correct: str, value: str, kind: str, metadata: str) -> Any:
    """A function of a batch to its counts per group of `columns`: a row per group of the batch, its key as JSON
    text (`_GROUP`), its counts, and the batch's column names (`_HAS`). A column the batch lacks is None."""

    def tally(batch: pa.Table) -> pa.Table:
        import pyarrow as pa

        has = [c for c in columns if c in batch.column_names]
        rows: list[Any] = batch.select(has).to_pylist() if has else [None] * batch.num_rows
        keys = pa.array([json.dumps(group_key(fields, columns)) for fields in rows], pa.string())
        each = pa.table({_GROUP: keys, **_each_row(batch, correct, value, kind, metadata)})
        summed = each.group_by(_GROUP).aggregate([(count, "sum") for count in _COUNTS])
        found = pa.array([json.dumps(batch.column_names)] * summed.num_rows, pa.string())
        return pa.table({_GROUP: summed.column(_GROUP), **{c: summed.column(f"{c}_sum") for c in _COUNTS}, _HAS: found})

    return tally


_Columns = tuple[str, str, str, str]
"""The names of a dataset's `correct`, `value`, `failure_kind` and `metadata` columns."""


def _score_columns(what: str, ds: Dataset, name: str, prefix: str) -> tuple[_Columns, list[str]] | None:
    """The names of the `correct`, `value`, `failure_kind` and `metadata` columns after `prefix`, and those of
    them the dataset has (all but maybe `metadata`, which tells the grader's failures apart); None for an
    empty dataset.

    Raises TypeError for a `ds` that is not a Dataset or a `name` that is not a string, ValueError (naming the
    dataset's columns) when a column is missing.
    """
    import ray.data

    if not isinstance(ds, ray.data.Dataset):
        raise TypeError(f"{what}: ds must be a ray.data.Dataset; got {type(ds).__name__}")
    if not isinstance(name, str):
        raise TypeError(f"{what}: name must be a string; got {type(name).__name__}")
    names = column_names(prefix)
    needed = [names["correct"], names["value"], names["failure_kind"]]
    schema = ds.schema()
    if schema is None:  # an empty dataset
        return None
    missing = [c for c in needed if c not in schema.names]
    if missing:
        raise ValueError(
            f"{what}: the dataset has no column {', '.join(map(repr, missing))}; its columns are "
            f"{', '.join(map(repr, schema.names))}. Summarize what score_dataset made (with its prefix=)"
        )
    every = (needed[0], needed[1], needed[2], names["metadata"])
    return every, [*needed, names["metadata"]] if names["metadata"] in schema.names else needed


def _summary(what: str, name: str, totals: dict[str, Any]) -> Summary:
    """The summary of the counts `totals` (each of `_COUNTS`); ValueError when a row's failure kind is unknown."""
    if totals["unknown_kinds"]:
        raise ValueError(
            f"{what}: {totals['unknown_kinds']} row(s) have a failure_kind that is not one of {FAILURE_KINDS}"
        )
    kinds = {kind: int(totals[f"kind_{kind}"]) for kind in FAILURE_KINDS}
    counts = (int(totals["rows"]), int(totals["scored"]), int(totals["correct"]), float(totals["value_sum"]))
    return Summary.from_counts(name, *counts, kinds, grader_failed=int(totals["grader_failed"]))


def _blocks(ds: Dataset, tally: Any) -> Any:
    """The tallies of the blocks of `ds`, as they stream in (pyarrow Tables)."""
    # Ray's own aggregate() would add the tallies in a hash shuffle of its own, which costs seconds even for a
    # few rows (docs/ray.md); the tallies are few, so they are added on the driver, as they stream in.
    # A tally reserves no CPU (num_cpus=0): it only adds columns up, and behind a scoring pool that holds every
    # CPU (summarize(score_dataset(ds)) streams) a task waiting for one would wait for ever.
    tallies = ds.map_batches(tally, batch_format="pyarrow", batch_size=None, zero_copy_batch=True, num_cpus=0)
    return tallies.iter_batches(batch_format="pyarrow", batch_size=None)


def summarize(ds: Dataset, name: str = "scores", *, prefix: str = "") -> Summary:
    """The summary of a dataset scored by `score_dataset`: what `benchmark()` and the CLI give for the same Scores.

    Counted as `scorebridge.Summary` counts (rows, scored, correct, accuracy
    as the mean value of the scored rows, its Wilson interval, unscored, the
    unscored rows whose grader failed, and per failure kind the scored rows
    wrong for that reason), from the `correct`, `value` and `failure_kind`
    columns (after `prefix`), and `metadata` where the dataset has it (without
    it, no row counts as the grader's failure; only the unscored rows' is
    read). Each block is tallied where it is, and only the tallies are summed
    on the driver, so no row is collected. `name` names the summary (the scorer's name, say).

    Consuming `ds` runs what made it: summarizing the lazy result of
    `score_dataset` scores the rows, and writing it too scores them again.
    Materialize it first (`ds.materialize()`), or summarize what you wrote
    (`summarize(ray.data.read_parquet(path))`: only those four columns are read).

    Raises ValueError when a column is missing, or a failure kind is not one
    of scorebridge's six. The accuracy is a float sum of the values: with
    partial credit other than halves and quarters, it can differ from
    `Summary.of` in the last digits.
    """
    import pyarrow.compute as pc

    found = _score_columns("summarize", ds, name, prefix)
    if found is None:
        return Summary.from_counts(name, 0, 0, 0, 0.0, {})
    totals: dict[str, Any] = dict.fromkeys(_COUNTS, 0)
    every, present = found
    for each in _blocks(ds.select_columns(present), _tally(*every)):
        batch = cast("pa.Table", each)
        for count in _COUNTS:
            totals[count] += pc.sum(batch.column(count)).as_py() or 0
    return _summary("summarize", name, totals)


def summarize_groups(
    ds: Dataset, group_by: str | Sequence[str], name: str = "scores", *, prefix: str = ""
) -> GroupedSummaries:
    """A summary per group of rows with the same values of `group_by`, then the whole: `scorebridge score
    --group-by`'s groups, and `GroupedSummaries.of`'s for the same rows and Scores.

    `group_by` is a column, a comma list, or several of either (the groups
    are then the combinations). Each group is counted as `summarize` counts
    (read after `prefix`), each block where it is: a row's group is the
    core's `group_key` of its values (a list or a struct as its JSON text,
    so a nested value, a number or a bool groups as the local engine groups
    it), and only a row per group per block reaches the driver. `name` names
    the whole; each group is named by its values (`math`, or
    `category=math, lang=en`), and the groups are in the order of their names.

    - A row without the column (a block that lacks it), or with null there, is
      in the group `(none)` for it; every row is in exactly one group, so the
      groups add up to the whole.
    - An empty dataset has no groups, and a whole of no rows.
    - Consuming `ds` runs what made it: materialize the lazy result of
      `score_dataset` first, as for `summarize`. Every column of each block is
      read: a lazy read cannot be narrowed to columns some blocks lack.

    Raises ValueError for a `group_by` that names no column, a blank name or a
    name given twice (as `parse_group_by`; TypeError for a name that is not a
    string); for a group-by column no row has, naming it and the columns the
    rows have; and as `summarize` does for a missing score column or an unknown
    failure kind.
    """
    columns = parse_group_by(group_by)
    if not columns:
        raise ValueError("summarize_groups: group_by names no column")
    found = _score_columns("summarize_groups", ds, name, prefix)
    if found is None:
        return GroupedSummaries(columns, [], Summary.from_counts(name, 0, 0, 0, 0.0, {}))
    by_key: dict[tuple[Hashable, ...], dict[str, Any]] = {}
    seen: dict[str, None] = {}  # the blocks' columns, in order of appearance
    for each in _blocks(ds, _tally_groups(columns, *found[0])):
        for row in cast("pa.Table", each).to_pylist():
            totals = by_key.setdefault(tuple(json.loads(row[_GROUP])), dict.fromkeys(_COUNTS, 0))
            for count in _COUNTS:
                totals[count] += row[count]
            seen.update(dict.fromkeys(json.loads(row[_HAS])))
    missing = [c for c in columns if c not in seen]
    if missing and by_key:
        raise ValueError(
            f"summarize_groups: no row has the column {', '.join(map(repr, missing))}; the rows have "
            f"{', '.join(map(repr, seen))}"
        )
    every = {count: sum(totals[count] for totals in by_key.values()) for count in _COUNTS}
    whole = _summary("summarize_groups", name, every)  # first: an unknown failure kind is counted over every row
    keyed = [(key, _summary("summarize_groups", group_name(key, columns), t)) for key, t in by_key.items()]
    return GroupedSummaries(columns, keyed, whole)
