"""`Score`, the recorded result of one run of one output on one item."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final, Literal, final

__all__ = [
    "FAILURE_KINDS",
    "FailureKind",
    "Grade",
    "Score",
    "ScorerContractError",
    "UnreadableLabel",
    "make_score",
    "metadata_dict",
    "metadata_text",
    "naming_row",
]

FailureKind = Literal["parse_failure", "refusal", "not_in_document", "wrong", "budget_stop", "error"]
"""Why a wrong output was wrong. The hr package's protocol names these six and no others."""

FAILURE_KINDS: Final[tuple[FailureKind, ...]] = (
    "parse_failure",
    "refusal",
    "not_in_document",
    "wrong",
    "budget_stop",
    "error",
)

Grade = Literal["C", "P", "I", "N"]
"""Correct, partial (0 < value < 1), incorrect, not scored."""

EMPTY: Final[Mapping[str, Any]] = MappingProxyType({})


class ScorerContractError(ValueError):
    """A scorer (or the output or label it was given) broke the scorer protocol.

    Raised for: True beside a failure_kind, a failure kind that is not one of
    `FAILURE_KINDS`, a return value of the wrong shape, a label that a built-in
    scorer cannot read. The message starts with the scorer's name.
    """


class UnreadableLabel(ScorerContractError):
    """A label the scorer cannot read (text where it declares a number, a mapping, a number too long to write).

    A fault of the data, not of the scorer's run: it is raised in every entry
    point whatever `on_error` says (which governs what the scorer itself
    raises), so a typo in the labels is never counted as a wrong answer in one
    harness and left out in another. The message names the scorer and the
    label; where the row is known (a file line, a sample id, an item), a note
    or the message names it too.
    """


def naming_row(exc: ScorerContractError, where: str) -> ScorerContractError:
    """`exc` with the row that broke the contract named in its message ("... (sample 3)"), its class kept.

    An `UnreadableLabel` stays one, so `except UnreadableLabel` catches it
    whichever entry point found it; any other contract error is a
    `ScorerContractError`. The traceback is `exc`'s; raise it `from None`.
    """
    named = UnreadableLabel if isinstance(exc, UnreadableLabel) else ScorerContractError
    return named(f"{exc} ({where})").with_traceback(exc.__traceback__)


class _Slots:
    # The storage of a Score. A Score is built here and then made a Score, whose
    # __setattr__ refuses: plain slot stores are several times faster than
    # object.__setattr__, and a Score is made on every call of every scorer.
    __slots__ = ("correct", "explanation", "failure_kind", "metadata", "outcome", "value")

    correct: bool | None
    outcome: str | None
    failure_kind: FailureKind | None
    value: float | None
    explanation: str | None
    metadata: Mapping[str, Any]


def make_score(
    correct: bool | None,
    outcome: str | None,
    failure_kind: FailureKind | None,
    value: float | None,
    explanation: str | None,
    metadata: Mapping[str, Any] | None,
) -> Score:
    """Build a Score without checks; `value` must already be set (None only when unscored).

    `metadata` is copied, but for a read-only view (`MappingProxyType`), which
    is kept as it is: scorebridge makes those over dicts nobody else holds (a
    Score's own metadata, a scorer's fixed metadata). A view from a caller is
    copied before it gets here (`Score()`, `record`).
    """
    s = _Slots()
    s.correct = correct
    s.outcome = outcome
    s.failure_kind = failure_kind
    s.value = value
    s.explanation = explanation
    if not metadata:
        s.metadata = EMPTY
    elif type(metadata) is MappingProxyType:
        s.metadata = metadata
    else:  # a copy: the Score must not change when the caller's dict does (dict.copy is the fast one)
        s.metadata = MappingProxyType(metadata.copy() if type(metadata) is dict else dict(metadata))
    s.__class__ = Score
    return s  # type: ignore[return-value]


def metadata_dict(score: Score) -> dict[str, Any]:
    """A new dict of the Score's metadata.

    `make_score` keeps metadata as a read-only view of a dict of the Score's
    own, and that view's `copy()` is several times faster than `dict(view)`.
    """
    return score.metadata.copy()  # type: ignore[attr-defined, no-any-return]


def metadata_text(score: Score) -> str:
    """A Score's metadata as JSON text, one type per column (as Parquet needs): "{}" when empty; a value JSON
    cannot hold is written as its `str()`, and so is a key JSON cannot hold (a tuple, say)."""
    if not score.metadata:
        return "{}"
    import json  # the core's start-up does not need it

    data = metadata_dict(score)
    try:
        return json.dumps(data, ensure_ascii=False, default=str)
    except TypeError:
        return json.dumps({str(k): v for k, v in data.items()}, ensure_ascii=False, default=str)


@final
class Score(_Slots):
    """The recorded result of one run of one output on one item. Immutable.

    Attributes:
        correct: True, False, or None when the item cannot be scored (no label,
            or the scorer could not tell).
        outcome: What the scorer saw, as one string (for `exact()`, the answer
            as compared), or None.
        failure_kind: One of `FAILURE_KINDS` when the output was wrong, else None.
        value: A number: 1.0 or 0.0 by default, the partial credit when the
            scorer gives one, None when unscored.
        explanation: Free text for humans, or None.
        metadata: A read-only mapping of whatever else the scorer recorded.

    Build scores by calling a `Scorer`: it applies the recording rules. A Score
    built by hand is taken as it is, but for `value`, which defaults to 1.0 or
    0.0 from `correct`.
    """

    __slots__ = ()

    def __new__(
        cls,
        correct: bool | None,
        outcome: str | None = None,
        failure_kind: FailureKind | None = None,
        value: float | None = None,
        explanation: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Score:
        if value is None and correct is not None:
            value = 1.0 if correct else 0.0
        if type(metadata) is MappingProxyType:  # a view of the caller's dict, which may still change
            metadata = dict(metadata)
        return make_score(correct, outcome, failure_kind, value, explanation, metadata)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Score is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Score is immutable; cannot delete {name!r}")

    @property
    def grade(self) -> Grade:
        """ "C" correct, "P" partial (0 < value < 1), "I" incorrect, "N" not scored."""
        if self.correct is None:
            return "N"
        if self.value is not None and 0.0 < self.value < 1.0:
            return "P"
        return "C" if self.correct else "I"

    def as_dict(self) -> dict[str, Any]:
        """The fields and the grade as a plain dict (metadata copied), ready for JSON."""
        return {
            "correct": self.correct,
            "outcome": self.outcome,
            "failure_kind": self.failure_kind,
            "value": self.value,
            "explanation": self.explanation,
            "metadata": dict(self.metadata),
            "grade": self.grade,
        }

    def _fields(self) -> tuple[Any, ...]:
        return (
            self.correct,
            self.outcome,
            self.failure_kind,
            self.value,
            self.explanation,
            dict(self.metadata),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Score):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # metadata is a mapping

    def __repr__(self) -> str:
        parts = [f"correct={self.correct!r}", f"outcome={self.outcome!r}"]
        if self.failure_kind is not None:
            parts.append(f"failure_kind={self.failure_kind!r}")
        parts.append(f"value={self.value!r}")
        if self.explanation is not None:
            parts.append(f"explanation={self.explanation!r}")
        if self.metadata:
            parts.append(f"metadata={dict(self.metadata)!r}")
        return f"Score({', '.join(parts)})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (make_score, self._fields())
