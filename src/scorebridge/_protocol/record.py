"""The recording rules of the hr package's protocol: what a scorer function returned, made into a `Score`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from .grade import read_grade
from .score import FAILURE_KINDS, FailureKind, Score, ScorerContractError, UnreadableLabel, make_score
from .values import is_bool, is_missing, is_number, label_is_missing, plain_digits, shown

__all__ = ["raised_score", "record", "recorded"]

_KEYS: Final = frozenset({"correct", "outcome", "failure_kind", "value", "explanation", "metadata"})


def _finite(value: Any) -> bool:
    if not is_number(value) and not is_bool(value):
        return False
    try:
        return math.isfinite(value)
    except (OverflowError, ValueError):  # an int past 1e308, a signalling NaN
        return False


def record(name: str, raw: Any, unlabelled: bool) -> Score:
    """Apply the recording rules to what the scorer `name` returned.

    `raw` is the protocol's mapping (`correct`, `outcome`, `failure_kind`, and
    optionally `value`, `explanation`, `metadata`), a `Score`, or a bare grade
    (a bool, a number, or a grade word read by `grade_value`; correct when it
    is worth at least 1). The rules, exactly as the hr package's protocol says them:

    - a wrong output with no failure_kind is recorded "wrong";
    - an output with a failure_kind is wrong: a correct of None beside one
      becomes False, and True beside one is the scorer's error
      (`ScorerContractError`);
    - an item with no label (`unlabelled`) is recorded correct None, value None,
      whatever the output, with its failure_kind kept.

    Anything else wrong with what the scorer returned (a field of the wrong
    type, a mapping or a number whose own methods raise, an outcome number of
    more than `MAX_DIGITS` digits) is a `ScorerContractError` naming the scorer.
    """
    try:
        return _record(name, raw, unlabelled)
    except ScorerContractError:
        raise
    except Exception as exc:  # a returned value whose own methods fail
        raise ScorerContractError(f"{name}: cannot read what the scorer returned: {shown(exc, 200)}") from exc


def _record(name: str, raw: Any, unlabelled: bool) -> Score:
    if type(raw) is dict or isinstance(raw, Mapping):
        extra = raw.keys() - _KEYS
        if extra or "correct" not in raw:
            problem = f"unknown keys {sorted(map(str, extra))}" if extra else "no 'correct' key"
            raise ScorerContractError(f"{name}: the scorer returned a mapping with {problem}")
        correct = raw["correct"]
        outcome = raw.get("outcome")
        kind = raw.get("failure_kind")
        value = raw.get("value")
        explanation = raw.get("explanation")
        metadata = raw.get("metadata")
        if type(metadata) is MappingProxyType:  # a view of the scorer's dict, which may still change
            metadata = dict(metadata)
    elif isinstance(raw, Score):
        correct, outcome, kind = raw.correct, raw.outcome, raw.failure_kind
        value, explanation, metadata = raw.value, raw.explanation, raw.metadata
    elif isinstance(raw, str) or is_bool(raw) or is_number(raw):
        value = read_grade(raw, name)
        correct = None if value is None else value >= 1.0
        outcome = kind = explanation = metadata = None
    else:
        raise ScorerContractError(
            f"{name}: the scorer returned {type(raw).__name__}; expected a mapping with "
            "'correct', 'outcome' and 'failure_kind', a Score, or a grade"
        )

    if correct is not None and not is_bool(correct):
        if not is_missing(correct):
            raise ScorerContractError(f"{name}: correct must be True, False or None; got {shown(correct)}")
        correct = None
    elif correct is not None:
        correct = bool(correct)
    if kind is not None and is_missing(kind):  # NA: no failure
        kind = None
    if kind is not None and (type(kind) is not str or kind not in FAILURE_KINDS):
        raise ScorerContractError(f"{name}: failure_kind {shown(kind)} is not one of {FAILURE_KINDS}")

    if value is not None and not _finite(value):
        raise ScorerContractError(f"{name}: value must be a finite number; got {shown(value)}")

    if outcome is not None and type(outcome) is not str:
        if is_missing(outcome):
            outcome = None
        elif is_number(outcome):
            try:
                outcome = plain_digits(outcome)
            except (ValueError, OverflowError) as exc:
                raise ScorerContractError(f"{name}: the outcome number cannot be read: {exc}") from None
        elif isinstance(outcome, str):
            outcome = str(outcome)
        else:
            raise ScorerContractError(f"{name}: outcome must be a string or None; got {type(outcome).__name__}")
    if explanation is not None and not isinstance(explanation, str):
        raise ScorerContractError(f"{name}: explanation must be a string or None; got {type(explanation).__name__}")
    if metadata is not None and not isinstance(metadata, Mapping):
        raise ScorerContractError(f"{name}: metadata must be a mapping or None; got {type(metadata).__name__}")
    return recorded(name, correct, outcome, kind, value, explanation, metadata, unlabelled)


def recorded(
    name: str,
    correct: bool | None,
    outcome: str | None,
    kind: FailureKind | None,
    value: Any = None,
    explanation: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    unlabelled: bool = False,
) -> Score:
    """The recording rules of the hr package's protocol, on fields already of the right types.

    `record` calls this after reading a scorer's return value; the built-in
    scorers call it directly. `value` defaults to 1.0 or 0.0 from `correct`.
    """
    if unlabelled:
        correct = None
    elif kind is not None:
        if correct:
            raise ScorerContractError(f"{name}: correct is True beside failure_kind {kind!r}")
        correct = False
    elif correct is False:
        kind = "wrong"
    if correct is None:
        value = None
    elif value is None:
        value = 1.0 if correct else 0.0
    else:
        value = float(value)
    return make_score(correct, outcome, kind, value, explanation, metadata)


def raised_score(name: str, exc: BaseException, label: Any, *, needs_label: bool = True) -> Score:
    """The Score of a row whose scoring raised `exc`, where a harness records errors (`on_error="record"`).

    Wrong with failure kind "error" (unscored, the kind kept, when the row has
    no label and the scorer needs one: `needs_label`), its explanation "the
    scorer raised " and the exception's repr, cut at 300 characters (an
    exception whose repr raises is named by its type).

    An `UnreadableLabel` is raised again, not recorded: a label the scorer
    cannot read is a fault of the data, raised in every entry point whatever
    `on_error` says, so no harness counts it wrong and another leaves it out.
    """
    if isinstance(exc, UnreadableLabel):
        raise exc
    explanation = f"the scorer raised {shown(exc, 300)}"
    return recorded(name, False, None, "error", None, explanation, None, needs_label and label_is_missing(label))
