"""`from_dspy`: any DSPy metric (built-ins, GEPA-style ones, LM judges) as a scorebridge `Scorer`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal

from scorebridge import Scorer

from ._checks import field_name, threshold_value
from ._metric import MetricCall, ScorerMetric, default_name

__all__ = ["from_dspy"]


def from_dspy(
    metric: Callable[..., Any],
    *,
    output_field: str | None = None,
    label_field: str | None = None,
    input_fields: Iterable[str] | None = None,
    threshold: float = 1.0,
    on_error: Literal["raise", "record"] = "raise",
    name: str | None = None,
) -> Scorer:
    """A scorer that calls the DSPy metric `metric` (`answer_exact_match`, a GEPA-style metric, SemanticF1, ...).

    The scorer's `fn` is a `MetricCall` whose `metric` is the metric wrapped:
    `to_dspy` gives that very metric back (a round trip is an identity). Inside
    DSPy, a scorer of your own run by `to_dspy` that calls this one with the item,
    output and label it was given hands the metric DSPy's own example and
    prediction. From anywhere else, scoring `(item, output, label)` builds what
    DSPy would pass:

    - the label's field: `label_field`; by default, for a `dspy.Example` item,
      the one field that is not an input and holds the label (`hour` for an
      example with input `question` and fields `hour=5, minute=30`, labelled
      5), else `answer`;
    - the example: the whole item, every field (`dspy.Example` items keep their
      inputs and DSPy's own `dspy_*` fields; a mapping's keys are its inputs),
      with the label stored under the label's field (overriding an item field
      of that name); `input_fields` names the inputs instead. A plain item (a
      string, say) is stored under the one name in `input_fields`, else
      `question`; None gives no fields. A tuple or set label becomes a list
      (DSPy's form of several accepted answers);
    - the prediction: the output itself when it is a `dspy.Prediction`, else
      `dspy.Prediction(<output_field>=output)`, `output_field` defaulting to the
      label's field (DSPy predicts the field it is scored on); an output object
      with an `answer` (else `text`) element, mapping key or attribute, gives
      that element, its text by the protocol's rule, as `exact()` reads it;

    and calls the metric as `dspy.Evaluate` does, `metric(example, pred)`
    (None for each further argument it requires): evaluation mode, never
    `trace=[]`, which built-in metrics take for bootstrapping. What the metric
    returns is read before any truth test: a Prediction's (or a mapping's)
    `score` and `feedback`, a bool (numpy's too), a real number (numpy's too).
    The Score has value = the score, correct = value >= `threshold`,
    explanation = the feedback, outcome = the prediction's output field as
    text, and the other fields of a returned Prediction as metadata. None, NaN,
    infinities, strings and other returns are a `ScorerContractError` naming
    the metric.

    An output that reports its own failure (neither a string nor a Prediction,
    with a `failure_kind` element or `ok` False) is recorded wrong for that
    reason without calling the metric (the protocol's pre-sorting, as `exact()`
    does); an output object with an `answer` (else `text`) element is handed
    to the metric as that element, as it is; one with no text (None, "", a list) and
    NOT_IN_DOCUMENT are left to the metric, and when it scores them below
    the threshold the Score keeps the kind `exact()` gives them,
    parse_failure or not_in_document (`kit.verdict`). The label is the
    metric's to read, as the data has it.

    An item with no label is not scored, so the metric is not called (the
    output's failure kind is kept: `kit.ask`), when the metric reads its
    example: DSPy does not declare whether a metric needs a gold answer, so it
    is read from the metric's code (`kit.reads_argument`). A metric whose code
    never reads its first argument (a length or format check on the
    prediction alone) needs no label and is called on every row. A structured
    prediction (a field holding a list of entities, a mapping) reaches the
    metric as DSPy hands it, and a score below the threshold is "wrong", not a
    parse failure (`kit.ask(structured=True)`). A metric
    that raises is never a silent zero: with `on_error="raise"` (the default)
    the exception propagates with a note naming the metric; with
    `on_error="record"` the Score is wrong with failure kind "error", the
    exception in its explanation and metadata (an unreadable return too). An
    item, output or label that cannot be read (a hostile object, nesting too
    deep, a field name that is not a string) is a `ScorerContractError` naming
    the scorer with "raise", and recorded the same way with "record": then
    nothing raises.

    Round trip: a metric made by `to_dspy(s)` gives back `s` itself, unless a
    `name` other than `s.name` or `on_error="record"` is given here; then its
    scorer's whole Score comes back (value, correct, failure kind, outcome,
    explanation), `threshold` not applied.

    The scorer is named `name`, else the metric's `__name__`, else its class
    name; a lambda, which has no name, is "dspy_metric". Raises TypeError or
    ValueError, naming the argument, for a metric that is not callable, a blank
    field name, a label field among the input fields, a threshold that is not
    a finite number, an unknown `on_error`.
    """
    if not callable(metric):
        raise TypeError(f"from_dspy: metric must be callable; got {type(metric).__name__}")
    if isinstance(metric, ScorerMetric) and on_error == "raise" and name in (None, metric.scorer.name):
        return metric.scorer  # a round trip: the scorebridge scorer to_dspy was given
    given_name = getattr(metric, "__name__", None)
    metric_name = given_name if isinstance(given_name, str) and given_name.strip() else type(metric).__name__
    if name is None:
        name = default_name(metric_name)
    factory = f"from_dspy({name})"
    if output_field is not None:
        output_field = field_name(factory, "output_field", output_field)
    if label_field is not None:
        label_field = field_name(factory, "label_field", label_field)
    inputs: tuple[str, ...] | None = None
    if input_fields is not None:
        if isinstance(input_fields, str):
            raise TypeError(f"{factory}: input_fields must be a list of field names, not one string")
        inputs = tuple(field_name(factory, "input_fields", f) for f in input_fields)
        if label_field is not None and label_field in inputs:
            raise ValueError(f"{factory}: the label field {label_field!r} cannot also be an input field")
    threshold = threshold_value(factory, threshold)
    if on_error not in ("raise", "record"):
        raise ValueError(f"{factory}: on_error must be 'raise' or 'record'; got {on_error!r:.80}")
    call = MetricCall.of(metric, metric_name, name, output_field, label_field, inputs, threshold, on_error == "record")
    options = {
        "output_field": output_field,
        "label_field": label_field,
        "input_fields": None if inputs is None else list(inputs),
        "threshold": threshold,
        "on_error": on_error,
    }
    return Scorer(name, call, options, recorded=True, needs_label=call.needs_label)
