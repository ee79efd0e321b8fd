"""Summaries by group: one `Summary` per value of one or more columns, then the whole.

Used by `scorebridge score --group-by`, `scorebridge compare --group-by`,
`BenchmarkResult.summary(group_by=...)` and the pytest plugin's summary, so a
group is named, ordered and counted alike everywhere:

- a group is the combination of the values of the columns (`category=math,
  lang=en`); a row without the column (or with null there) is in the group
  `(none)` for it;
- groups are ordered by their names, as text;
- the summaries of the groups add up to the whole: every row is in exactly one.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, Final

from .summary import Summaries, Summary

__all__ = ["MISSING", "GroupedSummaries", "group_key", "group_name", "parse_group_by"]

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


def _text(value: Hashable) -> str:
    return MISSING if value is None else str(value)


def group_name(key: Sequence[Hashable], columns: Sequence[str]) -> str:
    """A group's name: the value alone for one column (`math`), `column=value, ...` for several."""
    if len(columns) == 1:
        return _text(key[0])
    return ", ".join(f"{c}={_text(v)}" for c, v in zip(columns, key, strict=True))


def sort_key(key: Sequence[Hashable]) -> tuple[tuple[int, str], ...]:
    """Groups in order of their names, as text; the `(none)` group of a column last."""
    return tuple((1, "") if v is None else (0, str(v)) for v in key)


class GroupedSummaries:
    """One `Summary` per group (`groups`, in order), and the summary of every row (`whole`).

    `str()` is one table: a line per group, then the whole (named `all`).
    `as_dict()` gives `[{"group": {column: value}, **summary}, ...]`.
    `GroupedSummaries.of(name, columns, rows)` counts rows of fields and verdicts.
    """

    __slots__ = ("columns", "groups", "keys", "whole")

    def __init__(self, columns: Sequence[str], keyed: Iterable[tuple[tuple[Hashable, ...], Summary]], whole: Summary):
        ordered = sorted(keyed, key=lambda pair: sort_key(pair[0]))
        self.columns: tuple[str, ...] = tuple(columns)
        self.keys: tuple[tuple[Hashable, ...], ...] = tuple(k for k, _ in ordered)
        self.groups: tuple[Summary, ...] = tuple(s for _, s in ordered)
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
        keyed = [(key, Summary.of(group_name(key, columns), vs)) for key, vs in by_group.items()]
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
