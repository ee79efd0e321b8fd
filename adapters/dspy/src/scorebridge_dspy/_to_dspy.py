"""`to_dspy`: a scorebridge scorer as a DSPy metric, for Evaluate and every optimizer, GEPA included."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from scorebridge import Scorer
from scorebridge.kit import is_builtin

from ._checks import field_name, threshold_value
from ._metric import MetricCall, ScorerMetric
from ._round_trip import dspy_again

__all__ = ["to_dspy"]


def to_dspy(
    scorer: Scorer,
    *,
    output_field: str | None = None,
    label_field: str | None = None,
    item: Callable[[Any], Any] | None = None,
    threshold: float | None = None,
    feedback: bool = True,
    on_error: Literal["raise", "record"] = "raise",
    timeout: float | None = None,
) -> Callable[..., Any]:
    """A DSPy metric that scores with `scorer`: `metric(gold, pred, trace=None, pred_name=None, pred_trace=None)`.

    Each call scores one prediction: `scorer(item, output, label)` with

    - output: the prediction's `output_field`; by default its only field
      (ChainOfThought's `reasoning` not counted), else `answer`. A prediction
      that lacks the field is a `ScorerContractError` naming it; an empty
      prediction, or None, is no output (the scorer records a parse failure);
    - label: the example's `label_field`; by default its only field that is
      not an input, else `answer`;
    - item: the example's inputs as a dict (`gold.inputs()`; every field but
      the label when `with_inputs` was never called), or `item(gold)` when a
      function is given.

    It returns a float (the Score's value) to Evaluate and the other scoring
    calls, a strict `bool` while bootstrapping (`trace` given: the Score's
    `correct`, or `value >= threshold` when `threshold` is set), and
    `dspy.Prediction(score=value, feedback=text)` to GEPA's feedback call
    (`pred_name` given; `feedback=False` returns the value there too). See
    `ScorerMetric` for the details, `feedback_text` for the feedback.

    The metric is a `ScorerMetric`, except in a round trip: for a scorer made
    by `from_dspy(m)` it is `m` itself, so DSPy calls `m` with exactly what it
    passes and gets back what `m` returns (two-argument metrics, any label
    field, every gold field, GEPA's `pred_name`/`pred_trace` and signature
    check, BootstrapFewShot's `metric_threshold`). With `threshold`,
    `feedback=False`, a `from_dspy(name=...)` or `from_dspy(on_error="record")`
    it is `m` in a thin wrapper that changes only that (`NativeMetric`);
    `output_field`, `label_field` and `item` cannot apply to `m` (it reads the
    example and prediction itself) and are a ValueError.

    Inside DSPy, a scorer of your own that calls a `from_dspy` scorer with the
    item, output and label it was given hands that metric DSPy's own example
    and prediction (`_metric.NATIVE`).

    on_error: an exception inside the scorer propagates with "raise" (the
    default), with a note naming the scorer; DSPy's Evaluate catches it, logs
    it, counts it toward its `max_errors` and gives the example its
    `failure_score` (so the run goes on: a harness that cannot stop on it).
    With "record" the example's Score is wrong with failure kind "error" (the
    exception in its explanation), and DSPy gets its value, 0.0 (False while
    bootstrapping, the Score's feedback in GEPA's feedback call): 1 correct of
    3, one raising, is Evaluate's 33.3 either way, without an error logged.
    In a round trip, `m` is wrapped to record its exceptions (as
    `from_dspy(on_error="record")` does).

    timeout: seconds the scorer may take on one prediction (None, the default: no
    limit), as `Scorer.with_timeout` gives it (DSPy has no limit of its own
    for a metric): a call past it has raised a `scorebridge.ScorerTimeout` (a
    TimeoutError), recorded or raised as `on_error` says. A sync scorer's call
    past it is abandoned on its thread, still running (Python cannot stop a
    thread).

    Raises TypeError or ValueError, naming the argument, for a scorer that is
    not a `scorebridge.Scorer`, a blank field name, an item that is not
    callable, a threshold that is not a finite number, a feedback that is not a
    bool.
    """
    if not isinstance(scorer, Scorer):
        raise TypeError(
            f"to_dspy: scorer must be a scorebridge.Scorer (make one with scorebridge.scorer(fn)); "
            f"got {type(scorer).__name__}"
        )
    factory = f"to_dspy({scorer.name})"
    if output_field is not None:
        output_field = field_name(factory, "output_field", output_field)
    if label_field is not None:
        label_field = field_name(factory, "label_field", label_field)
    if item is not None and not callable(item):
        raise TypeError(f"{factory}: item must be a function of the gold example; got {type(item).__name__}")
    if threshold is not None:
        threshold = threshold_value(factory, threshold)
    if not isinstance(feedback, bool):
        raise TypeError(f"{factory}: feedback must be True or False; got {feedback!r:.80}")
    if type(on_error) is not str or on_error not in ("raise", "record"):
        raise ValueError(f"{factory}: on_error must be 'raise' or 'record'; got {on_error!r:.80}")
    if timeout is not None:
        scorer = scorer.with_timeout(timeout)
    if isinstance(scorer.fn, MetricCall):  # made by from_dspy: DSPy's own metric, again
        given = output_field is not None or label_field is not None or item is not None
        return dspy_again(scorer.fn, scorer.name, given, threshold, feedback, on_error == "record")
    return ScorerMetric(scorer, output_field, label_field, item, threshold, feedback, is_builtin(scorer), on_error)
