"""The text of a failed assertion: one Score explained, or a table of the wrong ones."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Final

from scorebridge import FAILURE_KINDS, Score, Scorer, ScorerContractError
from scorebridge.kit import Summary, text_table, unlabelled

from ._state import safe_repr

__all__ = ["accuracy_message", "cut", "score_message"]

SHOWN: Final = 200
"""How many characters of an output, label, item or outcome a message shows."""

EXPLAINED: Final = 500
"""How many characters of an explanation a message shows."""

CELL: Final = 40
"""How many characters of a value a table cell shows."""

ROWS: Final = 50
"""How many wrong ones a table lists; the rest are counted."""

NONE: Final = "-"


def cut(value: Any, limit: int = SHOWN) -> str:
    """`value` as a message shows it: a repr of at most about `limit` characters.

    A string longer than `limit` keeps its first `limit` characters, then an
    ellipsis and its whole length: `'aaa…'… (5000 chars)`. Anything else is
    its repr, cut the same way. A repr that raises is named, not raised (a
    `str` subclass is shown as the plain string it holds, its own methods unused).
    """
    if isinstance(value, str):
        value = str.__str__(value)  # a plain str: a subclass's own __len__ or __repr__ may raise
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}… ({len(value)} chars)"
    text = safe_repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} chars)"


def _text(value: str | None, limit: int) -> str:
    return NONE if value is None else cut(value, limit)


def _unscored_reason(scorer: Scorer, label: Any) -> str:
    """Why a Score has no verdict: the item has no label (as the scorer reads it), or the scorer could not tell."""
    try:
        no_label = unlabelled(scorer, label)
    except ScorerContractError:  # not reached: the scorer read this label to score it
        no_label = False
    if no_label:
        return "not scored: the item has no label"
    return "not scored: the scorer could not tell (correct is None)"


def score_message(scorer: Scorer, score: Score, output: Any, label: Any, item: Any) -> str:
    """Why `score` fails `assert_scored`: the verdict on one line, then every field."""
    name = scorer.name
    if score.correct is None:
        head = f"{name}: {_unscored_reason(scorer, label)}"
    else:
        head = f"{name}: the output is not correct (failure kind: {score.failure_kind})"
    lines = [head]
    if item is not None:
        lines.append(f"  item:         {cut(item)}")
    lines += [
        f"  output:       {cut(output)}",
        f"  label:        {cut(label)}",
        f"  outcome:      {_text(score.outcome, SHOWN)}",
        f"  failure kind: {score.failure_kind or NONE}",
        f"  explanation:  {_text(score.explanation, EXPLAINED)}",
    ]
    if score.value is not None and score.value not in (0.0, 1.0):
        lines.append(f"  value:        {score.value!r}")
    return "\n".join(lines)


def accuracy_message(
    name: str, scores: Sequence[Score], outputs: Sequence[Any], labels: Sequence[Any], at_least: float
) -> str:
    """Why `scores` fail `assert_accuracy`: the accuracy, the counts per failure kind, the wrong ones."""
    wrong = [i for i, s in enumerate(scores) if s.correct is False]
    unscored = [i for i, s in enumerate(scores) if s.correct is None]
    summary = Summary.of(name, scores)
    if summary.accuracy is None:
        head = f"{name}: nothing was scored ({len(scores)} outputs, {len(unscored)} unscored); at_least={at_least}"
    else:
        head = (
            f"{name}: accuracy {summary.accuracy:.3f} ({summary.correct} of {summary.scored} scored correct) "
            f"is below at_least={at_least}"
        )
    lines = [head]
    if unscored:
        shown = ", ".join(map(str, unscored[:20])) + (", …" if len(unscored) > 20 else "")
        lines.append(f"  unscored (left out of the accuracy): {len(unscored)}, at index {shown}")
    if wrong:
        kinds = Counter(scores[i].failure_kind for i in wrong)
        counts = ", ".join(f"{k} {kinds[k]}" for k in FAILURE_KINDS if kinds[k])
        lines += [f"  failure kinds: {counts}", "  wrong ones:"]
        table = [("index", "output", "label", "failure kind", "explanation")]
        table += [
            (
                str(i),
                cut(outputs[i], CELL),
                cut(labels[i], CELL),
                str(scores[i].failure_kind),
                _text(scores[i].explanation, CELL),
            )
            for i in wrong[:ROWS]
        ]
        lines += ["    " + line for line in text_table(table)]
        if len(wrong) > ROWS:
            lines.append(f"    … and {len(wrong) - ROWS} more")
    return "\n".join(lines)
