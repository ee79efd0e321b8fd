"""The adapter kit: everything an adapter between scorebridge and a harness needs, and nothing else.

The adapters that ship with scorebridge (Inspect AI, DSPy, MLflow,
pydantic-evals, LangSmith and openevals, deepeval, RL rewards for TRL and
verl, pytest, Ray) are built on these names only; an adapter of your own (a
harness scorebridge does not ship, an in-house one) can be too.
docs/adapters.md walks through one, and lists each name with its signature.
The names here are public API, under the same stability promise as
`scorebridge` itself.

Reading what a harness hands over:

- `presort(scorer, output, answers)`: the text of an output, or the `Rejected`
  reason it is not an answer (a failure_kind element, `ok` False, no text,
  NOT_IN_DOCUMENT);
- `accepted_answers(scorer, label)`: a label's accepted answers as text;
  `label_is_missing(label)`: True when an item has no label;
- `item_text(item)`: an item's text (`ITEM_TEXT_FIELDS`: `input`, then `question`);
  `item_text_for(scorer, item)`: the same, "" for none, an unreadable item a
  `ScorerContractError` naming the scorer;
- `element(obj, key)`: a mapping's value or an attribute, never raising;
- `unwrap(value, keys, sole=False)`: a label or an output out of the mapping
  a harness holds it in (LangSmith's `{"answer": ...}`, `{"output": ...}`);
- `fold`, `plain_digits`, `is_number`, `is_bool`, `is_missing`: the readers
  the rules above are made of.

The reverse direction (a harness's scorer as a scorebridge one), its rules once:

- `ask(scorer_name, output, label, needs_label=True, structured=False)`: a finished
  Score (a reported rejection; no label, its kind kept), or an `Ask` (`.text`,
  `.answers`, `.rejected`, `.unlabelled`, `.output` as given, `.label` as the
  harness holds it): what to hand the harness's scorer. The one label rule: the
  harness scorer gets `.label`, a list whole, once;
- `judge(scorer_name, call, read)`: the harness's scorer called, sync or async from
  one body, an exception naming the scorer; `judge_each(scorer_name, ask, call,
  read)`: the explicit per-answer option, once per accepted answer until one
  is correct;
- `reads_argument(fn, position)`: whether a harness scorer's code reads an
  argument (an Inspect scorer's target, a DSPy metric's example): how an
  adapter knows it needs no label where the harness does not say;
- `verdict(scorer_name, ask, correct, ...)`: the harness's verdict made a Score (a
  "wrong" about a rejected output records the rejection's kind);
- `sync_and_async(body, is_async=...)`: a Scorer's fn, async when the harness is;
- `recording(scorer_name, body, on_error, needs_label=True)`: the body under
  the adapter's `on_error` ("record": an exception, raised or awaited, is the
  row's `raised_score`); `body_of(scorer)`: the body again, for a round trip;
- `options_of(obj)`: a harness scorer's identity as JSON options (a closure's
  cells, a partial's arguments, an object's constructor arguments),
  `OptionsError` for what JSON cannot hold;
- `scale(scorer_name, score_range=None, threshold=None)`: a `Scale`, the harness
  scorer's range of points (none declared: 0-1) and its threshold;
  `.read(scorer_name, x)`: the one reading of whatever a harness scorer
  returned, `(correct, value)`: a bool, a grade word, points mapped onto 0-1
  and decided on the harness's own scale; None and NaN no verdict; points
  outside the range (with none declared: outside 0-1), or anything else, a
  `ScorerContractError` naming the scorer.

Making Scores:

- `record(scorer, raw, unlabelled)`: the recording rules over whatever a
  scorer function returned; `recorded(...)`: the rules over fields already
  read (what an adapter that reads a harness's result calls);
- `raised_score(name, exc, label, needs_label=True)`: the Score of a row whose scoring raised,
  where the harness records errors (`on_error="record"`): failure kind "error";
- `metadata_dict(score)`: a new dict of a Score's metadata; `metadata_text(score)`: it as JSON text;
- `grade_value(x)`: dsprrr's grade mapping (C/I/P, words, numbers, bools) to a
  number or None; `ScorerContractError`: what a scorer's broken contract raises.

Scorers:

- `Scorer(name, fn, options, factory=..., recorded=True, needs_label=...)`: an
  adapter's scorer, whose `fn` returns recorded Scores (`needs_label=False`
  for a harness scorer that needs no reference);
- `BUILTINS`, `is_builtin(scorer)`, `rebuild(name, options)`: the built-in
  scorers by name, for a harness that makes scorers again from a log;
- `defined_scorers()`, `on_scorer_defined(listener)`: the scorers users define
  with `@scorer` at the top of a module, for a harness that finds scorers by name;
- `GRADER_FAILED`: the metadata key of a Score whose grader failed (counted as
  `Summary.grader_failed`); `grader_failed(score)`: whether a Score is such a
  row (unscored, with that key), for a harness that counts summaries itself;
  `GRADER_CACHED`: the key (True) of one whose grader's reply came from the
  cache;
- `grader_deadline(seconds)`: a block within which no grader call of a
  model-graded scorer runs longer (a reward batch's deadline);
- `grader_identity(grader)`: what tells graders apart in a `GraderCache`.

Both directions at once:

- `NativeCalls`: the harness's own objects a scorer's arguments were read
  from, carried with the call, so a reverse adapter called with those very
  arguments (a scorer of one's own calling a wrapped harness scorer) hands
  the harness scorer the harness's own objects; `with NATIVE.carrying(item,
  output, label, native):` carries them for a block.

Running and reporting:

- `is_async(fn)`, `run_sync(awaitable)`: telling async callables apart, and
  waiting for one from sync code (in or out of a running event loop);
- `add_note(exc, note)`, `note_scorer(exc, name)`: naming the scorer in an
  exception raised inside it;
- `Summary`, `Summaries`, `text_table`: the one summary and the one table;
- `parse_group_by(columns)`, `group_key(fields, columns)`, `group_name(key,
  columns)`: groups of rows as `--group-by` makes them (a summary per group:
  `scorebridge.GroupedSummaries`), for a harness that counts its rows itself;
- `read_rows(path)`, `RowError`: rows of a JSONL or CSV file (or Parquet, with
  pyarrow), with "FILE:LINE: problem" errors.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import Any, Generic, TypeVar

from .._protocol.grade import grade_value
from .._protocol.reading import (
    ITEM_TEXT_FIELDS,
    Rejected,
    accepted_answers,
    element,
    fold,
    item_text,
    presort,
)
from .._protocol.record import raised_score, record, recorded
from .._protocol.score import ScorerContractError, metadata_dict, metadata_text, naming_row
from .._protocol.scorer import (
    Scorer,
    add_note,
    defined_scorers,
    is_async,
    note_scorer,
    on_scorer_defined,
    unlabelled,
)
from .._protocol.values import is_bool, is_missing, is_number, label_is_missing, plain_digits
from .._runner.files import RowError, read_rows
from .._runner.groups import group_key, group_name, parse_group_by
from .._runner.summary import Summaries, Summary, grader_failed, text_table
from .._scorers.builtins import BUILTINS, is_builtin, rebuild
from .._scorers.grader_cache import grader_identity
from .._scorers.grader_calls import grader_deadline
from .._scorers.model_graded import GRADER_CACHED, GRADER_FAILED
from ._options import OptionsError, options_of
from ._reverse import (
    Ask,
    ask,
    body_of,
    item_text_for,
    judge,
    judge_each,
    reads_argument,
    recording,
    sync_and_async,
    unwrap,
    verdict,
)
from ._scale import Scale, scale

__all__ = [
    "BUILTINS",
    "GRADER_CACHED",
    "GRADER_FAILED",
    "ITEM_TEXT_FIELDS",
    "Ask",
    "NativeCalls",
    "OptionsError",
    "Rejected",
    "RowError",
    "Scale",
    "Scorer",
    "ScorerContractError",
    "Summaries",
    "Summary",
    "accepted_answers",
    "add_note",
    "ask",
    "body_of",
    "defined_scorers",
    "element",
    "fold",
    "grade_value",
    "grader_deadline",
    "grader_failed",
    "grader_identity",
    "group_key",
    "group_name",
    "is_async",
    "is_bool",
    "is_builtin",
    "is_missing",
    "is_number",
    "item_text",
    "item_text_for",
    "judge",
    "judge_each",
    "label_is_missing",
    "metadata_dict",
    "metadata_text",
    "naming_row",
    "note_scorer",
    "on_scorer_defined",
    "options_of",
    "parse_group_by",
    "plain_digits",
    "presort",
    "raised_score",
    "read_rows",
    "reads_argument",
    "rebuild",
    "record",
    "recorded",
    "recording",
    "run_sync",
    "scale",
    "sync_and_async",
    "text_table",
    "unlabelled",
    "unwrap",
    "verdict",
]

T = TypeVar("T")
N = TypeVar("N")


class NativeCalls(Generic[N]):
    """The harness objects a forward adapter read a scorer's arguments from, carried with the call.

    A forward adapter (a scorer run inside a harness) `carry`s the harness's own
    objects (Inspect's TaskState and Target, DSPy's Example and Prediction) around
    its call of the scorer, with the item, output and label it read from them. A
    reverse adapter (a harness scorer wrapped as a scorebridge one) asks
    `native(item, output, label)`: the harness objects when these are the very
    same objects (identity, not equality), so a scorer of one's own that calls a
    wrapped harness scorer with what it was given hands that scorer the
    harness's own objects; None otherwise (a call from anywhere else, or with
    other arguments), and the adapter builds its own.

    A context variable: each thread, task and copied context sees its own, and
    worker threads that copy the context (anyio's) see the caller's.
    """

    __slots__ = ("_var",)

    def __init__(self, name: str) -> None:
        # (item, output, label, native): a plain tuple, the cheapest to make on every call
        self._var: ContextVar[tuple[Any, Any, Any, N] | None] = ContextVar(name, default=None)

    def carry(self, item: Any, output: Any, label: Any, native: N) -> Token[tuple[Any, Any, Any, N] | None]:
        """Carry `native` with the scorer's call on `(item, output, label)`; `drop(token)` when it returns."""
        return self._var.set((item, output, label, native))

    def drop(self, token: Token[tuple[Any, Any, Any, N] | None]) -> None:
        """Stop carrying what `carry` carried (in the same context)."""
        self._var.reset(token)

    @contextmanager
    def carrying(self, item: Any, output: Any, label: Any, native: N) -> Iterator[None]:
        """`carry` for the block's length: `with NATIVE.carrying(item, output, label, native): scorer(...)`, in
        sync code or around an `await`, dropped however the block ends."""
        token = self._var.set((item, output, label, native))
        try:
            yield
        finally:
            self._var.reset(token)

    def native(self, item: Any, output: Any, label: Any) -> N | None:
        """The harness objects carried with these very arguments; None for any other call."""
        carried = self._var.get()
        if carried is not None and carried[0] is item and carried[1] is output and carried[2] is label:
            return carried[3]
        return None


def run_sync(aw: Awaitable[T]) -> T:
    """Wait for `aw` from sync code, in this thread: on an event loop of the thread's own, kept for the next
    call; when a loop is already running here (a notebook, an async test), on another loop of the thread,
    nested, with the running one set aside for the call. No thread is started; the loops are closed when
    their thread ends. asyncio is imported on the first call."""
    from .._protocol.sync import run_sync as run

    return run(aw)
