"""The one summary of a set of Scores, and the one text table it (and every other table) is printed with.

`benchmark()`, the CLI, the pytest plugin, Inspect AI (a metric), DSPy (a helper
beside `Evaluate`) and Ray all count with `Summary.of`, so they count alike:

- `rows`: every Score;
- `scored`: the Scores with a verdict (correct True or False);
- `correct`: the Scores with correct True;
- `accuracy`: the mean value of the scored Scores (1 correct, 0 wrong, partial
  credit its value), so the same number as Inspect AI's `accuracy()` and as
  DSPy's `Evaluate` over the labelled rows; None when nothing was scored;
- `interval`: its 95% Wilson score interval (None when nothing was scored, or when
  the mean value is not between 0 and 1: a scorer on a scale of its own);
- `unscored`: rows minus scored (no label, or a grader that failed);
- `grader_failed`: the unscored rows whose grader gave no grade (a model-graded
  scorer's Score with `grader_failed` in its metadata: its retries spent, a
  reply with no grade), so a table tells them from the rows with no label;
- `failure_kinds`: per failure kind, the scored Scores recorded wrong for that
  reason. An unscored Score keeps its failure kind, but is counted once, as
  unscored: Inspect AI leaves unscored samples out of every metric, so
  counting their kinds would make its numbers differ.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple, Protocol

from .._protocol.score import FAILURE_KINDS, FailureKind
from .._scorers.model_graded import GRADER_FAILED
from .stats import wilson_interval

__all__ = [
    "Summaries",
    "Summary",
    "counted",
    "display_width",
    "grader_failed",
    "number_cell",
    "text_table",
    "unscored_reasons",
]


def counted(count: int, word: str, plural: str | None = None) -> str:
    """A count and its noun, singular for 1 (`1 pair`, `2 pairs`, `1,000 rows`); `plural` when not `word` + s."""
    return f"{count:,} {word if count == 1 else plural or word + 's'}"


def display_width(text: str) -> int:
    """The columns `text` takes on a terminal: a wide or full-width character (CJK, most emoji) two, a combining
    mark, a zero-width character (a joiner, a soft hyphen, a variation selector) or a control character none,
    any other one.

    By the Unicode tables of the running Python (`unicodedata.east_asian_width` and `combining`); a terminal
    of another Unicode version may draw a character assigned since then otherwise.
    """
    if text.isascii():
        return sum(1 for c in text if c >= " " and c != "\x7f")
    import unicodedata

    width = 0
    for c in text:
        if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me", "Cf", "Cc"):
            continue
        width += 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1
    return width


def text_table(rows: Sequence[Sequence[str]], *, right: Iterable[int] = (), rule: bool = False) -> list[str]:
    """Lines of an aligned table: cells padded to their column's width, two spaces apart.

    Widths are counted in terminal columns (`display_width`), so a cell of CJK
    text or of combining accents lines up with the others.

    The columns whose indices are in `right` are aligned right (numbers), the
    others left; `rule` puts a line of dashes under the first row (a header).
    Trailing spaces are dropped.
    """
    if not rows:
        return []
    flush_right = frozenset(right)
    cell_widths = [[display_width(cell) for cell in row] for row in rows]
    widths = [max(row[c] for row in cell_widths) for c in range(len(rows[0]))]

    def line(row: Sequence[str], own: Sequence[int]) -> str:
        cells = zip(row, own, widths, strict=True)
        return "  ".join(
            " " * (w - n) + cell if c in flush_right else cell + " " * (w - n) for c, (cell, n, w) in enumerate(cells)
        )

    lines = [line(row, own).rstrip() for row, own in zip(rows, cell_widths, strict=True)]
    if rule:
        lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


class _Verdict(Protocol):
    @property
    def correct(self) -> bool | None: ...
    @property
    def value(self) -> float | None: ...
    @property
    def failure_kind(self) -> FailureKind | None: ...


def number_cell(x: float | None) -> str:
    """A number as a table shows it: three decimals, or "-" for None."""
    return "-" if x is None else f"{x:.3f}"


class Summary(NamedTuple):
    """What a set of Scores adds up to, counted as the module says; `name` says whose (an arm, a scorer).

    `Summary.of(name, scores)` makes one from Scores, benchmark records or
    anything with `correct`, `value` and `failure_kind`. `as_dict()` is ready
    for `json.dumps`; `str()` (and `print`) gives the table `Summaries` prints,
    one row.
    """

    name: str
    rows: int
    scored: int
    correct: int
    accuracy: float | None
    interval: tuple[float, float] | None
    unscored: int
    failure_kinds: Mapping[FailureKind, int]
    grader_failed: int = 0

    @classmethod
    def of(cls, name: str, verdicts: Iterable[_Verdict]) -> Summary:
        """Count `verdicts` (Scores, benchmark records, ...; `metadata`, where they have it, tells a grader's
        failure)."""
        rows = scored = correct = failed = 0
        total = 0.0
        kinds = dict.fromkeys(FAILURE_KINDS, 0)
        for v in verdicts:
            rows += 1
            if v.correct is None:
                failed += grader_failed(v)
                continue
            scored += 1
            correct += v.correct is True
            total += v.value if v.value is not None else float(v.correct)
            if v.failure_kind is not None:
                kinds[v.failure_kind] += 1
        return cls.from_counts(name, rows, scored, correct, total, kinds, grader_failed=failed)

    @classmethod
    def from_counts(
        cls,
        name: str,
        rows: int,
        scored: int,
        correct: int,
        value_sum: float,
        kinds: Mapping[Any, int],
        *,
        grader_failed: int = 0,
    ) -> Summary:
        """The summary of counts made elsewhere (a distributed aggregation, say), as `of` counts them.

        `value_sum` is the sum of the values of the scored rows; `kinds` the count of
        scored rows per failure kind (missing kinds count 0; an unknown kind is a
        ValueError); `grader_failed` the unscored rows whose grader failed (`kit.grader_failed`).
        """
        unknown = sorted(set(kinds) - set(FAILURE_KINDS))
        if unknown:
            raise ValueError(f"summary {name!r}: unknown failure kinds {unknown}; the kinds are {FAILURE_KINDS}")
        if not 0 <= correct <= scored <= rows:
            raise ValueError(f"summary {name!r}: need 0 <= correct <= scored <= rows; got {correct}, {scored}, {rows}")
        if not 0 <= grader_failed <= rows - scored:
            raise ValueError(
                f"summary {name!r}: grader_failed counts unscored rows: need 0 <= {grader_failed} <= {rows - scored}"
            )
        return cls(
            name,
            rows,
            scored,
            correct,
            value_sum / scored if scored else None,
            _interval(value_sum, scored),
            rows - scored,
            MappingProxyType({kind: int(kinds.get(kind, 0)) for kind in FAILURE_KINDS}),
            grader_failed,
        )

    def __str__(self) -> str:
        # the table, as Summaries prints it: not the tuple's repr, with its mappingproxy of failure kinds
        return str(Summaries([self], kind="name"))

    def as_dict(self) -> dict[str, Any]:
        """The fields as plain JSON-ready values (the interval a list, the failure kinds a dict)."""
        return {
            "name": self.name,
            "rows": self.rows,
            "scored": self.scored,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "interval": None if self.interval is None else list(self.interval),
            "unscored": self.unscored,
            "failure_kinds": dict(self.failure_kinds),
            "grader_failed": self.grader_failed,
        }

    def unscored_because(self) -> str:
        """Why rows are unscored, in words: "34 rows: the grader failed; 100 rows: no label or no verdict";
        "" when every row was scored."""
        return unscored_reasons(self.unscored, self.grader_failed)


def grader_failed(verdict: object) -> bool:
    """True for an unscored row whose grader failed: its `metadata` (where it has one) holds `grader_failed`."""
    metadata = getattr(verdict, "metadata", None)
    return bool(metadata) and getattr(verdict, "correct", None) is None and GRADER_FAILED in metadata  # type: ignore[operator]


def unscored_reasons(unscored: int, failed: int) -> str:
    """The unscored rows in words, the grader's failures apart: "34 rows: the grader failed; 100 rows: ..."."""

    def rows(n: int) -> str:
        return f"{n} row{'' if n == 1 else 's'}"

    parts = [f"{rows(failed)}: the grader failed"] if failed else []
    if unscored - failed:
        parts.append(f"{rows(unscored - failed)}: no label or no verdict")
    return "; ".join(parts)


