"""One reward batch scored: the rows read, scored (a batch path for `exact()`), tallied and logged."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Final, Literal

from scorebridge import FAILURE_KINDS, Score, Scorer
from scorebridge.kit import fold, is_builtin

from ._reading import completion_text

__all__ = [
    "DEFAULT_DEADLINE",
    "ErrorWarning",
    "OnError",
    "Rows",
    "Tally",
    "check_deadline",
    "exact_rows",
    "is_exact",
    "log_batch",
    "texts_of",
]

OnError = Literal["raise", "record"]

DEFAULT_DEADLINE: Final = 60.0
"""Seconds a reward batch's grader calls may take at most (`kit.grader_deadline`): a row whose model-graded
scorer's grader is still unanswered then is recorded as the grader's failure (unscored: None for TRL), so one
hung call cannot hold a training step for longer. Twice the grader's default per-call timeout (30 s)."""


def check_deadline(where: str, deadline: object) -> float | None:
    """`deadline` as seconds (more than 0, at most a day) or None; else a ValueError starting with `where`."""
    if deadline is None:
        return None
    if type(deadline) not in (int, float) or not 0 < deadline <= 86400:  # type: ignore[operator]
        raise ValueError(
            f"{where}: deadline must be a number of seconds, more than 0 and at most a day, or None; "
            f"got {deadline!r:.80}"
        )
    return float(deadline)  # type: ignore[arg-type]


def texts_of(completions: Sequence[Any]) -> list[Any]:
    """The text of each completion (`completion_text`), the two common shapes without a call per row."""
    texts: list[Any] = []
    for c in completions:
        if type(c) is str:
            texts.append(c)
        elif type(c) is list and len(c) == 1 and type(m := c[0]) is dict and type(t := m.get("content")) is str:
            texts.append(t)
        else:
            texts.append(completion_text(c))
    return texts


class Tally:
    """What a batch adds up to, as `scorebridge.Summary` counts: unscored rows, and per failure kind the
    scored rows recorded wrong for it (an unscored row keeps its kind but is counted once, as unscored)."""

    __slots__ = ("kinds", "rows", "unscored")

    def __init__(self, rows: int) -> None:
        self.rows = rows
        self.unscored = 0
        self.kinds: dict[str, int] = dict.fromkeys(FAILURE_KINDS, 0)

    def add(self, score: Score) -> None:
        if score.correct is None:
            self.unscored += 1
        elif score.failure_kind is not None:
            self.kinds[score.failure_kind] += 1


class Rows:
    """A batch's values and failure kinds, one per completion, and its tally."""

    __slots__ = ("kinds", "tally", "values")

    def __init__(self, values: list[float | None], kinds: list[str | None], tally: Tally) -> None:
        self.values, self.kinds, self.tally = values, kinds, tally

    @classmethod
    def of(cls, scores: Sequence[Score]) -> Rows:
        tally = Tally(len(scores))
        for s in scores:
            tally.add(s)
        return cls([s.value for s in scores], [s.failure_kind for s in scores], tally)


def is_exact(scorer: Scorer) -> bool:
    """True for the built-in `exact()` with its default normalisation, which has a batch path here."""
    return is_builtin(scorer) and scorer.name == "exact" and scorer.options.get("normalise") is True


def exact_rows(outputs: Sequence[Any], labels: Sequence[Any], slow: Callable[[list[int]], list[Score]]) -> Rows:
    """`exact()` over a batch, its common rows without a Score each; `slow(indices)` scores the others.

    A common row is the case `exact()` itself takes its shortcut for: the output
    and the label are each one non-blank string, and the output is not
    NOT_IN_DOCUMENT (any text holding "document" is left to the scorer). Then
    the Score would be correct (value 1.0) when the folded texts are equal,
    else wrong (0.0, failure kind "wrong"); here only the value and the kind are
    kept. Every other row (no label, no text, several accepted answers, a
    mapping output) is the scorer's, through `slow`. A test holds the two to
    the same values and kinds.
    """
    values: list[float | None] = []
    kinds: list[str | None] = []
    folded: dict[str, str] = {}  # a group's completions share a label: fold it once
    wrong = 0
    others: list[int] = []
    for o, lab in zip(outputs, labels, strict=True):
        if type(lab) is str:
            answer = folded.get(lab)
            if answer is None:
                answer = folded[lab] = fold(lab)  # "" for a blank label: left to the scorer (unscored)
            if answer and type(o) is str:
                seen = fold(o)
                if seen and "ocument" not in seen:
                    if seen == answer:
                        values.append(1.0)
                        kinds.append(None)
                    else:
                        values.append(0.0)
                        kinds.append("wrong")
                        wrong += 1
                    continue
        others.append(len(values))
        values.append(None)
        kinds.append(None)
    tally = Tally(len(values))
    tally.kinds["wrong"] = wrong
    if others:
        for i, score in zip(others, slow(others), strict=True):
            values[i] = score.value
            kinds[i] = score.failure_kind
            tally.add(score)
    return Rows(values, kinds, tally)


class ErrorWarning:
    """Says once, as a RuntimeWarning, that a reward's scorer raised and the error was recorded; the rest are
    counted in the logs (`rewards/<name>/error`)."""

    __slots__ = ("_said", "where")

    def __init__(self, where: str) -> None:
        self.where = where
        self._said = threading.Event()

    def __reduce__(self) -> tuple[Any, ...]:
        return (ErrorWarning, (self.where,))

    def check(self, name: str, scores: Sequence[Score]) -> None:
        if self._said.is_set():
            return
        for score in scores:
            if score.failure_kind == "error" and (score.explanation or "").startswith(RAISED):
                self._said.set()
                warnings.warn(
                    f"{self.where}: {score.explanation}; the completion is recorded as failure kind 'error' "
                    f"(reward 0.0), as are any more, counted in rewards/{name}/error",
                    RuntimeWarning,
                    stacklevel=4,  # the caller of the reward function (the trainer)
                )
                return


RAISED: Final = "the scorer raised "  # how kit.raised_score's explanation starts


KIND_COLUMN: Final = "{name}/failure_kind"
SHARE_METRIC: Final = "rewards/{name}/{what}"


def log_batch(name: str, rows: Rows, log_metric: Any, log_extra: Any) -> None:
    """The batch's failure kinds to TRL's logs, when TRL hands the reward its loggers.

    `log_extra`: a column "<name>/failure_kind" in the completions table (the
    kind of each completion; None when it has none). `log_metric`, once per
    batch: "rewards/<name>/unscored", the share of completions left unscored,
    and "rewards/<name>/<kind>" for each of the six kinds, its share of the
    scored completions (as `scorebridge.Summary` counts; nothing when the
    batch has no scored completion). TRL averages each over a logging step.
    """
    if callable(log_extra):
        log_extra(KIND_COLUMN.format(name=name), rows.kinds)
    if callable(log_metric):
        tally = rows.tally
        if tally.rows:
            log_metric(SHARE_METRIC.format(name=name, what="unscored"), tally.unscored / tally.rows)
        scored = tally.rows - tally.unscored
        if scored:
            for kind, count in tally.kinds.items():
                log_metric(SHARE_METRIC.format(name=name, what=kind), count / scored)
