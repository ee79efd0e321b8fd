"""`from_pydantic_evals()`: any pydantic-evals Evaluator as a scorebridge `Scorer`, callable from anywhere."""

from __future__ import annotations

import functools
import math
from collections.abc import Awaitable, Mapping
from typing import Any, Final, NamedTuple

from pydantic_core import to_jsonable_python
from pydantic_evals import Case
from pydantic_evals.evaluators import Contains, EvaluationReason, Evaluator, EvaluatorContext
from pydantic_evals.otel import SpanTreeRecordingError

import scorebridge as sb
from scorebridge import FAILURE_KINDS, FailureKind, ScorerContractError
from scorebridge.kit import (
    Ask,
    Scale,
    accepted_answers,
    ask,
    element,
    is_async,
    is_bool,
    is_number,
    judge,
    label_is_missing,
    scale,
    sync_and_async,
    verdict,
)

from ._keys import kind_key, value_key
from ._native import NATIVE
from ._reading import declared_range, is_fast, reads_label

__all__ = ["EvaluatorCall", "call_of", "context", "from_pydantic_evals", "read_output", "reads_label"]

NO_SPANS: Final = (
    "no spans were recorded: scorebridge called this evaluator outside pydantic-evals' Dataset.evaluate, "
    "so there is no span tree"
)
OTHER_RESULTS: Final = "pydantic_evals_results"
"""The metadata key of the results an evaluator returned beside the one that gave the verdict."""


def _matches_everything(contains: Contains) -> bool:
    """Contains' trap: an empty value is in every string, so every text output passes."""
    value = contains.value
    if isinstance(value, str):
        return value == ""
    if contains.as_strings:
        try:
            return str(value) == ""
        except Exception:
            return False
    return False


def evaluator_spec(evaluator: Evaluator[Any, Any, Any]) -> dict[str, Any]:
    """The evaluator's spec as plain data, `{"name": ..., "arguments": ...}`: what pydantic-evals writes to a
    dataset file, and a scorer's options (so a benchmark out file or an Inspect log tells evaluators apart)."""
    try:
        spec = evaluator.as_spec()
        return {"name": spec.name, "arguments": to_jsonable_python(spec.arguments, serialize_unknown=True)}
    except Exception:  # an evaluator whose fields do not serialize: its class name at least
        return {"name": evaluator.get_serialization_name(), "arguments": None}


def _duration(item: Any) -> float:
    found = element(item, "duration")
    if is_number(found):
        try:
            seconds = float(found)
        except (OverflowError, ValueError):
            return 0.0
        if math.isfinite(seconds) and seconds >= 0:
            return seconds
    return 0.0


def context(item: Any, output: Any, label: Any) -> EvaluatorContext[Any, Any, Any]:
    """The EvaluatorContext pydantic-evals would hand an evaluator for `output` on `item` against `label`.

    A pydantic-evals `Case` item gives its name, inputs and metadata; any other
    item is the inputs, and gives its `name` (a string), `metadata` and
    `duration` (seconds) elements where it has them. Otherwise: no name, no
    metadata, duration 0.0, no attributes or metrics, and a span tree that is a
    `SpanTreeRecordingError` (reading `ctx.span_tree` raises it). No label is
    `expected_output=None`.
    """
    if isinstance(item, Case):
        name, inputs, metadata, duration = item.name, item.inputs, item.metadata, 0.0
    else:
        found = element(item, "name")
        name = found if isinstance(found, str) else None
        inputs, metadata, duration = item, element(item, "metadata"), _duration(item)
    return EvaluatorContext(
        name=name,
        inputs=inputs,
        metadata=metadata,
        expected_output=None if label_is_missing(label) else label,
        output=output,
        duration=duration,
        _span_tree=SpanTreeRecordingError(NO_SPANS),
        attributes={},
        metrics={},
    )


def _scalar(name: str, what: str, value: Any) -> bool | float | str:
    if is_bool(value) or isinstance(value, str):
        return value  # type: ignore[no-any-return]
    if is_number(value):
        try:
            number = float(value)
        except (OverflowError, ValueError):
            number = math.nan
        if math.isfinite(number):
            return value  # type: ignore[no-any-return]
    if value is None or (isinstance(value, float) and math.isnan(value)):
        raise ScorerContractError(
            f"{name}: {what} is {value!r}, which pydantic-evals records as a failure of the evaluator; "
            "an evaluator skips a case by returning {}"
        )
    raise ScorerContractError(
        f"{name}: {what} must be a bool (an assertion), a finite number (a score), a string (a label) or an "
        f"EvaluationReason of one; got {type(value).__name__} {value!r:.80}"
    )


