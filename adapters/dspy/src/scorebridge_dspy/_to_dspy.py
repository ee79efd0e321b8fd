"""`to_dspy`: a scorebridge scorer as a DSPy metric, for Evaluate and every optimizer, GEPA included."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scorebridge import Scorer

from ._checks import field_name, threshold_value
from ._metric import MetricCall, ScorerMetric

__all__ = ["to_dspy"]


def to_dspy(
    scorer: Scorer,
    *,
    output_field: str | None = None,
    label_field: str | None = None,
    item: Callable[[Any], Any] | None = None,
    threshold: float | None = None,
    feedback: bool = True,
) -> ScorerMetric:
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

    A scorer made by `from_dspy` gets the whole prediction as its output, so
    every field reaches the DSPy metric inside, and its label field is the
    default here.

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
    inner = scorer.fn if isinstance(scorer.fn, MetricCall) else None
    if inner is not None and label_field is None:
        label_field = inner.label_field
    whole = inner is not None and output_field is None
    return ScorerMetric(scorer, output_field, label_field, item, threshold, feedback, whole)
