"""`NativeScorer`: an MLflow scorer under another name, or recording its errors, and otherwise itself.

What `to_mlflow` gives for a `from_mlflow(x)` scorer that asks for something x is
not (another name, `on_error="record"`, other aggregations or timeout): x run by
MLflow's own `Scorer.run`, its values untouched (a 42 stays 42, "yes" stays
"yes"), its feedback named as asked, its aggregations, description and pass rule
kept unless given. Nothing renamed and nothing asked, `to_mlflow` gives x itself.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from mlflow.entities import Feedback
from mlflow.genai.scorers import Scorer
from pydantic import PrivateAttr

import scorebridge as sb
from scorebridge.kit import note_scorer, raised_score

from ._scorer import LABEL_KEY, OnError, feedback

__all__ = ["NativeScorer", "renamed"]


class NativeScorer(Scorer):
    """The MLflow scorer `native` under the name `name` (made by `to_mlflow`; see the module's docstring)."""

    _native: Any = PrivateAttr(default=None)  # the MLflow scorer run
    _on_error: str = PrivateAttr(default="raise")
    _made_from: Any = PrivateAttr(default=None)  # the from_mlflow scorer to_mlflow was given

    @property
    def native(self) -> Scorer:
        """The MLflow scorer this one runs."""
        found: Scorer = self._native
        return found

    @property
    def on_error(self) -> str:
        """What an exception inside the scorer becomes: "raise" (MLflow's SCORER_ERROR) or "record"."""
        return self._on_error

    @property
    def made_from(self) -> sb.Scorer:
        """The scorebridge scorer (made by `from_mlflow`) this MLflow scorer was made from."""
        found: sb.Scorer = self._made_from
        return found

    def __call__(  # type: ignore[override]  # MLflow passes only the arguments named here
        self, *, inputs: Any = None, outputs: Any = None, expectations: Any = None, trace: Any = None
    ) -> Any:
        """The wrapped scorer's own result on MLflow's row, its feedback named for this scorer."""
        native = self.native
        try:
            result = native.run(  # type: ignore[no-untyped-call]  # its own name-based call
                inputs=inputs, outputs=outputs, expectations=expectations, trace=trace
            )
        except Exception as exc:
            if self._on_error == "raise":
                note_scorer(exc, self.name)
                raise
            label = expectations.get(LABEL_KEY) if isinstance(expectations, dict) else None
            needs = self.made_from.needs_label if self._made_from is not None else True
            return feedback(raised_score(self.name, exc, label, needs_label=needs), self.name)
        if isinstance(result, list):
            return [self._named(found, native.name) for found in result]
        return self._named(result, native.name)

    def _named(self, result: Any, native_name: str) -> Any:
        """A Feedback named for the wrapped scorer, named for this one instead (a copy: a scorer may hand back
        the same Feedback every call); anything else as it is."""
        if isinstance(result, Feedback) and result.name == native_name:
            result = copy.copy(result)
            result.name = self.name
        return result

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """Serialized as the wrapped scorer is, under this one's name, aggregations and description (so
        `Scorer.model_validate` makes MLflow's own scorer again, renamed); recording errors is not stored."""
        dumped = dict(self.native.model_dump(**kwargs))
        dumped.update(name=self.name, aggregations=self.aggregations, description=self.description)
        return dumped


def renamed(
    made_from: sb.Scorer,
    native: Scorer,
    name: str,
    on_error: OnError,
    aggregations: Sequence[Any] | None,
    timeout: float | None,
) -> NativeScorer:
    """The `NativeScorer` of `native` (wrapped by the scorer `made_from`) named `name`: aggregations,
    description, timeout and pass rule the wrapped scorer's, unless given."""
    made = NativeScorer(
        name=name,
        aggregations=list(aggregations) if aggregations is not None else native.aggregations,
        description=native.description,
        timeout=timeout if timeout is not None else native.timeout,
    )
    made._native, made._on_error, made._made_from = native, on_error, made_from
    made._pass_if = native._pass_if
    return made
