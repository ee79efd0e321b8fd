"""`Scorer`: a name and a function `fn(item, output, label)`, called through the recording rules."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from types import FunctionType, MappingProxyType, MethodType
from typing import Any, Final, Literal, overload

from .labels import LabelReader, annotated_label_type, declared_label_type, label_reader, type_name
from .record import raised_score, record
from .score import Score, ScorerContractError
from .timeout import ScorerTimeout, call_within, wait_within
from .values import is_bool, label_is_missing, seconds, shown

__all__ = [
    "DEFAULT_CONCURRENCY",
    "OnError",
    "Scorer",
    "ScorerFn",
    "add_note",
    "defined_scorers",
    "is_async",
    "note_scorer",
    "on_scorer_defined",
    "scorer",
    "unlabelled",
]

ScorerFn = Callable[..., Any]
"""`fn(item, output, label)` returning the protocol's mapping, a `Score` or a grade; may be async."""

DEFAULT_CONCURRENCY: Final = 16

OnError = Literal["raise", "record"]
"""What an exception raised while scoring a row becomes, in every entry point: "raise" (the default) lets it
propagate; "record" gives the row `raised_score(name, exc, label)`, wrong with failure kind "error"."""

ON_ERROR: Final = ("raise", "record")


def check_on_error(where: str, on_error: object) -> OnError:
    """`on_error` itself when it is "raise" or "record"; else a ValueError starting with `where`."""
    if type(on_error) is not str or on_error not in ON_ERROR:
        raise ValueError(f"{where}: on_error must be 'raise' or 'record'; got {shown(on_error)}")
    return on_error  # type: ignore[return-value]


_CO_COROUTINE: Final = 0x80  # inspect.CO_COROUTINE, without importing inspect (and asyncio) at start-up


def _is_coroutine_function(fn: Any) -> bool:
    while isinstance(fn, functools.partial):
        fn = fn.func
    fn = getattr(fn, "__func__", fn)  # bound methods
    code = getattr(fn, "__code__", None)
    return code is not None and bool(code.co_flags & _CO_COROUTINE)


def is_async(fn: Callable[..., Any]) -> bool:
    """True when calling `fn` returns a coroutine: an `async def` function, a partial of one, or an
    object whose `__call__` is one (which `inspect.iscoroutinefunction` misses, ag2ai/ag2#3190)."""
    return _is_coroutine_function(fn) or _is_coroutine_function(type(fn).__call__)


def _run_sync(aw: Awaitable[Any]) -> Any:
    from .sync import run_sync  # asyncio costs start-up time; only async scorers need it

    return run_sync(aw)


def add_note(exc: BaseException, note: str) -> None:
    """`exc.add_note(note)` (Python >= 3.11) on Python 3.10 too, once, and never failing."""
    notes = getattr(exc, "__notes__", None)
    if notes is None:
        with contextlib.suppress(AttributeError):  # an exception type that refuses attributes
            exc.__notes__ = [note]  # type: ignore[attr-defined]
    elif isinstance(notes, list) and note not in notes:
        notes.append(note)


def note_scorer(exc: BaseException, name: str) -> None:
    """Name the scorer `name` in a note on `exc`, an exception raised inside it."""
    add_note(exc, f"raised inside the scorer {name!r}")


_MISSING: Final = object()


def unlabelled(scorer: Scorer, label: Any) -> bool:
    """True when `scorer` records a row with this label unscored for want of a label: any form of "no label"
    (a declared label reads as none too: the text "nan" for `label: float`), for a scorer that needs one.
    A label the scorer cannot read is an `UnreadableLabel`."""
    return scorer._given(label)[1]


_CO_VARARGS: Final = 0x04  # inspect.CO_VARARGS


def _positional(fn: Any) -> tuple[list[str], int, bool] | None:
    """The names of `fn`'s positional parameters, how many have no default, and whether it takes `*args`;
    None when its signature cannot be read. A plain function or method is read from its code object, so
    making a scorer imports no `inspect` (4 ms of start-up); any other callable through `inspect.signature`."""
    func, skip = (fn.__func__, 1) if isinstance(fn, MethodType) else (fn, 0)
    if isinstance(func, FunctionType):
        code = func.__code__
        names = list(code.co_varnames[skip : code.co_argcount])
        return names, len(names) - len(func.__defaults__ or ()), bool(code.co_flags & _CO_VARARGS)
    import inspect

    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    positional = [p for p in parameters if p.kind in kinds]
    required = sum(p.default is inspect.Parameter.empty for p in positional)
    return [p.name for p in positional], required, any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters)


