"""Two scored runs compared item by item: `compare(base, new)`, the `RunComparison` it gives, and its statistics.

A run is what `scorebridge score --out` writes (JSONL or Parquet, a row and its
Score), what `benchmark(out=...)` writes (a header, then one record a line), a
`BenchmarkResult`, or rows in memory (a Ray Dataset scored by `score_dataset`, a
list of dicts). Rows are paired by an id; for each side the one summary
(`Summary`, counted as everywhere else), then over the pairs both sides scored:

- the paired difference in accuracy (new minus base) with its 95% interval:
  Newcombe's hybrid score interval for paired proportions (his method 10, with
  the correction of the correlation that Altman et al., *Statistics with
  Confidence*, give), from the two Wilson intervals; with partial credit, the
  normal interval of the mean of the paired differences;
- the exact McNemar test on the flips (a pair right in one run and wrong in the
  other), as `BenchmarkResult.compare` does;
- the flips themselves: regressed (right in base, wrong in new) and improved,
  each with its outcome and failure kind on both sides, shortest first.

Rows on one side only are counted and named, never dropped silently.

Files are read twice, never held whole: once for the verdicts (a few bytes a
row), and once more for the text of the flipped rows only.
"""

from __future__ import annotations

import itertools
import math
import os
from array import array
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple

from .._protocol.reading import ITEM_TEXT_FIELDS
from .._protocol.score import FAILURE_KINDS, FailureKind
from .files import JSONL_SUFFIXES, PARQUET_SUFFIXES, Format, RowError, format_of, json_object, read_rows
from .groups import GroupedSummaries, group_key, group_names, parse_group_by, sort_key
from .records import FIELDS, NEWER_FIELDS
from .stats import Z95, mcnemar_exact, wilson_interval
from .summary import Summaries, Summary, counted, number_cell, text_table

if TYPE_CHECKING:
    from .result import BenchmarkResult

__all__ = [
    "Flip",
    "FlipSide",
    "GroupComparison",
    "PairedDifference",
    "RunComparison",
    "ScorerChoice",
    "compare",
    "compare_scorers",
    "paired_interval",
]

ALPHA: Final = 0.05
"""The level of the test: a drop is significant when McNemar's exact p is below it (and the 95% interval matches)."""

TEXT_LIMIT: Final = 2000
"""The longest text (an output, an item, an explanation) kept of a flipped row; longer is cut, its length kept."""

_SCORED_FORMATS: Final[Mapping[Format, tuple[str, ...]]] = {"jsonl": JSONL_SUFFIXES, "parquet": PARQUET_SUFFIXES}
ITEM_FIELDS: Final = ("item", *ITEM_TEXT_FIELDS)
"""The fields a row's item is read from, first found first."""
_KINDS: Final = (None, *FAILURE_KINDS)
_KIND_CODE: Final[dict[str | None, int]] = {k: i for i, k in enumerate(_KINDS)}
_WRONG, _RIGHT, _UNSCORED = 0, 1, 2

Gate = int | Literal[False] | None
"""`--fail-on-regression`'s N, as `regression(max_regressed)` takes it (None: a significant drop only), or False:
no gate."""


# --- statistics -------------------------------------------------------------------------------


def paired_interval(both: int, only_base: int, only_new: int, neither: int) -> tuple[float, float]:
    """The 95% interval of the paired difference in accuracy, new minus base, from the 2x2 table of the pairs.

    `both` pairs right in both runs, `only_base` right in base only (regressed),
    `only_new` right in new only (improved), `neither` wrong in both.
    Newcombe's hybrid score interval (1998, method 10): the Wilson intervals
    of the two accuracies, combined with the correlation of the pairs (phi,
    with Altman's correction: ad - bc less n/2 when positive, 0 when below it).
    It stays inside [-1, 1], is not a point when no pair flips (the Wald
    interval is), and 7 regressed, 2 improved of 200 gives about [-0.058,
    0.008]. Raises ValueError with no pair.
    """
    n = both + only_base + only_new + neither
    if n < 1:
        raise ValueError("a paired interval needs at least one pair")
    p_new, p_base = (both + only_new) / n, (both + only_base) / n
    l_new, u_new = wilson_interval(both + only_new, n)
    l_base, u_base = wilson_interval(both + only_base, n)
    margins = (both + only_new) * (only_base + neither) * (both + only_base) * (only_new + neither)
    cross = both * neither - only_base * only_new
    corrected = cross - n / 2 if cross > n / 2 else (cross if cross < 0 else 0.0)
    phi = corrected / math.sqrt(margins) if margins else 0.0
    d = p_new - p_base
    low = d - math.sqrt(
        max(0.0, (p_new - l_new) ** 2 - 2 * phi * (p_new - l_new) * (u_base - p_base) + (u_base - p_base) ** 2)
    )
    high = d + math.sqrt(
        max(0.0, (u_new - p_new) ** 2 - 2 * phi * (u_new - p_new) * (p_base - l_base) + (p_base - l_base) ** 2)
    )
    return max(-1.0, low), min(1.0, high)


def _mean_interval(diffs: Sequence[float]) -> tuple[float, float] | None:
    n = len(diffs)
    if n < 2:
        return None
    mean = math.fsum(diffs) / n
    var = math.fsum((x - mean) ** 2 for x in diffs) / (n - 1)
    half = Z95 * math.sqrt(var / n)
    return mean - half, mean + half


class PairedDifference(NamedTuple):
    """The pairs both runs scored, compared: the 2x2 table, both accuracies, their difference, its interval, McNemar.

    `regressed` pairs are right in base and wrong in new, `improved` the
    reverse. `difference` is `new_accuracy - base_accuracy` (mean values, so
    partial credit counts); `interval` its 95% interval (`paired_interval`;
    the normal interval of the mean paired difference when a value is partial
    credit; None with no pair). `p_value` is the two-sided exact McNemar test
    on the flips (1.0 with none). With no pair the accuracies are None.
    """

    pairs: int
    both_correct: int
    regressed: int
    improved: int
    both_wrong: int
    base_accuracy: float | None
    new_accuracy: float | None
    difference: float | None
    interval: tuple[float, float] | None
    p_value: float

    @property
    def significant_drop(self) -> bool:
        """True when new is worse and it is no chance: p < 0.05 and more pairs regressed than improved."""
        return self.p_value < ALPHA and self.regressed > self.improved

    @property
    def significant_gain(self) -> bool:
        """True when new is better and it is no chance: p < 0.05 and more pairs improved than regressed."""
        return self.p_value < ALPHA and self.improved > self.regressed

    def as_dict(self) -> dict[str, Any]:
        """The fields as JSON-ready values, and `significant_drop`."""
        out = self._asdict()
        out["interval"] = None if self.interval is None else list(self.interval)
        out["significant_drop"] = self.significant_drop
        return out

    def verdict(self) -> str:
        """One line: whether the change is significant."""
        if not self.pairs:
            return "no pair was scored in both runs: nothing to compare"
        if self.significant_drop:
            return f"a significant drop (p = {self.p_value:.4g} < {ALPHA:g})"
        if self.significant_gain:
            return f"a significant gain (p = {self.p_value:.4g} < {ALPHA:g})"
        return f"no significant change (p = {self.p_value:.4g}, at the {ALPHA:g} level)"


