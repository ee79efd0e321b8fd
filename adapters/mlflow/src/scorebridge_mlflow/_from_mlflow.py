"""`from_mlflow()`: any MLflow GenAI scorer as a scorebridge `Scorer`, callable from anywhere."""

from __future__ import annotations

import functools
import inspect
import math
import warnings
from collections.abc import Mapping
from typing import Any, Final, Literal, get_args, get_origin

from mlflow.entities import Feedback
from mlflow.genai.scorers import Scorer
from pydantic import BaseModel

import scorebridge as sb
from scorebridge import FAILURE_KINDS, FailureKind
from scorebridge.kit import (
    Ask,
    Scale,
    accepted_answers,
    ask,
    grade_value,
    is_bool,
    is_missing,
    is_number,
    judge,
    judge_each,
    scale,
    verdict,
)

from ._native import NATIVE
from ._renamed import NativeScorer
from ._scorer import FAILURE_KIND, LABEL_KEY, ScorebridgeScorer

__all__ = ["MlflowCall", "from_mlflow"]

_SCORER_TAKES_NEEDS_LABEL: Final = "needs_label" in inspect.signature(sb.Scorer.__init__).parameters

_NOT_OPTIONS: Final = frozenset({"name", "aggregations", "description", "timeout", "required_columns", "extra_headers"})
"""MLflow scorer fields that are not what it judges by (extra_headers may hold credentials: never recorded)."""


def _check_label(name: str, label: Any) -> object:
    """A label is an expectations mapping (handed over as it is), or the accepted answers of the protocol."""
    if isinstance(label, Mapping):
        return None
    return accepted_answers(name, label)


def _verdict(name: str, value: Any, on: Scale) -> tuple[bool | None, float | None, str | None]:
    """(correct, value, why unscored) of an MLflow value, by MLflow's own reading (aggregation.py): yes/no (the
    judges' CategoricalRating) 1 or 0; a value the grade mapping cannot read (MLflow leaves it out of its
    averages) unscored, with a warning; the rest read on the scorer's scale (`on`, `kit.Scale.read`)."""
    if value is None:
        return None, None, "the MLflow scorer gave no value"
    if isinstance(value, str):
        word = value.strip().lower()
        if word in ("yes", "no"):  # MLflow's CategoricalRating, the judges' verdict
            return word == "yes", 1.0 if word == "yes" else 0.0, None
        if grade_value(value) is None:  # C/I/P, pass/fail, "0.75" read; anything else None, with a warning
            return None, None, f"the MLflow scorer's value {value!r:.80} is not a grade"
    elif is_number(value) and is_missing(value):
        return None, None, "the MLflow scorer's value is NaN"
    elif not is_number(value) and not is_bool(value):
        warnings.warn(f"{name}: the MLflow scorer's value {value!r:.80} is not a grade; unscored", stacklevel=4)
        return None, None, f"the MLflow scorer's value of type {type(value).__name__} is not a grade"
    correct, number = on.read(name, value)
    return correct, number, None


def _one(name: str, result: Any) -> Any:
    """The assessment of a list of them: the one named for the scorer, else the first; None for none."""
    if not isinstance(result, list):
        return result
    named = [f for f in result if isinstance(f, Feedback) and f.name == name]
    return (named or result or [None])[0]


