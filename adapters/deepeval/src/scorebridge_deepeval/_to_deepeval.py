"""`to_deepeval`: a scorebridge scorer as a deepeval metric, for `evaluate`, `assert_test` and deepeval's runner."""

from __future__ import annotations

import math
from typing import Any, Literal

from deepeval.metrics import BaseMetric
from deepeval.test_case import LLMTestCase

from scorebridge import Score, Scorer
from scorebridge.kit import body_of, is_number, recording, run_sync

from ._cases import row_of
from ._from_deepeval import DeepevalCall
from ._native import MADE_FROM, NATIVE

__all__ = ["ScorebridgeMetric", "to_deepeval"]


def _reason(score: Score) -> str | None:
    """deepeval's `reason`: the failure kind, then the explanation ("wrong: ...", "error: ValueError(...)")."""
    parts = [p for p in (score.failure_kind, score.explanation) if p]
    return ": ".join(parts) or None


class ScorebridgeMetric(BaseMetric):  # type: ignore[no-untyped-call]  # deepeval's __init_subclass__
    """A scorebridge scorer as a deepeval metric (what `to_deepeval` makes).

    `measure(test_case)` scores (`input`, or `{"input", "context",
    "retrieval_context"}` when the case has context; `actual_output`;
    `expected_output`). After it, `score` is the Score's value, `success` its
    verdict (`by_verdict`) or deepeval's `score >= threshold`, `reason` the
    failure kind and explanation; an unscored row (no label) is `skipped`,
    which deepeval leaves out of its pass rate, never a 0. The constructor's
    arguments are its attributes of the same names, as deepeval's `evaluate`
    needs to copy a metric per test case.
    """

    def __init__(
        self,
        scorer: Scorer,
        threshold: float = 1.0,
        on_error: Literal["raise", "record"] = "raise",
        name: str | None = None,
        by_verdict: bool = True,
    ) -> None:
        self.scorer, self.threshold, self.on_error, self.by_verdict = scorer, threshold, on_error, by_verdict
        self.name = scorer.name if name is None else name
        self.include_reason = True
        self._call = recording(scorer.name, scorer.acall if scorer.is_async else scorer, on_error,
                               needs_label=scorer.needs_label)  # fmt: skip
        setattr(self, MADE_FROM, scorer)

    @property
    def __name__(self) -> str:
        return self.name

    def _took(self, score: Score) -> float | None:
        self.score, self.reason, self.skipped = score.value, _reason(score), score.correct is None
        if self.by_verdict or score.value is None or self.threshold is None:
            self.success = score.correct
        else:
            self.success = score.value >= self.threshold
        return self.score

    def measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float | None:  # type: ignore[override]
        row = row_of(test_case)
        token = NATIVE.carry(*row, test_case)
        try:
            found = self._call(*row)
            return self._took(found if type(found) is Score else run_sync(found))
        finally:
            NATIVE.drop(token)

    async def a_measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float | None:  # type: ignore[override]
        row = row_of(test_case)
        token = NATIVE.carry(*row, test_case)
        try:
            found = self._call(*row)
            return self._took(found if type(found) is Score else await found)
        finally:
            NATIVE.drop(token)

    def is_successful(self) -> bool:
        return self.error is None and bool(self.success)


def to_deepeval(
    scorer: Scorer,
    *,
    threshold: float | None = None,
    on_error: Literal["raise", "record"] = "raise",
    name: str | None = None,
) -> BaseMetric:
    """A scorebridge scorer as a deepeval metric; one made by `from_deepeval` is given back as it was.

    `threshold=None` (the default): deepeval's `success` is the scorer's own
    verdict (`Score.correct`); the metric shows `threshold` 1.0 (deepeval's
    `evaluate` refuses a metric without one), where every all-or-nothing scorer
    draws the line. A number: `success` is `score >= threshold`, deepeval's
    rule, on the Score's value (partial credit then passes or fails by it).
    `on_error="record"` records a raising row wrong (score 0.0, reason "error:
    ..."), as every scorebridge entry point does; "raise" lets deepeval see the
    exception (its `ignore_errors` then decides). `name` is the metric's name
    in deepeval's reports (the scorer's by default).
    """
    if not isinstance(scorer, Scorer):
        raise TypeError(f"to_deepeval: expected a scorebridge Scorer; got {type(scorer).__name__}")
    if threshold is not None and (not is_number(threshold) or not math.isfinite(threshold)):
        raise ValueError(f"to_deepeval({scorer.name}): threshold must be a finite number or None; got {threshold!r}")
    body = body_of(scorer)
    if isinstance(body, DeepevalCall) and on_error == "raise" and threshold is None and name in (None, scorer.name):
        return body.metric  # a round trip: the metric itself
    if threshold is None:
        return ScorebridgeMetric(scorer, 1.0, on_error, name, by_verdict=True)
    return ScorebridgeMetric(scorer, float(threshold), on_error, name, by_verdict=False)
