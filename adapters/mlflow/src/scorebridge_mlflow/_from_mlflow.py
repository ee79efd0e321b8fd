"""`from_mlflow()`: any MLflow GenAI scorer as a scorebridge `Scorer`, callable from anywhere."""

from __future__ import annotations

import functools
import inspect
import math
import warnings
from collections.abc import Mapping
from typing import Any, Final

from mlflow.entities import Feedback
from mlflow.genai.scorers import Scorer
from pydantic import BaseModel

import scorebridge as sb
from scorebridge import FAILURE_KINDS, FailureKind
from scorebridge.kit import (
    Ask,
    ScorerContractError,
    accepted_answers,
    ask,
    grade_value,
    is_bool,
    is_number,
    item_text_for,
    judge,
    judge_each,
    verdict,
)

from ._native import NATIVE
from ._scorer import FAILURE_KIND, LABEL_KEY, ScorebridgeScorer

__all__ = ["MlflowCall", "from_mlflow"]

_ITEM_KEY: Final = "input"
"""The key of the `inputs` dict built for an item that is not a mapping (kit.item_text reads it back)."""

_SCORER_TAKES_NEEDS_LABEL: Final = "needs_label" in inspect.signature(sb.Scorer.__init__).parameters

_NOT_OPTIONS: Final = frozenset({"name", "aggregations", "description", "timeout", "required_columns", "extra_headers"})
"""MLflow scorer fields that are not what it judges by (extra_headers may hold credentials: never recorded)."""


def _check_label(name: str, label: Any) -> object:
    """A label is an expectations mapping (handed over as it is), or the accepted answers of the protocol."""
    if isinstance(label, Mapping):
        return None
    return accepted_answers(name, label)


def _inputs(name: str, item: Any) -> dict[str, Any]:
    """MLflow's `inputs` for an item: a mapping as a dict; any other item's text under "input"; None as {}."""
    if item is None:
        return {}
    if isinstance(item, Mapping):
        try:
            return {str(k): v for k, v in item.items()}
        except Exception as exc:  # a mapping whose own methods raise
            raise ScorerContractError(f"{name}: cannot read the item: {exc!r:.200}") from exc
    return {_ITEM_KEY: item if type(item) is str else item_text_for(name, item)}


def _verdict(name: str, value: Any, threshold: float) -> tuple[bool | None, float | None, str | None]:
    """(correct, value, why unscored) of an MLflow value, by MLflow's own reading (aggregation.py)."""
    if value is None:
        return None, None, "the MLflow scorer gave no value"
    if is_bool(value):
        return bool(value), 1.0 if value else 0.0, None
    if isinstance(value, str):
        word = value.strip().lower()
        if word in ("yes", "no"):  # MLflow's CategoricalRating, the judges' verdict
            return word == "yes", 1.0 if word == "yes" else 0.0, None
        number = grade_value(value)  # C/I/P, pass/fail, "0.75"; anything else None, with a warning
        if number is None:
            return None, None, f"the MLflow scorer's value {value!r:.80} is not a grade"
        return number >= (1.0 if word.isalpha() else threshold), number, None
    if is_number(value):
        try:
            number = float(value)
        except (OverflowError, ValueError):
            number = math.nan
        if math.isnan(number):
            return None, None, "the MLflow scorer's value is NaN"
        if not math.isfinite(number):
            raise ScorerContractError(f"{name}: the MLflow scorer's value must be finite; got {value!r:.80}")
        return number >= threshold, number, None
    warnings.warn(f"{name}: the MLflow scorer's value {value!r:.80} is not a grade; unscored", stacklevel=4)
    return None, None, f"the MLflow scorer's value of type {type(value).__name__} is not a grade"


def _one(name: str, result: Any) -> Any:
    """The assessment of a list of them: the one named for the scorer, else the first; None for none."""
    if not isinstance(result, list):
        return result
    named = [f for f in result if isinstance(f, Feedback) and f.name == name]
    return (named or result or [None])[0]