def _paired(table: list[int], base_sum: float, new_sum: float, diffs: Sequence[float] | None) -> PairedDifference:
    both, only_base, only_new, neither = table
    n = sum(table)
    if not n:
        return PairedDifference(0, 0, 0, 0, 0, None, None, None, None, 1.0)
    base_acc, new_acc = base_sum / n, new_sum / n
    interval = _mean_interval(diffs) if diffs is not None else paired_interval(both, only_base, only_new, neither)
    return PairedDifference(
        n, both, only_base, only_new, neither, base_acc, new_acc, new_acc - base_acc, interval,
        mcnemar_exact(only_base, only_new),
    )  # fmt: skip


# --- what is kept of a row -------------------------------------------------------------------------


class FlipSide(NamedTuple):
    """One side of a flipped pair: the verdict and the text a person reads (each text cut to 2,000 characters)."""

    correct: bool | None
    value: float | None
    outcome: str | None
    failure_kind: FailureKind | None
    output: str | None
    item: str | None
    label: str | None
    explanation: str | None
    where: str

    def as_dict(self) -> dict[str, Any]:
        """The fields as plain JSON data."""
        return self._asdict()

    @property
    def grade(self) -> str:
        """C, P, I or N, as `Score.grade`."""
        if self.correct is None:
            return "N"
        if self.value is not None and 0 < self.value < 1:
            return "P"
        return "C" if self.correct else "I"


class Flip(NamedTuple):
    """A pair right in one run and wrong in the other: its id, group, and both sides."""

    id: Hashable
    group: str | None
    base: FlipSide
    new: FlipSide

    def as_dict(self) -> dict[str, Any]:
        """The flip as plain JSON data."""
        return {"id": self.id, "group": self.group, "base": self.base.as_dict(), "new": self.new.as_dict()}


class GroupComparison(NamedTuple):
    """One group of a comparison: its name and column values, each side's summary, and the paired difference."""

    name: str
    key: tuple[Hashable, ...]
    base: Summary
    new: Summary
    paired: PairedDifference

    def as_dict(self, columns: Sequence[str]) -> dict[str, Any]:
        """The group as plain JSON data."""
        return {
            "group": dict(zip(columns, self.key, strict=True)),
            "name": self.name,
            "base": self.base.as_dict(),
            "new": self.new.as_dict(),
            "paired": self.paired.as_dict(),
        }


def cut_text(value: Any) -> str | None:
    """A text a report shows (a value not text as JSON), cut to `TEXT_LIMIT` characters with its length said."""
    if value is None:
        return None
    text = value if isinstance(value, str) else _as_text(value)
    if len(text) > TEXT_LIMIT:
        return f"{text[:TEXT_LIMIT]}... ({len(text):,} characters in all)"
    return text


def _as_text(value: Any) -> str:
    import json

    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


# --- reading a side ----------------------------------------------------------------------------


class _Shape:
    """How the rows of one run hold their fields and Score.

    "columns": what `scorebridge score --out` writes (the row's fields, then `SCORER.FIELD` columns);
    "benchmark": benchmark records; "nested": `{"line", "row", "score"}` (what `score --out` wrote before);
    "flat": the row's fields and the Score's side by side (`scorebridge_ray.score_dataset`).
    """

    def __init__(self, kind: str, scorer: Mapping[str, Any] | None = None, prefix: str = "") -> None:
        self.kind = kind
        self.scorer = scorer
        self.prefix = prefix
        self.keys = tuple(prefix + f for f in ("correct", "value", "failure_kind", "outcome", "explanation"))

    def fields(self, row: Mapping[str, Any], deep: bool = True) -> Mapping[str, Any]:
        """The row's own fields (what an id or a group column is looked up in; `deep`: a record's metadata too)."""
        if self.kind == "nested":
            inner = row.get("row")
            return inner if type(inner) is dict or isinstance(inner, Mapping) else {}
        if self.kind == "benchmark" and deep:
            meta = row.get("metadata")
            return {**meta, **row} if isinstance(meta, Mapping) else row
        return row

    def verdict(self, row: Mapping[str, Any]) -> Mapping[str, Any]:
        """Where the row's Score fields are (under `keys`)."""
        if self.kind == "nested":
            score = row.get("score")
            return score if type(score) is dict or isinstance(score, Mapping) else {}
        return row

    def output(self, fields: Mapping[str, Any], output_field: str) -> Any:
        return fields.get("output" if self.kind == "benchmark" else output_field)


def _scorers_in(row: Mapping[str, Any]) -> list[str]:
    return [c[:-6] for c in row if isinstance(c, str) and c.endswith(".grade") and f"{c[:-6]}.correct" in row]


def _names_in(row: Mapping[str, Any]) -> list[str] | None:
    """The scorers a run holds the scores of, from its first row: a score file's column prefixes (`exact` of
    `exact.correct`), a benchmark header's scorer; None for one unnamed scorer's (rows of another shape)."""
    if row.get("scorebridge") == "benchmark":
        identity = row.get("scorer")
        name = identity.get("name") if isinstance(identity, Mapping) else None
        return [name] if isinstance(name, str) else None
    return _scorers_in(row) or None


def _shape_of(path: str, line: int, row: Mapping[str, Any], scorer: str | None) -> tuple[_Shape, bool]:
    """The shape of a run from its first row (`scorer`: the scorer read of a score file's), and whether that row
    is a header (to skip)."""
    if row.get("scorebridge") == "benchmark":
        identity = row.get("scorer")
        return _Shape("benchmark", identity if isinstance(identity, Mapping) else None), True
    names = _scorers_in(row)
    if names:
        chosen = names[0] if scorer is None else scorer
        return _Shape("columns", {"name": chosen}, prefix=f"{chosen}."), False
    if isinstance(row.get("score"), Mapping) and isinstance(row.get("row"), Mapping):
        return _Shape("nested"), False
    if all(f in row for f in FIELDS if f not in NEWER_FIELDS):
        return _Shape("benchmark"), False
    if "correct" in row:
        return _Shape("flat"), False
    raise RowError(
        path,
        line,
        "not a scored row: expected what `scorebridge score --out` writes (the row and SCORER.correct, ... "
        "columns), or a benchmark file (its header, then one record a line)",
    )


