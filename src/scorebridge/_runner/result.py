"""The result of a benchmark: its records, the summary per arm, and the paired comparison of two arms."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .records import FIELDS, BenchmarkRecord
from .stats import mcnemar_exact
from .summary import Summaries, Summary, number_cell

if TYPE_CHECKING:
    import pandas

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
    order given; `scorer` the scorer's name.
    """

    __slots__ = ("arms", "records", "scorer")

    def __init__(self, records: Sequence[BenchmarkRecord], arms: Sequence[str], scorer: str) -> None:
        self.records: tuple[BenchmarkRecord, ...] = tuple(records)
        self.arms: tuple[str, ...] = tuple(arms)
        self.scorer = scorer

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

    def summary(self) -> Summaries:
        """Per arm, the one summary (`Summary.of`): rows, scored, correct, accuracy with its 95% Wilson
        interval, unscored, failure kinds; `str()` of it is a table."""
        by_arm: dict[str, list[BenchmarkRecord]] = {a: [] for a in self.arms}
        for r in self.records:
            by_arm[r.arm].append(r)
        return Summaries(Summary.of(a, rs) for a, rs in by_arm.items())

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
