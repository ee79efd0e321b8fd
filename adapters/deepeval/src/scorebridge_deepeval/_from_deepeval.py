"""`from_deepeval`: a deepeval metric as a scorebridge `Scorer`."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Mapping
from typing import Any, Literal

from deepeval.metrics import BaseMetric
from deepeval.models import DeepEvalBaseLLM
from deepeval.test_case import LLMTestCase, SingleTurnParams

from scorebridge import Score, Scorer
from scorebridge.kit import (
    Ask,
    OptionsError,
    ScorerContractError,
    ask,
    judge,
    judge_each,
    options_of,
    recording,
    scale,
    sync_and_async,
    verdict,
)

from ._cases import as_test_case
from ._native import MADE_FROM, NATIVE

__all__ = ["DeepevalCall", "from_deepeval"]


def reads(metric: BaseMetric) -> frozenset[str] | None:
    """The test case fields a metric declares it reads (GEval's `evaluation_params`, else `_required_params`).

    None when it declares none (a metric of one's own that sets neither): then it is taken to need a label.
    """
    for declared in (getattr(metric, "evaluation_params", None), getattr(metric, "_required_params", None)):
        if isinstance(declared, (list, tuple)) and declared and all(isinstance(p, SingleTurnParams) for p in declared):
            return frozenset(p.value for p in declared)
    return None


def _output(asked: Ask) -> Any:
    """What deepeval's `actual_output` is made of: the output's text, or a structured output (no text) whole."""
    return asked.text if asked.rejected is not None or asked.text else asked.output


def _identity(metric: BaseMetric) -> dict[str, Any]:
    """The metric's constructor arguments as JSON options, its judge model by the name deepeval gives it."""
    if isinstance(getattr(metric, "model", None), DeepEvalBaseLLM):
        metric = copy.copy(metric)
        metric.model = metric.evaluation_model or metric.model.get_model_name()  # type: ignore[union-attr,assignment]
    return options_of(metric)


class DeepevalCall:
    """The body of a scorer made by `from_deepeval`: the metric measured on the row's test case, a copy a call."""

    def __init__(self, metric: BaseMetric, name: str, needs_label: bool, fields: Mapping[str, str]) -> None:
        self.metric, self.name, self.needs_label, self.fields = metric, name, needs_label, dict(fields)
        self.scale = scale(name)  # deepeval's scores are 0-1; another is a contract error
        is_async = bool(getattr(metric, "async_mode", True))
        measure = metric.a_measure if is_async else metric.measure
        params = inspect.signature(measure).parameters.values()
        quiet = any(p.name == "_show_indicator" or p.kind is p.VAR_KEYWORD for p in params)
        self.is_async, self.kwargs = is_async, {"_show_indicator": False} if quiet else {}

    def __repr__(self) -> str:
        return f"<deepeval metric {self.name}>"

    def __call__(self, item: Any, output: Any, label: Any) -> Any:
        asked = ask(self.name, output, label, needs_label=self.needs_label, structured=True)
        if isinstance(asked, Score):
            return asked
        native = NATIVE.native(item, output, label)  # inside deepeval: its own test case, measured once
        if native is not None:
            return judge(self.name, lambda: self.measure(native), lambda m: self.verdict(asked, m))
        try:
            base = as_test_case(item, _output(asked), None, **self.fields)
        except ScorerContractError as exc:
            raise ScorerContractError(f"{self.name}: {exc}") from None
        return judge_each(
            self.name,
            asked,
            lambda answer: self.measure(base.model_copy(update={"expected_output": answer})),
            lambda m: self.verdict(asked, m),
        )

    def measure(self, case: LLMTestCase) -> Any:
        """The metric measured on `case`: a shallow copy of it (a deepeval metric holds its last result), or an
        awaitable of one; the copy shares the judge model."""
        metric = copy.copy(self.metric)
        if self.is_async:
            return self._measured_async(metric, case)
        metric.measure(case, **self.kwargs)
        return metric

    async def _measured_async(self, metric: BaseMetric, case: LLMTestCase) -> BaseMetric:
        await metric.a_measure(case, **self.kwargs)
        return metric

    def verdict(self, asked: Ask, metric: BaseMetric) -> Score:
        """deepeval's result made a Score: `success` is correct, `score` the value, `reason` the explanation."""
        if metric.error is not None:
            return verdict(self.name, asked, False, value=0.0, explanation=f"deepeval: {metric.error}",
                           failure_kind="error")  # fmt: skip
        if metric.skipped or metric.score is None:
            return verdict(self.name, asked, None, explanation=metric.reason)
        _, value = self.scale.read(self.name, metric.score)
        success = metric.success if metric.success is not None else metric.is_successful()
        correct = None if success is None else bool(success)
        return verdict(self.name, asked, correct, value=value, explanation=metric.reason)


def from_deepeval(
    metric: BaseMetric,
    *,
    name: str | None = None,
    needs_label: bool | None = None,
    on_error: Literal["raise", "record"] = "raise",
    context_field: str = "context",
    retrieval_context_field: str = "retrieval_context",
    options: Mapping[str, Any] | None = None,
) -> Scorer:
    """A deepeval metric as a scorebridge scorer; one made by `to_deepeval` gives its scorer back.

    Each call measures a shallow copy of `metric` on the row's `LLMTestCase`:
    `input` is the item's text (its `input` or `question` field), `actual_output`
    the output's text (a structured output as its JSON), `expected_output` the
    label, `context` and `retrieval_context` the item's fields of those names
    (`context_field`, `retrieval_context_field`). deepeval holds one expected
    output, so a list label is asked once per accepted answer until one passes.
    `success` is correct, `score` the value (0-1; another is a
    `ScorerContractError`), `reason` the explanation, `error` failure kind
    "error", `skipped` unscored. Whether the metric needs a label is read from
    the fields it declares it reads (`evaluation_params`, `_required_params`):
    `expected_output` among them; a metric that declares none needs one unless
    `needs_label=False`. An async metric (`async_mode`, deepeval's default)
    makes an async Scorer. The options are the metric's constructor arguments,
    its judge model by its name; give `options=` for a metric whose arguments
    cannot be read back.
    """
    made_from = getattr(metric, MADE_FROM, None)
    if isinstance(made_from, Scorer) and on_error == "raise" and name in (None, made_from.name):
        return made_from  # a round trip: the scorebridge scorer to_deepeval was given
    if not isinstance(metric, BaseMetric):
        raise TypeError(f"from_deepeval: expected a deepeval BaseMetric; got {type(metric).__name__}")
    if name is None:
        given = getattr(metric, "name", None) or getattr(metric, "__name__", None)
        name = "_".join(str(given).lower().split()) if isinstance(given, str) and given.strip() else "deepeval_metric"
    if needs_label is None:
        declared = reads(metric)
        needs_label = declared is None or "expected_output" in declared
    if options is None:
        try:
            options = {"metric": _identity(metric)}
        except OptionsError as exc:
            raise TypeError(f"from_deepeval({name}): {exc}; give the metric's identity as options={{...}}") from None
    fields = {"context_field": context_field, "retrieval_context_field": retrieval_context_field}
    call = DeepevalCall(metric, name, needs_label, fields)
    fn = sync_and_async(recording(name, call, on_error, needs_label=needs_label), is_async=call.is_async)
    return Scorer(name, fn, dict(options), recorded=True, needs_label=needs_label)