def _check_arity(name: str, fn: Any) -> None:
    """A TypeError naming the scorer when `fn` cannot be called with (item, output, label), found when the
    scorer is made rather than on the first row (where a harness that records errors would score every row
    an "error"). A callable whose signature cannot be read is let through."""
    read = _positional(fn)
    if read is None:
        return
    names, required, varargs = read
    if (len(names) < 3 and not varargs) or required > 3:
        shown_as = f"{getattr(fn, '__name__', type(fn).__name__)}({', '.join(names)})"
        raise TypeError(
            f"scorer {name!r}: fn must take three positional arguments, (item, output, label); {shown_as} "
            f"takes {required}{'' if required == len(names) else f' to {len(names)}'}"
        )


class _LabelCheck:
    """The `check_label` of a scorer with a `label_type`: the label converts; then the check given, if any."""

    __slots__ = ("also", "name", "read")

    def __init__(self, name: str, read: LabelReader, also: Callable[[Any], object] | None) -> None:
        self.name, self.read, self.also = name, read, also

    def __call__(self, label: Any) -> None:
        if not label_is_missing(label):
            self.read(self.name, label)
        if self.also is not None:
            self.also(label)


def _remade(name: str, fn: ScorerFn, options: dict[str, Any], made_with: dict[str, Any]) -> Scorer:
    """A pickled Scorer made again from its fields (`Scorer.__reduce__`)."""
    return Scorer(name, fn, options, **made_with)


def _remade_by(factory: Callable[..., Scorer], options: dict[str, Any]) -> Scorer:
    """A pickled built-in scorer made again by its factory (`Scorer.__reduce__`)."""
    return factory(**options)


# The types a harness passes a metric or a scorer, by the module of their class: a Scorer given them was
# handed to the harness without its adapter.
_WRAP_HINTS: Final = (
    ("dspy", "scorebridge_dspy.to_dspy(scorer)", "a DSPy metric"),
    ("inspect_ai", "scorebridge_inspect.to_inspect(scorer)", "an Inspect AI scorer"),
)


def _two_arguments(name: str, args: tuple[Any, ...]) -> TypeError:
    modules = " ".join(type(a).__module__ for a in args)
    for harness, wrap, role in _WRAP_HINTS:
        if modules.startswith(harness) or f" {harness}" in modules:
            return TypeError(
                f"scorer {name!r} was called with two arguments, as {role} is; a Scorer takes "
                f"(item, output, label): wrap it with {wrap}"
            )
    return TypeError(
        f"scorer {name!r} takes (item, output, label); got {len(args)} argument(s). To use it as a DSPy metric "
        "or an Inspect AI scorer, wrap it with scorebridge_dspy.to_dspy or scorebridge_inspect.to_inspect"
    )