class _Side:
    """One run as compared: per row its id, verdict, value, failure kind, group and length, in a few bytes a row."""

    def __init__(self, label: str, source: str) -> None:
        self.label = label  # "base" or "new"
        self.source = source  # the file, or what the rows came from
        self.index: dict[Hashable, int] = {}
        self.ids: list[Hashable] = []
        self.verdict = bytearray()
        self.value = array("d")
        self.kind = bytearray()
        self.group = array("l")
        self.length = array("q")
        self.where = array("q")
        self.group_keys: list[tuple[Hashable, ...]] = []
        self._group_codes: dict[tuple[Hashable, ...], int] = {}
        self.shape: _Shape | None = None
        self.id_field: str | None = None
        self.arm: str | None = None
        self.arms: set[str] = set()
        self.fetch: Callable[[Collection[int]], dict[int, Mapping[str, Any]]] = lambda wheres: {}
        self.partial = False  # a scored value strictly between 0 and 1, or outside [0, 1]
        self.held: list[str] | None = None  # the scorers whose scores the run holds (None: one unnamed scorer's)

    def __len__(self) -> int:
        return len(self.ids)

    def group_code(self, key: tuple[Hashable, ...]) -> int:
        code = self._group_codes.get(key)
        if code is None:
            code = self._group_codes[key] = len(self.group_keys)
            self.group_keys.append(key)
        return code

    def summary(self, name: str, rows: Iterable[int] | None = None) -> Summary:
        """The one summary of these rows (all of them by default), counted as `Summary.of` counts."""
        scored = correct = 0
        total = 0.0
        kinds = dict.fromkeys(FAILURE_KINDS, 0)
        indices = range(len(self.ids)) if rows is None else rows
        n = 0
        for i in indices:
            n += 1
            v = self.verdict[i]
            if v == _UNSCORED:
                continue
            scored += 1
            correct += v == _RIGHT
            total += self.value[i]
            k = self.kind[i]
            if k:
                kinds[_KINDS[k]] += 1  # type: ignore[index]
        return Summary.from_counts(name, n, scored, correct, total, kinds)


def _id_field(shape: _Shape, fields: Mapping[str, Any], given: str | None) -> str:
    if given is not None:
        return given
    if shape.kind == "benchmark":
        return "item_id"
    for name in ("id", *ITEM_FIELDS):
        if name in fields:
            return name
    return "line"


class _Reader:
    """Reads the rows of one run into a `_Side`."""

    def __init__(
        self,
        side: _Side,
        *,
        id: str | None,
        arm: str | None,
        group_by: Sequence[str],
        output_field: str,
    ) -> None:
        self.side = side
        self.id = id
        self.arm = arm
        self.group_by = group_by
        self.output_field = output_field
        self.text_fields = (*ITEM_FIELDS, output_field)
        self.deep = bool(group_by) or id is not None  # a benchmark record's metadata is looked in too

    def _bad(self, where: int, problem: str) -> RowError:
        return RowError(self.side.source, where, problem)

    def finish(self) -> None:
        """Refuse a run of no scored row (or none of the arm asked for)."""
        side = self.side
        if side.shape is None or not side.ids:
            if self.arm is not None and side.arms:
                raise RowError(
                    side.source, None, f"no record of the arm {self.arm!r}; its arms are {sorted(side.arms)}"
                )
            raise RowError(side.source, None, "holds no scored rows")

    def add(self, shape: _Shape, where: int, row: Mapping[str, Any]) -> None:
        side = self.side
        kind_of_shape = shape.kind
        if kind_of_shape == "benchmark":
            arm = row.get("arm")
            if isinstance(arm, str):
                side.arms.add(arm)
                if self.arm is not None and arm != self.arm:
                    return
                if side.arm is None:
                    side.arm = arm
                elif arm != side.arm:
                    raise self._bad(
                        where,
                        f"records of several arms ({side.arm!r}, {arm!r}, ...): choose one with --arm (arm= in Python)",
                    )
        fields = shape.fields(row, self.deep)
        if side.id_field is None:
            side.id_field = _id_field(shape, fields, self.id)
        key = self._key(shape, where, row, fields)
        first = side.index.get(_pairing(key))
        if first is not None:
            same = "" if side.ids[first] == key else f" as {side.ids[first]!r:.80} (a number and its text pair as one)"
            raise self._bad(
                where,
                f"the id {key!r:.80} is already on row {side.where[first]}{same}: ids must be unique to pair rows"
                + ("" if self.id is not None else " (name the id column with --id, id= in Python)"),
            )
        verdict = shape.verdict(row)
        correct_key, value_key, kind_key = shape.keys[:3]
        if correct_key not in verdict:  # a row of other data among scored ones (the first row decides the shape)
            raise self._bad(where, f"not a scored row: no {correct_key!r}, as the rows before it have")
        correct = verdict.get(correct_key)
        value = verdict.get(value_key)
        kind = verdict.get(kind_key)
        if correct is not True and correct is not False and correct is not None:
            raise self._bad(where, f"not a scored row: correct is {correct!r:.40}, not true, false or null")
        code = _KIND_CODE.get(kind) if kind is None or type(kind) is str else None
        if code is None:
            raise self._bad(where, f"not a scored row: failure_kind {kind!r:.40} is not one of {FAILURE_KINDS}")
        number = type(value)
        if (value is not None and number is not float and number is not int) and (
            number is bool or not isinstance(value, (int, float))
        ):
            raise self._bad(where, f"not a scored row: value is {value!r:.40}, not a number or null")
        side.index[_pairing(key)] = len(side.ids)
        side.ids.append(key)
        if correct is None:
            side.verdict.append(_UNSCORED)
            side.value.append(math.nan)
        else:
            side.verdict.append(_RIGHT if correct else _WRONG)
            v = float(correct) if value is None or value != value else float(value)  # NaN: the verdict
            if v != 0.0 and v != 1.0:
                side.partial = True
            side.value.append(v)
        side.kind.append(code)
        side.group.append(side.group_code(group_key(fields, self.group_by)) if self.group_by else 0)
        text = 0
        get = fields.get
        for name in self.text_fields:
            part = get(name)
            if type(part) is str:
                text += len(part)
        if kind_of_shape == "benchmark":
            outcome = row.get("outcome")
            text += len(outcome) if type(outcome) is str else 0
        side.length.append(text)
        side.where.append(where)

    def _key(self, shape: _Shape, where: int, row: Mapping[str, Any], fields: Mapping[str, Any]) -> Hashable:
        name = self.side.id_field
        assert name is not None
        if name == "line" and "line" not in fields and shape.kind == "nested":
            value: Any = row.get("line", where)
        elif name not in fields:
            have = ", ".join(map(str, fields)) or "no fields"
            raise self._bad(where, f"no id field {name!r}; the row has {have} (name the id column with --id)")
        else:
            value = fields[name]
        if value is None:
            raise self._bad(where, f"the id field {name!r} is null")
        if type(value) is not str and not isinstance(value, (str, int, float, bool)):
            value = _as_text(value)
        if shape.kind == "benchmark" and name == "item_id" and row.get("run"):
            return (value, row["run"])
        key: Hashable = value
        return key


def _pairing(key: Hashable) -> Hashable:
    """What pairs an id: an integer as its text, so a run read from CSV (every id text) pairs with one from JSONL."""
    if type(key) is int:
        return str(key)
    if type(key) is tuple:  # a benchmark record's (item id, run)
        return (_pairing(key[0]), key[1])
    return key


def _shown_id(key: Hashable) -> Hashable:
    """An id as shown: a benchmark record's run after its item id when it is not run 0."""
    if isinstance(key, tuple) and len(key) == 2:
        return f"{key[0]} (run {key[1]})"
    return key


