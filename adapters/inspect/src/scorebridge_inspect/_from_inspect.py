"""`from_inspect()`: any Inspect AI scorer as a scorebridge `Scorer`, callable from anywhere."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any, Final

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    Model,
    ModelName,
    ModelOutput,
    get_model,
)
from inspect_ai.model._model import active_model_context_var
from inspect_ai.scorer import NOANSWER, Score, Scorer, Target
from inspect_ai.solver import TaskState
from inspect_ai.solver._multiple_choice import parse_answers, set_choices_based_on_generated_response
from inspect_ai.util import registry_info

import scorebridge as sb
from scorebridge import FAILURE_KINDS, FailureKind, ScorerContractError, grade_value
from scorebridge.kit import (
    Rejected,
    accepted_answers,
    element,
    is_async,
    is_number,
    item_text,
    note_scorer,
    presort,
    recorded,
)

from ._reasons import FAILURE_KIND, INSPECT_REASON, kept_reason, kind_for

__all__ = ["from_inspect"]

_NO_MODEL: Final = "none/none"  # Inspect's own name for "no model"
_ids = itertools.count(1)  # sample and message ids, unique in the process


def _registered_name(fn: Any) -> str | None:
    try:
        return registry_info(fn).name.split("/", 1)[-1]  # "inspect_ai/match" -> "match"
    except ValueError:
        return None


def _choices(name: str, item: Any) -> list[str] | None:
    if isinstance(item, str):
        return None
    choices = element(item, "choices")
    if choices is None:
        return None
    if not isinstance(choices, (list, tuple)) or not all(isinstance(c, str) for c in choices):
        raise ScorerContractError(f"{name}: an item's choices must be a list of strings; got {choices!r:.80}")
    return list(choices)


def _completion(name: str, output: Any) -> str | ModelOutput | Rejected:
    if type(output) is str or isinstance(output, ModelOutput):
        return output
    text = presort(name, output, ())
    if type(text) is Rejected and not text.reported:
        return text.outcome or ""  # no text, or the NOT_IN_DOCUMENT sentinel: the Inspect scorer judges it
    return text


def _state(
    name: str, model: ModelName, item: Any, completion: str | ModelOutput, answers: tuple[str, ...]
) -> TaskState:
    """The TaskState Inspect would hand a scorer after generating `completion` for `item`."""
    n = next(_ids)  # ids given, not drawn: a random message id costs more than the scorer itself
    text = item_text(item) or ""
    if not isinstance(completion, ModelOutput):
        reply = ChatMessageAssistant(
            content=completion, model=str(model), source="generate", id=f"scorebridge-{n}-output"
        )
        completion = ModelOutput.from_message(reply)
    messages: list[ChatMessage] = [ChatMessageUser(content=text, id=f"scorebridge-{n}-input")]
    if completion.choices:
        messages.append(completion.message)
    choices = _choices(name, item)
    state = TaskState(
        model=model,
        sample_id=n,
        epoch=1,
        input=text,
        messages=messages,
        target=Target(list(answers) or ""),
        choices=choices,
        output=completion,
        metadata={k: v for k, v in item.items() if isinstance(k, str)} if isinstance(item, Mapping) else None,
        sample_uuid=f"scorebridge-{n}",
    )
    if choices:  # marked from the output, as the multiple_choice() solver marks them
        several = len(answers) > 1 or any("," in a for a in answers)
        set_choices_based_on_generated_response(state, parse_answers(state, several))
    return state


def _number(value: Any) -> float | None:
    if isinstance(value, str) and value == NOANSWER:
        return None
    return grade_value(value)  # seed 004: C/I/P and the words, numbers, bools; NaN -> None; else None + warning


def _is_numeric(value: Any) -> bool:
    """A number, or a string that reads as one ("0.75"): the values `threshold` decides for.

    Not a bool, and not a grade word: "C", "I", "P", "correct", ... keep their meaning.
    """
    if is_number(value):
        return True
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return False
        return True
    return False


def _read_score(name: str, result: Score | None, threshold: float, unlabelled: bool) -> sb.Score:
    """The recorded scorebridge Score of what the Inspect scorer returned.

    The recording rules apply (`recorded`); the checks of `record` are not needed but
    for a finite value: Inspect's Score has validated answer, explanation and metadata.
    """
    if result is None:
        return recorded(name, None, None, None, None, "the Inspect scorer gave no Score", None, unlabelled)
    if not isinstance(result, Score):
        raise ScorerContractError(f"{name}: the Inspect scorer returned {type(result).__name__}, not a Score")
    value = _number(result.value)
    if value is not None and not math.isfinite(value):
        raise ScorerContractError(f"{name}: value must be a finite number; got {result.value!r:.80}")
    metadata = dict(result.metadata) if result.metadata else {}
    kind: FailureKind | None
    if FAILURE_KIND in metadata and (metadata[FAILURE_KIND] is None or metadata[FAILURE_KIND] in FAILURE_KINDS):
        # written by to_inspect: the kind and correctness exactly as the scorebridge scorer recorded them
        kind = metadata.pop(FAILURE_KIND)
        correct = None if value is None else kind is None
    else:
        # the threshold decides for numbers only; a grade word or a bool is correct when worth 1 (C, pass, True)
        passed = value is not None and value >= (threshold if _is_numeric(result.value) else 1.0)
        kind = None if passed else kind_for(result.reason)
        if value is None and (result.value != NOANSWER or kind == "error"):
            # NaN is Inspect's "unscored" and stays so, whatever its reason (kept below); so does
            # an N that the instrument caused (grader_failed, scoring_failed). An N whose reason
            # says the model failed (no_response, refusal) is wrong for that reason (seed 000),
            # and Inspect's own metrics count it 0.
            kind = None
        correct = None if value is None else passed
    reason = kept_reason(result.reason, kind)
    if reason is not None:
        metadata[INSPECT_REASON] = reason
    return recorded(name, correct, result.answer, kind, value, result.explanation, metadata, unlabelled)


def from_inspect(
    inspect_scorer: Scorer,
    *,
    model: str | Model | None = None,
    name: str | None = None,
    threshold: float = 1.0,
) -> sb.Scorer:
    """Any Inspect AI scorer (`match()`, `includes()`, `model_graded_qa()`, your own) as a scorebridge Scorer.

    Each call builds what Inspect would hand the scorer after generation:

    - TaskState: input = the item if it is a string, else the str of its
      "input" (or else "question") element, mapping key or attribute, else
      ""; a mapping item (its string keys) is also the state's metadata; an item's "choices"
      (a list of strings) become the state's choices, marked from the output
      the way the `multiple_choice()` solver marks them (several correct
      allowed when the label has several answers or a comma), so `choice()`
      works; the output is the output text as the model's reply, stop
      reason "stop" (an Inspect `ModelOutput` is used as it is, with its
      stop reason); messages = the user input and the reply.
    - The output's text: the output when it is a string, else its `answer`
      or `text` element. An output that reports its own failure_kind, or has
      `ok` False, is recorded wrong for that reason without calling the
      Inspect scorer (seed 000's pre-sorting); one with no text is scored
      as "".
    - Target: the label's accepted answers as text (a list for several,
      numbers in plain digits, blanks dropped); no label gives Target("")
      and, by the recording rules, an unscored Score.

    The Inspect Score is read back: value by seed 004's grade mapping
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
    wrong); by seed 000 a kind makes the Score wrong, so an "N" or NaN with
    such a reason (a grader that failed) is wrong with that kind. A reason
    the kind would not give back is kept in metadata["inspect_reason"], for
    `to_inspect`. A Score written by `to_inspect` carries
    metadata["failure_kind"], which gives correct and the kind exactly.

    model: a `Model` (or a model name, resolved now) that is Inspect's
    active model while the scorer runs, as the evaluated model is in an
    eval, so `model_graded_qa()` without a model of its own grades with it.

    The Scorer's fn is async: `acall`/`ascore_many` await it, a plain call
    or `score_many` runs it in this thread's own event loop (one loop per
    thread, reused; a helper thread when a loop is already running here).
    """
    if not callable(inspect_scorer):
        raise TypeError(f"from_inspect: expected an Inspect AI scorer; got {type(inspect_scorer).__name__}")
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
    model_name = ModelName(model if model is not None else _NO_MODEL)
    threshold = number

    async def score_in_inspect(item: Any, output: Any, label: Any) -> sb.Score:
        answers = accepted_answers(name, label)
        completion = _completion(name, output)
        if isinstance(completion, Rejected):
            return completion.record(name, not answers)
        state = _state(name, model_name, item, completion, answers)
        token = None if model is None else active_model_context_var.set(model)
        try:
            result = await inspect_scorer(state, state.target)
        except Exception as exc:
            note_scorer(exc, name)
            raise
        finally:
            if token is not None:
                active_model_context_var.reset(token)
        return _read_score(name, result, threshold, not answers)

    options: dict[str, Any] = {"threshold": threshold}
    if model is not None:
        options["model"] = str(model_name)
    return sb.Scorer(name, score_in_inspect, options, recorded=True)  # its Scores are recorded: `_read_score`