class Scorer:
    """A scorer: a name, a function `fn(item, output, label)`, and what it was made with.

    Call it as `scorer(item, output, label)` to get a recorded `Score`: whatever
    `fn` returns goes through the recording rules. `fn` may be async; then
    `await scorer.acall(...)` awaits it and a plain call runs it to completion
    (on an event loop of this thread's own, nested when a loop is already
    running here). Every scorer has `acall`, `score_many` and
    `ascore_many`, whichever kind its `fn` is.

    What a scorer is, it says, as set at construction (nothing changes a Scorer
    once made):

    - `options`: the arguments it was made with (read-only), shown in its repr
      and recorded by the harnesses (Inspect AI logs them);
    - `factory`: a function that makes this scorer again from its options
      (`factory(**options)`), or None when it cannot be made again (a scorer
      around a function of yours without options is itself: `with_options()`
      gives it back). The built-ins' factories are their public functions;
    - `recorded`: True when `fn` returns Scores already recorded (the
      built-ins, and the adapters' scorers, which apply the rules themselves
      through `scorebridge.kit.recorded`), so a call returns what `fn` returns;
    - `fast`: True when `fn` is sync and never waits on anything (it reads
      and compares text in microseconds: `exact()`, `detect_includes()`,
      `detect_match()`, `detect_exact()`, `detect_answer()`), so a batch or
      an event loop may run it inline. Every other sync scorer may block (on
      a grader model, a regex deadline, your own I/O): `score_many` and
      `ascore_many` run it in worker threads, and a harness's event loop
      should run it off the loop;
    - `check_label`: a function of a label that raises `ScorerContractError`
      (naming the scorer) when the scorer cannot read it, or None when any
      label is the function's to judge. `benchmark()` checks every label with
      it before any arm runs, so a typo in the labels costs no model call. The
      built-ins read labels with `scorebridge.kit.accepted_answers`; a scorer
      with a `label_type` checks that its labels convert;
    - `label_type`: the type `fn` reads its label as (`float`, `int`, `str`,
      `bool`, `list[float]`, ...; see `scorebridge.scorer`), or None: the
      label as the data has it. A label that is not missing is converted to
      it before `fn` is called; one that cannot be is a `ScorerContractError`
      naming the scorer and the value. A recorded scorer reads its labels
      itself and has none;
    - `needs_label`: False for a scorer that judges an output on its own (a
      length limit, a format check, a safety judge): an item with no label is
      then scored like any other. True (the default) keeps the hr package's
      rule: an item with no label is recorded unscored, whatever `fn` says.

    Before a scorer that is not `recorded` calls `fn`, every form of "no
    label" (None, NaN, pandas NA, blank text, an empty list, a list of those:
    `kit.label_is_missing`) becomes None, so `fn` tests `label is None` only.

    An exception raised by `fn` propagates unchanged, with a note naming the
    scorer; a `ScorerContractError` names it in its message.
    """

    __slots__ = (
        "_read",
        "check_label",
        "factory",
        "fast",
        "fn",
        "is_async",
        "label_type",
        "name",
        "needs_label",
        "options",
        "recorded",
    )

    name: str
    fn: ScorerFn
    options: Mapping[str, Any]
    factory: Callable[..., Scorer] | None
    recorded: bool
    fast: bool
    check_label: Callable[[Any], object] | None
    is_async: bool
    label_type: Any
    needs_label: bool
    _read: LabelReader | None

    def __init__(
        self,
        name: str,
        fn: ScorerFn,
        options: Mapping[str, Any] | None = None,
        *,
        factory: Callable[..., Scorer] | None = None,
        recorded: bool = False,
        fast: bool = False,
        check_label: Callable[[Any], object] | None = None,
        label_type: Any = None,
        needs_label: bool = True,
    ) -> None:
        if not isinstance(name, str) or not name or name.isspace():
            raise ValueError(f"a scorer needs a name, one non-blank string; got {name!r:.80}")
        if name == "<lambda>":
            raise ValueError("a scorer needs a name, and a lambda has none: pass name=, e.g. scorer(fn, name='mine')")
        if not callable(fn):
            raise TypeError(f"scorer {name!r}: fn must be callable; got {type(fn).__name__}")
        _check_arity(name, fn)
        if factory is not None and not callable(factory):
            raise TypeError(f"scorer {name!r}: factory must be callable or None; got {type(factory).__name__}")
        if not isinstance(recorded, bool):
            raise TypeError(f"scorer {name!r}: recorded must be True or False; got {recorded!r:.80}")
        if not isinstance(fast, bool):
            raise TypeError(f"scorer {name!r}: fast must be True or False; got {fast!r:.80}")
        if check_label is not None and not callable(check_label):
            raise TypeError(f"scorer {name!r}: check_label must be callable or None; got {type(check_label).__name__}")
        if not isinstance(needs_label, bool):
            raise TypeError(f"scorer {name!r}: needs_label must be True or False; got {needs_label!r:.80}")
        if label_type is not None:
            if recorded:
                raise ValueError(f"scorer {name!r}: a recorded scorer reads its labels itself; it takes no label_type")
            label_type = declared_label_type(f"scorer {name!r}", label_type)
        _set = object.__setattr__
        _set(self, "name", name)
        _set(self, "fn", fn)
        _set(self, "options", MappingProxyType(dict(options or {})))
        _set(self, "factory", factory)
        _set(self, "recorded", recorded)
        _set(self, "is_async", is_async(fn))
        if fast and self.is_async:
            raise ValueError(f"scorer {name!r}: an async fn is awaited, never run inline: it cannot be fast")
        _set(self, "fast", fast)
        _set(self, "label_type", label_type)
        _set(self, "needs_label", needs_label)
        read = None if label_type is None else label_reader(label_type)
        _set(self, "_read", read)
        if read is not None:
            check_label = _LabelCheck(name, read, check_label)
        _set(self, "check_label", check_label)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Scorer is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Scorer is immutable; cannot delete {name!r}")

    def __copy__(self) -> Scorer:
        return self  # immutable: a copy would be the same scorer

    def __deepcopy__(self, memo: dict[int, Any]) -> Scorer:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled (to a Ray worker, a process pool) as what makes it again: the default would set the slots one
        # by one, which __setattr__ refuses. A built-in is made again by its factory from its options (its
        # function is a closure over caches that do not pickle); any other scorer from its fields, so `fn`
        # must pickle (cloudpickle, Ray's, pickles closures and functions of `__main__` by value).
        from .remake import remade_as  # the protocol's own: which factories make their scorers from options

        if remade_as(self.factory) == self.name:  # a factory marked by remade_from_options: a built-in's
            return (_remade_by, (self.factory, dict(self.options)))
        check = self.check_label.also if isinstance(self.check_label, _LabelCheck) else self.check_label
        made_with = {"factory": self.factory, "recorded": self.recorded, "fast": self.fast, "check_label": check}
        made_with.update(label_type=self.label_type, needs_label=self.needs_label)
        return (_remade, (self.name, self.fn, dict(self.options), made_with))

    def __repr__(self) -> str:
        tail = "" if self.needs_label else " needs_label=False"
        if self.label_type is not None:
            tail = f" label={type_name(self.label_type)}{tail}"
        if self.options:
            opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
            return f"<Scorer {self.name}({opts}){tail}>"
        fn = getattr(self.fn, "__qualname__", type(self.fn).__qualname__)
        return f"<Scorer {self.name} fn={fn}{' async' if self.is_async else ''}{tail}>"

    def with_options(self, **changes: Any) -> Scorer:
        """This scorer made again by its `factory` with `changes` to its options.

        `with_options()` with no changes gives the scorer itself. Raises
        TypeError naming the scorer when it has no factory (it takes no
        options; or, when it has options, it cannot be made again with others:
        the message shows those it was made with), or when the factory refuses
        an option.
        """
        if not changes:
            return self
        if self.factory is None:
            if not self.options:
                raise TypeError(f"scorer {self.name!r} takes no options; got {', '.join(changes)}")
            made_with = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
            raise TypeError(
                f"scorer {self.name!r} was made with {made_with} and has no factory to make it again with "
                f"{', '.join(changes)} changed: make it again the way it was made, with the options you want"
            )
        return self.factory(**{**self.options, **changes})

    def with_timeout(self, timeout: float | None) -> Scorer:
        """This scorer, each call of it given up after `timeout` seconds as a `ScorerTimeout` (a TimeoutError).

        None gives the scorer itself, and so does a `fast` one (it never waits: it reads text in
        microseconds). An async scorer's call is cancelled at the timeout. A sync one's runs on a daemon
        thread of its own, which Python cannot stop: a call past its timeout is abandoned, still running,
        and holds its thread (and what it holds) until it returns or the process ends, never the caller nor
        the process's exit. The result has this scorer's name, options, labels and counts; `with_options`
        keeps the timeout. A TypeError or ValueError for a timeout that is not a number of seconds above 0
        (at most a day).
        """
        limit = seconds(self.name, timeout, none=True)
        if limit is None or self.fast:
            return self
        fn: ScorerFn
        if self.is_async:

            async def timed_async(item: Any, output: Any, label: Any) -> Score:
                return await wait_within(self.name, limit, self.acall(item, output, label))

            fn = timed_async
        else:

            def timed(item: Any, output: Any, label: Any) -> Score:
                return call_within(self.name, limit, self, item, output, label)

            fn = timed
        factory = self.factory
        again = None if factory is None else functools.partial(_timed_by, factory, limit)
        return Scorer(
            self.name,
            fn,
            self.options,
            factory=again,
            recorded=True,
            check_label=self.check_label,
            needs_label=self.needs_label,
        )

    def _given(self, label: Any) -> tuple[Any, bool]:
        """The label `fn` receives, and whether the row is recorded unlabelled: every form of "no label" is
        None, a declared label is read (an `UnreadableLabel` when it cannot be), and a scorer that needs no
        label scores an unlabelled row."""
        if label_is_missing(label):
            return None, self.needs_label
        if self._read is None:
            return label, False
        label = self._read(self.name, label)
        return label, label is None and self.needs_label

    def __call__(self, item: Any, output: Any, label: Any = _MISSING) -> Score:
        """Score one output on one item against its label."""
        if label is _MISSING:
            raise _two_arguments(self.name, (item, output))
        if self.recorded:  # fn applied the recording rules itself
            raw = self.fn(item, output, label)
            return raw if type(raw) is Score else _run_sync(raw)
        label, unlabelled = self._given(label)
        try:
            raw = self.fn(item, output, label)
            if type(raw) is not dict and isinstance(raw, Awaitable):
                raw = _run_sync(raw)
        except ScorerContractError:
            raise
        except Exception as exc:
            note_scorer(exc, self.name)
            raise
        return record(self.name, raw, unlabelled)

    async def acall(self, item: Any, output: Any, label: Any) -> Score:
        """Score one output: the async twin of calling the scorer.

        A sync `fn` runs inline, in the caller's event loop: for a scorer that
        is not `fast`, which may block, run a plain call off the loop instead
        (`await asyncio.to_thread(scorer, item, output, label)`), as
        `ascore_many` does.
        """
        if self.recorded:
            raw = self.fn(item, output, label)
            return raw if type(raw) is Score else await raw
        label, unlabelled = self._given(label)
        try:
            raw = self.fn(item, output, label)
            if isinstance(raw, Awaitable):
                raw = await raw
        except ScorerContractError:
            raise
        except Exception as exc:
            note_scorer(exc, self.name)
            raise
        return record(self.name, raw, unlabelled)

    def score_many(
        self,
        items: Iterable[Any] | None,
        outputs: Iterable[Any],
        labels: Iterable[Any],
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        on_error: OnError = "raise",
        timeout: float | None = None,
    ) -> list[Score]:
        """Score a batch: one Score per output, in order.

        `items` may be None (no items). Up to `concurrency` outputs are scored
        at once, each row in a copy of the caller's context: an async `fn` in
        one event loop, a sync `fn` that is not `fast` (it may block on a
        grader model, a regex deadline, I/O) in `concurrency` worker threads
        made for the batch. A `fast` scorer, `concurrency=1` and a batch of
        one row run inline, in order.

        on_error: with "raise" (the default), once a row raises, no other row
        starts; the rows already running finish, then the exception of the
        first row (in the batch's order) that raised propagates, with a note
        naming its row ("at row 3 of the batch", counting from 0). Nothing
        goes on calling the scorer in the background. With "record", a row
        whose scoring raises an `Exception` gets `kit.raised_score`'s Score
        (wrong, failure kind "error", the exception in its explanation) and
        the batch goes on; a KeyboardInterrupt still stops it.

        timeout: seconds a row may take (None, the default: no limit), as
        `with_timeout` gives it: a row past it has raised a `ScorerTimeout`
        (a TimeoutError naming the row), recorded or raised as `on_error`
        says. A sync scorer's call past it is abandoned on its thread, still
        running (Python cannot stop a thread; see `with_timeout`). A `fast`
        scorer is not timed.
        """
        if timeout is not None:
            return self.with_timeout(timeout).score_many(
                items, outputs, labels, concurrency=concurrency, on_error=on_error
            )
        rows = self._rows(items, outputs, labels, concurrency, on_error)
        if self.is_async:
            acall = self.acall if on_error == "raise" else self._acall_recording
            return _run_sync(self._gather(rows, concurrency, acall))  # type: ignore[no-any-return]
        call = self if on_error == "raise" else self._call_recording
        if self.fast or concurrency == 1 or len(rows) <= 1:
            return self._inline(rows, call)
        return self._threaded(rows, concurrency, threading.Event(), call)

    async def ascore_many(
        self,
        items: Iterable[Any] | None,
        outputs: Iterable[Any],
        labels: Iterable[Any],
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        on_error: OnError = "raise",
        timeout: float | None = None,
    ) -> list[Score]:
        """The async twin of `score_many` (`on_error` and `timeout` as there).

        The event loop is never blocked by the scorer: a sync `fn` that is not
        `fast` runs in worker threads (with `concurrency=1` too), the loop
        awaiting them; a `fast` one runs inline, one row per task. When the
        awaiting task is cancelled, no further row starts.
        """
        if timeout is not None:
            timed = self.with_timeout(timeout)
            return await timed.ascore_many(items, outputs, labels, concurrency=concurrency, on_error=on_error)
        rows = self._rows(items, outputs, labels, concurrency, on_error)
        if self.is_async or self.fast:
            return await self._gather(rows, concurrency, self.acall if on_error == "raise" else self._acall_recording)
        import asyncio

        stop = threading.Event()
        call = self if on_error == "raise" else self._call_recording
        try:
            return await asyncio.to_thread(self._threaded, rows, concurrency, stop, call)
        except asyncio.CancelledError:
            stop.set()  # the rows running finish in their threads; no other starts
            raise

    def _raised(self, exc: BaseException, label: Any) -> Score:
        """The Score of a row whose scoring raised `exc`, where errors are recorded (`on_error="record"`):
        `kit.raised_score` (wrong, failure kind "error"; unscored when the row has no label and the scorer
        needs one)."""
        return raised_score(self.name, exc, label, needs_label=self.needs_label)

    def _call_recording(self, item: Any, output: Any, label: Any) -> Score:
        try:
            return self(item, output, label)
        except Exception as exc:
            return self._raised(exc, label)

    async def _acall_recording(self, item: Any, output: Any, label: Any) -> Score:
        try:
            return await self.acall(item, output, label)
        except Exception as exc:
            return self._raised(exc, label)

    def _rows(
        self,
        items: Iterable[Any] | None,
        outputs: Iterable[Any],
        labels: Iterable[Any],
        concurrency: int,
        on_error: object,
    ) -> list[tuple[Any, Any, Any]]:
        if is_bool(concurrency) or not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"{self.name}: concurrency must be a whole number, at least 1; got {concurrency!r}")
        check_on_error(self.name, on_error)
        for what, batch in (("items", items), ("outputs", outputs), ("labels", labels)):
            if isinstance(batch, (str, bytes, bytearray)):  # would be read one character at a time
                raise TypeError(f"{self.name}: score_many takes a list of {what}, not one {type(batch).__name__}")
        outs: Sequence[Any] = list(outputs)
        labs: Sequence[Any] = list(labels)
        its: Sequence[Any] = [None] * len(outs) if items is None else list(items)
        if not len(its) == len(outs) == len(labs):
            raise ValueError(
                f"{self.name}: score_many needs as many items, outputs and labels; "
                f"got {len(its)}, {len(outs)} and {len(labs)}"
            )
        return list(zip(its, outs, labs, strict=True))

    def _inline(self, rows: list[tuple[Any, Any, Any]], call: Callable[..., Score]) -> list[Score]:
        scores: list[Score] = []
        for i, row in enumerate(rows):
            try:
                scores.append(call(*row))
            except BaseException as exc:
                _note_row(exc, i)
                raise
        return scores

    def _threaded(
        self, rows: list[tuple[Any, Any, Any]], concurrency: int, stop: threading.Event, call: Callable[..., Score]
    ) -> list[Score]:
        # `concurrency` threads take the rows in turn (one lock-protected step per row, not a task per row);
        # once a row raises, or `stop` is set, no row starts.
        scores: list[Any] = [None] * len(rows)
        todo = iter(enumerate(rows))
        lock = threading.Lock()
        raised: dict[int, BaseException] = {}
        context = contextvars.copy_context()

        def work() -> None:
            while True:
                with lock:
                    step = None if raised or stop.is_set() else next(todo, None)
                if step is None:
                    return
                i, row = step
                try:
                    scores[i] = context.copy().run(call, *row)
                except BaseException as exc:  # re-raised by the caller, once every row has stopped
                    with lock:
                        _note_row(exc, i)
                        raised[i] = exc

        threads = [
            threading.Thread(target=work, name=f"scorebridge-{self.name}-{n}", daemon=True)
            for n in range(min(concurrency, len(rows)))
        ]
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                thread.join()
        except BaseException:  # Ctrl-C while waiting: no row starts; the caller does not wait for the rest
            stop.set()
            raise
        if raised:
            raise raised[min(raised)]
        return scores

    async def _gather(
        self, rows: list[tuple[Any, Any, Any]], concurrency: int, call: Callable[..., Awaitable[Score]]
    ) -> list[Score]:
        # `concurrency` workers take the rows in turn, each row in a task of its own (so in a fresh copy of the
        # context, as `asyncio.gather` gives), without a wait at a semaphore per row. Once a row raises, no
        # row starts; the rows already running finish, then the first row's exception propagates, from here:
        # one raised in a row's task (KeyboardInterrupt) would stop the event loop with the other rows pending.
        import asyncio

        scores: list[Any] = [None] * len(rows)
        todo = iter(enumerate(rows))
        raised: dict[int, BaseException] = {}

        async def one(i: int, row: tuple[Any, Any, Any]) -> None:
            try:
                scores[i] = await call(*row)
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # re-raised below, once every row has stopped
                _note_row(exc, i)
                raised[i] = exc

        async def worker() -> None:
            for i, row in todo:
                if raised:
                    return
                await asyncio.ensure_future(one(i, row))

        await asyncio.gather(*(worker() for _ in range(min(concurrency, len(rows)))))
        if raised:
            raise raised[min(raised)]
        return scores


