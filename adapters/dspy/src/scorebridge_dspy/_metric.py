"""The callables of the bridge.

`ScorerMetric` is a scorer as a DSPy metric (`to_dspy` makes it); `MetricCall`
is a DSPy metric as a scorer's `fn` (`from_dspy` makes it); `NativeMetric` is a
DSPy metric given back by a round trip with options (`_round_trip`). All are
frozen and keep no state between calls, so DSPy may call them from many threads
at once.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, Final, final

import dspy

from scorebridge import Score, Scorer, ScorerContractError, kit
from scorebridge.kit import (
    Ask,
    NativeCalls,
    add_note,
    ask,
    element,
    is_bool,
    is_missing,
    is_number,
    label_is_missing,
    plain_digits,
    recorded,
    run_sync,
    verdict,
)

from ._checks import finite_number
from ._compat import fields
from ._compat import fields_and_inputs as _fast_fields_and_inputs
from ._feedback import feedback_text

__all__ = ["NATIVE", "MetricCall", "ScorerMetric", "default_name", "metric_value"]

_DEFAULT_FIELD: Final = "answer"
"""The output and label field when nothing else decides: DSPy's built-in metrics read `answer`."""

_ITEM_FIELD: Final = "question"
"""The input field a plain (non-mapping) item is stored under by `from_dspy`."""

_REASONING: Final = "reasoning"  # the field dspy.ChainOfThought adds before a signature's outputs
_DSPY: Final = "dspy_"  # the prefix of DSPy's own fields in an Example, which Example.keys() hides
_NOT_OUTPUTS: Final = frozenset({_REASONING})
_MESSAGE_LIMIT: Final = 500  # characters of an exception's message kept in a recorded error's explanation

Example = dspy.Example
Prediction = dspy.Prediction

NATIVE: Final[NativeCalls[tuple[Any, Any]]] = NativeCalls("scorebridge_dspy_native")
"""DSPy's gold example and prediction, carried with a scorebridge scorer's call by `to_dspy`: a
`from_dspy` scorer called inside with the very same item, output and label hands them to its metric."""


def default_name(metric_name: str) -> str:
    """The name of a scorer made from a DSPy metric named `metric_name`: that name; "dspy_metric" for a lambda."""
    return "dspy_metric" if metric_name == "<lambda>" else metric_name


def _fields_and_inputs(example: Any) -> tuple[Mapping[str, Any], Collection[str] | None]:
    """An Example's fields and input names; no input names for a Prediction."""
    try:
        return _fast_fields_and_inputs(example)
    except AttributeError:  # a Prediction keeps no input names
        return fields(example), None


def _names(fields: Collection[str]) -> str:
    return ", ".join(map(repr, fields)) or "none"


class _Shared:
    # Immutable (frozen dataclasses), so a copy is the object itself: DSPy's Module.deepcopy may copy
    # a metric a program holds, and a Scorer, with its function, cannot be deep-copied.
    __slots__ = ()

    def __copy__(self) -> Any:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return self