def _file_rows(
    path: str,
) -> tuple[Iterator[tuple[int, dict[str, Any]]], Callable[[Collection[int]], dict[int, Mapping[str, Any]]]]:
    fmt = format_of(path, "a scored run", _SCORED_FORMATS)

    def fetch(wheres: Collection[int]) -> dict[int, Mapping[str, Any]]:
        wanted = set(wheres)
        found: dict[int, Mapping[str, Any]] = {}
        if not wanted:
            return found
        if fmt == "jsonl":
            last = max(wanted)
            with open(path, "rb") as f:
                for number, raw in enumerate(f, start=1):
                    if number in wanted:
                        found[number] = json_object(path, number, raw.decode("utf-8-sig" if number == 1 else "utf-8"))
                    if number >= last:
                        break
            return found
        for number, row in read_rows(path, fmt):
            if number in wanted:
                found[number] = row
        return found

    return read_rows(path, fmt), fetch


def _memory_rows(
    rows: Sequence[Mapping[str, Any]],
) -> tuple[Iterator[tuple[int, Mapping[str, Any]]], Callable[[Collection[int]], dict[int, Mapping[str, Any]]]]:
    def fetch(wheres: Collection[int]) -> dict[int, Mapping[str, Any]]:
        return {w: rows[w - 1] for w in wheres}

    return ((n, row) for n, row in enumerate(rows, start=1)), fetch


def _with_item_fields(result: BenchmarkResult, columns: Sequence[str]) -> list[dict[str, Any]]:
    """A result's records as rows, each with its item's fields `columns` (what group-by reads; a record's own
    field of that name is kept)."""
    records: list[dict[str, Any]] = result.to_records()
    if not columns:
        return records
    fields = result.item_fields(columns)
    return [{**fields.get(r["item_id"], {}), **r} for r in records]


class _Run(NamedTuple):
    """One run, opened: what names it, its rows (lazily, the first one peeked), how to fetch rows again, and the
    scorers it holds the scores of (None: one unnamed scorer's)."""

    label: str
    source: str
    rows: Iterable[tuple[int, Mapping[str, Any]]]
    fetch: Callable[[Collection[int]], dict[int, Mapping[str, Any]]]
    names: list[str] | None
    identity: Mapping[str, Any] | None  # a BenchmarkResult's scorer

    def holds(self) -> str:
        """What scorers' scores the run holds, as a message says it after the run's name."""
        if self.names is None:
            return "holds one unnamed scorer's scores"
        return f"holds scores of {', '.join(self.names)}"


def _open(label: str, run: Any, *, name: str | None, group_by: Sequence[str]) -> _Run:
    from .result import BenchmarkResult

    identity: Mapping[str, Any] | None = None
    side_rows: Iterable[tuple[int, Mapping[str, Any]]]
    if isinstance(run, (str, os.PathLike)):
        path = os.fspath(run)
        source = name or path
        side_rows, fetch = _file_rows(path)
    else:
        if isinstance(run, BenchmarkResult):
            records: Sequence[Mapping[str, Any]] = _with_item_fields(run, group_by)
            source = name or f"{label} (a BenchmarkResult)"
            identity = {"name": run.scorer, "options": {}}
        elif hasattr(run, "iter_rows") and callable(run.iter_rows):  # a Ray Dataset, read row by row
            records = list(run.iter_rows())
            source = name or f"{label} (a {type(run).__name__})"
        elif isinstance(run, Iterable) and not isinstance(run, (bytes, Mapping)):
            records = run if isinstance(run, Sequence) else list(run)
            source = name or f"{label} ({type(run).__name__} of rows)"
        else:
            raise TypeError(
                f"compare: {label} must be a scored file's path, a BenchmarkResult, a Ray Dataset or rows "
                f"(dicts); got {type(run).__name__}"
            )
        for i, r in enumerate(records[:1]):
            if not isinstance(r, Mapping):
                raise TypeError(f"compare: {label}'s rows must be dicts; row {i + 1} is a {type(r).__name__}")
        side_rows, fetch = _memory_rows(records)
    rows = iter(side_rows)
    first = next(rows, None)
    if first is not None and first[1].get("scorebridge") == "score":  # a `score --out` file's header: rows follow
        first = next(rows, None)
    if first is None:
        raise RowError(source, None, "holds no scored rows")
    names = [identity["name"]] if identity is not None else _names_in(first[1])
    return _Run(label, source, itertools.chain((first,), rows), fetch, names, identity)


def _read_sides(run: _Run, scorers: Sequence[str | None], **options: Any) -> list[_Side]:
    """A `_Side` per scorer of `scorers` (each a score file's column prefix, or None: the run's one scorer), all
    read in one pass over the run's rows."""
    sides = [_Side(run.label, run.source) for _ in scorers]
    for side in sides:
        side.held = run.names
    readers = [_Reader(side, **options) for side in sides]
    shapes: list[_Shape] = []
    rows = iter(run.rows)
    for where, row in rows:  # the first row: each side's shape (and a header, skipped)
        header = False
        for side, name in zip(sides, scorers, strict=True):
            shape, header = _shape_of(side.source, where, row, name)
            if shape.scorer is None and run.identity is not None:
                shape.scorer = run.identity
            side.shape = shape
            side.fetch = run.fetch
            shapes.append(shape)
        if not header:
            for reader, shape in zip(readers, shapes, strict=True):
                reader.add(shape, where, row)
        break
    if len(readers) == 1:  # one scorer: the loop a row at a time, with nothing around it
        add, only = readers[0].add, shapes[0]
        for where, row in rows:
            add(only, where, row)
    else:
        each = list(zip(readers, shapes, strict=True))
        for where, row in rows:
            for reader, shape in each:
                reader.add(shape, where, row)
    for reader in readers:
        reader.finish()
    kind = None if not shapes else shapes[0].kind
    if options.get("arm") is not None and kind != "benchmark":
        raise ValueError(f"compare: {run.source} holds no benchmark records: it has no arms to choose")
    return sides


class ScorerChoice(ValueError):
    """Which scorers to compare cannot be told from the runs and `scorer=`: the message in Python's words, and
    `cli`, the same in the command line's (`--scorer`)."""

    def __init__(self, python: str, cli: str) -> None:
        super().__init__(python)
        self.cli = cli


def _chosen_name(run: _Run, given: str) -> str | None:
    """The scorer `given` in `run` (None: the run's one unnamed scorer), or a `ScorerChoice` naming what it holds."""
    if run.names is None:
        return None
    if given not in run.names:
        raise ScorerChoice(
            f"compare: {run.source} {run.holds()}, not of {given!r}; name each side's scorer with "
            "scorer=(base's, new's)",
            f"--scorer {given}: {run.source} {run.holds()}, not of {given!r}; name each side's with --scorer twice "
            "(base's, then new's)",
        )
    return given


