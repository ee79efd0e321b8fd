"""`to_inspect()`: a scorebridge scorer as a registered Inspect AI scorer."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Literal

import anyio.to_thread
from inspect_ai.model import ChatMessage
from inspect_ai.scorer import Score, Scorer, Target
from inspect_ai.scorer import scorer as inspect_scorer
from inspect_ai.solver import TaskState

import scorebridge as sb
from scorebridge.kit import add_note, is_builtin, naming_row, raised_score, recorded

from ._compat import Metrics
from ._from_inspect import InspectCall
from ._metrics import default_metrics
from ._native import NATIVE, ORIGIN, Origin
from ._round_trip import inspect_again
from ._score import inspect_score

__all__ = ["OnError", "StateReader", "score_fn", "to_inspect"]

OnError = Literal["raise", "record"]
"""What an exception inside the scorer becomes: the sample's error ("raise") or an "error" Score ("record")."""

StateReader = Callable[[TaskState], Any]
"""A function of the TaskState that gives the scorer its item or its output."""

_BUDGET_STOPS: Final = frozenset({"max_tokens", "model_length"})
_REPLACED_BY_BUDGET_STOP: Final = frozenset({"wrong", "parse_failure"})


def _text_of(message: ChatMessage) -> str:
    return message.text


def _input_text(state: TaskState) -> str:
    """The sample's input text: `state.input_text`; never raises.

    Inspect's `input_text` raises when the input is a list of messages with no user
    message (a system prompt alone, Inspect's own test states): then the text of the
    input's last message that has any, else "".
    """
    try:
        return state.input_text
    except ValueError:
        given = state.input
        texts = [_text_of(m) for m in given] if isinstance(given, list) else [str(given)]
        return next((text for text in reversed(texts) if text), "")


def _completion(state: TaskState) -> str:
    return state.output.completion


def _label(target: Target) -> str | list[str] | None:
    # Inspect's "no target" is "" (Sample's default): the scorer gets None, as from plain code
    answers = target.target
    if len(answers) == 1:  # the common case, without building a list
        answer = answers[0]
        return answer if answer and not answer.isspace() else None
    answers = [answer for answer in answers if answer and not answer.isspace()]
    if len(answers) == 1:
        return answers[0]
    return answers or None


def _note_sample(exc: BaseException, name: str, sample_id: Any) -> None:
    """Name the scorer and the sample in one note on `exc`: the last line of the traceback Inspect prints.

    The scorer's own note ("raised inside the scorer 'x'", the core's) becomes this one, not a second line.
    """
    plain = f"raised inside the scorer {name!r}"
    notes = getattr(exc, "__notes__", None)
    if isinstance(notes, list) and plain in notes:
        notes[notes.index(plain)] = f"{plain} on sample {sample_id!r}"
    else:
        add_note(exc, f"{plain} on sample {sample_id!r}")