@final
@dataclass(frozen=True, eq=False, repr=False)
class ScorerMetric(_Shared):
    """A scorebridge `Scorer` as a DSPy metric. Make one with `to_dspy`.

    DSPy calls it as `metric(gold, pred, trace=None, pred_name=None,
    pred_trace=None)`, the five-argument form GEPA checks for. It scores
    `pred` against `gold` with the scorer and returns, by caller:

    - `pred_name` given (GEPA asking for feedback): `dspy.Prediction(score=value,
      feedback=text)`, the same value as the plain call; just the value when
      made with `feedback=False`;
    - `trace` given (BootstrapFewShot and the optimizers built on it): a `bool`,
      the Score's `correct`, or `value >= threshold` when a threshold is set;
      never a truthy object (stanfordnlp/dspy#10473);
    - otherwise (Evaluate, GEPA's scoring, SIMBA, MIPROv2's evaluation): the
      Score's value, a `float`.

    A Score that is unscored (the example has no label, or the scorer could not
    tell) raises `ScorerContractError`: DSPy needs a number, and a made-up 0.0
    would be a silent zero. Exceptions from the scorer propagate with
    `on_error="raise"` (DSPy logs and counts them as errors, and gives the
    example its `failure_score`); with "record" the example's Score is
    `kit.raised_score`'s (wrong, failure kind "error"), whose value, 0.0, is
    returned (False while bootstrapping, its feedback to GEPA).

    `metric.score(gold, pred)` gives the whole `Score` instead.
    """

    scorer: Scorer
    output_field: str | None
    label_field: str | None
    item: Callable[[Any], Any] | None
    threshold: float | None
    feedback: bool
    builtin: bool  # a built-in never reads the item nor calls another scorer: neither is made for it
    on_error: str = "raise"

    @property
    def __name__(self) -> str:  # what DSPy and `from_dspy` call the metric
        return self.scorer.name

    def __repr__(self) -> str:
        args = [repr(self.scorer)]
        for key in ("output_field", "label_field", "item", "threshold"):
            value = getattr(self, key)
            if value is not None:
                args.append(f"{key}={getattr(value, '__qualname__', value)!r}")
        if not self.feedback:
            args.append("feedback=False")
        if self.on_error != "raise":
            args.append(f"on_error={self.on_error!r}")
        return f"to_dspy({', '.join(args)})"

    def __call__(
        self, gold: Any, pred: Any, trace: Any = None, pred_name: str | None = None, pred_trace: Any = None
    ) -> Any:
        """Score `pred` against `gold`: a float, a bool while bootstrapping, a Prediction for GEPA's feedback."""
        score, label = self._score(gold, pred)
        value = score.value
        if value is None:
            raise ScorerContractError(self._unscored(gold, score, label))
        if pred_name is not None:
            if not self.feedback:
                return value
            return Prediction(score=value, feedback=feedback_text(score, label, self._output(pred)))
        if trace is not None:
            return score.correct is True if self.threshold is None else value >= self.threshold
        return value

    def score(self, gold: Any, pred: Any) -> Score:
        """The Score the scorer gives `pred` on `gold` (unscored ones included; nothing raised for them)."""
        return self._score(gold, pred)[0]

    def label(self, gold: Any) -> Any:
        """The label the scorer gets from `gold` (None when `gold` is not an example)."""
        if not isinstance(gold, Example):
            return None
        store, inputs = _fields_and_inputs(gold)
        return store.get(self.label_field or _label_field(store, inputs))

    def _score(self, gold: Any, pred: Any) -> tuple[Score, Any]:
        if self.on_error == "raise":
            return self._scored(gold, pred)
        try:
            return self._scored(gold, pred)
        except Exception as exc:  # on_error="record": the example's Score says what was raised
            label = self.label(gold)
            return kit.raised_score(self.scorer.name, exc, label, needs_label=self.scorer.needs_label), label

    def _scored(self, gold: Any, pred: Any) -> tuple[Score, Any]:
        # The hot path: Evaluate calls it once per example. The Example's fields and inputs are read
        # straight from where DSPy keeps them (`_compat`), several times faster than keys(), get() and
        # inputs(), which copy.
        if not isinstance(gold, Example):
            raise TypeError(f"{self.scorer.name}: the gold example must be a dspy.Example; got {type(gold).__name__}")
        try:
            store, inputs = _fast_fields_and_inputs(gold)
        except AttributeError:  # a Prediction as the gold example: it keeps no input names
            store, inputs = fields(gold), None
        label_field = self.label_field or _label_field(store, inputs)
        label = store.get(label_field)
        output = self._output(pred)
        if self.item is not None:
            item = self.item(gold)
        elif self.builtin:
            return self.scorer(None, output, label), label
        elif inputs is None:  # no with_inputs: every field but the label
            item = {k: v for k, v in store.items() if k != label_field and not k.startswith(_DSPY)}
        else:
            item = {k: v for k, v in store.items() if k in inputs}
        token = NATIVE.carry(item, output, label, (gold, pred))
        try:
            return self.scorer(item, output, label), label
        finally:
            NATIVE.drop(token)

    def _output(self, pred: Any) -> Any:
        if not isinstance(pred, Example):  # None (SIMBA, when the program raised) or a plain value
            return pred
        store = fields(pred)
        field = self.output_field
        if field is None:
            field = _only(store.keys() - _NOT_OUTPUTS)
        if field in store:
            return store[field]
        if len(pred) == 0:  # an empty prediction has no output
            return None
        raise ScorerContractError(
            f"{self.scorer.name}: the prediction has no field {field!r} (it has {_names(pred.keys())}); "
            "pass output_field= to to_dspy"
        )

    def _unscored(self, gold: Any, score: Score, label: Any) -> str:
        name = self.scorer.name
        if label_is_missing(label):
            field = self.label_field or _label_field(*_fields_and_inputs(gold))
            return (
                f"{name}: the example has no label in its field {field!r} (it has {_names(gold.keys())}), so it "
                "cannot be scored and a DSPy metric must give a number; label every example, or pass label_field= "
                "to to_dspy"
            )
        why = f": {score.explanation}" if score.explanation else ""
        return f"{name}: the scorer left this example unscored (correct None){why}; a DSPy metric must give a number"


