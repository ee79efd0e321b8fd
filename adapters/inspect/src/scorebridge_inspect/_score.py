"""The Inspect AI `Score` of a scorebridge `Score`, and the fast way to build one for the built-in scorers.

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

from typing import Any, Final

from inspect_ai.scorer import Score

import scorebridge as sb
from scorebridge.kit import GRADER_FAILED, metadata_dict

from ._compat import fast_score, validated_score
from ._reasons import FAILURE_KIND, INSPECT_REASON, reason_for

__all__ = ["FAST_BUILD", "inspect_score"]

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
