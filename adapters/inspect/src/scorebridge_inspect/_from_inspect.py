"""`from_inspect()`: any Inspect AI scorer as a scorebridge `Scorer`, callable from anywhere."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping
from typing import Any, Final, cast

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageBase,
    ChatMessageUser,
    Model,
    ModelName,
    ModelOutput,
    get_model,
)
from inspect_ai.scorer import Score, Scorer, Target
from inspect_ai.solver import TaskState
from inspect_ai.util import registry_info

import scorebridge as sb
from scorebridge import ScorerContractError
from scorebridge.kit import (
    Ask,
    accepted_answers,
    ask,
    element,
    is_async,
    is_bool,
    is_missing,
    is_number,
    item_text,
    judge,
    reads_argument,
    verdict,
)

from ._compat import ACTIVE_MODEL, mark_choices, scorer_params
from ._native import NATIVE, origin
from ._score import read_score

__all__ = ["InspectCall", "from_inspect"]

_NO_MODEL: Final = "none/none"  # Inspect's own name for "no model"
_ids = itertools.count(1)  # message ids and the state's uuid, unique in the process; never a sample's id
_STATE_FIELDS: Final = frozenset({"input", "choices", "id", "sample_id", "epoch", "metadata"})
"""The item's keys read into TaskState fields of their own; its other string keys are the state's metadata."""


def _registered_name(fn: Any) -> str | None:
    try:
        return registry_info(fn).name.split("/", 1)[-1]  # "inspect_ai/match" -> "match"
    except ValueError:
        return None


def _choices(name: str, item: Any) -> list[str] | None:
    choices = element(item, "choices")
    if choices is None:
        return None
    if not isinstance(choices, (list, tuple)) or not all(isinstance(c, str) for c in choices):
        raise ScorerContractError(f"{name}: an item's choices must be a list of strings; got {choices!r:.80}")
    return list(choices)


def _sample_id(name: str, item: Any) -> int | str | None:
    """The item's `id` (else `sample_id`): a string or a whole number; None when it has none."""
    for key in ("id", "sample_id"):
        found = element(item, key)
        if found is None or is_missing(found):
            continue
        if is_bool(found) or not isinstance(found, (str, int)):
            raise ScorerContractError(
                f"{name}: an item's {key} must be a string or a whole number; got {type(found).__name__}"
            )
        return found
    return None


def _epoch(name: str, item: Any) -> int:
    """The item's `epoch`, a whole number from 1; 1 when it has none."""
    found = element(item, "epoch")
    if found is None or is_missing(found):
        return 1
    if is_bool(found) or not isinstance(found, int) or found < 1:
        raise ScorerContractError(f"{name}: an item's epoch must be a whole number from 1; got {found!r:.80}")
    return int(found)


def _metadata(item: Any) -> dict[str, Any]:
    """The item's `metadata` mapping, else (a mapping item) its other string keys; {} for any other item."""
    given = element(item, "metadata")
    if isinstance(given, Mapping):
        return {k: v for k, v in given.items() if isinstance(k, str)}
    if isinstance(item, Mapping):
        return {k: v for k, v in item.items() if isinstance(k, str) and k not in _STATE_FIELDS}
    return {}


def _messages(item: Any) -> list[ChatMessage] | None:
    """The item's `input` when it is a list of Inspect chat messages (images and all), else None."""
    given = element(item, "input")
    if isinstance(given, list) and given and all(isinstance(m, ChatMessageBase) for m in given):
        return list(given)
    return None


def _state(
    name: str, model: ModelName, item: Any, completion: str | ModelOutput, answers: tuple[str, ...]
) -> TaskState:
    """The TaskState Inspect would hand a scorer after generating `completion` for the sample `item`.

    The item is read as an Inspect `Sample` (a `Sample` itself works): see `from_inspect`.
    """
    n = next(_ids)  # ids given, not drawn: a random id costs more than the scorer itself
    if not isinstance(completion, ModelOutput):
        reply = ChatMessageAssistant(
            content=completion, model=str(model), source="generate", id=f"scorebridge-{n}-output"
        )
        completion = ModelOutput.from_message(reply)
    plain = isinstance(item, str) or item is None  # the common case, read without the general machinery
    conversation = None if plain else _messages(item)
    input: str | list[ChatMessage]
    if conversation is None:
        input = (str(item) if item is not None else "") if plain else item_text(item) or ""
        messages: list[ChatMessage] = [ChatMessageUser(content=input, id=f"scorebridge-{n}-input")]
    else:
        input, messages = conversation, list(conversation)
    if completion.choices:
        messages.append(completion.message)
    choices = None if plain else _choices(name, item)
    state = TaskState(
        model=model,
        sample_id=cast(int, None if plain else _sample_id(name, item)),  # None when the item has no id
        epoch=1 if plain else _epoch(name, item),
        input=input,
        messages=messages,
        target=Target(list(answers) or ""),
        choices=choices,
        output=completion,
        metadata=None if plain else _metadata(item),
        sample_uuid=f"scorebridge-{n}",
    )
    if choices:  # marked from the output, as the multiple_choice() solver marks them
        mark_choices(state, _several(answers))
    return state


