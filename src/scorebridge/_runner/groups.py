"""Summaries by group: one `Summary` per value of one or more columns, then the whole.

Used by `scorebridge score --group-by`, `scorebridge compare --group-by`,
`BenchmarkResult.summary(group_by=...)` and the pytest plugin's summary, so a
group is named, ordered and counted alike everywhere:

- a group is the combination of the values of the columns (`category=math,
  lang=en`); a row without the column (or with null there) is in the group
  `(none)` for it;
- groups are ordered by their values, as text (a number before a text that
  prints the same);
- each group of one table (or comparison) has a name of its own: where two
  would print the same (the number `1` and the text `"1"`, which are two
  groups), those show their text in quotes (`'1'`) and numbers bare (`1`);
- the summaries of the groups add up to the whole: every row is in exactly one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, Final

from .summary import Summaries, Summary

__all__ = ["MISSING", "GroupedSummaries", "group_key", "group_name", "group_names", "parse_group_by"]

MISSING: Final = "(none)"
"""How a group shows a row that has no value for its column (no such field, or null)."""


def parse_group_by(columns: str | Sequence[str] | None) -> tuple[str, ...]:
    """The columns of `--group-by` or `group_by=`: a name, a comma list, or several of either; no blanks, no repeats.

    Raises ValueError on a blank name or a name given twice.
    """
    if columns is None:
        return ()
    given = [columns] if isinstance(columns, str) else list(columns)
    names: list[str] = []
    for each in given:
        if not isinstance(each, str):
            raise TypeError(f"group_by: a column name must be a string; got {type(each).__name__}")
        for name in each.split(","):
            name = name.strip()
            if not name:
                raise ValueError(f"group_by: a blank column name in {each!r}")
            if name in names:
                raise ValueError(f"group_by: the column {name!r} is given twice")
            names.append(name)
    return tuple(names)


def _hashable(value: Any) -> Hashable:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    import json

    try:
        return json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def group_key(fields: Mapping[str, Any] | None, columns: Sequence[str]) -> tuple[Hashable, ...]:
    """The group of a row: its value for each column (None where it has none, or null), made hashable.

    A str, number, bool or None is kept as it is; any other value (a list, a dict) is its JSON text with
    sorted keys, or its `repr` where JSON cannot hold it. `fields` None or empty: None for every column.
    """
    if not fields:
        return (None,) * len(columns)
    return tuple(_hashable(fields.get(c)) for c in columns)


def _text(value: Hashable, quoted: bool) -> str:
    if value is None:
        return MISSING
    return repr(value) if quoted and isinstance(value, str) else str(value)


def group_name(key: Sequence[Hashable], columns: Sequence[str], *, quoted: bool = False) -> str:
    """A group's name: the value alone for one column (`math`), `column=value, ...` for several.

    A missing value is `(none)`. With `quoted`, a text value is shown in quotes as Python writes
    it (`'1'`, `"it's"`) and any other value bare (`1`, `True`, `(none)`): `group_names` names a
    group so when its plain name is another group's too.
    """
    if len(columns) == 1:
        return _text(key[0], quoted)
    return ", ".join(f"{c}={_text(v, quoted)}" for c, v in zip(columns, key, strict=True))


def group_names(keys: Iterable[tuple[Hashable, ...]], columns: Sequence[str]) -> dict[tuple[Hashable, ...], str]:
    """Each key's name, one of its own among `keys` (a key given twice is one group): the one rule of every table.

    A key's name is its plain `group_name` unless another key's would be the same (the number 1 and the
    text "1"; None and the text "(none)"): then both are named `quoted` (`1` and `'1'`, `(none)` and
    `'(none)'`), and so, in turn, is a key whose plain name equals one of those (the text "'1'" becomes
    `"'1'"`). The names of other keys are left plain. Only values no text tells apart keep one name
    (two NaN floats, which are two groups as NaN is equal to nothing).
    """
    names = {key: group_name(key, columns) for key in keys}
    quoted: set[tuple[Hashable, ...]] = set()
    while True:
        counts = Counter(names.values())
        clash = [key for key, name in names.items() if counts[name] > 1 and key not in quoted]
        if not clash:
            return names
        for key in clash:
            quoted.add(key)
            names[key] = group_name(key, columns, quoted=True)


def sort_key(key: Sequence[Hashable]) -> tuple[tuple[int, str, bool], ...]:
    """Groups in order of their values, as text (a number before a text that prints the same); `(none)` last."""
    return tuple((1, "", False) if v is None else (0, str(v), isinstance(v, str)) for v in key)


class GroupedSummaries:
    """One `Summary` per group (`groups`, in order), and the summary of every row (`whole`).

    Each group's summary is named here, by its key among all the keys (`group_names`): the
    name a summary is given is replaced, so that two groups never share one.

    `str()` is one table: a line per group, then the whole (named `all`).
    `as_dict()` gives `[{"group": {column: value}, **summary}, ...]`.
    `GroupedSummaries.of(name, columns, rows)` counts rows of fields and verdicts.
    """

    __slots__ = ("columns", "groups", "keys", "whole")

    def __init__(self, columns: Sequence[str], keyed: Iterable[tuple[tuple[Hashable, ...], Summary]], whole: Summary):
        ordered = sorted(keyed, key=lambda pair: sort_key(pair[0]))
        self.columns: tuple[str, ...] = tuple(columns)
        self.keys: tuple[tuple[Hashable, ...], ...] = tuple(k for k, _ in ordered)
        names = group_names(self.keys, columns)
        self.groups: tuple[Summary, ...] = tuple(s._replace(name=names[k]) for k, s in ordered)
        self.whole = whole

    @classmethod
    def of(
        cls, name: str, columns: Sequence[str], rows: Iterable[tuple[Mapping[str, Any] | None, Any]]
    ) -> GroupedSummaries:
        """Count `(fields, verdict)` pairs: a row's fields (a mapping, or None: no value for any column), and its
        verdict (anything with `correct`, `value`, `failure_kind`, as for `Summary.of`). `name` names the whole."""
        by_group: dict[tuple[Hashable, ...], list[Any]] = {}
        every: list[Any] = []
        for fields, verdict in rows:
            by_group.setdefault(group_key(fields, columns), []).append(verdict)
            every.append(verdict)
        keyed = [(key, Summary.of("", vs)) for key, vs in by_group.items()]  # named by __init__
        return cls(columns, keyed, Summary.of(name, every))

    def absent(self) -> tuple[str, ...]:
        """The columns no row has a value for (every row in their group `(none)`): a misspelt name, most likely.

        Empty when there are no rows at all.
        """
        if not self.keys:
            return ()
        return tuple(c for n, c in enumerate(self.columns) if all(k[n] is None for k in self.keys))

    def table(self, whole_name: str = "all") -> Summaries:
        """The groups, then the whole (named `whole_name`), as one `Summaries` whose first column names the columns."""
        return Summaries([*self.groups, self.whole._replace(name=whole_name)], kind=", ".join(self.columns))

    def as_dict(self) -> list[dict[str, Any]]:
        """Each group's summary as a dict, with `group`: its value for each column."""
        return [
            {"group": dict(zip(self.columns, key, strict=True)), **s.as_dict()}
            for key, s in zip(self.keys, self.groups, strict=True)
        ]

    def lines(self) -> list[str]:
        """The table, line by line."""
        return self.table().lines()

    def __str__(self) -> str:
        return "\n".join(self.lines())
