"""The result of a benchmark: its records, the summary per arm, and the paired comparison of two arms."""

from __future__ import annotations

import os
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .records import FIELDS, BenchmarkRecord
from .stats import mcnemar_exact
from .summary import Summaries, Summary, number_cell

if TYPE_CHECKING:
    import pandas

    from .groups import GroupedSummaries

__all__ = ["BenchmarkResult", "Comparison"]


class Comparison(NamedTuple):
    """A paired comparison of arms `a` and `b` on the (item, run) pairs that both scored.

    `only_a` and `only_b` are the discordant pairs (one arm right, the other
    wrong); `p_value` is the two-sided exact McNemar test on them (see
    `mcnemar_exact`); `difference` is `accuracy_a -
    accuracy_b` on the pairs. With no pairs, the accuracies are None and p is 1.
    """

    a: str
    b: str
    pairs: int
    both_correct: int
    only_a: int
    only_b: int
    both_wrong: int
    accuracy_a: float | None
    accuracy_b: float | None
    difference: float | None
    p_value: float

    def __str__(self) -> str:
        if not self.pairs:
            return f"{self.a} vs {self.b}: no (item, run) pair scored for both arms"
        diff = self.difference or 0.0
        return "\n".join(
            [
                f"{self.a} vs {self.b} on {self.pairs} (item, run) pairs scored for both",
                f"  accuracy: {self.a} {number_cell(self.accuracy_a)}, {self.b} {number_cell(self.accuracy_b)}"
                f" (difference {diff:+.3f})",
                f"  discordant pairs: {self.only_a} only {self.a} correct, {self.only_b} only {self.b} correct",
                f"  exact McNemar test, two-sided: p = {self.p_value:.4g}",
            ]
        )