def _several(answers: tuple[str, ...]) -> bool:
    """Whether the label names several choices, read as Inspect's `choice()` reads its target.

    Each answer is split at commas and white space; a token of digits is one choice (a
    position), any other token one choice per character: "AB" is A and B, as "A, B" and
    ["A", "B"] are. The output is then marked as a `multiple_choice(multiple_correct=True)`
    solver marks it.
    """
    count = 0
    for answer in answers:
        for token in answer.replace(",", " ").split():
            count += 1 if token.isnumeric() else len(token)
            if count > 1:
                return True
    return False


def _read_score(name: str, result: Score | None, threshold: float, asked: Ask) -> sb.Score:
    """The recorded scorebridge Score of what the Inspect scorer returned about `asked`.

    The recording rules apply (`verdict`: a wrong about an output pre-sorting
    rejected keeps the rejection's kind); the checks of `record` are not needed but
    for a finite value (`read_score`): Inspect's Score has validated answer, explanation and metadata.
    """
    if result is None:
        return verdict(name, asked, None, explanation="the Inspect scorer gave no Score")
    if not isinstance(result, Score):
        raise ScorerContractError(f"{name}: the Inspect scorer returned {type(result).__name__}, not a Score")
    read = read_score(name, result, threshold)
    return verdict(
        name,
        asked,
        read.correct,
        value=read.value,
        outcome=result.answer,
        explanation=result.explanation,
        metadata=read.metadata,
        failure_kind=read.kind,
    )


class InspectCall:
    """The `fn` of a scorer made by `from_inspect`: the Inspect scorer it wraps, called on one item, output and label.

    `inspect_scorer` is the Inspect scorer (what `to_inspect` gives back in a round
    trip), `model` the model it is given as Inspect's active model (or None),
    `threshold` the value at or above which a numeric value is correct. Frozen.
    """

    __slots__ = ("inspect_scorer", "model", "model_name", "name", "needs_label", "threshold")

    inspect_scorer: Scorer
    model: Model | None
    model_name: ModelName
    name: str
    threshold: float
    needs_label: bool

    def __init__(
        self, inspect_scorer: Scorer, name: str, model: Model | None, threshold: float, needs_label: bool = True
    ) -> None:
        _set = object.__setattr__
        _set(self, "inspect_scorer", inspect_scorer)
        _set(self, "name", name)
        _set(self, "model", model)
        _set(self, "model_name", ModelName(model if model is not None else _NO_MODEL))
        _set(self, "threshold", threshold)
        _set(self, "needs_label", needs_label)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"an Inspect scorer call is immutable; cannot set {name!r}")

    def __repr__(self) -> str:
        return f"<Inspect AI scorer {self.name}>"

    async def __call__(self, item: Any, output: Any, label: Any) -> sb.Score:
        """Score one output: the Inspect scorer on Inspect's own state (`native_call`) or on one built here."""
        name = self.name
        given = output.completion if isinstance(output, ModelOutput) else output
        # a reported failure, or no label for a scorer that reads its target: recorded, the Inspect scorer not asked
        asked = ask(name, given, label, needs_label=self.needs_label)
        if type(asked) is not Ask:
            return asked  # type: ignore[return-value]  # a Score
        try:
            native = NATIVE.native(item, output, label)
            if native is not None:  # a scorer run by to_inspect passed on what it read: Inspect's own objects
                state, target = native
            else:
                completion = output if isinstance(output, ModelOutput) else asked.text
                state = _state(name, self.model_name, item, completion, asked.answers)
                target = state.target
        except ScorerContractError:
            raise
        except Exception as exc:  # a hostile item (a __repr__ that raises, nesting too deep)
            raise ScorerContractError(f"{name}: cannot read the item, the output or the label: {exc!r:.200}") from exc
        token = None if self.model is None or ACTIVE_MODEL is None else ACTIVE_MODEL.set(self.model)
        try:
            return await judge(  # the Inspect scorer is async: an awaitable
                name,
                lambda: self.inspect_scorer(state, target),
                lambda result: _read_score(name, result, self.threshold, asked),
            )
        finally:
            if token is not None:
                ACTIVE_MODEL.reset(token)  # type: ignore[union-attr]  # set above


