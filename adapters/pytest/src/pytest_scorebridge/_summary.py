"""The end of a run: the summary table per scorer, and the JSONL report."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scorebridge import FAILURE_KINDS

__all__ = ["summary_lines", "write_report"]


def summary_lines(rows: Sequence[dict[str, Any]]) -> list[str]:
    """A table, one line a scorer (by name): scored, correct, accuracy, unscored, counts per failure kind.

    Scored counts the rows with a verdict (correct True or False); accuracy is
    correct / scored, "-" when nothing was scored; unscored counts the rest. A
    failure kind column counts the scored rows recorded wrong for that reason,
    so correct plus the kind columns make scored; only kinds seen in the run
    get a column.
    """
    by_scorer: dict[str, Counter[str]] = {}
    for row in rows:
        counts = by_scorer.setdefault(row["scorer"], Counter())
        if row["correct"] is None:
            counts["unscored"] += 1
        else:
            counts["scored"] += 1
            counts["correct"] += bool(row["correct"])
            if not row["correct"]:
                counts[row["failure_kind"]] += 1
    kinds = [k for k in FAILURE_KINDS if any(c[k] for c in by_scorer.values())]
    table = [["scorer", "scored", "correct", "accuracy", "unscored", *kinds]]
    for name in sorted(by_scorer):
        c = by_scorer[name]
        accuracy = f"{c['correct'] / c['scored']:.1%}" if c["scored"] else "-"
        table.append([name, str(c["scored"]), str(c["correct"]), accuracy, str(c["unscored"])])
        table[-1] += [str(c[k]) for k in kinds]
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = []
    for name, *numbers in table:  # the names flush left, the numbers flush right
        cells = [name.ljust(widths[0])] + [n.rjust(w) for n, w in zip(numbers, widths[1:], strict=True)]
        lines.append("  ".join(cells))
    return lines


def write_report(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """Write `rows` to `path` as JSONL, one score a line (parent folders made; an existing file replaced)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
