"""What the adapter's two directions tell each other, and what both read from verifiers' objects.

- `MADE_FROM`: the attribute a reward made by `to_verifiers` keeps its scorer
  in, so `from_verifiers` gives that scorer back;
- `said(messages, role)`: the text of a legacy prompt or completion (a string,
  or chat messages whose last message of that role is the one meant);
- `as_recorded(score)`: a Score as the adapter records it beside the reward
  (a trace's `info`, a legacy `state`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from scorebridge.kit import element

__all__ = ["LABEL_FIELD", "MADE_FROM", "as_recorded", "said"]

MADE_FROM: Final = "scorebridge_scorer"
LABEL_FIELD: Final = "answer"
"""Where a task row holds its reference answer: verifiers' `answer` column, a `TaskData` field of that name."""


def said(messages: Any, role: str) -> Any:
    """A legacy prompt's or completion's text: the string itself, a chat's last `role` message's content.

    Anything else is handed on as it is (the scorer's reading rules decide)."""
    if isinstance(messages, Sequence) and not isinstance(messages, (str, bytes)):
        chat = [m for m in messages if isinstance(m, Mapping) or element(m, "role") is not None]
        of_role = [m for m in chat if element(m, "role") == role]
        return element(of_role[-1], "content") if of_role else "" if chat else messages
    return messages


def as_recorded(score: Any) -> dict[str, Any]:
    """What the adapter records of a Score beside the reward: value (None: unscored), verdict, kind, why."""
    return {"value": score.value, "correct": score.correct, "failure_kind": score.failure_kind,
            "explanation": score.explanation}  # fmt: skip