def _scorer_pairs(base: _Run, new: _Run, scorer: str | tuple[str, str] | None) -> list[tuple[str | None, str | None]]:
    """The scorers compared, as (base's, new's) pairs (None: a run's one unnamed scorer), by the rule `compare`
    and `compare_scorers` document."""
    if scorer is not None:
        names = _pair_of("scorer", scorer)
        return [(_chosen_name(base, names[0] or ""), _chosen_name(new, names[1] or ""))]
    b: list[str | None] = [None] if base.names is None else [*base.names]
    n: list[str | None] = [None] if new.names is None else [*new.names]
    if len(b) == 1 and len(n) == 1:  # one scorer's scores on each side: they are compared, whatever their names
        return [(b[0], n[0])]
    common = [name for name in b if name is not None and name in n]
    if common:
        return [(name, name) for name in common]
    problem = f"{base.source} {base.holds()}, and {new.source} {new.holds()}: no scorer is on both sides"
    raise ScorerChoice(
        f"compare: {problem}; name each side's scorer with scorer=(base's, new's)",
        f"{problem}; name each side's with --scorer twice (base's, then new's)",
    )


# --- the comparison ----------------------------------------------------------------------------


def _shown(value: str | None, limit: int = 40) -> str:
    if value is None:
        return "-"
    text = " ".join(value.split())
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def _side_cell(side: FlipSide) -> str:
    kind = f" {side.failure_kind}" if side.failure_kind else ""
    return f"{side.grade}{kind} {_shown(side.outcome if side.outcome is not None else side.output)}"


class RunComparison:
    """Two runs compared pair by pair (what `compare()` gives).

    - `base`, `new`: each side's `Summary` (all its rows, paired or not);
    - `paired`: the `PairedDifference` over the pairs both scored;
    - `regressed`, `improved`: the `Flip`s, shortest first (by the length of
      the item's and outputs' text, then in base's order);
    - `only_base`, `only_new`: the ids of rows on one side only; `unscored_pairs`:
      pairs that one side or both left unscored (in neither the test nor the
      difference);
    - `groups`: with `group_by`, a `GroupComparison` per group (pairs by base's
      value of the columns), which add up to the whole;
    - `provenance`: what was compared: the files, the scorers, the id, counts, time.

    `str()` is the text report; `as_dict()` the JSON one; `report(path)` writes
    the HTML page; `regression(max_regressed)` says why CI should fail, or None.
    """

    def __init__(
        self,
        base: Summary,
        new: Summary,
        paired: PairedDifference,
        regressed: Sequence[Flip],
        improved: Sequence[Flip],
        only_base: Sequence[Hashable],
        only_new: Sequence[Hashable],
        unscored_pairs: int,
        group_by: Sequence[str],
        groups: Sequence[GroupComparison],
        base_groups: GroupedSummaries | None,
        new_groups: GroupedSummaries | None,
        provenance: Mapping[str, Any],
    ) -> None:
        self.base = base
        self.new = new
        self.paired = paired
        self.regressed: tuple[Flip, ...] = tuple(regressed)
        self.improved: tuple[Flip, ...] = tuple(improved)
        self.only_base: tuple[Hashable, ...] = tuple(only_base)
        self.only_new: tuple[Hashable, ...] = tuple(only_new)
        self.unscored_pairs = unscored_pairs
        self.group_by: tuple[str, ...] = tuple(group_by)
        self.groups: tuple[GroupComparison, ...] = tuple(groups)
        self.base_groups = base_groups
        self.new_groups = new_groups
        self.provenance: dict[str, Any] = dict(provenance)

    def __repr__(self) -> str:
        p = self.paired
        return (
            f"<RunComparison {p.pairs} pairs, {p.regressed} regressed, {p.improved} improved, "
            f"{len(self.only_base)} only in base, {len(self.only_new)} only in new>"
        )

    @property
    def scorer(self) -> str | None:
        """The scorer compared, as the text and the page name it: `exact`, or `exact (base) and exact_match (new)`
        when the two runs name it otherwise; None when neither run names its scorer."""
        names = [(self.provenance[side].get("scorer") or {}).get("name") for side in ("base", "new")]
        if names[0] == names[1] or None in names:
            return names[0] or names[1]
        return f"{names[0]} (base) and {names[1]} (new)"

    def regression(self, max_regressed: int | None = 0) -> str | None:
        """Why the new run is a regression, or None: a significant drop, or more than `max_regressed` regressed items.

        `max_regressed=None` fails on a significant drop only. A comparison with no pair scored in both runs
        (ids that never match, every pair unscored on a side) is one too: nothing in it shows the new run holds
        up. The reason is one line, for CI.
        """
        p = self.paired
        if not p.pairs:
            return (
                f"no pair was scored in both runs ({len(self.only_base)} only in base, {len(self.only_new)} only "
                f"in new, {self.unscored_pairs} unscored on a side), so nothing shows the new run is no regression"
            )
        reasons = []
        if p.significant_drop:
            diff, ci = p.difference or 0.0, p.interval
            shown_ci = "" if ci is None else f", 95% CI [{ci[0]:+.3f}, {ci[1]:+.3f}]"
            reasons.append(
                f"a significant drop: accuracy {number_cell(p.base_accuracy)} -> {number_cell(p.new_accuracy)} "
                f"({diff:+.3f}{shown_ci}), {p.regressed} regressed against {p.improved} improved, "
                f"exact McNemar p = {p.p_value:.4g} < {ALPHA:g}"
            )
        if max_regressed is not None and p.regressed > max_regressed:
            items = "item" if p.regressed == 1 else "items"
            reasons.append(f"{p.regressed} {items} regressed, more than {max_regressed}")
        return "; ".join(reasons) or None

    # --- text ---------------------------------------------------------------------------------

    def _flip_lines(self, title: str, flips: Sequence[Flip], show: int | None) -> list[str]:
        if not flips:
            return [f"{title}: none"]
        shown = flips if show is None else flips[:show]
        head = f"{title}: {len(flips)}, shortest first"
        if not shown:
            head = f"{title}: {len(flips)} (--show N lists them)"
        elif len(shown) < len(flips):
            head += f" (the first {len(shown)}; --show N for more)"
        rows = [["id", *(["group"] if self.group_by else []), "base", "new"]]
        for f in shown:
            rows.append([str(f.id), *([f.group or ""] if self.group_by else []), _side_cell(f.base), _side_cell(f.new)])
        return [head, *(f"  {line}" for line in text_table(rows, rule=True))] if shown else [head]

    def _one_side_lines(self, title: str, ids: Sequence[Hashable], show: int | None) -> list[str]:
        if not ids:
            return []
        shown = ids if show is None else ids[:show]
        if not shown:
            return [f"{title}: {len(ids)} (--show N lists them)"]
        more = f", ... ({len(ids) - len(shown)} more)" if len(shown) < len(ids) else ""
        return [f"{title}: {len(ids)}: {', '.join(map(str, shown))}{more}"]

    def _group_lines(self) -> list[str]:
        rows = [
            [", ".join(self.group_by), "pairs", "base", "new", "difference", "95% CI", "regressed", "improved", "p"]
        ]
        for g in (*self.groups, GroupComparison("all", (), self.base, self.new, self.paired)):
            p = g.paired
            ci = "-" if p.interval is None else f"[{p.interval[0]:+.3f}, {p.interval[1]:+.3f}]"
            diff = "-" if p.difference is None else f"{p.difference:+.3f}"
            rows.append([
                g.name, str(p.pairs), number_cell(p.base_accuracy), number_cell(p.new_accuracy), diff, ci,
                str(p.regressed), str(p.improved), f"{p.p_value:.4g}",
            ])  # fmt: skip
        return text_table(rows, right=range(1, 9), rule=True)

    def lines(self, show: int | None = 20) -> list[str]:
        """The text report, line by line; `show` cuts each list of items (None: all)."""
        prov = self.provenance
        p = self.paired
        out = [f"base: {prov['base']['source']}", f"new:  {prov['new']['source']}"]
        out += Summaries([self.base._replace(name="base"), self.new._replace(name="new")], kind="run").lines()
        out.append("")
        out.append(
            f"paired by {id_text(prov['id'])}: {counted(p.pairs + self.unscored_pairs, 'pair')} "
            f"({self.unscored_pairs} unscored on a side, left out), "
            f"{len(self.only_base)} only in base, {len(self.only_new)} only in new"
        )
        if p.pairs:
            ci = "" if p.interval is None else f", 95% CI [{p.interval[0]:+.3f}, {p.interval[1]:+.3f}]"
            out.append(
                f"accuracy on the {counted(p.pairs, 'pair')} scored in both: base {number_cell(p.base_accuracy)}, "
                f"new {number_cell(p.new_accuracy)}; difference (new - base) {p.difference or 0.0:+.3f}{ci}"
            )
            out.append(
                f"flips: {p.regressed} regressed (right in base, wrong in new), {p.improved} improved; "
                f"exact McNemar test, two-sided: p = {p.p_value:.4g}"
            )
        out.append(p.verdict())
        if self.groups:
            out += ["", f"by {', '.join(self.group_by)}:", *(f"  {line}" for line in self._group_lines())]
        out.append("")
        out += self._flip_lines("regressed", self.regressed, show)
        out += self._flip_lines("improved", self.improved, show)
        out += self._one_side_lines("only in base", self.only_base, show)
        out += self._one_side_lines("only in new", self.only_new, show)
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())

    # --- JSON ---------------------------------------------------------------------------------

    def as_dict(self, show: int | None = None) -> dict[str, Any]:
        """The comparison as plain JSON data; `show` cuts each list of items (None: all), the counts stay whole."""

        def cut(seq: Sequence[Any]) -> Sequence[Any]:
            return seq if show is None else seq[:show]

        return {
            "base": self.base.as_dict(),
            "new": self.new.as_dict(),
            "paired": self.paired.as_dict(),
            "unscored_pairs": self.unscored_pairs,
            "regressed": [f.as_dict() for f in cut(self.regressed)],
            "improved": [f.as_dict() for f in cut(self.improved)],
            "only_base": {"count": len(self.only_base), "ids": list(cut(self.only_base))},
            "only_new": {"count": len(self.only_new), "ids": list(cut(self.only_new))},
            "group_by": list(self.group_by),
            "groups": [g.as_dict(self.group_by) for g in self.groups],
            "provenance": self.provenance,
        }

    def report(
        self,
        path: str | os.PathLike[str],
        *,
        title: str | None = None,
        show: int | None = 200,
        fail_on_regression: Gate = False,
    ) -> str:
        """Write the comparison as one self-contained HTML page to `path` (no request when viewed); the path.

        `show` cuts each list of flipped items (None: all). `fail_on_regression`, the `max_regressed` of
        `regression()` (None: a significant drop only), colours the verdict by that gate: red when it fails,
        green when it passes; without it (False) the verdict is coloured by McNemar's test (see the docs).
        """
        return write_comparisons([self], path, title=title, show=show, fail_on_regression=fail_on_regression)