def _entry(name: str, key: str, value: Any) -> tuple[bool | float | str, str | None]:
    if isinstance(value, EvaluationReason):
        reason = value.reason
        if reason is not None and not isinstance(reason, str):
            raise ScorerContractError(f"{name}: the reason of {key!r} must be a string; got {type(reason).__name__}")
        return _scalar(name, f"the result {key!r}", value.value), reason
    return _scalar(name, f"the result {key!r}", value), None


def _chosen(name: str, results: Mapping[str, Any], result: str | None) -> str:
    keys = list(results)
    if result is not None:
        if result not in results:
            raise ScorerContractError(f"{name}: the evaluator returned no result {result!r}; it returned {keys}")
        return result
    if len(keys) == 1:
        return keys[0]
    # a mapping written by to_pydantic_evals: NAME, with NAME_value and NAME_failure_kind beside it
    ours = [k for k in keys if set(keys) <= {k, value_key(k), kind_key(k)}]
    if len(ours) == 1:
        return ours[0]
    raise ScorerContractError(
        f"{name}: the evaluator returned several results ({', '.join(map(repr, keys))}); choose the one that "
        f"gives the verdict: from_pydantic_evals(evaluator, result={keys[0]!r})"
    )


class Read(NamedTuple):
    """An evaluator's verdict, read: what `kit.verdict` makes a Score of."""

    correct: bool | None
    value: float | None
    failure_kind: FailureKind | None
    outcome: str | None  # a label result; None: the verdict's outcome is the output's text
    explanation: str | None
    metadata: dict[str, Any] | None


_SKIPPED: Final = Read(None, None, None, None, "the evaluator skipped the case (it returned {})", None)


def read_output(name: str, default_name: str, raw: Any, on: Scale, result: str | None) -> Read:
    """What an evaluator returned, read as pydantic-evals reads it.

    `{}` is the library's skip: no verdict. A scalar is the result named
    `default_name`; of a mapping, `result` names the one that gives the
    verdict (one result: that one; written by `to_pydantic_evals`: the
    assertion). An assertion is correct or wrong; a score is the value (see
    below); a label is the outcome, with no verdict; an
    EvaluationReason's reason is the explanation. A score is read on the
    evaluator's scale (`on`, `kit.Scale`): mapped onto 0-1 by its declared
    range and correct at or above the threshold on that scale; with no range
    declared, one outside 0-1 is a ScorerContractError. Beside the verdict,
    `NAME_value` and `NAME_failure_kind` (what `to_pydantic_evals` writes) give
    the value and the failure kind; any other results are kept in
    metadata["pydantic_evals_results"].
    """
    if isinstance(raw, Mapping):
        if not raw:
            return _SKIPPED
        bad = [k for k in raw if not isinstance(k, str)]
        if bad:
            raise ScorerContractError(
                f"{name}: the evaluator returned a mapping with a key {bad[0]!r:.80}, not a string"
            )
        results: Mapping[str, Any] = raw
        key = _chosen(name, results, result)
    else:
        key = default_name
        results = {key: raw}
    value, reason = _entry(name, key, results[key])
    correct: bool | None
    outcome: str | None = None
    kind: FailureKind | None = None
    number: float | None = None
    if is_bool(value):
        correct = bool(value)
    elif isinstance(value, str):
        correct, outcome = None, value
    else:
        correct, number = on.read(name, float(value))
    others: dict[str, Any] = {}
    for other, found in results.items():
        if other == key:
            continue
        given, _ = _entry(name, other, found)
        if other == value_key(key) and is_number(given) and correct is not None:
            number = float(given)
        elif other == kind_key(key) and given in FAILURE_KINDS and correct is False:
            kind = given
        else:
            others[other] = given
    if correct is None and reason is None:
        reason = "the evaluator gave a label, not a verdict"
    return Read(correct, number, kind, outcome, reason, {OTHER_RESULTS: others} if others else None)


_STRUCTURED: Final = "(a label the evaluator reads as it is)"
"""What `kit.ask` is shown for a label it does not read as text (a mapping, a model): a label is there."""