def _at_row(i: int) -> str:
    return f"at row {i} of the batch (counting from 0)"


def _note_row(exc: BaseException, i: int) -> None:
    """Name row `i` of a batch on `exc`, in a note, and in the message of a timeout."""
    add_note(exc, _at_row(i))
    if isinstance(exc, ScorerTimeout) and exc.where is None:
        exc.where = _at_row(i)


def _timed_by(factory: Callable[..., Scorer], timeout: float, **options: Any) -> Scorer:
    """A timed scorer made again with other options: `factory`'s, with the same timeout."""
    return factory(**options).with_timeout(timeout)


# --- scorers defined in modules, for the harnesses that find scorers by name -------------

_defined: dict[str, Scorer] = {}
_listeners: list[Callable[[Scorer], None]] = []


def defined_scorers() -> Mapping[str, Scorer]:
    """The scorers made by `scorer()` from functions defined at the top of a module, by name (the last one
    made under a name wins). Inspect AI finds scorers by name; its adapter registers these."""
    return MappingProxyType(_defined)


def on_scorer_defined(listener: Callable[[Scorer], None]) -> None:
    """Call `listener(scorer)` for every scorer in `defined_scorers()`, now and as each is made."""
    _listeners.append(listener)
    for made in list(_defined.values()):
        listener(made)