def _interval(total: float, scored: int) -> tuple[float, float] | None:
    # With partial credit the mean value is read as a proportion of `scored` trials. A mean outside [0, 1] (a
    # scorer on a scale of its own, 0 to 5, say) is no proportion: it has no Wilson interval.
    return wilson_interval(total, scored) if scored and 0 <= total <= scored else None


class Summaries:
    """Several summaries (one per arm, or per scorer): `summaries["name"]`, iteration, and `str()` as a table.

    The table has one row per summary: rows, scored, correct, accuracy, its
    95% Wilson interval, the count of each failure kind that occurs in any
    of them, "grader failed" (the unscored rows whose grader failed) when
    any has one, and unscored. `kind` names the first column ("arm", "scorer").
    """

    __slots__ = ("kind", "summaries")

    def __init__(self, summaries: Iterable[Summary], kind: str = "arm") -> None:
        self.summaries: tuple[Summary, ...] = tuple(summaries)
        self.kind = kind

    def __getitem__(self, name: str) -> Summary:
        for s in self.summaries:
            if s.name == name:
                return s
        raise KeyError(f"no {self.kind} {name!r}; the {self.kind}s are {[s.name for s in self.summaries]}")

    def __iter__(self) -> Iterator[Summary]:
        return iter(self.summaries)

    def __len__(self) -> int:
        return len(self.summaries)

    def as_dict(self) -> list[dict[str, Any]]:
        """Each summary's `as_dict()`, in order."""
        return [s.as_dict() for s in self.summaries]

    def lines(self) -> list[str]:
        """The table, line by line."""
        kinds = [k for k in FAILURE_KINDS if any(s.failure_kinds[k] for s in self.summaries)]
        failed = any(s.grader_failed for s in self.summaries)
        extra = ["grader failed"] if failed else []
        rows = [[self.kind, "rows", "scored", "correct", "accuracy", "95% CI", *kinds, *extra, "unscored"]]
        for s in self.summaries:
            ci = "-" if s.interval is None else f"[{s.interval[0]:.3f}, {s.interval[1]:.3f}]"
            rows.append(
                [s.name, str(s.rows), str(s.scored), str(s.correct), number_cell(s.accuracy), ci]
                + [str(s.failure_kinds[k]) for k in kinds]
                + ([str(s.grader_failed)] if failed else [])
                + [str(s.unscored)]
            )
        return text_table(rows, right=range(1, len(rows[0])), rule=True)

    def __str__(self) -> str:
        return "\n".join(self.lines())

    __repr__ = __str__
