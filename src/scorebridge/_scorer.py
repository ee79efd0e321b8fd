"""`Scorer`: a name and a function `fn(item, output, label)`, called through the recording rules."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final

from ._record import record
from ._score import Score, ScorerContractError
from ._values import is_bool, label_is_missing

__all__ = ["DEFAULT_CONCURRENCY", "Scorer", "ScorerFn", "builtin", "scorer"]

ScorerFn = Callable[[Any, Any, Any], Any]
"""`fn(item, output, label)` returning the seed's mapping, a `Score` or a grade; may be async."""

DEFAULT_CONCURRENCY: Final = 16


_CO_COROUTINE: Final = 0x80  # inspect.CO_COROUTINE, without importing inspect (and asyncio) at start-up


def _is_coroutine_function(fn: Any) -> bool:
    while isinstance(fn, functools.partial):
        fn = fn.func
    fn = getattr(fn, "__func__", fn)  # bound methods
    code = getattr(fn, "__code__", None)
    return code is not None and bool(code.co_flags & _CO_COROUTINE)


def _is_async(fn: Callable[..., Any]) -> bool:
    # An object with an async __call__ is not a coroutine function to `inspect`
    # (ag2ai/ag2#3190); look at its __call__ too.
    return _is_coroutine_function(fn) or _is_coroutine_function(type(fn).__call__)


def _run_sync(aw: Awaitable[Any]) -> Any:
    from ._sync import run_sync  # asyncio costs start-up time; only async scorers need it

    return run_sync(aw)


def add_note(exc: BaseException, note: str) -> None:
    """`exc.add_note(note)` (Python >= 3.11) on Python 3.10 too, once, and never failing."""
    notes = getattr(exc, "__notes__", None)
    if notes is None:
        with contextlib.suppress(AttributeError):  # an exception type that refuses attributes
            exc.__notes__ = [note]  # type: ignore[attr-defined]
    elif note not in notes:
        notes.append(note)


def with_scorer_note(exc: BaseException, name: str) -> None:
    """Name the scorer `name` in a note on `exc`, an exception raised inside it."""
    add_note(exc, f"raised inside the scorer {name!r}")