def _only(names: Collection[str]) -> str:
    # The one name that is not one of DSPy's own dspy_* fields, else "answer".
    if len(names) != 1:
        names = {k for k in names if not k.startswith(_DSPY)}
    if len(names) == 1:
        (name,) = names
        if not name.startswith(_DSPY):
            return name
    return _DEFAULT_FIELD


def _label_field(store: Mapping[str, Any], inputs: Collection[str] | None) -> str:
    # The only field that is not an input, else "answer".
    return _DEFAULT_FIELD if inputs is None else _only(store.keys() - inputs)


def metric_value(name: str, metric: str, raw: Any) -> tuple[float, str | None, dict[str, Any] | None]:
    """Read what a DSPy metric returned: its score as a float, its feedback, and any other fields.

    A `dspy.Prediction` (GEPA's `ScoreWithFeedback` too) is read first, before
    any truth test (a non-empty Prediction is always truthy); leniently, so is a
    mapping with a `score`. Booleans (numpy's too) give 1.0 and 0.0; real
    numbers (numpy's, Decimal, Fraction) their value. None, NaN, infinities,
    strings and anything else are a `ScorerContractError` naming the metric.
    """
    feedback: Any = None
    extra: dict[str, Any] | None = None
    score = raw
    if isinstance(raw, Example) or (isinstance(raw, Mapping) and "score" in raw):
        returned = dict(raw.items())
        if "score" not in returned:
            raise ScorerContractError(
                f"{name}: the DSPy metric {metric!r} returned a {type(raw).__name__} with no score "
                f"(fields: {_names(returned)})"
            )
        score = returned.pop("score")
        feedback = returned.pop("feedback", None)
        extra = returned or None
    value = (1.0 if score else 0.0) if is_bool(score) else finite_number(score)
    if value is None:
        raise ScorerContractError(
            f"{name}: the DSPy metric {metric!r} returned {type(raw).__name__} {raw!r:.80}; expected a bool, "
            "a finite number, or a Prediction with a score"
        )
    if feedback is not None and not isinstance(feedback, str):
        feedback = str(feedback)
    return value, feedback or None, extra


def _required_positional(metric: Callable[..., Any]) -> int:
    """How many positional arguments `metric` requires (at least 2); 2 when its signature cannot be read."""
    try:
        parameters = inspect.signature(metric).parameters.values()
    except (TypeError, ValueError):  # a builtin, or a callable whose signature Python cannot read
        return 2
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = sum(1 for p in parameters if p.kind in positional and p.default is inspect.Parameter.empty)
    return max(2, min(required, 5))


