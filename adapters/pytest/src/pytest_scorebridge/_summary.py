"""The end of a run: the one summary per scorer (`scorebridge.Summary`), and the JSONL report."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from scorebridge import GroupedSummaries
from scorebridge.kit import Summaries, Summary

__all__ = ["report_line", "summary_lines", "write_report"]


def summary_lines(rows: Sequence[dict[str, Any]], group_by: Sequence[str] = ()) -> list[str]:
    """The summary table, one line a scorer (by name), counted as everywhere else (`scorebridge.Summary`).

    Each recorded Score is one row: a test that asserts on the same output
    twice (once alone, once in an `assert_accuracy` batch) counts it twice.
    The first line says how many Scores in how many tests were counted. With
    `group_by` (case fields, `--scorebridge-group-by`), a table per scorer
    follows: a line per group of its test's case values, then all of them;
    a field no case has (every Score in `(none)`) is said on a last line.
    """
    by_scorer: dict[str, list[SimpleNamespace]] = {}
    for row in rows:
        by_scorer.setdefault(row["scorer"], []).append(
            SimpleNamespace(
                correct=row["correct"], value=row["value"], failure_kind=row["failure_kind"], group=row.get("group")
            )
        )
    tests = len({row["nodeid"] for row in rows})
    head = f"{len(rows)} score{'' if len(rows) == 1 else 's'} recorded in {tests} test{'' if tests == 1 else 's'}"
    table = Summaries((Summary.of(name, by_scorer[name]) for name in sorted(by_scorer)), kind="scorer")
    lines = [f"{head} (each assertion or record counts once)", *table.lines()]
    absent: dict[str, None] = {}
    for name in sorted(by_scorer) if group_by else ():
        grouped = GroupedSummaries.of(name, group_by, ((v.group, v) for v in by_scorer[name]))
        lines += ["", f"{name} by {', '.join(group_by)}:", *grouped.lines()]
        absent.update(dict.fromkeys(grouped.absent()))
    if absent:  # a misspelt field, most likely: said, as `scorebridge score` refuses it
        fields = ", ".join(map(repr, absent))
        lines += ["", f"--scorebridge-group-by: no test's case has the field {fields}, so every Score is in (none)"]
    return lines


def report_line(row: dict[str, Any]) -> bytes:
    """One row as a line of the JSONL report, in UTF-8.

    Text is written as it is (non-ASCII letters stay readable), but for a row
    holding a `str` that UTF-8 cannot hold (a lone surrogate): that row is
    written with JSON escapes (`\\udc80`), which any JSON reader turns back
    into the same `str`.
    """
    line = json.dumps(row, ensure_ascii=False) + "\n"
    try:
        return line.encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(row, ensure_ascii=True) + "\n").encode("ascii")


def write_report(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """Write `rows` to `path` as JSONL, one score a line (parent folders made; an existing file replaced).

    Raises what the file system raises (OSError): the plugin reports it and fails the run.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        for row in rows:
            f.write(report_line(row))