def from_inspect(
    inspect_scorer: Scorer,
    *,
    model: str | Model | None = None,
    name: str | None = None,
    threshold: float = 1.0,
    needs_label: bool | None = None,
) -> sb.Scorer:
    """Any Inspect AI scorer (`match()`, `includes()`, `model_graded_qa()`, your own) as a scorebridge Scorer.

    The scorer's `fn` is an `InspectCall` whose `inspect_scorer` is the scorer
    wrapped: `to_inspect` gives that very scorer back (a round trip is an
    identity), and inside Inspect a scorer of your own that calls this one with
    the item, output and label `to_inspect` handed it passes on Inspect's own
    state and target (`_native`). From anywhere else, each call builds what
    Inspect would hand the scorer after generation, reading the item as an
    Inspect `Sample` (a mapping, an object with those attributes, or a `Sample`):

    - input: the item if it is a string; else its "input" element when that is
      a list of Inspect chat messages (images and all, used as they are); else
      the item's text (`scorebridge.kit.item_text`: "input", then "question"),
      else "". Never raises: `state.input_text` works for every item;
    - choices: the item's "choices" (a list of strings), marked from the
      output the way the `multiple_choice()` solver marks them (several
      correct allowed when the label names several choices as `choice()`
      reads its target: "A, B", ["A", "B"] or "AB"), so `choice()` works;
    - metadata: the item's "metadata" mapping; else, for a mapping item, its
      other string keys (all but input, choices, id, sample_id, epoch);
    - sample_id: the item's "id" (else "sample_id"), a string or a whole
      number; None when it has none, never a made-up id, so a scorer that
      needs one (`precomputed_scores`) finds no record rather than another
      sample's; epoch: the item's "epoch" (a whole number from 1), else 1;
    - output: the output text as the model's reply, stop reason "stop" (an
      Inspect `ModelOutput` is used as it is, with its stop reason and
      logprobs); messages = the input and the reply. An output that reports
      its own failure_kind, or has `ok` False, is recorded wrong for that
      reason without calling the Inspect scorer (the protocol's pre-sorting); one
      with no text is scored as "", and NOT_IN_DOCUMENT as the sentinel: when
      the Inspect scorer does not call it correct, the Score keeps the kind
      `exact()` gives it, parse_failure or not_in_document (`kit.verdict`);
    - Target: the label's accepted answers as text (a list for several,
      numbers in plain digits, blanks dropped). An item with no label is
      unscored (its output's failure kind kept) without calling the Inspect
      scorer (`kit.ask`), when the scorer reads its target: Inspect does not
      declare whether a scorer needs one, so it is read from the score
      function's code (`kit.reads_argument`; every built-in reads it). A
      scorer whose code never reads `target` (a length check, a safety
      judge) needs no label and is asked about every row, the Target then
      empty; `needs_label=` says so instead.

    An item, output or label that cannot be read (a hostile object, nesting
    too deep, an id of the wrong type) is a `ScorerContractError` naming the
    scorer; an exception inside the Inspect scorer propagates unchanged, with
    a note naming it.

    The Inspect Score is read back: value by dsprrr's grade mapping
    (C/I/P to 1/0/0.5, numbers kept, bools 1/0), "N" and NaN unscored, a
    value the mapping does not know (a dict, "yes") unscored with a
    warning; answer = outcome; explanation and metadata kept. A None result
    is unscored. For a numeric value (a number, or a string of one; not a
    bool) correct is value >= `threshold` (default 1.0: an f1 of 0.67 is
    wrong, with value 0.67); a grade word or bool keeps its meaning whatever
    the threshold (C, correct, pass, True correct; I, P, False and the rest
    wrong). `threshold` is any finite number (a metric of your own may use
    another scale than 0..1). A wrong Score's reason gives its failure
    kind (`_reasons`: invalid_response_format/no_response -> parse_failure,
    refusal -> refusal, scoring_failed/grader_failed -> error, none ->
    wrong); by the recording rules a kind makes the Score wrong, so an "N" or NaN with
    such a reason (a grader that failed) is wrong with that kind. A reason
    the kind would not give back is kept in metadata["inspect_reason"], for
    `to_inspect`. A Score written by `to_inspect` carries
    metadata["failure_kind"], which gives correct and the kind exactly.

    options: `threshold`, `model` when given, and `inspect_args`, the
    Inspect scorer's own arguments as Inspect's registry keeps them (what its
    log records: `match(location="begin")` has `{"location": "begin"}`; left
    out when there are none), so a `benchmark(out=...)` scored with
    `from_inspect(match())` refuses to resume under
    `from_inspect(match(location="begin"))`. `with_options(threshold=...)`
    (or `model=`) makes the scorer again around the same Inspect scorer;
    other Inspect arguments need the Inspect scorer made with them.

    model: a `Model` (or a model name, resolved now) that is Inspect's
    active model while the scorer runs, as the evaluated model is in an
    eval, so `model_graded_qa()` without a model of its own grades with it.

    Round trip: a scorer made by `to_inspect(s)` gives back `s` itself, unless
    `name` (other than `s.name`) or `model` is given here, or it was made with
    `on_error="record"`: then it is wrapped like any Inspect scorer.

    The Scorer's fn is async: `acall`/`ascore_many` await it, a plain call
    or `score_many` runs it in this thread's own event loop (kept and
    reused; a loop of the thread nested for the call when one is already
    running here: `scorebridge.kit.run_sync`).
    """
    if not callable(inspect_scorer):
        raise TypeError(f"from_inspect: expected an Inspect AI scorer; got {type(inspect_scorer).__name__}")
    made_from = origin(inspect_scorer)
    if made_from is not None and made_from.on_error == "raise" and model is None and name in (None, made_from.name):
        return made_from.scorer  # a round trip: the scorebridge scorer to_inspect was given
    registered = _registered_name(inspect_scorer)
    if not is_async(inspect_scorer):
        if registered is not None:
            raise TypeError(f"from_inspect: {registered} is a scorer factory; call it: from_inspect({registered}())")
        raise TypeError("from_inspect: expected an Inspect AI scorer, an async function of (state, target)")
    if name is None:
        name = registered or getattr(inspect_scorer, "__name__", None) or type(inspect_scorer).__name__
    if not is_number(threshold):
        raise TypeError(f"from_inspect({name}): threshold must be a number; got {threshold!r:.80}")
    try:
        number = float(threshold)
    except (OverflowError, ValueError):  # an int too big for a float, a signalling NaN
        number = math.nan
    if not math.isfinite(number):
        raise ValueError(f"from_inspect({name}): threshold must be finite; got {threshold!r:.80}")
    if isinstance(model, str):
        model = get_model(model)
    elif model is not None and not isinstance(model, Model):
        raise TypeError(
            f"from_inspect({name}): model must be a Model, a model name or None; got {type(model).__name__}"
        )
    if model is not None and ACTIVE_MODEL is None:
        raise RuntimeError(
            f"from_inspect({name}): this Inspect AI has no active-model hook scorebridge can use, so model= "
            "cannot apply; give the Inspect scorer its own model instead (model_graded_qa(model=...))"
        )
    options: dict[str, Any] = {"threshold": number}
    if model is not None:
        options["model"] = str(ModelName(model))
    args = scorer_params(inspect_scorer) if registered is not None else {}
    if args:  # the Inspect scorer's own arguments, as Inspect's registry (and its log) keeps them
        options[INSPECT_ARGS] = args
    if needs_label is None:
        needs_label = reads_argument(inspect_scorer, 1)  # score(state, target): does it read the target?
    elif not isinstance(needs_label, bool):
        raise TypeError(f"from_inspect({name}): needs_label must be True, False or None; got {needs_label!r:.80}")
    call = InspectCall(inspect_scorer, name, model, number, needs_label)
    factory = functools.partial(_made_again, inspect_scorer, name, model, options, needs_label)
    # its Scores are recorded (`_read_score`); its label is read as the built-ins read one, for the Target
    return sb.Scorer(
        name,
        call,
        options,
        factory=factory,
        recorded=True,
        check_label=functools.partial(accepted_answers, name),
        needs_label=needs_label,
    )


