"""The reverse direction's rules, once: a harness's scorer wrapped as a scorebridge one.

Every reverse adapter (`from_inspect`, `from_dspy`, the docs' `from_tally`) reads
the label and the output, decides whether the harness's scorer is asked at all,
calls it (sync or async), and makes its verdict a Score. The order of those steps
carries the recording rules, so it is written here, once:

- `ask(name, output, label)`: a finished Score (the harness is not asked), or an
  `Ask`: what to hand the harness's scorer;
- `judge(name, call, read)`: the harness's scorer called once, handed the label
  as the harness holds it (`Ask.label`: a list stays a list), sync or async
  from one body, an exception naming the scorer; `judge_each(name, ask, call,
  read)`: the explicit per-answer option, once per accepted answer until one is
  correct, for a harness that takes one reference;
- `verdict(name, ask, correct, ...)`: the harness's verdict made a Score;
- `sync_and_async(body, is_async=...)`: a Scorer's fn from a body that may return
  an awaitable: async exactly when the harness's scorer is;
- `recording(name, body, on_error, needs_label=...)`: the body with the
  adapter's `on_error="record"`, sync or async; `body_of(scorer)`: the body a
  Scorer's fn was made from, for a round trip to find what it wraps;
- `unwrap(value, keys)`: a label or an output out of the mapping a harness
  holds it in (LangSmith's `{"answer": ...}`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, NamedTuple, TypeVar, overload

from .._protocol.reading import Rejected, accepted_answers, item_text, presort
from .._protocol.record import raised_score, recorded
from .._protocol.score import FailureKind, Score, ScorerContractError
from .._protocol.scorer import OnError, Scorer, ScorerFn, check_on_error, note_scorer
from .._protocol.values import label_is_missing

__all__ = [
    "Ask",
    "ask",
    "body_of",
    "item_text_for",
    "judge",
    "judge_each",
    "reads_argument",
    "recording",
    "sync_and_async",
    "unwrap",
    "verdict",
]

R = TypeVar("R")


class Ask(NamedTuple):
    """What to hand a harness's scorer for one row (`ask` gives it when the harness is to be asked).

    - `text`: the output's text, as a harness of text should judge it: "" when
      the output has none, the sentinel itself ("NOT_IN_DOCUMENT") when that is
      what it says;
    - `answers`: the label's accepted answers as text (numbers in plain digits,
      blanks dropped); () when the row has no label, or the label was not read
      as answers (`read_label=False`);
    - `rejected`: the `Rejected` reason pre-sorting found that the output did not
      report itself (no text, NOT_IN_DOCUMENT), or None: the harness is asked
      anyway, and `verdict` records a "wrong" with this kind;
    - `unlabelled`: True when the row has no label (only given for a scorer that
      needs none: one that does is not asked);
    - `output`: the output as it was given (a structured prediction, a list, a
      mapping), for a harness whose scorers read outputs as they are;
    - `label`: the label as the harness holds it, the one label rule of every
      reverse adapter: as it was given (a list stays a list, a number a number,
      never split into accepted answers), None when the row has no label (None,
      NaN, blank text, an empty list). A harness scorer is handed this, once;
      asking it once per accepted answer is the explicit option `judge_each`.
    """

    text: str
    answers: tuple[str, ...]
    rejected: Rejected | None
    unlabelled: bool
    output: Any
    label: Any


def ask(
    scorer_name: str,
    output: Any,
    label: Any,
    *,
    needs_label: bool = True,
    read_label: bool = True,
    structured: bool = False,
) -> Score | Ask:
    """The reverse direction's reading rules in one call: a finished Score, or what to ask the harness.

    In order:

    1. the label is read (`accepted_answers`): an unreadable one (and an
       output or label whose own methods raise) is a `ScorerContractError`
       naming the scorer;
    2. the output is pre-sorted (`presort`); one that reports its own failure
       (a `failure_kind` element, `ok` False) gives its Score: wrong for that
       reason (unscored, the kind kept, with no label), the harness not asked;
    3. no label, when the scorer needs one (`needs_label`): unscored, the
       output's failure kind kept (parse_failure for no text, not_in_document),
       the harness not asked;
    4. else an `Ask`: the harness judges the output (`.text`, or `.output` as
       given) against the label (`.label` as the harness holds it, or
       `.answers`, its accepted answers as text).

    `read_label=False` is for a harness whose scorers read the label as the data
    has it (a DSPy metric, a TRL reward: any label, a mapping, a nested list):
    the label is not read as accepted answers (`.answers` is ()), only tested
    for "no label" (`label_is_missing`), and NOT_IN_DOCUMENT is rejected
    whatever it is.

    `structured=True` is for a harness whose scorers read the output as it is
    (DSPy's Prediction fields, MLflow's and pydantic-evals' outputs): a value
    with no text (a list, a bool, a mapping with no answer or text element) is
    an answer, handed over whole (`.text` ""), and a "wrong" about it is
    "wrong", not a parse failure; a missing output (None, NaN), blank text,
    bytes and NOT_IN_DOCUMENT are rejected as for any harness. Without it (a
    harness of text: Inspect's completion, TRL's, verl's) such a value has no
    text: a parse failure.
    """
    try:
        answers = accepted_answers(scorer_name, label) if read_label else ()
        unlabelled = not answers if read_label else label_is_missing(label)
        text = presort(scorer_name, output, answers)
    except ScorerContractError:
        raise
    except Exception as exc:  # an output or a label whose own methods fail (a hostile __str__, __getattr__)
        raise ScorerContractError(f"{scorer_name}: cannot read the output or the label: {exc!r:.200}") from exc
    given = None if unlabelled else label
    if type(text) is Rejected:
        if structured and text.structured:  # a value the harness reads as it is: an answer, with no text
            if unlabelled and needs_label:
                return recorded(scorer_name, None, None, None, unlabelled=True)
            return Ask("", answers, None, unlabelled, output, given)
        if text.reported or (unlabelled and needs_label):
            return text.record(scorer_name, unlabelled and needs_label)
        return Ask(text.outcome or "", answers, text, unlabelled, output, given)
    if unlabelled and needs_label:
        return recorded(scorer_name, None, text, None, unlabelled=True)  # type: ignore[arg-type]  # text is str
    return Ask(text, answers, None, unlabelled, output, given)  # type: ignore[arg-type]


_INTROSPECTION: Final = frozenset({"locals", "vars", "eval", "exec", "_getframe", "currentframe"})
"""Names through which a function can read its arguments without naming them."""


def reads_argument(fn: Any, position: int) -> bool:
    """Whether the harness scorer `fn` reads its positional argument `position`, read from its code.

    How a reverse adapter knows a harness scorer needs no label, where the
    harness does not say: an Inspect scorer `score(state, target)` whose body
    never reads `target`, a DSPy metric that never reads its example, a TRL
    reward that never reads its label column. True (it reads it: the safe
    answer) unless `fn` is a plain function or method (through
    `functools.partial`) whose code provably never loads the argument: the
    name is loaded nowhere, no nested function closes over it, and the code
    calls nothing that reads arguments by frame (`locals()`, `vars()`,
    `eval`, `exec`, `sys._getframe`). A callable object, a builtin, an
    argument the partial binds, a signature with fewer positional arguments,
    are all True.
    """
    import dis
    import functools

    while isinstance(fn, functools.partial):
        if fn.args or fn.keywords:
            return True
        fn = fn.func
    if hasattr(fn, "__func__") and hasattr(fn, "__self__"):  # a bound method: its self is the function's first
        fn, position = fn.__func__, position + 1
    code = getattr(fn, "__code__", None)
    if code is None or not hasattr(code, "co_varnames"):
        return True
    if position >= code.co_argcount:
        return True
    name = code.co_varnames[position]
    if name in code.co_cellvars or _INTROSPECTION & set(code.co_names):
        return True
    for instruction in dis.get_instructions(code):
        if "LOAD" in instruction.opname:
            value = instruction.argval
            if value == name or (isinstance(value, tuple) and name in value):
                return True
    return False


def item_text_for(scorer_name: str, item: Any) -> str:
    """The item's text to hand a harness's scorer: `item_text(item)`, "" when it has none.

    An item that cannot be read (a number of more than `MAX_DIGITS` digits, a
    string whose own methods raise) is a `ScorerContractError` naming the scorer.
    """
    try:
        return item_text(item) or ""
    except Exception as exc:
        raise ScorerContractError(f"{scorer_name}: cannot read the item: {exc!r:.200}") from exc


class _Text:
    """The type of `TEXT`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "TEXT"


TEXT: Final = _Text()
"""`verdict`'s default outcome: the output's text (None for an output with none)."""


def verdict(
    scorer_name: str,
    ask: Ask,
    correct: bool | None,
    *,
    value: float | None = None,
    outcome: str | _Text | None = TEXT,
    explanation: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    failure_kind: FailureKind | None = None,
) -> Score:
    """The harness's verdict on `ask` made a Score by the recording rules.

    `correct` is the harness's verdict (None: it left the row unscored), `value`
    its points (partial credit; default 1.0 or 0.0 from `correct`), `outcome`
    what it judged (not given: the output's text, as `exact()` records it,
    None for an output with none, a structured one included; None: no outcome),
    `failure_kind` a kind the harness gave itself (a refusal, a grader error).

    The one rule for a rejected output (`ask.rejected`: no text, or
    NOT_IN_DOCUMENT, which the harness was asked about anyway): a verdict that
    is not correct (wrong, or unscored) records the rejection, its kind
    (parse_failure, not_in_document) and, unless the harness gave one, its
    explanation, as `exact()` does; a failure kind the harness gave (other
    than "wrong", which every wrong answer is) wins. A harness that calls the
    output correct is taken at its word.
    """
    rejected = ask.rejected
    if isinstance(outcome, _Text):
        outcome = rejected.outcome if rejected is not None else (ask.text or None)
    if rejected is not None and correct is not True and failure_kind in (None, "wrong"):
        return recorded(
            scorer_name, False, outcome, rejected.failure_kind, value, explanation or rejected.explanation, metadata
        )
    return recorded(scorer_name, correct, outcome, failure_kind, value, explanation, metadata)


def _noted(scorer_name: str, exc: BaseException) -> None:
    if not isinstance(exc, ScorerContractError):
        note_scorer(exc, scorer_name)


async def _awaited(scorer_name: str, pending: Awaitable[R], read: Callable[[R], Score]) -> Score:
    try:
        result = await pending
    except Exception as exc:
        _noted(scorer_name, exc)
        raise
    return read(result)


@overload
def judge(scorer_name: str, call: Callable[[], Awaitable[R]], read: Callable[[R], Score]) -> Awaitable[Score]: ...
@overload
def judge(scorer_name: str, call: Callable[[], R], read: Callable[[R], Score]) -> Score | Awaitable[Score]: ...
def judge(
    scorer_name: str, call: Callable[[], R | Awaitable[R]], read: Callable[[R], Score]
) -> Score | Awaitable[Score]:
    """Call the harness's scorer (`call()`) and read its result (`read(result)`), sync or async from one body.

    When `call()` returns an awaitable (an async harness scorer), the result is
    an awaitable of the Score, to return from the Scorer's fn as it is: a
    `Scorer(..., recorded=True)` waits for it in a plain call and awaits it in
    `acall` (`sync_and_async` makes the Scorer async too). An exception raised
    by the harness's scorer, called or awaited, propagates with a note naming
    the scorer (`note_scorer`); a `ScorerContractError` unchanged.
    """
    try:
        result = call()
    except Exception as exc:
        _noted(scorer_name, exc)
        raise
    if isinstance(result, Awaitable):
        return _awaited(scorer_name, result, read)
    return read(result)  # not an awaitable: an R


def _better(score: Score, best: Score | None) -> bool:
    if best is None:
        return True
    if score.value is None:
        return False
    return best.value is None or score.value > best.value


async def _each_async(
    scorer_name: str,
    references: list[str | None],
    first: Awaitable[R],
    call: Callable[[str | None], R | Awaitable[R]],
    read: Callable[[R], Score],
    best: Score | None,
) -> Score:
    pending: R | Awaitable[R] = first
    for n in range(len(references)):
        if n:
            try:
                pending = call(references[n])
            except Exception as exc:
                _noted(scorer_name, exc)
                raise
        try:
            result = await pending if isinstance(pending, Awaitable) else pending
        except Exception as exc:
            _noted(scorer_name, exc)
            raise
        score = read(result)
        if score.correct is True:
            return score
        if _better(score, best):
            best = score
    assert best is not None  # references is never empty
    return best


@overload
def judge_each(
    scorer_name: str, ask: Ask, call: Callable[[str | None], Awaitable[R]], read: Callable[[R], Score]
) -> Awaitable[Score]: ...
@overload
def judge_each(
    scorer_name: str, ask: Ask, call: Callable[[str | None], R], read: Callable[[R], Score]
) -> Score | Awaitable[Score]: ...
def judge_each(
    scorer_name: str,
    ask: Ask,
    call: Callable[[str | None], R | Awaitable[R]],
    read: Callable[[R], Score],
) -> Score | Awaitable[Score]:
    """`judge` asked once per accepted answer, until one is correct: the explicit per-answer option.

    Not the default of any reverse adapter: the one label rule hands the
    harness's scorer the label whole, once (`Ask.label`, with `judge`). This
    loop is for a harness whose scorer takes one reference and cannot be handed
    a list, or a user who asks for "several accepted answers" read as
    scorebridge's own scorers read them (`from_trl(..., each_answer=True)`).

    `call(answer)` asks the harness's scorer about `ask.text` against one
    accepted answer (None when the row has none, for a scorer that needs no
    label: asked once). The Score is the first correct one, in the label's
    order; when none is, the one with the highest value (the first of equals;
    an unscored one counts below any value), as matching any accepted answer
    is correct. Cost: a correct output costs one call per answer up to the one
    it matches, a wrong one a call per accepted answer: an LLM judge over a
    label of three answers is asked three times about every wrong output.
    """
    references: list[str | None] = list(ask.answers) or [None]
    best: Score | None = None
    for n, reference in enumerate(references):
        try:
            result = call(reference)
        except Exception as exc:
            _noted(scorer_name, exc)
            raise
        if isinstance(result, Awaitable):  # an async harness: the rest are awaited too
            return _each_async(scorer_name, references[n:], result, call, read, best)
        score = read(result)
        if score.correct is True:
            return score
        if _better(score, best):
            best = score
    assert best is not None  # references is never empty
    return best


class _Sync:
    """A Scorer's fn from a body that may return an awaitable: a plain call waits for it."""

    __slots__ = ("body",)

    def __init__(self, body: Callable[..., Score | Awaitable[Score]]) -> None:
        self.body = body

    def __repr__(self) -> str:
        return repr(self.body)

    def __call__(self, item: Any, output: Any, label: Any) -> Score:
        result = self.body(item, output, label)
        if type(result) is Score:
            return result
        from .._protocol.sync import run_sync

        return run_sync(result)


class _Async(_Sync):
    """A Scorer's fn from a body that may return an awaitable: async, awaiting it."""

    __slots__ = ()

    async def __call__(self, item: Any, output: Any, label: Any) -> Score:  # type: ignore[override]
        result = self.body(item, output, label)
        return result if type(result) is Score else await result


def sync_and_async(body: Callable[..., Score | Awaitable[Score]], *, is_async: bool) -> ScorerFn:
    """A Scorer's fn made from `body(item, output, label)`, which returns a Score or an awaitable of one.

    With `is_async=True` (the harness's scorer is async: `kit.is_async(check)`)
    the fn is async, so the Scorer is (`Scorer.is_async`): `acall` and
    `ascore_many` await it in one event loop, and a plain call runs it to
    completion. Else a sync fn that waits for an awaitable body result
    (`run_sync`). Either way one body, no hand-written twin. The fn's `body`
    attribute is `body`, for a round trip to find what it wraps.
    """
    return _Async(body) if is_async else _Sync(body)


Body = Callable[[Any, Any, Any], "Score | Awaitable[Score]"]
"""A reverse adapter's body: `body(item, output, label)`, a Score or an awaitable of one."""


class _Recording:
    """A body whose exceptions are the row's Score (`on_error="record"`), raised or awaited."""

    __slots__ = ("body", "name", "needs_label")

    def __init__(self, name: str, body: Body, needs_label: bool) -> None:
        self.name, self.body, self.needs_label = name, body, needs_label

    def __repr__(self) -> str:
        return repr(self.body)

    def __call__(self, item: Any, output: Any, label: Any) -> Score | Awaitable[Score]:
        try:
            result = self.body(item, output, label)
        except Exception as exc:
            return raised_score(self.name, exc, label, needs_label=self.needs_label)
        return result if type(result) is Score else self._awaited(result, label)

    async def _awaited(self, pending: Awaitable[Score], label: Any) -> Score:
        try:
            return await pending
        except Exception as exc:
            return raised_score(self.name, exc, label, needs_label=self.needs_label)


def recording(scorer_name: str, body: Body, on_error: OnError, *, needs_label: bool = True) -> Body:
    """`body(item, output, label)` under a reverse adapter's `on_error`: "raise" gives `body` itself.

    With "record", an `Exception` raised by the body, called or awaited (an
    async harness scorer's), is the row's `raised_score(scorer_name, exc,
    label, needs_label=needs_label)`: wrong, failure kind "error", the
    exception in its explanation; unscored, the kind kept, on a row with no
    label when the scorer needs one. An `UnreadableLabel` is raised again
    whatever `on_error` says (a fault of the data); a KeyboardInterrupt is
    never caught. Any other `on_error` is a ValueError naming the scorer.
    Make the Scorer's fn of it with `sync_and_async`; `body_of` finds `body`.
    """
    if check_on_error(f"recording({scorer_name})", on_error) == "raise":
        return body
    return _Recording(scorer_name, body, needs_label)


def body_of(scorer: Scorer) -> Any:
    """The body a reverse adapter made `scorer`'s fn from (`sync_and_async`, `recording`); None for another fn.

    A forward adapter asks it for a round trip: `isinstance(body_of(s), MyCall)`
    finds the harness scorer `s` wraps, with or without `on_error="record"`.
    """
    body = getattr(scorer.fn, "body", None) if isinstance(scorer.fn, _Sync) else None
    return body.body if isinstance(body, _Recording) else body


def unwrap(value: Any, keys: tuple[str, ...] = (), *, sole: bool = False) -> Any:
    """A label or an output out of the mapping a harness holds it in, under one of `keys`.

    For a mapping: the value under the first of `keys` it has (LangSmith's
    reference outputs `{"answer": "Paris"}` with `keys=("answer",)` give
    "Paris"); else, with `sole=True`, the value of a mapping of one key,
    whatever its name (`{"city": "Paris"}`); an empty mapping holds nothing,
    None. Anything else, and a mapping of several other keys, is given back
    as it is: a structured output stays structured. Never raises: a mapping
    whose lookup raises is given back as it is.
    """
    if not isinstance(value, Mapping):
        return value
    try:
        for key in keys:
            if key in value:
                return value[key]
        if not value:
            return None
        if sole and len(value) == 1:
            return next(iter(value.values()))
    except Exception:  # a mapping whose own methods fail: the scorer reads it as it is
        return value
    return value