@final
@dataclass(frozen=True, eq=False, repr=False)
class MetricCall(_Shared):
    """The `fn` of a scorer made by `from_dspy`: a DSPy metric called on one item, output and label.

    `metric` is the DSPy metric it wraps (what `to_dspy` gives back in a round
    trip). Each call builds the example and the prediction (see `from_dspy`) and
    calls the metric as `dspy.Evaluate` does, `metric(example, pred)` (None for
    each further argument the metric requires, up to GEPA's five): evaluation
    mode, never `trace=[]`, which built-in metrics read as bootstrapping. Inside
    DSPy, a scorer of one's own run by `to_dspy` that calls this one with the
    item, output and label it was given passes on DSPy's own example and
    prediction instead (`NATIVE`).
    """

    metric: Callable[..., Any]
    metric_name: str
    name: str
    output_field: str | None
    label_field: str | None
    input_fields: tuple[str, ...] | None
    threshold: float
    record_errors: bool
    further: tuple[None, ...]  # the Nones after (example, pred) the metric requires

    @classmethod
    def of(
        cls,
        metric: Callable[..., Any],
        metric_name: str,
        name: str,
        output_field: str | None,
        label_field: str | None,
        input_fields: tuple[str, ...] | None,
        threshold: float,
        record_errors: bool,
    ) -> MetricCall:
        """The call of `metric`, with the arguments it requires counted once, here."""
        further = (None,) * (_required_positional(metric) - 2)
        return cls(
            metric, metric_name, name, output_field, label_field, input_fields, threshold, record_errors, further
        )

    def __repr__(self) -> str:
        return f"<DSPy metric {self.metric_name}>"

    @property
    def _note(self) -> str:
        also = f" (the scorer {self.name!r})" if self.name != self.metric_name else ""
        return f"raised inside the DSPy metric {self.metric_name!r}{also}"

    def __call__(self, item: Any, output: Any, label: Any) -> Score:
        try:
            read = self._read(item, output, label)
        except ScorerContractError as exc:
            if not self.record_errors:
                raise
            return self._error(exc, None, "the scorer could not read its input")
        except Exception as exc:  # an item, output or label that cannot be read, or made an Example of
            if not self.record_errors:
                raise ScorerContractError(
                    f"{self.name}: cannot read the item, the output or the label: {exc!r:.200}"
                ) from exc
            return self._error(exc, None, "the scorer could not read its input")
        if type(read) is Score:
            return read
        example, pred, outcome, asked = read
        if asked is None:  # a scorer's own metric (a round trip with options): its whole Score comes back
            return self.metric.score(example, pred)  # type: ignore[attr-defined, no-any-return]  # a ScorerMetric
        try:
            raw = self.metric(example, pred, *self.further)
            if inspect.isawaitable(raw):  # an async metric: DSPy cannot await it, we can
                raw = run_sync(raw)
        except Exception as exc:
            if not self.record_errors:
                add_note(exc, self._note)
                raise
            return self._error(exc, outcome)
        try:
            value, feedback, extra = metric_value(self.name, self.metric_name, raw)
        except ScorerContractError as exc:
            if not self.record_errors:
                raise
            return self._error(exc, outcome)
        # the kit's rule for a metric's verdict: below the threshold on an output with no text is a parse failure
        return verdict(
            self.name,
            asked,
            value >= self.threshold,
            value=value,
            outcome=outcome,
            explanation=feedback,
            metadata=extra,
        )

    def _read(self, item: Any, output: Any, label: Any) -> Score | tuple[Any, Any, str | None, Ask | None]:
        """The example, the prediction, the outcome and what `kit.ask` says to ask the metric; or the Score of
        a row the metric is not asked about (an output that reports its own failure, no label). A scorer's own
        metric (`ScorerMetric`) gets the example and prediction with no `Ask`: its scorer applies the rules."""
        native = NATIVE.native(item, output, label)
        if native is not None:  # a scorer run by to_dspy passed on what it read: DSPy's own objects
            example, pred = native
            shown, outcome = output, _outcome(_text_element(output))
        else:
            label_field = self.label_field or _label_field_of(item, label)
            output_field = self.output_field or label_field
            example = self.example(item, label, label_field)
            if isinstance(self.metric, ScorerMetric):
                pred = output if isinstance(output, Prediction) else Prediction(**{output_field: output})
                return example, pred, None, None
            if isinstance(output, Prediction):
                pred, shown = output, fields(output).get(output_field)
            else:
                # an output object's text is its answer (else text) element, handed to the metric as it is
                pred, shown = _text_element(output), output
            outcome = None
        # the protocol's pre-sorting, and no label: the metric not asked; the label is the metric's to read
        asked = ask(self.name, shown, label, read_label=False, structured=True)
        if type(asked) is not Ask:
            return asked  # type: ignore[return-value]  # a Score
        if not isinstance(pred, Example):
            pred = Prediction(**{output_field: pred})
        if native is None:
            outcome = _outcome(fields(pred).get(output_field))
        return example, pred, outcome, asked

    def example(self, item: Any, label: Any, label_field: str | None = None) -> Any:
        """The `dspy.Example` the metric sees for `item` and `label` (stored under `label_field`)."""
        if label_field is None:
            label_field = self.label_field or _label_field_of(item, label)
        inputs: Collection[str]
        if isinstance(item, Example):
            example = Example(base=item)  # every field, DSPy's own too, and the inputs
            found, marked = _fields_and_inputs(item)
            inputs = marked if marked is not None else [k for k in found if not k.startswith(_DSPY)]
        elif isinstance(item, Mapping):
            strange = [k for k in item if not isinstance(k, str)]
            if strange:
                raise ScorerContractError(
                    f"{self.name}: an item's field names must be strings (DSPy reads fields by name); "
                    f"got {type(strange[0]).__name__}"
                )
            example = Example(base=dict(item))
            inputs = list(item)
        elif item is None:
            example, inputs = Example(), ()
        else:
            names = self.input_fields or (_ITEM_FIELD,)
            if len(names) != 1:
                raise ScorerContractError(
                    f"{self.name}: the item is a {type(item).__name__}, not a mapping, but input_fields names "
                    f"{len(names)} fields; give each item as a mapping of them"
                )
            example, inputs = Example(base={names[0]: item}), names
        if self.input_fields is not None:
            inputs = self.input_fields
        example[label_field] = list(label) if isinstance(label, (tuple, set, frozenset)) else label
        return example.with_inputs(*(k for k in inputs if k != label_field))

    def _error(self, exc: Exception, outcome: str | None, what: str = "the DSPy metric failed") -> Score:
        try:
            message = f"{type(exc).__name__}: {exc}"
        except Exception:  # an exception whose own str raises
            message = type(exc).__name__
        if len(message) > _MESSAGE_LIMIT:  # a metric may raise with a whole output in its message
            message = f"{message[:_MESSAGE_LIMIT]}... (cut; {len(message)} characters in all)"
        metadata = {"error": type(exc).__name__, "metric": self.metric_name}
        return recorded(self.name, False, outcome, "error", None, f"{what}: {message}", metadata)


