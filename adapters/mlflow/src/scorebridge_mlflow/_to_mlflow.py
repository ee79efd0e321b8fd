"""`to_mlflow()`: a scorebridge scorer as an MLflow GenAI scorer, for `mlflow.genai.evaluate`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from mlflow.genai.scorers import Scorer

import scorebridge as sb
from scorebridge.kit import is_builtin

from ._from_mlflow import MlflowCall
from ._renamed import renamed
from ._scorer import LABEL_KEY, Bridge, OnError, Reader, ScorebridgeScorer

__all__ = ["to_mlflow"]


def _check_reader(scorer: str, arg: str, reader: Any) -> None:
    if reader is None or callable(reader) or (isinstance(reader, str) and reader.strip()):
        return
    raise TypeError(
        f"to_mlflow({scorer}): {arg} must be a key name or a function of MLflow's {arg} value; got {reader!r:.80}"
    )


def to_mlflow(
    scorer: sb.Scorer,
    *,
    name: str | None = None,
    item: Reader | None = None,
    output: Reader | None = None,
    label: Reader | None = None,
    on_error: OnError = "raise",
    aggregations: Sequence[Any] | None = None,
    timeout: float | None = None,
) -> Scorer:
    """A scorebridge scorer as an MLflow scorer, for `mlflow.genai.evaluate(data=..., scorers=[...])`.

    A scorer made by `from_mlflow(x)` gives back `x` itself (a round trip is an
    identity) when nothing was renamed and nothing else is asked. Under another
    name (given here, or to `from_mlflow`), with `on_error="record"`, other
    `aggregations` or a `timeout`, it is x run by MLflow's own `Scorer.run`,
    its values untouched, its feedback named as asked, x's aggregations,
    description and pass rule kept unless given. With `item`, `output` or
    `label` readers, the scorebridge scorer reads MLflow's row (below), x's
    aggregations and description kept.

    MLflow calls the scorer once per row, by name, with or without `predict_fn`,
    in its thread pools; the scorer reads:

    - item: `inputs` (the row's dict, or `predict_fn`'s keyword arguments), or
      `inputs[item]` for a key name, or `item(inputs)` for a function;
    - output: `outputs` (the row's, or `predict_fn`'s return value; the scorer
      reads its text by the protocol's rule), or `outputs[output]`, or
      `output(outputs)`;
    - label: `expectations["expected_response"]` (the key MLflow's built-in
      judges read), or `expectations[label]` for another key name, or
      `label(expectations)` (None: the default). A row without it (MLflow hands `{}`) has no label:
      its Score is unscored.

    The Score comes back as a `Feedback` (see `feedback`): value the Score's
    value (so `{name}/mean` is scorebridge's accuracy), rationale the
    explanation, metadata["failure_kind"] the failure kind; an unscored Score
    as None, no assessment, left out of the mean as everywhere in scorebridge.
    A Score of kind "error" carries MLflow's error too (`{name}/error_message`)
    and its value 0.0, so it counts wrong, as in every other harness.

    on_error: an exception inside the scorer (or a reader) propagates with
    "raise" (the default), with a note naming the scorer; MLflow records it as
    the row's `SCORER_ERROR` and leaves the row out of the mean (MLflow's own
    rule). With "record", the row is wrong with failure kind "error" (value 0,
    counted in the mean, as `scorebridge.Summary` counts it), the exception in
    the rationale and the error message.

    An async scorer is awaited in MLflow's worker thread (`kit.run_sync`, a
    loop per thread). A sync scorer of your own runs in MLflow's threads
    (rows and scorers in pools of 10 by default): it must be thread-safe.

    For `mlflow.genai.evaluate(...).passed` and `.reason`, a row passes when
    it is correct (value 1 or more: partial credit does not pass); unscored
    rows are not asserted.

    name, aggregations, timeout: MLflow's own (default the scorer's name, mean,
    300 seconds per call; `timeout=0` runs the scorer in MLflow's worker thread
    itself, without a thread of its own per call).
    """
    if not isinstance(scorer, sb.Scorer):
        raise TypeError(f"to_mlflow: scorer must be a scorebridge Scorer; got {type(scorer).__name__}")
    if on_error not in ("raise", "record"):
        raise ValueError(f"to_mlflow({scorer.name}): on_error must be 'raise' or 'record'; got {on_error!r}")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValueError(f"to_mlflow({scorer.name}): name must be a non-blank string; got {name!r}")
    for arg, reader in (("item", item), ("output", output), ("label", label)):
        _check_reader(scorer.name, arg, reader)
    if label is None:
        label = LABEL_KEY
    readers = item is not None or output is not None or label != LABEL_KEY
    fields: dict[str, Any] = {"name": name or scorer.name}
    call = scorer.fn if isinstance(scorer.fn, MlflowCall) else None
    if call is not None:  # made by from_mlflow: MLflow's own scorer
        native = call.mlflow_scorer
        asked = on_error != "raise" or aggregations is not None or timeout is not None
        if not readers and not asked and fields["name"] == native.name:
            return native  # nothing renamed, nothing asked: MLflow's own scorer, again
        if not readers:
            return renamed(scorer, native, fields["name"], on_error, aggregations, timeout)
        fields.update(aggregations=native.aggregations, description=native.description)
    if aggregations is not None:
        fields["aggregations"] = list(aggregations)
    if timeout is not None:
        fields["timeout"] = timeout
    made = ScorebridgeScorer(**fields)
    made._bridge = Bridge(scorer, item, output, label, on_error, scorer.fast and is_builtin(scorer))
    made._pass_if = _passes  # what MLflow's `EvaluationResult.passed` counts as passing: a correct row
    return made


def _passes(value: Any) -> bool:
    """A row passes (`EvaluationResult.passed`) when its value is a correct Score's: at least 1."""
    return isinstance(value, (int, float)) and not math.isnan(value) and value >= 1.0