def write_comparisons(
    comparisons: Sequence[RunComparison],
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    show: int | None = 200,
    fail_on_regression: Gate = False,
) -> str:
    """Write the comparisons (one per scorer) as one HTML page, a section each, to `path`; the path."""
    from .report import comparison_page, write_page

    return write_page(path, comparison_page(comparisons, title=title, show=show, gate=fail_on_regression))


def comparisons_lines(comparisons: Sequence[RunComparison], show: int | None = 20) -> list[str]:
    """The text of one comparison per scorer: each one's `lines()`, under a heading naming its scorer when there
    are several, then the scorers one run holds and the comparison left out (`not_compared`)."""
    if len(comparisons) == 1:
        out = comparisons[0].lines(show=show)
    else:
        out = []
        for c in comparisons:
            out += [*([""] if out else []), f"== scorer {c.scorer} ==", *c.lines(show=show)]
    left = not_compared(comparisons)
    return [*out, *([""] if left else []), *left]


def not_compared(comparisons: Sequence[RunComparison]) -> list[str]:
    """A line per run holding scores of scorers that were not compared (the other run has none of theirs, or
    `--scorer` chose others): `not compared: new's f1`; none when every scorer was."""
    lines = []
    for side in ("base", "new"):
        compared = {(c.provenance[side].get("scorer") or {}).get("name") for c in comparisons}
        held = comparisons[0].provenance[side].get("scorers") or [] if comparisons else []
        left = [name for name in held if name not in compared]
        if left:
            lines.append(f"not compared: {side}'s {', '.join(left)}")
    return lines


def comparisons_dict(
    comparisons: Sequence[RunComparison],
    show: int | None = None,
    fail_on_regression: Gate = False,
) -> dict[str, Any]:
    """The JSON of one comparison per scorer: one's `as_dict()` with its `scorer` (and, given
    `fail_on_regression`, its `regression`); several as `{"scorers": [...], "comparisons": [...]}`, with the
    `regression` of all of them."""
    parts = []
    for c in comparisons:
        data = {"scorer": c.scorer, **c.as_dict(show=show)}
        if fail_on_regression is not False:
            data["regression"] = c.regression(fail_on_regression)
        parts.append(data)
    if len(parts) == 1:
        return parts[0]
    whole: dict[str, Any] = {"scorers": [c.scorer for c in comparisons], "comparisons": parts}
    if fail_on_regression is not False:
        whole["regression"] = comparisons_regression(comparisons, fail_on_regression)
    return whole


def comparisons_regression(comparisons: Sequence[RunComparison], max_regressed: int | None = 0) -> str | None:
    """Why any of the comparisons is a regression (each reason after its scorer's name when there are several),
    or None."""
    reasons = [(c.scorer, c.regression(max_regressed)) for c in comparisons]
    found = [(name, why) for name, why in reasons if why is not None]
    if len(comparisons) == 1 or not found:
        return found[0][1] if found else None
    return "; ".join(f"{name}: {why}" for name, why in found)