def _read(name: str, mlflow_name: str, asked: Ask, result: Any, on: Scale) -> sb.Score:
    """The recorded scorebridge Score of what the MLflow scorer returned (`Scorer.run`), by `kit.verdict`."""
    result = _one(mlflow_name, result)
    if result is None:
        return verdict(name, asked, None, explanation="the MLflow scorer gave no assessment")
    if not isinstance(result, Feedback):  # a bool, a number or a string, as MLflow allows
        correct, value, why = _verdict(name, result, on)
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
    correct, value, why = _verdict(name, result.value, on)
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
    asking it; `scale` reads a number on the scorer's own scale (`kit.Scale`);
    `each_answer` asks the scorer once per accepted answer (the kit's explicit
    per-answer option) instead of handing it the label whole.
    """

    __slots__ = ("each_answer", "mlflow_scorer", "name", "needs_label", "scale")

    mlflow_scorer: Scorer
    name: str
    needs_label: bool
    scale: Scale
    each_answer: bool

    def __init__(self, mlflow_scorer: Scorer, name: str, needs_label: bool, on: Scale, each_answer: bool) -> None:
        _set = object.__setattr__
        _set(self, "mlflow_scorer", mlflow_scorer)
        _set(self, "name", name)
        _set(self, "needs_label", needs_label)
        _set(self, "scale", on)
        _set(self, "each_answer", each_answer)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"an MLflow scorer call is immutable; cannot set {name!r}")

    def __repr__(self) -> str:
        return f"<MLflow scorer {self.name}>"

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled (to a Ray worker, a process pool) as what makes it again: the default sets the slots one by one
        return (MlflowCall, (self.mlflow_scorer, self.name, self.needs_label, self.scale, self.each_answer))

    def _run(self, inputs: Any, outputs: Any, expectations: Any, trace: Any) -> Any:
        return self.mlflow_scorer.run(  # type: ignore[no-untyped-call]  # MLflow's name-based call, with its timeout
            inputs=inputs, outputs=outputs, expectations=expectations, trace=trace
        )

    def __call__(self, item: Any, output: Any, label: Any) -> sb.Score:
        """Score one output: the MLflow scorer on MLflow's own row (inside `to_mlflow`) or on the row as given."""
        name, mlflow_name, on = self.name, self.mlflow_scorer.name, self.scale
        given = isinstance(label, Mapping)  # the expectations themselves
        if given:
            asked = ask(name, output, None, needs_label=self.needs_label and not label, structured=True)
        else:
            asked = ask(name, output, label, needs_label=self.needs_label, structured=True)
        if not isinstance(asked, Ask):  # a finished Score: the output reported its failure, or no label
            return asked

        def read(result: Any) -> sb.Score:
            return _read(name, mlflow_name, asked, result, on)

        native = NATIVE.native(item, output, label)
        if native is not None:  # a scorer run by to_mlflow passed on what it read: MLflow's own row
            row = native
            done = judge(name, lambda: self._run(row.inputs, row.outputs, row.expectations, row.trace), read)
        elif given:
            expectations = dict(label)
            done = judge(name, lambda: self._run(item, output, expectations, None), read)
        elif self.each_answer:  # the explicit option: one reference per call, the first correct verdict wins
            done = judge_each(
                name, asked, lambda a: self._run(item, output, {} if a is None else {LABEL_KEY: a}, None), read
            )
        else:  # the row as it is: the label whole under the key MLflow's judges read, {} for none
            expectations = {} if asked.label is None else {LABEL_KEY: asked.label}
            done = judge(name, lambda: self._run(item, output, expectations, None), read)
        assert isinstance(done, sb.Score)  # MLflow's scorers are sync: judge gives the Score itself
        return done


def _options(mlflow_scorer: Scorer) -> dict[str, Any]:
    """What the MLflow scorer judges by (a built-in's pattern, a judge's model), for the Scorer's options."""
    try:
        fields = BaseModel.model_dump(mlflow_scorer, mode="json")
    except Exception:  # a field that is no JSON value: the scorer is known by its name
        return {}
    return {k: v for k, v in fields.items() if k not in _NOT_OPTIONS and v is not None}


def _input_fields(mlflow_scorer: Scorer) -> list[str] | None:
    """The names of the fields a judge or a built-in says it reads (`get_input_fields()`, from a judge's
    template); None for a scorer that says nothing (a `@scorer` function, a Scorer subclass)."""
    reader = getattr(mlflow_scorer, "get_input_fields", None)
    if not callable(reader):
        return None
    try:
        fields = reader()
        return [str(field.name) for field in fields]
    except Exception:  # a judge whose fields cannot be read: its call's signature says
        return None


def _needs_label(mlflow_scorer: Scorer) -> bool:
    """Whether the scorer reads `expectations`, as MLflow says it: its own input fields (a judge's template: a
    `make_judge` judge reads them only when its instructions name `{{ expectations }}`), else the parameters
    `Scorer.run` hands it by name (a `@scorer` function's, a subclass's `__call__`; `**kwargs` is handed
    nothing)."""
    if isinstance(mlflow_scorer, NativeScorer):  # another name for MLflow's own scorer: it reads what that reads
        return _needs_label(mlflow_scorer.native)
    fields = _input_fields(mlflow_scorer)
    if fields is not None:
        return "expectations" in fields
    try:
        parameters = inspect.signature(mlflow_scorer.__call__).parameters
    except (TypeError, ValueError):
        return True
    return "expectations" in parameters


def _declared_range(mlflow_scorer: Scorer) -> tuple[float, float] | None:
    """The points a judge declares it gives: its `feedback_value_type` a `Literal` of numbers (1 to 5); None."""
    if isinstance(mlflow_scorer, NativeScorer):
        return _declared_range(mlflow_scorer.native)
    try:
        kind = getattr(mlflow_scorer, "feedback_value_type", None)
    except Exception:
        return None
    if get_origin(kind) is not Literal:
        return None
    numbers = [v for v in get_args(kind) if is_number(v)]
    if len(numbers) < 2 or len(numbers) != len(get_args(kind)):
        return None
    return (min(numbers), max(numbers))


