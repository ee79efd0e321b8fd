"""What the adapter's two directions tell each other.

- `NATIVE`: `to_mlflow` runs a scorebridge scorer on `(item, output, label)`
  read from MLflow's row (`inputs`, `outputs`, `expectations`, `trace`), and
  carries the row with the call. When that scorer (your own, say) calls a
  `from_mlflow` scorer with those very objects, the MLflow scorer inside is
  handed MLflow's own objects, the trace included, not a row rebuilt from the
  three (`scorebridge.kit.NativeCalls`).
- `ScorebridgeScorer` (in `_scorer`): the MLflow scorer `to_mlflow` makes keeps
  the scorebridge scorer it was made from, so `from_mlflow` gives it back.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from scorebridge.kit import NativeCalls

__all__ = ["NATIVE", "Row"]


class Row(NamedTuple):
    """The arguments MLflow handed a scorer, by name, as it handed them."""

    inputs: Any
    outputs: Any
    expectations: Any
    trace: Any


NATIVE: Final[NativeCalls[Row]] = NativeCalls("scorebridge_mlflow_native")
"""MLflow's row, carried with a scorebridge scorer's call by `to_mlflow`."""