def _is_top_level(fn: Any) -> bool:
    qualname = getattr(fn, "__qualname__", None)
    return isinstance(qualname, str) and qualname == getattr(fn, "__name__", None) and qualname != "<lambda>"


def _options_of(fn: Any, name: str) -> dict[str, Any]:
    """The keyword-only parameters of `fn` after (item, output, label), with their defaults: its options."""
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    defaults = getattr(fn, "__kwdefaults__", None) or {}
    if code is None or not code.co_kwonlyargcount:
        return {}
    names = code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
    missing = [n for n in names if n not in defaults]
    if missing:
        raise TypeError(
            f"scorer {name!r}: the keyword-only parameters of its function are its options, and each needs "
            f"a default; {', '.join(missing)} has none"
        )
    return {n: defaults[n] for n in names}


def _made(fn: ScorerFn, name: str, label: Any, needs_label: bool) -> Scorer:
    options = _options_of(fn, name)
    label_type_ = annotated_label_type(fn) if label is None else declared_label_type(f"scorer {name!r}", label, fn)
    if not options:
        return Scorer(name, fn, label_type=label_type_, needs_label=needs_label)

    def factory(**chosen: Any) -> Scorer:
        unknown = sorted(chosen.keys() - options.keys())
        if unknown:
            raise TypeError(f"scorer {name!r} has no option {', '.join(unknown)}; its options are {', '.join(options)}")
        bound = {**options, **chosen}
        return Scorer(
            name,
            functools.partial(fn, **bound),
            bound,
            factory=factory,
            label_type=label_type_,
            needs_label=needs_label,
        )

    return factory()