def from_mlflow(
    mlflow_scorer: Scorer,
    *,
    name: str | None = None,
    threshold: float | None = None,
    needs_label: bool | None = None,
    score_range: tuple[float, float] | None = None,
    each_answer: bool = False,
) -> sb.Scorer:
    """Any MLflow GenAI scorer (a `@scorer` function, a `Scorer` subclass, a built-in, an LLM judge) as a Scorer.

    The scorer's `fn` is an `MlflowCall` whose `mlflow_scorer` is the scorer
    wrapped: `to_mlflow` gives that very scorer back (a round trip is an
    identity, when nothing was renamed), and inside `mlflow.genai.evaluate` a
    scorer of your own that calls this one with the item, output and label
    `to_mlflow` handed it passes on MLflow's own row (`inputs`, `outputs`,
    `expectations`, `trace`). From anywhere else, each call hands the scorer
    the row as it is, by `Scorer.run` (MLflow's name-based arguments and
    timeout):

    - inputs: the item as it is (a dict, a string, None);
    - outputs: the output as it is (a string, a chat-completion dict, a number,
      None). An output that reports its own failure kind, or has `ok` False, is
      recorded wrong for that reason without calling the MLflow scorer; a
      wrong verdict about no output or blank text is recorded `parse_failure`;
    - expectations: {"expected_response": label}, the key MLflow's built-in
      judges read, with the label as it is (a list whole: a scorer that needs
      every answer of it gives its own verdict); {} for no label, as MLflow
      hands a row without one. A label that is a mapping is the expectations
      themselves ({"expected_facts": [...]}). `each_answer=True` is the
      per-answer option: the scorer is asked once per accepted answer, as
      text, and the first correct verdict wins;
    - trace: None (there is none outside MLflow).

    needs_label: whether a row without a label is unscored without asking the
    scorer. Default: what MLflow says the scorer reads: a judge's or a
    built-in's input fields (`get_input_fields()`: a `make_judge` judge reads
    expectations only when its instructions name `{{ expectations }}`;
    Correctness does, Guidelines, Safety, RegexMatch do not), else the
    parameters `Scorer.run` hands a `@scorer` function or a subclass.

    What the scorer returns is read back: a Feedback's value by MLflow's own
    rules (yes/no and bools to 1/0, numbers kept); other grade words by the
    protocol's grade mapping (C/I/P, pass/fail); any other value, or None,
    unscored. A number is read on the scorer's scale: a judge whose
    `feedback_value_type` is a `Literal` of numbers (1 to 5) declares it
    (`score_range=(low, high)` gives one), mapped onto 0-1; it is correct at
    or above `threshold`, on that same scale (default: the top; 1.0 with no
    range). A number outside 0-1 on no declared range is a
    ScorerContractError naming the scorer. The rationale is the explanation,
    the metadata kept. A Feedback with an `error` (a judge that failed) is
    wrong with failure kind "error". For a list of Feedbacks, the one named
    for the scorer, else the first. An exception inside the scorer propagates
    with a note naming it.
    """
    if isinstance(mlflow_scorer, (ScorebridgeScorer, NativeScorer)):
        is_ours = isinstance(mlflow_scorer, ScorebridgeScorer)
        made_from = mlflow_scorer.scorebridge_scorer if is_ours else mlflow_scorer.made_from  # type: ignore[union-attr]
        unnamed = mlflow_scorer.name == made_from.name and name in (None, made_from.name)
        if mlflow_scorer.on_error == "raise" and unnamed:
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
    on = scale(
        f"from_mlflow({name})", _declared_range(mlflow_scorer) if score_range is None else score_range, threshold
    )
    if needs_label is None:
        needs_label = _needs_label(mlflow_scorer)
    elif not isinstance(needs_label, bool):
        raise TypeError(f"from_mlflow({name}): needs_label must be True, False or None; got {needs_label!r:.80}")
    if not isinstance(each_answer, bool):
        raise TypeError(f"from_mlflow({name}): each_answer must be True or False; got {each_answer!r:.80}")
    call = MlflowCall(mlflow_scorer, name, needs_label, on, each_answer)
    made: dict[str, Any] = {"recorded": True, "check_label": functools.partial(_check_label, name)}
    if _SCORER_TAKES_NEEDS_LABEL:  # the core's own flag, where it has one
        made["needs_label"] = needs_label
    options = {**_options(mlflow_scorer), **on.options()}
    if each_answer:  # in the options only when given: a scorer's identity is unchanged without it
        options["each_answer"] = True
    return sb.Scorer(name, call, options, **made)