def _read(name: str, mlflow_name: str, asked: Ask, result: Any, threshold: float) -> sb.Score:
    """The recorded scorebridge Score of what the MLflow scorer returned (`Scorer.run`), by `kit.verdict`."""
    result = _one(mlflow_name, result)
    if result is None:
        return verdict(name, asked, None, explanation="the MLflow scorer gave no assessment")
    if not isinstance(result, Feedback):  # a bool, a number or a string, as MLflow allows
        correct, value, why = _verdict(name, result, threshold)
        return verdict(name, asked, correct, value=value, explanation=why)
    metadata = dict(result.metadata) if result.metadata else {}
    if result.error is not None:  # a judge that failed: MLflow's error, recorded as the failure kind "error"
        error = result.error
        message = f"{error.error_code}: {error.error_message}" if error.error_message else str(error.error_code)
        metadata.setdefault("mlflow_error", message)
        points: Any = result.value  # kept when it is a number: a recorded error row of to_mlflow is worth 0
        value = float(points) if is_number(points) and math.isfinite(points) else None
        explanation = result.rationale or message
        return verdict(
            name, asked, False, value=value, explanation=explanation, metadata=metadata, failure_kind="error"
        )
    written = metadata.pop(FAILURE_KIND, None)
    correct, value, why = _verdict(name, result.value, threshold)
    kind: FailureKind | None = None
    if written in FAILURE_KINDS and value is not None:  # written by to_mlflow: the kind exactly as recorded
        kind, correct = written, False
    elif written is not None:
        metadata[FAILURE_KIND] = written
    return verdict(
        name, asked, correct, value=value, explanation=result.rationale or why, metadata=metadata, failure_kind=kind
    )


class MlflowCall:
    """The `fn` of a scorer made by `from_mlflow`: the MLflow scorer it wraps, called on one item, output and label.

    `mlflow_scorer` is the MLflow scorer (what `to_mlflow` gives back in a round
    trip); `needs_label` says whether a row without a label is unscored without
    asking it; `threshold` is the value at or above which a number is correct.
    """

    __slots__ = ("mlflow_scorer", "name", "needs_label", "threshold")

    mlflow_scorer: Scorer
    name: str
    needs_label: bool
    threshold: float

    def __init__(self, mlflow_scorer: Scorer, name: str, needs_label: bool, threshold: float) -> None:
        _set = object.__setattr__
        _set(self, "mlflow_scorer", mlflow_scorer)
        _set(self, "name", name)
        _set(self, "needs_label", needs_label)
        _set(self, "threshold", threshold)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"an MLflow scorer call is immutable; cannot set {name!r}")

    def __repr__(self) -> str:
        return f"<MLflow scorer {self.name}>"

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled (to a Ray worker, a process pool) as what makes it again: the default sets the slots one by one
        return (MlflowCall, (self.mlflow_scorer, self.name, self.needs_label, self.threshold))

    def _run(self, inputs: Any, outputs: Any, expectations: Any, trace: Any) -> Any:
        return self.mlflow_scorer.run(  # type: ignore[no-untyped-call]  # MLflow's name-based call, with its timeout
            inputs=inputs, outputs=outputs, expectations=expectations, trace=trace
        )

    def __call__(self, item: Any, output: Any, label: Any) -> sb.Score:
        """Score one output: the MLflow scorer on MLflow's own row (inside `to_mlflow`) or on one built here."""
        name, mlflow_name, threshold = self.name, self.mlflow_scorer.name, self.threshold
        given = isinstance(label, Mapping)  # the expectations themselves
        if given:
            asked = ask(name, output, None, needs_label=self.needs_label and not label)
        else:
            asked = ask(name, output, label, needs_label=self.needs_label)
        if not isinstance(asked, Ask):  # a finished Score: the output reported its failure, or no label
            return asked

        def read(result: Any) -> sb.Score:
            return _read(name, mlflow_name, asked, result, threshold)

        native = NATIVE.native(item, output, label)
        if native is not None:  # a scorer run by to_mlflow passed on what it read: MLflow's own row
            row = native
            done = judge(name, lambda: self._run(row.inputs, row.outputs, row.expectations, row.trace), read)
        elif given:
            inputs, expectations = _inputs(name, item), dict(label)
            done = judge(name, lambda: self._run(inputs, asked.text, expectations, None), read)
        else:  # one reference per call, as MLflow's judges read one: any accepted answer will do
            inputs = _inputs(name, item)
            done = judge_each(
                name, asked, lambda a: self._run(inputs, asked.text, {} if a is None else {LABEL_KEY: a}, None), read
            )
        assert isinstance(done, sb.Score)  # MLflow's scorers are sync: judge gives the Score itself
        return done


def _options(mlflow_scorer: Scorer) -> dict[str, Any]:
    """What the MLflow scorer judges by (a built-in's pattern, a judge's model), for the Scorer's options."""
    try:
        fields = BaseModel.model_dump(mlflow_scorer, mode="json")
    except Exception:  # a field that is no JSON value: the scorer is known by its name
        return {}
    return {k: v for k, v in fields.items() if k not in _NOT_OPTIONS and v is not None}