@overload
def scorer(fn: ScorerFn, name: str | None = None, *, label: Any = None, needs_label: bool = True) -> Scorer: ...
@overload
def scorer(
    fn: None = None, name: str | None = None, *, label: Any = None, needs_label: bool = True
) -> Callable[[ScorerFn], Scorer]: ...
def scorer(
    fn: ScorerFn | None = None, name: str | None = None, *, label: Any = None, needs_label: bool = True
) -> Scorer | Callable[[ScorerFn], Scorer]:
    """Make a scorer from a function `fn(item, output, label)` (the hr package's `hr_scorer`).

    `fn` returns the protocol's mapping, `{"correct": ..., "outcome": ...,
    "failure_kind": ...}`, optionally with `value` (partial credit),
    `explanation` and `metadata`; or a `Score`; or a bare grade (a bool, a
    number, or "C"/"P"/"I" and the other words `grade_value` reads).

    `name` defaults to the function's `__name__`; a lambda needs one. Use it
    as a call, `scorer(fn, name="mine")`, or as a decorator, `@scorer` or
    `@scorer(name="mine")`.

    Options: keyword-only parameters of `fn` after the three (each with a
    default) are the scorer's options, `def near(item, output, label, *,
    tolerance=0.01)`. The scorer is made with the defaults, and
    `with_options(tolerance=0.05)`, the CLI's `-S tolerance=0.05` and Inspect
    AI's `-S` make it with others.

    The label, as `fn` declares it: the annotation of its label parameter
    (`def near(item, output, label: float)`), or `label=` (which wins over
    the annotation), is applied before `fn` is called, in every harness.
    `float`, `int`, `str`, `bool`, and `list[X]` of one of these (several
    accepted answers; a single value becomes a list of one) are read;
    `Optional[X]` and `X | None` read as `X`; a string annotation (`from
    __future__ import annotations`) too, read without running any code.
    Text is converted (Inspect AI's targets and CSV cells are text: "45.2"
    reaches `label: float` as 45.2); a label that cannot be converted ("abc"
    for a float, two answers for one float) is a `ScorerContractError`
    naming the scorer and the value, which `benchmark()` raises before any
    arm runs (`Scorer.check_label`). No annotation, or one scorebridge does
    not read (`Any`, a union of several types, a class of yours): the label
    as the data has it. Every form of "no label" (None, NaN, blank text, an
    empty list...) reaches `fn` as None.

    `needs_label=False`: `fn` judges an output on its own (a length limit, a
    format check), so an item with no label is scored like any other (`fn`
    gets None and its verdict stands). By default an item with no label is
    recorded unscored, whatever `fn` says (the hr package's rule).

    A scorer made from a function defined at the top of a module is also
    findable by name (`defined_scorers()`): Inspect AI's `inspect score
    --scorer file.py@name` finds it when the file decorates it with
    `@scorer` imported by that name (`from scorebridge import scorer`).
    """
    if not isinstance(needs_label, bool):
        raise TypeError(f"scorer: needs_label must be True or False; got {needs_label!r:.80}")
    if fn is None:
        if name is not None and not isinstance(name, str):
            raise TypeError(f"scorer: name must be a string; got {type(name).__name__}")
        return lambda f: scorer(f, name, label=label, needs_label=needs_label)
    if isinstance(fn, str) and name is None:
        raise TypeError(f"scorer: the first argument is the function; to name it, write @scorer(name={fn!r})")
    if not callable(fn):
        raise TypeError(f"scorer: fn must be a function of (item, output, label); got {type(fn).__name__}")
    made = _made(fn, name if name is not None else getattr(fn, "__name__", type(fn).__name__), label, needs_label)
    if _is_top_level(fn):
        _defined[made.name] = made
        for listener in list(_listeners):
            listener(made)
    return made
