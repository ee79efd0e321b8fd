"""The Inspect AI `Score` of a scorebridge `Score`, and the fast way to build one for the built-in scorers.

Inspect's `Score` is a pydantic model: making one validates every field, about
2.5 µs, more than a built-in scorer takes to score. The Scores of the built-in
scorers are valid by construction (value "C"/"I"/"P" or a float, answer and
explanation plain strings or None, metadata a new dict with string keys, and
never the legacy `unscored_reason` key that Inspect's validator reads), so
`to_inspect` builds theirs as pydantic's `model_construct` does, setting the
instance's fields directly, in a fraction of the time. Any other scorer's Score
is validated as usual.

The fast build is used only when, at import, it makes exactly the Score that
validation makes (same fields of the same types, same fields-set, same JSON,
nothing extra); if a newer
Inspect AI or pydantic changes the Score, the validating constructor is used.
`FAST_BUILD` says which one is in use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from inspect_ai.scorer import Score
from pydantic import BaseModel

import scorebridge as sb
from scorebridge.kit import GRADER_FAILED, metadata_dict

from ._reasons import FAILURE_KIND, INSPECT_REASON, reason_for

__all__ = ["FAST_BUILD", "inspect_score"]

Build = Callable[[Any, "str | None", "str | None", "str | None", "dict[str, Any]"], Score]
"""`(value, answer, explanation, reason, metadata) -> Score`."""

_SET: Final = {"value", "answer", "explanation", "reason", "metadata"}  # what a validated Score says was set


def _validated(
    value: Any, answer: str | None, explanation: str | None, reason: str | None, metadata: dict[str, Any]
) -> Score:
    return Score(value=value, answer=answer, explanation=explanation, reason=reason, metadata=metadata)


def _layout() -> type[BaseModel] | None:
    """Score's instance layout (BaseModel's slots and a weak reference) with object's own attribute setting.

    Object's stores a slot directly, pydantic's goes through Python. An instance is
    filled in, then made a Score. None when this pydantic cannot make such a class.
    """
    try:

        class _Unvalidated(BaseModel):
            __slots__ = ("__weakref__",)
            __setattr__ = object.__setattr__
            __delattr__ = object.__delattr__

    except TypeError:  # a BaseModel with a weak reference of its own, say
        return None
    return _Unvalidated


_Unvalidated: Final = _layout()
_new = object.__new__


def _unvalidated(
    value: Any, answer: str | None, explanation: str | None, reason: str | None, metadata: dict[str, Any]
) -> Score:
    s = _new(_Unvalidated)  # type: ignore[arg-type]
    s.__dict__ = {
        "value": value,
        "answer": answer,
        "explanation": explanation,
        "reason": reason,
        "metadata": metadata,
        "history": [],
    }
    s.__pydantic_fields_set__ = _SET.copy()
    s.__pydantic_extra__ = None
    s.__pydantic_private__ = None
    s.__class__ = Score
    return s  # type: ignore[return-value]  # made a Score just above


def _same(a: Score, b: Score) -> bool:
    """The same Score to Inspect: same class, fields (and their types), fields-set, extras and JSON."""
    return (
        type(a) is type(b)
        and a.__dict__.keys() == b.__dict__.keys()
        and all(type(a.__dict__[k]) is type(b.__dict__[k]) for k in a.__dict__)
        and a.model_fields_set == b.model_fields_set
        and a.__pydantic_extra__ == b.__pydantic_extra__
        and a.__pydantic_private__ == b.__pydantic_private__
        and a.model_dump_json() == b.model_dump_json()
    )


def _fast_build() -> Build | None:
    """`_unvalidated` when it makes the very Scores that validation makes, else None."""
    samples: list[tuple[Any, str | None, str | None, str | None, dict[str, Any]]] = [
        ("C", "the capital is paris.", "the output contains 'paris'", None, {"matched": "paris", FAILURE_KIND: None}),
        ("I", None, "the output is empty", "invalid_response_format", {FAILURE_KIND: "parse_failure"}),
        ("I", None, None, "scoring_failed", {FAILURE_KIND: "error"}),
        ("P", "b", None, None, {FAILURE_KIND: "wrong"}),
        (0.25, "x", "y", "refusal", {FAILURE_KIND: "refusal", "n": 1}),
        (float("nan"), "42", "captured '42'", None, {"groups": ["42", None], FAILURE_KIND: None}),
    ]
    if _Unvalidated is None or Score.__pydantic_post_init__ is not None or Score.model_config.get("extra") == "allow":
        return None
    try:
        same = all(_same(_unvalidated(*args), _validated(*args)) for args in samples)
    except TypeError:  # the layout changed: __class__ assignment refused
        return None
    return _unvalidated if same else None


_fast: Final = _fast_build()
FAST_BUILD: Final = _fast is not None
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
    build = _fast if trusted and _fast is not None else _validated
    if score.correct is None:
        if reason is None and GRADER_FAILED in metadata:  # scorebridge's model-graded scorers
            reason = "grader_failed"
        return build(float("nan"), score.outcome, score.explanation, reason, metadata)  # as Score.unscored()
    return build(_value(score), score.outcome, score.explanation, reason, metadata)
