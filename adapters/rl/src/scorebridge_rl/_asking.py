"""The reverse direction's reading rules: what a wrapped reward function is asked, and its answer recorded.

`from_trl` and `from_verl` read a scorebridge call `(item, output, label)` the
way every reverse adapter does (docs/adapters.md): an output that reports its
own failure is recorded without asking the function, and so is a row with no
label when the function needs one; otherwise the function judges the output's
text ("" when it has none), and a "wrong" about an output that pre-sorting
rejected (no text, NOT_IN_DOCUMENT) records the rejection's kind.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple

from scorebridge import Score, ScorerContractError
from scorebridge.kit import Rejected, is_bool, is_number, label_is_missing, presort, recorded

__all__ = ["Asked", "ask", "reward_value", "verdict"]


class Asked(NamedTuple):
    """What to hand the harness's function: the output's text, and the unreported rejection it carries."""

    text: str
    rejected: Rejected | None


def ask(name: str, output: Any, label: Any, needs_label: bool) -> Score | Asked:
    """A finished Score (a reported rejection; no label when one is needed), or what to ask the function."""
    # TODO(kit): kit.ask(name, output, label, needs_label=...) once the branch kit lands; the same rules.
    unlabelled = needs_label and label_is_missing(label)
    text = presort(name, output, ())
    if isinstance(text, Rejected):
        if text.reported or unlabelled:
            return text.record(name, unlabelled)
        return Asked(text.outcome or "", text)
    if unlabelled:
        return recorded(name, None, text, None, unlabelled=True)
    return Asked(text, None)


def verdict(
    name: str,
    asked: Asked,
    value: float | None,
    threshold: float,
    *,
    outcome: str | None = None,
    kind: Any = None,
    explanation: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Score:
    """The function's reward made a Score: value None is unscored; else correct when value >= threshold.

    A wrong verdict on an output that pre-sorting rejected records the
    rejection's kind (and explanation); `kind` is a kind the function gave
    itself (from_verl's "failure_kind" key), used for a wrong verdict.
    """
    shown = outcome if outcome is not None else (asked.text or None)
    if value is None:
        return recorded(name, None, shown, None, None, explanation, metadata, unlabelled=True)
    correct = value >= threshold
    if not correct and asked.rejected is not None:
        kind = asked.rejected.failure_kind
        explanation = explanation or asked.rejected.explanation
    return recorded(name, correct, shown, None if correct else kind, value, explanation, metadata)


def reward_value(name: str, reward: Any, what: str) -> float | None:
    """A reward as a Score's value: a finite number (a bool as 1 or 0); None or NaN is no reward (unscored).

    Anything else (a string, an infinity, a list) is a `ScorerContractError`
    naming the scorer and `what` returned it.
    """
    if reward is None:
        return None
    if is_bool(reward):
        return 1.0 if reward else 0.0
    if is_number(reward):
        try:
            value = float(reward)
        except (TypeError, ValueError, OverflowError):
            value = math.inf
        if math.isnan(value):
            return None
        if math.isfinite(value):
            return value
    raise ScorerContractError(
        f"{name}: {what} returned {type(reward).__name__} {reward!r:.80}; expected a finite number or None"
    )