def _present(name: str, label: Any) -> Any:
    """The label as `kit.ask` should see it: a text-like label (a string, a number, a list of them) as it is,
    read by the kit's rules (an unreadable one, a number too long to write, is a ScorerContractError); any
    other (a mapping, a model, a list of them) is the evaluator's to read, shown to the kit as present."""
    if type(label) is str or label is None:
        return label
    try:
        accepted_answers(name, label)
    except ScorerContractError:
        if is_number(label) or (
            isinstance(label, (list, tuple, set, frozenset)) and all(isinstance(x, str) or is_number(x) for x in label)
        ):
            raise
        return _STRUCTURED
    return label


class EvaluatorCall:
    """The body of a scorer made by `from_pydantic_evals`: the evaluator it wraps, called on one item, output and
    label (`kit.sync_and_async` makes the Scorer's fn of it). `evaluator` is the pydantic-evals Evaluator (what
    `to_pydantic_evals` gives back in a round trip). Frozen."""

    __slots__ = ("default_name", "evaluator", "is_async", "name", "needs_label", "result", "scale")

    evaluator: Evaluator[Any, Any, Any]
    name: str
    default_name: str
    scale: Scale
    result: str | None
    needs_label: bool
    is_async: bool

    def __init__(
        self, evaluator: Evaluator[Any, Any, Any], name: str, on: Scale, result: str | None, needs: bool
    ) -> None:
        _set = object.__setattr__
        _set(self, "evaluator", evaluator)
        _set(self, "name", name)
        _set(self, "default_name", evaluator.get_default_evaluation_name())
        _set(self, "scale", on)
        _set(self, "result", result)
        _set(self, "needs_label", needs)
        _set(self, "is_async", is_async(evaluator.evaluate))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a pydantic-evals evaluator call is immutable; cannot set {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.evaluator, self.name, self.scale, self.result, self.needs_label))

    def __repr__(self) -> str:
        return f"<pydantic-evals evaluator {self.name}>"

    def __call__(self, item: Any, output: Any, label: Any) -> sb.Score | Awaitable[sb.Score]:
        """Score one output: the evaluator on pydantic-evals' own context (`_native`) or on one built here."""
        name = self.name
        try:
            asked = ask(name, output, _present(name, label), needs_label=self.needs_label)
            if not isinstance(asked, Ask):
                return asked  # the output reported its failure, or no label for an evaluator that needs one
            ctx = NATIVE.native(item, output, label)
            if ctx is None:
                ctx = context(item, output, label)
        except ScorerContractError:
            raise
        except Exception as exc:  # a hostile item, output or label
            raise ScorerContractError(f"{name}: cannot read the item, the output or the label: {exc!r:.200}") from exc
        structured = asked.rejected is not None and not (output is None or isinstance(output, str))
        if structured:
            asked = asked._replace(rejected=None)  # a structured output (a dict, a model) is the evaluator's to judge
        evaluate = self.evaluator.evaluate_async if self.is_async else self.evaluator.evaluate
        return judge(name, lambda: evaluate(ctx), functools.partial(self._read, asked, structured))

    def _read(self, asked: Ask, structured: bool, raw: Any) -> sb.Score:
        read = read_output(self.name, self.default_name, raw, self.scale, self.result)
        if read.outcome is not None or structured:
            # a label is the outcome; a structured output has no text to be one
            return verdict(
                self.name,
                asked,
                read.correct,
                value=read.value,
                outcome=read.outcome,
                explanation=read.explanation,
                metadata=read.metadata,
                failure_kind=read.failure_kind,
            )
        # an assertion, a score or a skip: the outcome is the kit's default, the output's text (as exact() records it)
        return verdict(
            self.name,
            asked,
            read.correct,
            value=read.value,
            explanation=read.explanation,
            metadata=read.metadata,
            failure_kind=read.failure_kind,
        )


def call_of(scorer: sb.Scorer) -> EvaluatorCall | None:
    """The `EvaluatorCall` of a scorer made by `from_pydantic_evals`; None for any other scorer."""
    body = getattr(scorer.fn, "body", None)
    return body if isinstance(body, EvaluatorCall) else None


