"""The Inspect AI `Score` of a scorebridge `Score` and back, and the fast way to build one for the built-ins.

Inspect's `Score` is a pydantic model: making one validates every field, about
2.5 µs, more than a built-in scorer takes to score. The Scores of the built-in
scorers are valid by construction (value "C"/"I"/"P" or a float, answer and
explanation plain strings or None, metadata a new dict with string keys, and
never the legacy `unscored_reason` key that Inspect's validator reads), so
`to_inspect` builds theirs as pydantic's `model_construct` does, setting the
instance's fields directly, in a fraction of the time. Any other scorer's Score
is validated as usual.

The fast build (`_compat.fast_score`, which relies on pydantic's instance
layout) is used only when, at import, it makes exactly the Score that
validation makes (same fields of the same types, same fields-set, same JSON,
nothing extra); if a newer Inspect AI or pydantic changes the Score, the
validating constructor is used. `FAST_BUILD` says which one is in use.
"""

from __future__ import annotations

import math
from typing import Any, Final, NamedTuple

from inspect_ai.scorer import NOANSWER, Score

import scorebridge as sb
from scorebridge import FAILURE_KINDS, FailureKind, ScorerContractError, grade_value
from scorebridge.kit import GRADER_FAILED, is_number, metadata_dict

from ._compat import fast_score, validated_score
from ._reasons import FAILURE_KIND, INSPECT_REASON, kept_reason, kind_for, reason_for

__all__ = ["FAST_BUILD", "Read", "inspect_score", "read_score"]

FAST_BUILD: Final = fast_score is not None
"""True when the built-in scorers' Inspect Scores are built without validation (see the module's docstring)."""


def _string_keys(metadata: dict[Any, Any]) -> dict[str, Any]:
    # Inspect's Score takes string keys only: others are written as strings, as JSON writes them
    if all(isinstance(key, str) for key in metadata):
        return metadata
    return {key if isinstance(key, str) else str(key): value for key, value in metadata.items()}


def _value(score: sb.Score) -> str | float:
    # the letter when it is worth the same number, else the number itself
    value = score.value
    if value == 1.0 and score.correct:
        return "C"
    if value == 0.0 and not score.correct:
        return "I"
    if value == 0.5:
        return "P"
    return value  # type: ignore[return-value]  # None only when unscored, handled by the caller


def inspect_score(score: sb.Score, trusted: bool = False) -> Score:
    """The Inspect AI Score of a scorebridge Score.

    value "C"/"I"/"P" when the letter is worth the Score's value (1, 0, 0.5),
    else the number; an unscored Score is `Score.unscored()` (NaN, out of the
    metrics). answer = outcome; explanation as is; reason from the failure
    kind (`_reasons`); metadata = the Score's metadata with "failure_kind"
    (None when correct) added, a key that is not a string written as one
    (Inspect takes string keys only; JSON writes them so).

    `trusted`: the Score comes from a built-in scorer, so its fields are valid
    by construction and the Inspect Score is built without validation (when
    `FAST_BUILD`).
    """
    kind = score.failure_kind
    metadata = metadata_dict(score) if trusted else _string_keys(metadata_dict(score))
    reason = reason_for(kind, metadata.pop(INSPECT_REASON)) if INSPECT_REASON in metadata else reason_for(kind)
    metadata[FAILURE_KIND] = kind
    build = fast_score if trusted and fast_score is not None else validated_score
    if score.correct is None:
        if reason is None and GRADER_FAILED in metadata:  # scorebridge's model-graded scorers
            reason = "grader_failed"
        return build(float("nan"), score.outcome, score.explanation, reason, metadata)  # as Score.unscored()
    return build(_value(score), score.outcome, score.explanation, reason, metadata)


class Read(NamedTuple):
    """What an Inspect Score says, in scorebridge's fields (before the recording rules)."""

    correct: bool | None
    value: float | None
    kind: FailureKind | None
    metadata: dict[str, Any]


def _number(value: Any) -> float | None:
    if isinstance(value, str) and value == NOANSWER:
        return None
    # dsprrr's grade mapping: C/I/P and the words, numbers, bools; NaN -> None; else None and a warning
    return grade_value(value)


def _is_numeric(value: Any) -> bool:
    """A number, or a string that reads as one ("0.75"): the values `threshold` decides for.

    Not a bool, and not a grade word: "C", "I", "P", "correct", ... keep their meaning.
    """
    if is_number(value):
        return True
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return False
        return True
    return False


def read_score(name: str, result: Score, threshold: float) -> Read:
    """An Inspect Score read back: correct, value, failure kind and the metadata to keep.

    A Score `to_inspect` wrote carries its kind (`metadata["failure_kind"]`):
    the kind and correctness exactly as the scorebridge scorer recorded them.
    Any other: the threshold decides for numbers, a grade word or a bool is
    correct when worth 1; a wrong one's kind is its reason's (`_reasons`). NaN
    (`Score.unscored()`) is unscored whatever its reason, and so is an N the
    instrument caused (`scoring_failed`, `grader_failed`); an N whose reason
    says the model failed (no_response, refusal) is wrong for that reason. An
    unscored Score with Inspect's reason `grader_failed` (its own
    `model_graded_qa`'s) is the grader's failure: `metadata["grader_failed"]`
    (its explanation), counted apart as `Summary.grader_failed`. A value that
    is not finite and not NaN is a `ScorerContractError` naming the scorer.
    """
    value = _number(result.value)
    if value is not None and not math.isfinite(value):
        raise ScorerContractError(f"{name}: value must be a finite number; got {result.value!r:.80}")
    metadata = dict(result.metadata) if result.metadata else {}
    kind: FailureKind | None
    if FAILURE_KIND in metadata and (metadata[FAILURE_KIND] is None or metadata[FAILURE_KIND] in FAILURE_KINDS):
        kind = metadata.pop(FAILURE_KIND)
        correct = None if value is None else kind is None
    else:
        passed = value is not None and value >= (threshold if _is_numeric(result.value) else 1.0)
        kind = None if passed else kind_for(result.reason)
        if value is None and (result.value != NOANSWER or kind == "error"):
            kind = None
        correct = None if value is None else passed
    reason = kept_reason(result.reason, kind)
    if reason is not None:
        metadata[INSPECT_REASON] = reason
    if correct is None and result.reason == "grader_failed" and GRADER_FAILED not in metadata:
        metadata[GRADER_FAILED] = result.explanation or "Inspect's reason: grader_failed"
    return Read(correct, value, kind, metadata)