def _label_field_of(item: Any, label: Any) -> str:
    """The label's field for an item: the one field of an Example item, not an input, that holds the label (the
    example carries its own label: `hour` for an example with input `question` and fields `hour=5, minute=30`,
    labelled 5); else, and when `answer` holds it or several do, "answer"."""
    if isinstance(item, Example):
        store, inputs = _fields_and_inputs(item)
        if inputs is not None:
            holding = [
                k
                for k, v in store.items()
                if k not in inputs and not k.startswith(_DSPY) and (v is label or bool(v == label))
            ]
            if len(holding) == 1:
                return holding[0]
    return _DEFAULT_FIELD


def _text_element(output: Any) -> Any:
    """An output object's text as the protocol reads it: its `answer` element, else its `text` element (mapping
    key or attribute); the output itself when it has neither (a string, a number, None, a list ...).

    A DSPy metric reads `pred.answer` as the answer itself: handed an object holding one, `answer_exact_match`
    once raised TypeError inside its normalising, where `exact()` and every other reader take its text.
    """
    if isinstance(output, (str, Prediction)) or is_number(output) or is_missing(output):
        return output
    found = element(output, "answer")
    if found is None:
        found = element(output, "text")
    return output if found is None else found


def _outcome(answer: Any) -> str | None:
    # What the metric saw, as one string: the output field's text (a number in plain digits).
    if isinstance(answer, str):
        return str(answer)
    if is_number(answer) and not is_missing(answer):
        return plain_digits(answer)
    return None