def from_pydantic_evals(
    evaluator: Evaluator[Any, Any, Any],
    *,
    threshold: float | None = None,
    name: str | None = None,
    result: str | None = None,
    needs_label: bool | None = None,
    score_range: tuple[float, float] | None = None,
) -> sb.Scorer:
    """Any pydantic-evals Evaluator (`EqualsExpected()`, `Contains(...)`, `LLMJudge(...)`, your own) as a Scorer.

    The scorer's `fn` is an `EvaluatorCall` whose `evaluator` is the evaluator
    wrapped: `to_pydantic_evals` gives that very evaluator back (a round trip
    is an identity). Inside `Dataset.evaluate`, a scorer of your own run by
    `to_pydantic_evals` that calls this one with the item, output and label it
    was given hands the evaluator pydantic-evals' own context. From anywhere
    else, each call builds the `EvaluatorContext` (`context`): inputs = the
    item (a `Case` gives its inputs, name and metadata), output = the output as
    it is, expected_output = the label (None for no label), the item's name,
    metadata and duration where it carries them, else no name, no metadata,
    duration 0.0, no attributes or metrics, and a `SpanTreeRecordingError` for
    the span tree.

    What the evaluator returns is read as pydantic-evals reads it
    (`read_output`): an assertion (bool) is correct or wrong; a score (a
    number) is partial credit on the evaluator's scale: its `score_range`
    (GEval declares one, 1 to 5 by default; `score_range=(low, high)` gives one
    for an evaluator that declares none) maps it onto 0-1, and it is correct
    at or above `threshold`, on that same scale (default: the top, full
    marks; 1.0 with no range). With no range, a score outside 0-1 is a
    ScorerContractError naming the scorer, never a value of 3; a label (a string)
    is the outcome, with no verdict (unscored); an `EvaluationReason`'s reason
    is the explanation; `{}` is the library's skip (unscored). Else the
    outcome is the output's text, as `exact()` records it (`kit.verdict`'s
    default; None for an output with none). A mapping of
    several results is read by `result`, the name of the one that gives the
    verdict (a ScorerContractError naming them otherwise); the others are kept
    in metadata. None and NaN, which pydantic-evals records as the evaluator's
    failure, are a ScorerContractError naming the scorer.

    An output that reports its own failure (a `failure_kind` element, `ok`
    False) is recorded wrong for that reason without asking the evaluator; a
    wrong verdict about an empty output, or NOT_IN_DOCUMENT, gets the kind
    pre-sorting gives it (parse_failure, not_in_document). With no label, an
    evaluator that needs one (`needs_label`, default: `reads_label(evaluator)`,
    read from its code and fields: whether it reads `ctx.expected_output`)
    is not asked and the Score is unscored; the others (Equals, Contains,
    GEval, the agentic evaluators, one of your own that never reads it) are
    asked with `expected_output=None`. An exception inside the evaluator
    propagates unchanged, with a note naming the scorer.

    The scorer is async when the evaluator's `evaluate` is (LLMJudge, GEval),
    so `ascore_many`, Inspect AI and `abenchmark` await it; pydantic-evals' own
    sync evaluators, which it runs inline, are `fast`; a sync evaluator of your
    own may block, and is not. Its name is `name`, else the evaluator's
    evaluation name (`EqualsExpected`, or its `evaluation_name`).

    Round trip: an evaluator made by `to_pydantic_evals(s)` gives back `s`
    itself, unless a `name` other than `s.name` is given or it records errors.
    """
    from ._round_trip import scorer_again

    if not isinstance(evaluator, Evaluator):
        raise TypeError(f"from_pydantic_evals: expected a pydantic-evals Evaluator; got {type(evaluator).__name__}")
    again = scorer_again(evaluator, name)
    if again is not None:
        return again
    if name is None:
        name = evaluator.get_default_evaluation_name()
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"from_pydantic_evals: name must be a non-blank string; got {name!r:.80}")
    given = declared_range(evaluator) if score_range is None else score_range
    on = scale(f"from_pydantic_evals({name})", given, threshold)
    if type(evaluator) is Contains and _matches_everything(evaluator):
        raise ValueError(
            f"from_pydantic_evals({name}): Contains(value={evaluator.value!r}) is true for every text output (the "
            "empty string is in every string); give it a value to look for, or score against each case's label "
            "with scorebridge.detect_includes()"
        )
    if result is not None and not isinstance(result, str):
        raise TypeError(f"from_pydantic_evals({name}): result must be the name of a result; got {result!r:.80}")
    if needs_label is not None and not isinstance(needs_label, bool):
        raise TypeError(
            f"from_pydantic_evals({name}): needs_label must be True, False or None; got {needs_label!r:.80}"
        )
    needs = reads_label(evaluator) if needs_label is None else needs_label
    call = EvaluatorCall(evaluator, name, on, result, needs)
    options: dict[str, Any] = {"evaluator": evaluator_spec(evaluator), **on.options()}
    if result is not None:
        options["result"] = result
    fn = sync_and_async(call, is_async=call.is_async)
    return sb.Scorer(name, fn, options, recorded=True, fast=is_fast(evaluator), needs_label=needs)