def _flip_side(side: _Side, i: int, row: Mapping[str, Any] | None, output_field: str) -> FlipSide:
    shape = side.shape
    fields: Mapping[str, Any] = {} if row is None or shape is None else shape.fields(row)
    verdict: Mapping[str, Any] = {} if row is None or shape is None else shape.verdict(row)
    v = side.verdict[i]
    item = next((fields[f] for f in ITEM_FIELDS if f in fields), None)
    keys = ("", "", "", "outcome", "explanation") if shape is None else shape.keys
    explanation = verdict.get(keys[4])
    if shape is not None and shape.kind == "benchmark" and verdict.get("error"):
        explanation = f"{verdict.get('error')}" + (f"; {explanation}" if explanation else "")
    return FlipSide(
        None if v == _UNSCORED else v == _RIGHT,
        None if v == _UNSCORED else side.value[i],
        cut_text(verdict.get(keys[3])),
        _KINDS[side.kind[i]],
        cut_text(None if shape is None else shape.output(fields, output_field)),
        cut_text(item),
        cut_text(fields.get("label")),
        cut_text(explanation),
        f"{side.source}:{side.where[i]}",
    )


def compare(
    base: Any,
    new: Any,
    *,
    id: str | tuple[str, str] | None = None,
    arm: str | tuple[str, str] | None = None,
    scorer: str | tuple[str, str] | None = None,
    group_by: str | Sequence[str] | None = None,
    output_field: str = "output",
    names: tuple[str, str] | None = None,
) -> RunComparison:
    """Compare two scored runs item by item: each side's summary, the paired difference, McNemar's test, the flips.

    Args:
        base, new: Each a scored file (the path of what `scorebridge score --out`
            or `benchmark(out=...)` writes, JSONL or Parquet), a
            `BenchmarkResult`, a Ray Dataset scored by `score_dataset` (read
            row by row), or rows in memory (dicts in either file's shape).
        id: The field that pairs rows. Default: a benchmark record's item id
            (and its run); else the row's `id`, else its item (`item`,
            `input`, `question`), else its `line`; a benchmark's item id pairs
            with a scored file's `id`. Or a pair (base's, new's), to pair
            other columns. Ids must be unique on a side; an integer id pairs
            with its text (1 with "1": a run read from CSV has every id as
            text).
        arm: For benchmark records of several arms, the arm to compare (one
            name for both sides, or a pair (base's, new's)).
        scorer: The scorer compared, for a file of several scorers' scores
            (`score --scorer a --scorer b`, whose columns are `a.correct`,
            ...): one name for both sides, or a pair (base's, new's) when their
            names differ. A benchmark file's scorer is the one its header
            names. Without it, two runs of one scorer each are compared
            whatever their names, and runs of several by the one scorer on
            both sides (more than one: `compare_scorers` compares each).
        group_by: Columns (a name, a comma list, or several) to compare by
            group too: a pair's group is base's value of them. A
            `BenchmarkResult`'s rows have its items' fields (as
            `result.summary(group_by=...)`); a benchmark file holds no items,
            only each record's Score metadata.
        output_field: The output's field in a row (`output`), shown beside
            the outcome of a flipped row.
        names: How the report names the two runs (default: the files).

    Raises RowError ("FILE:LINE: problem") for a file that cannot be read, a
    row that is not scored, a missing or repeated id; TypeError for a run of
    another kind; ValueError for a group-by column that no row has, or that
    only new's rows have (a pair's group is base's value); `ScorerChoice` (a
    ValueError) for a scorer neither side holds, no scorer on both sides, or
    several on both (with none chosen).
    """
    (compared,) = _comparisons(
        base, new, one=True, id=id, arm=arm, scorer=scorer, group_by=group_by, output_field=output_field, names=names
    )
    return compared


def compare_scorers(base: Any, new: Any, **options: Any) -> tuple[RunComparison, ...]:
    """Compare two scored runs scorer by scorer: a `RunComparison` for each scorer on both sides, in base's order.

    What `scorebridge compare` does; the options are `compare`'s (`id`, `arm`, `scorer`, `group_by`,
    `output_field`, `names`). Two files of several scorers' scores (`score --scorer a --scorer b --out`) give
    one comparison per scorer both hold, each file read once for all of them; a scorer on one side only is
    left out (`RunComparison.scorer` names each one compared). A run of one scorer's scores (a benchmark
    file, whose header names its scorer; a score file of one scorer) compares with the same scorer's scores
    in a file of several; two runs of one scorer each are compared whatever their names. `scorer=` chooses
    one, as for `compare`. Raises as `compare` does; `ScorerChoice` when no scorer is on both sides.
    """
    return _comparisons(base, new, one=False, **options)


def _comparisons(
    base: Any,
    new: Any,
    *,
    one: bool,
    scorer: str | tuple[str, str] | None = None,
    group_by: str | Sequence[str] | None = None,
    names: tuple[str, str] | None = None,
    **options: Any,
) -> tuple[RunComparison, ...]:
    b, n = _open_both(base, new, group_by, names)
    pairs = _scorer_pairs(b, n, scorer)
    if one and len(pairs) > 1:
        shown = ", ".join(str(p[0]) for p in pairs)
        raise ScorerChoice(
            f"compare: base and new both hold scores of several scorers ({shown}): choose one with scorer=, "
            "or compare each with compare_scorers()",
            f"base and new both hold scores of several scorers ({shown}): choose one with --scorer",
        )
    return _compare_pairs(b, n, pairs, group_by=group_by, **options)


def _open_both(
    base: Any, new: Any, group_by: str | Sequence[str] | None, names: tuple[str, str] | None
) -> tuple[_Run, _Run]:
    columns = parse_group_by(group_by)
    label_names = names or (None, None)
    return (
        _open("base", base, name=label_names[0], group_by=columns),
        _open("new", new, name=label_names[1], group_by=columns),
    )


def _compare_pairs(
    base: _Run,
    new: _Run,
    pairs: Sequence[tuple[str | None, str | None]],
    *,
    id: str | tuple[str, str] | None = None,
    arm: str | tuple[str, str] | None = None,
    group_by: str | Sequence[str] | None = None,
    output_field: str = "output",
) -> tuple[RunComparison, ...]:
    columns = parse_group_by(group_by)
    arms = _pair_of("arm", arm)
    ids = _pair_of("id", id)
    options = {"group_by": columns, "output_field": output_field}
    bs = _read_sides(base, [p[0] for p in pairs], arm=arms[0], id=ids[0], **options)
    ns = _read_sides(new, [p[1] for p in pairs], arm=arms[1], id=ids[1], **options)
    b, n = bs[0], ns[0]
    benchmark_items = any(s.shape is not None and s.shape.kind == "benchmark" for s in (b, n))
    by_item = id is None and benchmark_items and {b.id_field, n.id_field} == {"item_id", "id"}  # item id with id
    if b.id_field != n.id_field and ids[0] == ids[1] and not by_item:
        raise ValueError(
            f"compare: base pairs by {b.id_field!r} but new by {n.id_field!r} (each side's default); "
            "name one id column for both with --id, or each side's with --id twice (base's, then new's; "
            "id=(base's, new's) in Python)"
        )
    for column in columns:
        if all(k[columns.index(column)] is None for side in (b, n) for k in side.group_keys):
            benchmark = any(side.shape is not None and side.shape.kind == "benchmark" for side in (b, n))
            hint = (
                " (a benchmark file holds no item fields, only each record's Score metadata: compare the "
                "BenchmarkResults in Python to group by an item field)"
                if benchmark
                else ""
            )
            raise ValueError(f"compare: no row of either run has the group-by column {column!r}{hint}")
        if all(k[columns.index(column)] is None for k in b.group_keys):
            raise ValueError(
                f"compare: no row of base has the group-by column {column!r}, only new's rows: a pair's group is "
                "base's value of it, so every pair would be in the group (none)"
            )
    return tuple(_compare(sb, sn, columns, output_field) for sb, sn in zip(bs, ns, strict=True))


