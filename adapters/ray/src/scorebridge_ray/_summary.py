"""`summarize()`: the one summary of a scored dataset, counted where the rows are, with Ray's aggregations."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, cast

from scorebridge import FAILURE_KINDS, Summary

from ._columns import column_names

if TYPE_CHECKING:
    import pyarrow as pa
    from ray.data import Dataset

__all__ = ["summarize"]

_COUNTS: Final = ("rows", "scored", "correct", "value_sum", "unknown_kinds", *(f"kind_{k}" for k in FAILURE_KINDS))


def _tally(correct: str, value: str, kind: str) -> Any:
    """A function of a batch (a pyarrow Table of the three columns) to its counts, one row."""

    def tally(batch: pa.Table) -> pa.Table:
        import pyarrow as pa
        import pyarrow.compute as pc

        # A column with no value in a block has Arrow's null type: cast to the types score_dataset writes.
        verdicts = pc.cast(batch.column(correct), pa.bool_())
        scored = pc.is_valid(verdicts)
        # As Summary.of counts: a scored row's value, or its verdict (1 or 0) where it has no value.
        values = pc.coalesce(pc.cast(batch.column(value), pa.float64()), pc.cast(verdicts, pa.float64()))
        every_kind = pc.cast(batch.column(kind), pa.string())
        known = pc.is_in(every_kind, value_set=pa.array(FAILURE_KINDS))
        kinds = pc.filter(every_kind, scored)
        counts = {
            "rows": [batch.num_rows],
            "scored": [pc.sum(scored).as_py() or 0],
            "correct": [pc.sum(pc.fill_null(verdicts, False)).as_py() or 0],
            "value_sum": [pc.sum(pc.filter(values, scored)).as_py() or 0.0],
            "unknown_kinds": [pc.sum(pc.and_(pc.is_valid(every_kind), pc.invert(known))).as_py() or 0],
        }
        for name in FAILURE_KINDS:
            counts[f"kind_{name}"] = [pc.sum(pc.equal(kinds, name)).as_py() or 0]
        return pa.table(counts)

    return tally


def summarize(ds: Dataset, name: str = "scores", *, prefix: str = "") -> Summary:
    """The summary of a dataset scored by `score_dataset`: what `benchmark()` and the CLI give for the same Scores.

    Counted as `scorebridge.Summary` counts (rows, scored, correct, accuracy
    as the mean value of the scored rows, its Wilson interval, unscored, and
    per failure kind the scored rows wrong for that reason), from the
    `correct`, `value` and `failure_kind` columns (after `prefix`): each block
    is tallied where it is, and only the tallies are summed on the driver, so
    no row is collected. `name` names the summary (the scorer's name, say).

    Consuming `ds` runs what made it: summarizing the lazy result of
    `score_dataset` scores the rows, and writing it too scores them again.
    Materialize it first (`ds.materialize()`), or summarize what you wrote
    (`summarize(ray.data.read_parquet(path))`: only the three columns are read).

    Raises ValueError when a column is missing, or a failure kind is not one
    of scorebridge's six. The accuracy is a float sum of the values: with
    partial credit other than halves and quarters, it can differ from
    `Summary.of` in the last digits.
    """
    import ray.data

    if not isinstance(ds, ray.data.Dataset):
        raise TypeError(f"summarize: ds must be a ray.data.Dataset; got {type(ds).__name__}")
    if not isinstance(name, str):
        raise TypeError(f"summarize: name must be a string; got {type(name).__name__}")
    names = column_names(prefix)
    needed = [names["correct"], names["value"], names["failure_kind"]]
    schema = ds.schema()
    if schema is not None:
        missing = [c for c in needed if c not in schema.names]
        if missing:
            raise ValueError(
                f"summarize: the dataset has no column {', '.join(map(repr, missing))}; its columns are "
                f"{', '.join(map(repr, schema.names))}. Summarize what score_dataset made (with its prefix=)"
            )
    else:  # an empty dataset
        return Summary.from_counts(name, 0, 0, 0, 0.0, {})
    # Ray's own aggregate() would add the tallies in a hash shuffle of its own, which costs seconds even for a
    # few rows (docs/ray.md); the tallies are few, so they are added here, as they stream in.
    tallies = ds.select_columns(needed).map_batches(
        _tally(*needed), batch_format="pyarrow", batch_size=None, zero_copy_batch=True
    )
    import pyarrow.compute as pc

    totals: dict[str, Any] = dict.fromkeys(_COUNTS, 0)
    for each in tallies.iter_batches(batch_format="pyarrow", batch_size=None):
        batch = cast("pa.Table", each)
        for count in _COUNTS:
            totals[count] += pc.sum(batch.column(count)).as_py() or 0
    if totals["unknown_kinds"]:
        raise ValueError(
            f"summarize: {totals['unknown_kinds']} row(s) have a failure_kind that is not one of {FAILURE_KINDS}"
        )
    kinds = {kind: int(totals[f"kind_{kind}"]) for kind in FAILURE_KINDS}
    return Summary.from_counts(
        name, int(totals["rows"]), int(totals["scored"]), int(totals["correct"]), float(totals["value_sum"]), kinds
    )
