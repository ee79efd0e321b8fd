"""`to_dspy(from_dspy(m))`: DSPy's own metric `m` again, itself or thinly wrapped.

A round trip is an identity: inside DSPy the metric that comes back is `m`, so
DSPy calls it with exactly what it passes (two arguments to a two-argument
metric, GEPA's `pred_name` and `pred_trace`, a prediction that is not a
`Prediction`, every gold field), gets back what `m` returns, and GEPA's
signature check and BootstrapFewShot's `metric_threshold` mean what they mean
for `m`. Only options that ask for something else wrap `m` (`NativeMetric`):
another name, `threshold`, `feedback=False`, or `from_dspy(on_error="record")`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, final

from scorebridge.kit import add_note

from ._metric import MetricCall, Prediction, _Shared, default_name, metric_value

__all__ = ["NativeMetric", "dspy_again"]


def _argument(args: tuple[Any, ...], kwargs: dict[str, Any], index: int, name: str) -> Any:
    return args[index] if len(args) > index else kwargs.get(name)


def _signature(metric: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(metric)
    except (TypeError, ValueError):  # a callable whose signature Python cannot read
        return None


@final
@dataclass(frozen=True, eq=False, repr=False)
class NativeMetric(_Shared):
    """A DSPy metric called with exactly what DSPy passes, and what it returns changed only as asked.

    Its signature is the metric's own (`__signature__`), so GEPA's five-argument
    check and DSPy's reading of a metric's parameters see the metric. Per call:

    - `threshold` set and `trace` given (bootstrapping): `value >= threshold`, a
      bool, the value read from what the metric returned (a Prediction's score,
      a bool, a number);
    - `feedback` False and `pred_name` given (GEPA's feedback call): the value
      alone instead of a returned Prediction;
    - `record_errors` and the metric raised: 0.0, False while bootstrapping, or
      `Prediction(score=0.0, feedback=...)` naming the exception to GEPA's
      feedback call, instead of the exception;
    - otherwise what the metric returned, as it returned it.
    """

    metric: Callable[..., Any]
    name: str
    threshold: float | None
    feedback: bool
    record_errors: bool
    signature: inspect.Signature | None

    @property
    def __name__(self) -> str:  # what Evaluate's table and GEPA call the metric
        return self.name

    @property
    def __signature__(self) -> inspect.Signature | None:
        return self.signature

    def __repr__(self) -> str:
        return f"<DSPy metric {self.name}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            raw = self.metric(*args, **kwargs)
        except Exception as exc:
            if not self.record_errors:
                add_note(exc, f"raised inside the DSPy metric {self.name!r}")
                raise
            return self._failed(exc, args, kwargs)
        if self.threshold is not None and _argument(args, kwargs, 2, "trace") is not None:
            return metric_value(self.name, self.name, raw)[0] >= self.threshold
        if not self.feedback and _argument(args, kwargs, 3, "pred_name") is not None and isinstance(raw, Prediction):
            return metric_value(self.name, self.name, raw)[0]
        return raw

    def _failed(self, exc: Exception, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if _argument(args, kwargs, 3, "pred_name") is not None and self.feedback:
            try:
                raised = f"{exc!r:.300}"
            except Exception:  # an exception whose own repr raises
                raised = type(exc).__name__
            return Prediction(score=0.0, feedback=f"the DSPy metric failed: {raised}")
        if _argument(args, kwargs, 2, "trace") is not None:
            return False
        return 0.0


def dspy_again(
    call: MetricCall,
    name: str,
    fields_given: bool,
    threshold: float | None,
    feedback: bool,
    record_errors: bool = False,
) -> Callable[..., Any]:
    """The DSPy metric `to_dspy` gives for a `from_dspy` scorer: `m` itself, else `m` thinly wrapped.

    `record_errors` (`to_dspy(on_error="record")`) records `m`'s exceptions as
    `from_dspy(on_error="record")` does.

    `fields_given` is True when `output_field`, `label_field` or `item` was given
    to `to_dspy`: they say how a scorebridge scorer reads DSPy's example and
    prediction, and `m` reads them itself, so they are a ValueError.
    """
    if fields_given:
        raise ValueError(
            f"to_dspy({name}): output_field=, label_field= and item= say what a scorebridge scorer reads from "
            f"DSPy's example and prediction; {name!r} is the DSPy metric {call.metric_name!r}, which reads them "
            "itself (give from_dspy the field names it uses for calls from elsewhere)"
        )
    record_errors = record_errors or call.record_errors
    if name == default_name(call.metric_name) and threshold is None and feedback and not record_errors:
        return call.metric
    return NativeMetric(call.metric, name, threshold, feedback, record_errors, _signature(call.metric))