INSPECT_ARGS: Final = "inspect_args"
"""The option of a `from_inspect` scorer that holds the Inspect scorer's own arguments."""


def _made_again(
    inspect_scorer: Scorer,
    name: str,
    model: Model | None,
    options: Mapping[str, Any],
    needs_label: bool,
    **chosen: Any,
) -> sb.Scorer:
    """The factory of a `from_inspect` scorer (`with_options`): the same Inspect scorer, another threshold or model."""
    unknown = sorted(chosen.keys() - {"threshold", "model", INSPECT_ARGS})
    if unknown:
        raise TypeError(
            f"from_inspect({name}) has no option {', '.join(unknown)}; its options are {', '.join(options)}"
        )
    if INSPECT_ARGS in chosen and chosen[INSPECT_ARGS] != options.get(INSPECT_ARGS):
        args = ", ".join(f"{k}={v!r}" for k, v in dict(chosen[INSPECT_ARGS] or {}).items())
        raise TypeError(
            f"from_inspect({name}): the Inspect scorer's own arguments are what it was made with; "
            f"wrap the scorer made with others instead: from_inspect({name}({args}))"
        )
    if "model" in chosen and chosen["model"] != options.get("model"):
        model = chosen["model"]
    threshold = chosen.get("threshold", options["threshold"])
    return from_inspect(inspect_scorer, model=model, name=name, threshold=threshold, needs_label=needs_label)