def score_fn(
    scorer: sb.Scorer,
    name: str,
    item: StateReader = _input_text,
    output: StateReader = _completion,
    on_error: OnError = "raise",
) -> Scorer:
    """The async `(state, target) -> Score` function that runs `scorer` inside Inspect AI.

    A `fast` scorer (`Scorer.fast`: it never waits, and takes microseconds on
    any text) is called inline on Inspect's loop. A fast built-in (exact and
    the detect scorers but detect_pattern) is called at its function directly
    and its Inspect Score is built without validation
    (`inspect_score(trusted=True)`); the default item, the input text, is not
    read for it: the built-ins compare the output with the label and never
    read the item.

    An async scorer is awaited on Inspect's event loop (`acall`). Any other sync
    scorer (your own, `from_dspy`, a model-graded scorer with a sync grader,
    `detect_pattern`, whose regex may run until its timeout) may block, and
    inline it would stall every sample: it runs in a worker thread (anyio's, as
    Inspect runs its own blocking work, on either of Inspect's async backends),
    with the context variables of the sample. Both carry the sample's state and
    target with the call (`_native.NATIVE`), for a `from_inspect` scorer called
    inside with the same arguments.

    The function says what it was made from: its `scorebridge_origin` attribute
    (`_native.Origin`), which `from_inspect` reads to give the scorer back.
    """
    trusted = scorer.fast and is_builtin(scorer)  # a built-in's Score is valid by construction; it reads no item
    in_thread = not scorer.is_async and not scorer.fast
    fn, acall = scorer.fn, scorer.acall
    default_item, default_output = item is _input_text, output is _completion

    async def score(state: TaskState, target: Target) -> Score:
        label = _label(target)
        try:
            if trusted:
                result = fn(
                    None if default_item else item(state),
                    state.output.completion if default_output else output(state),
                    label,
                )
            else:
                i, o = item(state), output(state)
                token = NATIVE.carry(i, o, label, (state, target))
                try:
                    if in_thread:
                        result = await anyio.to_thread.run_sync(scorer, i, o, label)
                    else:  # async, awaited here; or fast, called inline
                        result = await acall(i, o, label)
                finally:
                    NATIVE.drop(token)
        except sb.ScorerContractError as exc:  # a label it cannot read, a return value of the wrong shape
            # The sample named in the message: the data's problem, found by its id. An unreadable label is raised
            # with "record" too (the core's rule).
            if on_error == "raise" or isinstance(exc, sb.UnreadableLabel):
                raise naming_row(exc, f"sample {state.sample_id!r}") from None
            result = raised_score(scorer.name, exc, label, needs_label=scorer.needs_label)
        except Exception as exc:
            if on_error == "raise":
                _note_sample(exc, scorer.name, state.sample_id)
                raise  # as the scorer raised it, so `pytest.raises(ValueError)` and Inspect's log show it
            result = raised_score(scorer.name, exc, label, needs_label=scorer.needs_label)
        if (
            result.correct is False
            and result.failure_kind in _REPLACED_BY_BUDGET_STOP
            and (choices := state.output.choices)
            and choices[0].stop_reason in _BUDGET_STOPS
        ):
            result = recorded(
                scorer.name, False, result.outcome, "budget_stop", result.value, result.explanation, result.metadata
            )
        return inspect_score(result, trusted)

    setattr(score, ORIGIN, Origin(scorer, on_error))
    return score


def _home(scorer: sb.Scorer) -> str:
    fn = scorer.fn
    while isinstance(fn, functools.partial):
        fn = fn.func
    module = getattr(fn, "__module__", None)
    return module if isinstance(module, str) else __name__


def _check_reader(scorer: str, arg: str, reader: StateReader | None, default: StateReader) -> StateReader:
    if reader is None:
        return default
    if not callable(reader):
        raise TypeError(f"to_inspect({scorer}): {arg} must be a function of the TaskState; got {type(reader).__name__}")
    return reader