class BenchmarkResult:
    """The records of a benchmark, in arm, item, run order, and what can be made of them.

    `records` is a tuple of `BenchmarkRecord`; `arms` the arm names in the
    order given; `scorer` the scorer's name; `items` the items by id (what
    `summary(group_by=...)` reads a field of), `runs` the runs per item.
    """

    __slots__ = ("arms", "items", "records", "runs", "scorer")

    def __init__(
        self,
        records: Sequence[BenchmarkRecord],
        arms: Sequence[str],
        scorer: str,
        *,
        items: Mapping[Hashable, Any] | None = None,
        runs: int | None = None,
    ) -> None:
        self.records: tuple[BenchmarkRecord, ...] = tuple(records)
        self.arms: tuple[str, ...] = tuple(arms)
        self.scorer = scorer
        self.items: Mapping[Hashable, Any] = {} if items is None else items
        self.runs = runs

    def __repr__(self) -> str:
        return f"<BenchmarkResult {len(self.records)} records, arms {list(self.arms)}, scorer {self.scorer}>"

    def __len__(self) -> int:
        return len(self.records)

    def to_records(self) -> list[dict[str, Any]]:
        """The records as dicts with the keys of `FIELDS`."""
        return [r._asdict() for r in self.records]

    def to_pandas(self) -> pandas.DataFrame:
        """The records as a pandas DataFrame, one row per record, the columns of `FIELDS`."""
        try:
            import pandas
        except ImportError as exc:
            raise ImportError("BenchmarkResult.to_pandas() needs pandas: pip install pandas") from exc
        return pandas.DataFrame.from_records(self.records, columns=list(FIELDS))

    def summary(self, group_by: str | Sequence[str] | None = None) -> Summaries:
        """Per arm, the one summary (`Summary.of`): rows, scored, correct, accuracy with its 95% Wilson
        interval, unscored, failure kinds; `str()` of it is a table.

        With `group_by` (an item field, a comma list, or several), each arm's
        groups first, named `arm / group` (a group is the items with the same
        value of the fields: a mapping's key or an attribute; `(none)` where an
        item has none), then the arm's whole, named `arm`: the groups of an arm
        add up to it.
        """
        by_arm: dict[str, list[BenchmarkRecord]] = {a: [] for a in self.arms}
        for r in self.records:
            by_arm[r.arm].append(r)
        if group_by is None:
            return Summaries(Summary.of(a, rs) for a, rs in by_arm.items())
        grouped = self.grouped(group_by)
        rows = []
        for arm, groups in zip(self.arms, grouped, strict=True):
            rows += [g._replace(name=f"{arm} / {g.name}") for g in groups.groups]
            rows.append(groups.whole)
        return Summaries(rows, kind=f"arm / {', '.join(grouped[0].columns)}" if grouped else "arm")

    def item_fields(self, columns: Sequence[str]) -> dict[Hashable, dict[str, Any]]:
        """Each item's fields `columns` by its id (a mapping's key or an attribute; None where it has none):
        what `summary(group_by=...)` and `compare(..., group_by=...)` group a record by."""
        from .._protocol.reading import element

        return {item_id: {c: element(item, c) for c in columns} for item_id, item in self.items.items()}

    def grouped(self, group_by: str | Sequence[str]) -> list[GroupedSummaries]:
        """Per arm, a `GroupedSummaries` by the item fields `group_by` (see `summary`)."""
        from .groups import GroupedSummaries, parse_group_by

        columns = parse_group_by(group_by)
        if not columns:
            raise ValueError("summary: group_by names no field")
        fields = self.item_fields(columns)
        if all(v is None for f in fields.values() for v in f.values()):
            raise ValueError(f"summary: no item has the field {', '.join(map(repr, columns))} to group by")
        by_arm: dict[str, list[tuple[dict[str, Any] | None, BenchmarkRecord]]] = {a: [] for a in self.arms}
        for r in self.records:
            by_arm[r.arm].append((fields.get(r.item_id), r))
        return [GroupedSummaries.of(arm, columns, pairs) for arm, pairs in by_arm.items()]

    def report(
        self, path: str | os.PathLike[str], *, group_by: str | Sequence[str] | None = None, title: str | None = None
    ) -> str:
        """Write the summary (and, with `group_by`, each arm's groups) as one self-contained HTML page; the path.

        The page (no request when viewed, see docs/compare.md) charts each arm's accuracy with its 95% interval
        and its failure kinds, with the scorer, arms, items and runs as provenance.
        """
        from .report import summary_page, write_page

        wholes = list(self.summary())
        grouped = self.grouped(group_by) if group_by is not None else []
        provenance = [
            ("scorer", self.scorer),
            ("arms", ", ".join(self.arms)),
            ("items", len(self.items) or len({r.item_id for r in self.records})),
            ("runs per item", self.runs),
            ("records", len(self.records)),
        ]
        page = summary_page(
            title or "scorebridge benchmark", wholes, kind="arm", grouped=grouped, provenance=provenance
        )
        return write_page(path, page)

    def compare(self, a: str, b: str) -> Comparison:
        """Compare arms `a` and `b` pair by pair, on the (item, run) pairs both scored (exact McNemar test)."""
        for arm in (a, b):
            if arm not in self.arms:
                raise ValueError(f"compare: no arm {arm!r}; the arms are {list(self.arms)}")
        verdicts: dict[str, dict[tuple[Hashable, int], bool]] = {a: {}, b: {}}
        for r in self.records:
            if r.arm in verdicts and r.correct is not None:
                verdicts[r.arm][r.item_id, r.run] = r.correct
        va, vb = verdicts[a], verdicts[b]
        table = {(x, y): 0 for x in (True, False) for y in (True, False)}
        for key in va.keys() & vb.keys():
            table[va[key], vb[key]] += 1
        pairs = sum(table.values())
        acc_a = (table[True, True] + table[True, False]) / pairs if pairs else None
        acc_b = (table[True, True] + table[False, True]) / pairs if pairs else None
        return Comparison(
            a,
            b,
            pairs,
            table[True, True],
            table[True, False],
            table[False, True],
            table[False, False],
            acc_a,
            acc_b,
            None if acc_a is None or acc_b is None else acc_a - acc_b,
            mcnemar_exact(table[True, False], table[False, True]),
        )