def _needs_label(mlflow_scorer: Scorer) -> bool:
    """True when the scorer reads `expectations` (Correctness, a @scorer taking them); False when it cannot."""
    try:
        parameters = inspect.signature(mlflow_scorer.__call__).parameters
    except (TypeError, ValueError):
        return True
    return "expectations" in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def from_mlflow(
    mlflow_scorer: Scorer,
    *,
    name: str | None = None,
    threshold: float = 1.0,
    needs_label: bool | None = None,
) -> sb.Scorer:
    """Any MLflow GenAI scorer (a `@scorer` function, a `Scorer` subclass, a built-in, an LLM judge) as a Scorer.

    The scorer's `fn` is an `MlflowCall` whose `mlflow_scorer` is the scorer
    wrapped: `to_mlflow` gives that very scorer back (a round trip is an
    identity), and inside `mlflow.genai.evaluate` a scorer of your own that
    calls this one with the item, output and label `to_mlflow` handed it passes
    on MLflow's own row (`inputs`, `outputs`, `expectations`, `trace`). From
    anywhere else, each call builds the row MLflow would hand over, and runs
    the scorer by `Scorer.run` (MLflow's name-based arguments and timeout):

    - inputs: the item as a dict when it is a mapping; else {"input": its
      text}; {} for None;
    - outputs: the output's text by the protocol's rule (the string, or its
      `answer`/`text` element; "" when it has none). An output that reports
      its own failure kind, or has `ok` False, is recorded wrong for that
      reason without calling the MLflow scorer;
    - expectations: {"expected_response": answer}, the key MLflow's built-in
      judges read; for a label of several accepted answers, the scorer is asked
      once per answer and the first correct verdict wins. A label that is a
      mapping is the expectations themselves ({"expected_facts": [...]});
    - trace: None (there is none outside MLflow).

    needs_label: whether a row without a label is unscored without asking the
    scorer. Default: True when the scorer reads `expectations` (Correctness, a
    `@scorer` taking them), False when it cannot (RegexMatch, ResponseLength,
    PIIDetection, Guidelines, Safety, RelevanceToQuery ...): those score every row.

    What the scorer returns is read back: a Feedback's value by MLflow's own
    rules (yes/no and bools to 1/0, numbers kept) and correct when it is worth
    at least `threshold` (default 1.0); other grade words by the protocol's
    grade mapping (C/I/P, pass/fail); any other value, or None, unscored. The
    rationale is the explanation, the metadata kept. A Feedback with an
    `error` (a judge that failed) is wrong with failure kind "error". For a
    list of Feedbacks, the one named for the scorer, else the first. An
    exception inside the scorer propagates with a note naming it.
    """
    if isinstance(mlflow_scorer, ScorebridgeScorer):
        made_from = mlflow_scorer.scorebridge_scorer
        if mlflow_scorer.on_error == "raise" and name in (None, made_from.name):
            return made_from  # a round trip: the scorebridge scorer to_mlflow was given
    if not isinstance(mlflow_scorer, Scorer):
        hint = " (decorate it with mlflow.genai.scorers.scorer)" if callable(mlflow_scorer) else ""
        raise TypeError(f"from_mlflow: expected an MLflow scorer{hint}; got {type(mlflow_scorer).__name__}")
    if mlflow_scorer.is_session_level_scorer:
        raise TypeError(
            f"from_mlflow: {mlflow_scorer.name} is a session-level (multi-turn) scorer, called on a list of "
            "traces; a scorebridge scorer scores one output"
        )
    if name is None:
        name = mlflow_scorer.name
    if not is_number(threshold) or not math.isfinite(float(threshold)):
        raise ValueError(f"from_mlflow({name}): threshold must be a finite number; got {threshold!r:.80}")
    if needs_label is None:
        needs_label = _needs_label(mlflow_scorer)
    elif not isinstance(needs_label, bool):
        raise TypeError(f"from_mlflow({name}): needs_label must be True, False or None; got {needs_label!r:.80}")
    call = MlflowCall(mlflow_scorer, name, needs_label, float(threshold))
    made: dict[str, Any] = {"recorded": True, "check_label": functools.partial(_check_label, name)}
    if _SCORER_TAKES_NEEDS_LABEL:  # the core's own flag, where it has one
        made["needs_label"] = needs_label
    options = {**_options(mlflow_scorer), "threshold": float(threshold)}
    return sb.Scorer(name, call, options, **made)