def to_inspect(
    scorer: sb.Scorer,
    *,
    name: str | None = None,
    metrics: Metrics | None = None,
    item: StateReader | None = None,
    output: StateReader | None = None,
    on_error: OnError = "raise",
    timeout: float | None = None,
) -> Scorer:
    """A scorebridge scorer as an Inspect AI scorer, for `Task(scorer=...)`, `eval()` and the log viewer.

    A scorer made by `from_inspect(x)` gives back `x` itself: a round trip is
    an identity (same Scores, metrics, logged name and arguments, exceptions).
    With `name` (other than `x`'s), `metrics`, `on_error="record"`, or a
    `from_inspect(model=...)`, it is `x` in a thin registered wrapper that
    calls it on Inspect's own state and target, untouched (`_round_trip`);
    `item` and `output` cannot apply to it (`x` reads the state itself), and
    are a ValueError.

    Any other scorer: the result is made by a real `@scorer` factory, registered under `name`
    (default: the scorer's name), so logs show that name and record the
    scorer's options as its arguments. Inspect's registry keeps the last
    factory registered under a name, and eval-retry and `inspect score`
    call it with the options in the log: a built-in scorer (`exact()`, the
    `detect_*` scorers) is then made again with those options; any other
    scorer given options other than its own is a ValueError naming it (give
    different scorers different names). Per sample, the scorer is run (an
    async scorer awaited on Inspect's loop, so async scorers run concurrently
    across samples; an always-fast built-in inline; any other sync scorer,
    `detect_pattern` included, in a worker thread, so one that blocks does not
    stall the eval: it must be thread-safe) on:

    - item: `item(state)`, default the sample's input text (`state.input_text`;
      for an input with no user message, which makes Inspect's `input_text`
      raise, the text of the input's last message that has any, else "");
    - output: `output(state)`, default `state.output.completion`;
    - label: the target, one string, or the list when the sample has several
      targets; an empty target ("", Inspect's default) means no label, so the
      Score is unscored: `Score.unscored()`, out of the metrics (the scorer's
      function gets None; a scorer made with `needs_label=False` scores the
      sample all the same). Inspect's targets are text: a scorer that declares
      its label (`label: float`) gets it converted, and a target it cannot
      read is a `ScorerContractError` naming the scorer and the sample's id.

    The Inspect Score is `inspect_score()` of the scorebridge Score: value
    "C"/"I"/"P" (or the number, for partial credit other than 0.5), answer =
    outcome, explanation, reason from the failure kind, and
    `metadata["failure_kind"]` always (None when correct).

    Budget stop: when the model stopped on its token or context limit
    (`stop_reason` "max_tokens" or "model_length") and the Score is wrong
    with kind "wrong" or "parse_failure", the kind becomes "budget_stop".
    Other kinds (refusal, not_in_document, error) are kept: they say more.

    on_error: an exception inside the scorer (or inside `item`/`output`)
    propagates unchanged with "raise" (the default), with a one-line note
    naming the scorer and the sample ("raised inside the scorer 'boom' on
    sample 's2'"; so `pytest.raises(ValueError)` catches a ValueError); Inspect
    records it as the sample's error (and, with its default `fail_on_error`,
    fails the eval). With "record", the sample gets a wrong Score with failure
    kind "error" (reason "scoring_failed", explanation naming the exception),
    which counts as wrong in the metrics (unscored when the sample has no
    target and the scorer needs one). With "raise" and Inspect's
    `fail_on_error=False`, Inspect leaves the errored sample out of the
    metrics (1 correct of 3, one raising, is 0.5 over 2; "record" gives 0.333
    over 3, as every other harness does).

    metrics: Inspect metrics (made with `@metric`); default accuracy(),
    stderr() and `failure_kinds()`, the count of each failure kind among the
    scored samples, so `inspect eval` prints them, the log's `results` holds
    them and `inspect view` shows them (give `[accuracy(), stderr()]` to leave
    them out); in a round trip, `x`'s own.

    timeout: seconds the scorer may take on one sample (None, the default: no
    limit), as `Scorer.with_timeout` gives it (Inspect limits a sample's time,
    not a scorer's): a call past it has raised a `scorebridge.ScorerTimeout`
    (a TimeoutError), recorded or raised as `on_error` says. A sync scorer's
    call past it is abandoned on its thread, still running (Python cannot stop
    a thread).
    """
    if not isinstance(scorer, sb.Scorer):
        raise TypeError(f"to_inspect: scorer must be a scorebridge Scorer; got {type(scorer).__name__}")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValueError(f"to_inspect({scorer.name}): name must be a non-blank string; got {name!r}")
    if on_error not in ("raise", "record"):
        raise ValueError(f"to_inspect({scorer.name}): on_error must be 'raise' or 'record'; got {on_error!r}")
    if metrics is not None and (isinstance(metrics, (str, bytes)) or not isinstance(metrics, (Sequence, Mapping))):
        raise TypeError(f"to_inspect({scorer.name}): metrics must be a list or dict of metrics; got {metrics!r:.80}")
    if timeout is not None:
        scorer = scorer.with_timeout(timeout)
    read_item = _check_reader(scorer.name, "item", item, _input_text)
    read_output = _check_reader(scorer.name, "output", output, _completion)
    if isinstance(scorer.fn, InspectCall):  # made by from_inspect: Inspect's own scorer, again
        return inspect_again(scorer.fn, name or scorer.name, metrics, item is not None or output is not None, on_error)
    if name is None:
        name = scorer.name
    score = score_fn(scorer, name, read_item, read_output, on_error)

    def factory(**options: Any) -> Scorer:
        # Called here with the scorer's own options, which the log records as its arguments. Inspect calls
        # it again by name, with the options in a log (eval-retry, `inspect score`); the registry maps a
        # name to the last factory registered under it, which may have been made for other options.
        if options == scorer.options:
            return score
        if scorer.factory is None:
            raise ValueError(
                f"to_inspect({scorer.name}): cannot make the scorer {scorer.name!r} again with the options "
                f"{options!r:.200}: it was not made by a factory of its options (a built-in, or @scorer with "
                f"keyword-only options). The scorer registered as {name!r} is the last one given that name; "
                "give different scorers different names (to_inspect(scorer, name=...))"
            )
        return score_fn(scorer.with_options(**options), name, read_item, read_output, on_error)

    # Inspect names a scorer after the installed package its factory's module belongs to ("mylib/name"), as
    # for a scorer written with its own @scorer: the module of the scorer's function, not this adapter's.
    factory.__module__ = _home(scorer)
    return inspect_scorer(metrics=default_metrics() if metrics is None else metrics, name=name)(factory)(
        **scorer.options
    )
