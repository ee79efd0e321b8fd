"""What the adapter's two directions tell each other.

- `NATIVE`: `to_inspect` runs a scorebridge scorer on `(item, output, label)`
  read from Inspect's `(state, target)`, and carries the state and target with
  the call. When that scorer (your own, say) calls a `from_inspect` scorer with
  those very objects, the Inspect scorer inside sees Inspect's own state and
  target, not a state rebuilt from the three (`scorebridge.kit.NativeCalls`).
- `ORIGIN`: an Inspect scorer made by `to_inspect` says what it was made from
  (an attribute set when it is made), so `from_inspect` can give back the
  scorebridge scorer itself.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from inspect_ai.scorer import Target
from inspect_ai.solver import TaskState

import scorebridge as sb
from scorebridge.kit import NativeCalls

__all__ = ["NATIVE", "ORIGIN", "Origin", "origin"]

NATIVE: Final[NativeCalls[tuple[TaskState, Target]]] = NativeCalls("scorebridge_inspect_native")
"""Inspect's state and target, carried with a scorebridge scorer's call by `to_inspect`."""


class Origin(NamedTuple):
    """What `to_inspect` made an Inspect scorer from: the scorebridge scorer, and its `on_error`."""

    scorer: sb.Scorer
    on_error: str

    @property
    def name(self) -> str:
        """The scorebridge scorer's name."""
        return self.scorer.name


ORIGIN: Final = "scorebridge_origin"
"""The attribute of an Inspect scorer made by `to_inspect` that holds its `Origin`."""


def origin(inspect_scorer: object) -> Origin | None:
    """The `Origin` of an Inspect scorer made by `to_inspect`; None for any other."""
    found = getattr(inspect_scorer, ORIGIN, None)
    return found if isinstance(found, Origin) else None