def id_text(id_field: str | Sequence[str], shown: Callable[[str], str] = repr) -> str:
    """The id that paired the rows, as a report says it: `'id'`, or `'id' (base) and 'item_id' (new)`
    (each name `shown`: quoted by default)."""
    if isinstance(id_field, str):
        return shown(id_field)
    return f"{shown(id_field[0])} (base) and {shown(id_field[1])} (new)"


def _pair_of(what: str, given: str | tuple[str, str] | None) -> tuple[str | None, str | None]:
    """`arm=` or `id=`: one name for both sides, or a pair (base's, new's)."""
    if given is None or isinstance(given, str):
        return (given, given)
    pair = tuple(given)
    if len(pair) != 2 or not all(isinstance(x, str) for x in pair):
        raise ValueError(f"compare: {what} must be a name or a pair of names (base's, new's); got {given!r}")
    return (pair[0], pair[1])


def _compare(b: _Side, n: _Side, columns: tuple[str, ...], output_field: str) -> RunComparison:
    from .report import scorebridge_version

    partial = b.partial or n.partial
    seen = bytearray(len(n))
    table = [0, 0, 0, 0]
    sums = [0.0, 0.0]
    diffs: list[float] | None = [] if partial else None
    unscored_pairs = 0
    only_base: list[Hashable] = []
    flips: list[tuple[int, int, int, bool]] = []  # (length, i, j, regressed)
    by_group: dict[int, list[Any]] = {}  # base's group code -> [table, sums, diffs, base rows, new rows]
    new_rows_of_group: dict[int, list[int]] = {}
    index = n.index
    for i, key in enumerate(b.ids):
        g = b.group[i]
        group = by_group.get(g)
        if group is None:
            group = by_group[g] = [[0, 0, 0, 0], [0.0, 0.0], [] if partial else None, [], []]
        if columns:  # the rows of each group, for its summaries
            group[3].append(i)
        j = index.get(_pairing(key))
        if j is None:
            only_base.append(_shown_id(key))
            continue
        seen[j] = 1
        if columns:
            group[4].append(j)
        vb, vn = b.verdict[i], n.verdict[j]
        if vb == _UNSCORED or vn == _UNSCORED:
            unscored_pairs += 1
            continue
        cell = (0 if vb == _RIGHT else 2) + (0 if vn == _RIGHT else 1)  # both, only base, only new, neither
        table[cell] += 1
        group[0][cell] += 1
        xb, xn = b.value[i], n.value[j]
        sums[0] += xb
        sums[1] += xn
        group[1][0] += xb
        group[1][1] += xn
        if diffs is not None:
            diffs.append(xn - xb)
            group[2].append(xn - xb)
        if cell in (1, 2):
            flips.append((b.length[i] + n.length[j], i, j, cell == 1))
    only_new = [_shown_id(key) for j, key in enumerate(n.ids) if not seen[j]]
    for j in range(len(n)):
        if not seen[j]:
            new_rows_of_group.setdefault(n.group[j], []).append(j)

    flips.sort(key=lambda f: (f[0], f[1]))
    wanted_b = {b.where[i] for _, i, _, _ in flips}
    wanted_n = {n.where[j] for _, _, j, _ in flips}
    rows_b, rows_n = b.fetch(wanted_b), n.fetch(wanted_n)
    regressed: list[Flip] = []
    improved: list[Flip] = []
    # the comparison's groups: base's, and those of rows only in new (a pair is in base's group)
    names = group_names([*b.group_keys, *(n.group_keys[g] for g in new_rows_of_group)], columns) if columns else {}
    for _, i, j, down in flips:
        group_text = names[b.group_keys[b.group[i]]] if columns else None
        flip = Flip(
            _shown_id(b.ids[i]),
            group_text,
            _flip_side(b, i, rows_b.get(b.where[i]), output_field),
            _flip_side(n, j, rows_n.get(n.where[j]), output_field),
        )
        (regressed if down else improved).append(flip)

    groups: list[GroupComparison] = []
    base_groups = new_groups = None
    if columns:
        # A new-only row is in the group of its own value, mapped to base's codes by key.
        code_of = {key: code for code, key in enumerate(b.group_keys)}
        extra: dict[tuple[Hashable, ...], list[int]] = {}
        for ng, js in new_rows_of_group.items():
            key = n.group_keys[ng]
            if key in code_of:
                by_group.setdefault(code_of[key], [[0, 0, 0, 0], [0.0, 0.0], [] if partial else None, [], []])[
                    4
                ].extend(js)
            else:
                extra.setdefault(key, []).extend(js)
        keyed = [(b.group_keys[code], data) for code, data in by_group.items()]
        keyed += [(key, [[0, 0, 0, 0], [0.0, 0.0], None, [], js]) for key, js in extra.items()]
        keyed.sort(key=lambda pair: sort_key(pair[0]))
        for key, (tab, s, ds, bi, nj) in keyed:
            name = names[key]
            groups.append(
                GroupComparison(name, key, b.summary(name, bi), n.summary(name, nj), _paired(tab, s[0], s[1], ds))
            )
        base_groups = GroupedSummaries(columns, [(g.key, g.base) for g in groups], b.summary("base"))
        new_groups = GroupedSummaries(columns, [(g.key, g.new) for g in groups], n.summary("new"))

    def about(side: _Side) -> dict[str, Any]:
        shape = side.shape
        info: dict[str, Any] = {
            "source": side.source,
            "rows": len(side),
            "shape": None if shape is None else shape.kind,
        }
        if shape is not None and shape.scorer is not None:
            info["scorer"] = dict(shape.scorer)
        if side.arm is not None:
            info["arm"] = side.arm
        if side.held is not None:
            info["scorers"] = list(side.held)
        if os.path.isfile(side.source):
            info["bytes"] = os.path.getsize(side.source)
        return info

    provenance = {
        "base": about(b),
        "new": about(n),
        "id": b.id_field if b.id_field == n.id_field else [b.id_field, n.id_field],
        "made": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "scorebridge": scorebridge_version(),
    }
    return RunComparison(
        b.summary("base"),
        n.summary("new"),
        _paired(table, sums[0], sums[1], diffs),
        regressed,
        improved,
        only_base,
        only_new,
        unscored_pairs,
        columns,
        groups,
        base_groups,
        new_groups,
        provenance,
    )