class Scorer:
    """A scorer: a name, a function `fn(item, output, label)`, and the options it was made with.

    Call it as `scorer(item, output, label)` to get a recorded `Score`: whatever
    `fn` returns goes through seed 000's recording rules. `fn` may be async; then
    `await scorer.acall(...)` awaits it and a plain call runs it to completion
    (in this thread's own event loop, or on a helper thread when a loop is
    already running here). Every scorer has `acall`, `score_many` and
    `ascore_many`, whichever kind its `fn` is.

    An exception raised by `fn` propagates unchanged, with a note naming the
    scorer; a `ScorerContractError` names it in its message.
    """

    __slots__ = ("_recorded", "fn", "is_async", "name", "options")

    name: str
    fn: ScorerFn
    options: Mapping[str, Any]
    is_async: bool
    _recorded: bool

    def __init__(self, name: str, fn: ScorerFn, options: Mapping[str, Any] | None = None) -> None:
        if not isinstance(name, str) or not name or name.isspace() or name == "<lambda>":
            raise ValueError(f"a scorer needs a name, one non-blank string; got {name!r}")
        if not callable(fn):
            raise TypeError(f"scorer {name!r}: fn must be callable; got {type(fn).__name__}")
        _set = object.__setattr__
        _set(self, "name", name)
        _set(self, "fn", fn)
        _set(self, "options", MappingProxyType(dict(options or {})))
        _set(self, "is_async", _is_async(fn))
        _set(self, "_recorded", False)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Scorer is immutable; cannot set {name!r}")

    def __copy__(self) -> Scorer:
        return self  # immutable: a copy would be the same scorer

    def __deepcopy__(self, memo: dict[int, Any]) -> Scorer:
        return self

    def __repr__(self) -> str:
        if self.options:
            opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
            return f"<Scorer {self.name}({opts})>"
        fn = getattr(self.fn, "__qualname__", type(self.fn).__qualname__)
        return f"<Scorer {self.name} fn={fn}{' async' if self.is_async else ''}>"

    def __call__(self, item: Any, output: Any, label: Any) -> Score:
        """Score one output on one item against its label."""
        if self._recorded:  # a built-in: fn applied the recording rules itself
            raw = self.fn(item, output, label)
            return raw if type(raw) is Score else _run_sync(raw)
        unlabelled = label_is_missing(label)
        try:
            raw = self.fn(item, output, label)
            if type(raw) is not dict and isinstance(raw, Awaitable):
                raw = _run_sync(raw)
        except ScorerContractError:
            raise
        except Exception as exc:
            with_scorer_note(exc, self.name)
            raise
        return record(self.name, raw, unlabelled)

    async def acall(self, item: Any, output: Any, label: Any) -> Score:
        """Score one output: the async twin of calling the scorer. A sync `fn` runs inline."""
        if self._recorded:
            raw = self.fn(item, output, label)
            return raw if type(raw) is Score else await raw
        unlabelled = label_is_missing(label)
        try:
            raw = self.fn(item, output, label)
            if isinstance(raw, Awaitable):
                raw = await raw
        except ScorerContractError:
            raise
        except Exception as exc:
            with_scorer_note(exc, self.name)
            raise
        return record(self.name, raw, unlabelled)

    def score_many(
        self,
        items: Iterable[Any] | None,
        outputs: Iterable[Any],
        labels: Iterable[Any],
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
    ) -> list[Score]:
        """Score a batch: one Score per output, in order.

        `items` may be None (no items). With an async `fn`, up to `concurrency`
        outputs are scored at once, in one event loop, each in a copy of the
        context; once one raises, no other starts, and the exception propagates
        when the ones already running have finished.
        """
        rows = self._rows(items, outputs, labels, concurrency)
        if self.is_async:
            return _run_sync(self._gather(rows, concurrency))  # type: ignore[no-any-return]
        return [self(i, o, lab) for i, o, lab in rows]

    async def ascore_many(
        self,
        items: Iterable[Any] | None,
        outputs: Iterable[Any],
        labels: Iterable[Any],
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
    ) -> list[Score]:
        """The async twin of `score_many`."""
        return await self._gather(self._rows(items, outputs, labels, concurrency), concurrency)

    def _rows(
        self, items: Iterable[Any] | None, outputs: Iterable[Any], labels: Iterable[Any], concurrency: int
    ) -> list[tuple[Any, Any, Any]]:
        if is_bool(concurrency) or not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"{self.name}: concurrency must be a whole number, at least 1; got {concurrency!r}")
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

    async def _gather(self, rows: list[tuple[Any, Any, Any]], concurrency: int) -> list[Score]:
        # `concurrency` workers take the rows in turn, each row in a task of its own (so in a fresh copy of the
        # context, as `asyncio.gather` gives), without a wait at a semaphore per row. Once a row raises, no
        # row starts; the rows already running finish, then the first exception propagates, from here: one
        # raised in a row's task (KeyboardInterrupt) would stop the event loop with the other rows pending.
        import asyncio

        scores: list[Any] = [None] * len(rows)
        todo = iter(enumerate(rows))
        raised: list[BaseException] = []

        async def one(i: int, row: tuple[Any, Any, Any]) -> None:
            try:
                scores[i] = await self.acall(*row)
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # re-raised below, once every row has stopped
                raised.append(exc)

        async def worker() -> None:
            for i, row in todo:
                if raised:
                    return
                await asyncio.ensure_future(one(i, row))

        await asyncio.gather(*(worker() for _ in range(min(concurrency, len(rows)))))
        if raised:
            raise raised[0]
        return scores


def builtin(name: str, fn: ScorerFn, options: Mapping[str, Any]) -> Scorer:
    """A built-in scorer: its `fn` returns Scores already recorded (through `recorded`).

    Its exceptions pass unchanged: one that wraps code of another (`from_dspy`,
    `from_inspect`) names that code in a note itself.
    """
    made = Scorer(name, fn, options)
    object.__setattr__(made, "_recorded", True)
    return made


def scorer(fn: ScorerFn, name: str | None = None) -> Scorer:
    """Make a scorer from a function `fn(item, output, label)` (seed 000's `hr_scorer`).

    `fn` returns the seed's mapping, `{"correct": ..., "outcome": ...,
    "failure_kind": ...}`, optionally with `value` (partial credit),
    `explanation` and `metadata`; or a `Score`; or a bare grade (a bool, a
    number, or "C"/"P"/"I" and the other words `grade_value` reads). `name`
    defaults to the function's `__name__`; a lambda needs one.
    """
    return Scorer(name if name is not None else getattr(fn, "__name__", type(fn).__name__), fn)
