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

import scorebridge as sb
from scorebridge import FAILURE_KINDS, FailureKind, ScorerContractError, grade_value
from scorebridge.kit import (
    Rejected,
    accepted_answers,
    is_bool,
    is_number,
    item_text,
    note_scorer,
    presort,
    recorded,
)

from ._native import NATIVE
from ._scorer import FAILURE_KIND, LABEL_KEY, ScorebridgeScorer

__all__ = ["MlflowCall", "from_mlflow"]

_ITEM_KEY: Final = "input"
"""The key of the `inputs` dict built for an item that is not a mapping (kit.item_text reads it back)."""

_SCORER_TAKES_NEEDS_LABEL: Final = "needs_label" in inspect.signature(sb.Scorer.__init__).parameters


def _check_label(name: str, label: Any) -> object:
    """A label is an expectations mapping (handed over as it is), or the accepted answers of the protocol."""
    if isinstance(label, Mapping):
        return None
    return accepted_answers(name, label)


def _inputs(item: Any) -> dict[str, Any]:
    """MLflow's `inputs` for an item: a mapping as a dict; any other item's text under "input"; None as {}."""
    if item is None:
        return {}
    if isinstance(item, Mapping):
        return dict(item)
    if isinstance(item, str):
        return {_ITEM_KEY: item}
    return {_ITEM_KEY: item_text(item) or ""}


def _verdict(name: str, value: Any, threshold: float) -> tuple[bool | None, float | None, str | None]:
    """(correct, value, why unscored) of a Feedback's value."""
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
        numeric = not value.strip().lower().isalpha()
        return number >= (threshold if numeric else 1.0), number, None
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


def _read(name: str, mlflow_name: str, result: Any, outcome: str | None, threshold: float) -> sb.Score:
    """The recorded scorebridge Score of what the MLflow scorer returned (`Scorer.run`)."""
    result = _one(mlflow_name, result)
    if result is None:
        return recorded(name, None, outcome, None, None, "the MLflow scorer gave no assessment")
    if not isinstance(result, Feedback):  # a bool, a number or a string, as MLflow allows
        correct, value, why = _verdict(name, result, threshold)
        return recorded(name, correct, outcome, None, value, why)
    metadata = dict(result.metadata) if result.metadata else {}
    explanation = result.rationale
    kind: FailureKind | None = None
    if result.error is not None:
        error = result.error
        message = f"{error.error_code}: {error.error_message}" if error.error_message else str(error.error_code)
        explanation = explanation or message
        metadata.setdefault("mlflow_error", message)
        value = grade_value(result.value) if result.value is not None and is_number(result.value) else None
        return recorded(name, False, outcome, "error", value, explanation, metadata)
    written = metadata.pop(FAILURE_KIND, None)
    correct, value, why = _verdict(name, result.value, threshold)
    if written in FAILURE_KINDS and value is not None:  # written by to_mlflow: the kind exactly as recorded
        kind = written
        correct = False
    elif written is not None:
        metadata[FAILURE_KIND] = written
    return recorded(name, correct, outcome, kind, value, explanation or why, metadata)


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

    def __call__(self, item: Any, output: Any, label: Any) -> sb.Score:
        """Score one output: the MLflow scorer on MLflow's own row (inside `to_mlflow`) or on one built here."""
        name = self.name
        try:
            expectations_given = isinstance(label, Mapping)
            answers = () if expectations_given else accepted_answers(name, label)
            unlabelled = not label if expectations_given else not answers
            text = presort(name, output, answers)
            if type(text) is Rejected and text.reported:  # the output says it failed: the scorer is not asked
                return text.record(name, unlabelled and self.needs_label)
            response: str = (text.outcome or "") if isinstance(text, Rejected) else text
            if unlabelled and self.needs_label:  # no label: unscored, whatever the scorer would say
                return recorded(name, None, response or None, None, unlabelled=True)
            native = NATIVE.native(item, output, label)
            rows: list[tuple[Any, Any, Any, Any]]
            if native is not None:  # a scorer run by to_mlflow passed on what it read: MLflow's own row
                rows = [tuple(native)]
            else:
                inputs = _inputs(item)
                # one reference per call, as MLflow's judges read one: any accepted answer will do
                tries: list[dict[str, Any]]
                tries = [dict(label)] if expectations_given else [{LABEL_KEY: a} for a in answers] or [{}]
                rows = [(inputs, response, expectations, None) for expectations in tries]
        except ScorerContractError:
            raise
        except Exception as exc:  # a hostile item, output or label (a __repr__ that raises, nesting too deep)
            raise ScorerContractError(f"{name}: cannot read the item, the output or the label: {exc!r:.200}") from exc
        score = None
        for inputs, outputs, expectations, trace in rows:
            try:
                result = self.mlflow_scorer.run(  # type: ignore[no-untyped-call]
                    inputs=inputs, outputs=outputs, expectations=expectations, trace=trace
                )
            except Exception as exc:
                note_scorer(exc, name)
                raise
            score = _read(name, self.mlflow_scorer.name, result, response or None, self.threshold)
            if score.correct is not False:  # correct (or unscored): no other answer can do better
                break
        assert score is not None  # rows is never empty
        return score


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
    return sb.Scorer(name, call, {"threshold": float(threshold)}, **made)
