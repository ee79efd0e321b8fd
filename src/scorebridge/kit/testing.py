"""The conformance suite for adapters: every recording rule, checked against `exact()`, through your adapter.

An adapter's author describes the adapter in a few lines (an `Adapter`: its
`to_X`, its `from_X`, a way to make a harness scorer from a plain judgement, a
way to run a harness scorer on rows) and runs the checks, one pytest test each:

    from scorebridge.kit.testing import Adapter, checks

    ADAPTER = Adapter("tally", to_harness=to_tally, run=run_rows, from_harness=from_tally, native=check_of)

    @pytest.mark.parametrize("check", checks(ADAPTER), ids=str)
    def test_conformance(check):
        check()

A check that fails raises `ConformanceError` (an AssertionError) saying which
rule, on which row, what `exact()` records and what the adapter gave. Checks
for a direction or a feature the adapter does not have (no `from_harness`, no
`on_error="record"`) are left out. docs/adapters.md describes each check.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import os
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .._protocol.reading import fold
from .._protocol.record import raised_score
from .._protocol.score import FAILURE_KINDS, Score, ScorerContractError
from .._protocol.scorer import Scorer
from .._protocol.values import shown
from .._runner.run import benchmark
from .._scorers.exact import exact

__all__ = [
    "Adapter",
    "Check",
    "ConformanceError",
    "HarnessRaised",
    "Judge",
    "Row",
    "checks",
    "equal",
    "every_one",
    "hostile_values",
    "huge_numbers",
    "run_checks",
]

Row = tuple[Any, Any, Any]
"""One row: (item, output, label), as a scorebridge scorer takes them."""

Judge = Callable[[str, Sequence[str]], float]
"""A plain judgement `judge(text, references) -> points` (0 to 1): what a harness scorer made by
`Adapter.native` decides with, reading the response's text and the references as the harness hands
them. It may raise: the harness scorer then raises that exception."""


class ConformanceError(AssertionError):
    """A conformance check failed: the message names the rule, the row, what exact() records and what was given."""


@dataclass(frozen=True)
class Adapter:
    """How the suite reaches an adapter and its harness. Give what the adapter has; the rest is left out.

    - `name`: the adapter's name, in messages;
    - `to_harness(scorer)`: the forward direction, a scorebridge scorer as the
      harness's scorer (`to_X`); `run(harness_scorer, rows)`: the harness
      scoring rows of (item, output, label) with it, giving one number per row,
      the one the harness counts (None: the harness leaves the row out of its
      mean, or refuses it, never a made-up 0);
    - `from_harness(harness_scorer)`: the reverse direction (`from_X`);
      `native(judge)`: a harness scorer of the harness's own kind that reads
      the response text and the references from what the harness hands it and
      returns `judge(text, references)` as the harness's points (a tally
      check, an Inspect scorer, a DSPy metric); `native_async(judge)`: the same
      as an async scorer, when the harness has them;
    - `to_recording(scorer)`, `from_recording(harness_scorer)`: the two
      directions with `on_error="record"`, when the adapter takes it;
    - `variants()`: three harness scorers for the identity checks: one, the
      same made again with the same arguments, and one made with other
      arguments (`match()`, `match()`, `match(location="begin")`);
    - `carries_objects`: whether the harness can hand a scorer an output that
      is not text (a mapping with `failure_kind`); False for a harness whose
      outputs are text (Inspect's completion);
    - `label_free(judge)`: like `native`, a harness scorer that needs no
      reference (the harness says so: a safety judge, a format check), which
      `from_harness` makes a scorer that scores unlabelled rows;
    - `one_reference`: True for a harness whose scorers take one reference
      and cannot be handed a list, so `from_harness` asks once per accepted
      answer (`kit.judge_each`); False (the rule for every other harness): a
      list label reaches the harness scorer whole, once.
    - `ranged(judge, score_range)`: like `native`, a harness scorer that
      declares the range (low, high) it scores on, the harness's way (GEval's
      `score_range`, an MLflow judge's `Literal` value type), and gives
      `low + judge(text, references) * (high - low)` points; given, the suite
      checks that such points are mapped onto 0-1 and that points above 1 from
      a `native` scorer, which declares no range, are a `ScorerContractError`;
    - `unit_points`: True for a harness whose points are 0-1 and that declares
      no other range (LangSmith, deepeval, promptfoo): the suite checks that 3
      points from a `native` scorer are a `ScorerContractError` naming it
      (checked with `ranged` too); False for a harness whose scores are on any
      scale, with a threshold on it (Inspect, DSPy, RL rewards).
    """

    name: str
    to_harness: Callable[[Scorer], Any] | None = None
    run: Callable[[Any, list[Row]], Sequence[float | None]] | None = None
    from_harness: Callable[[Any], Scorer] | None = None
    native: Callable[[Judge], Any] | None = None
    native_async: Callable[[Judge], Any] | None = None
    to_recording: Callable[[Scorer], Any] | None = None
    from_recording: Callable[[Any], Scorer] | None = None
    variants: Callable[[], tuple[Any, Any, Any]] | None = None
    carries_objects: bool = True
    label_free: Callable[[Judge], Any] | None = None
    one_reference: bool = False
    ranged: Callable[[Judge, tuple[float, float]], Any] | None = None
    unit_points: bool = False


class Check:
    """One conformance check: `check()` runs it (raising `ConformanceError`); `str(check)` is its name."""

    __slots__ = ("_run", "name")

    def __init__(self, name: str, run: Callable[[], None]) -> None:
        self.name, self._run = name, run

    def __call__(self) -> None:
        self._run()

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<conformance check {self.name}>"


# --- what the checks are made of ----------------------------------------------------------------


def _fields(score: Score) -> tuple[Any, Any, Any]:
    return (score.correct, score.failure_kind, score.value)


def _shown(row: Row) -> str:
    return f"(item={row[0]!r:.60}, output={row[1]!r:.60}, label={row[2]!r:.60})"


class _Counted:
    """A judgement that counts its calls: "the harness is not asked" is checked by the count."""

    def __init__(self, judge: Judge) -> None:
        self.judge, self.calls = judge, 0

    def __call__(self, text: str, references: Sequence[str]) -> float:
        self.calls += 1
        return self.judge(text, references)


def equal(text: str, references: Sequence[str]) -> float:
    """The judgement of `exact()`: 1.0 when the folded text is one of the folded references, else 0.0."""
    folded = fold(text)
    return 1.0 if any(fold(r) == folded for r in references if isinstance(r, str)) else 0.0


def every_one(text: str, references: Sequence[str]) -> float:
    """A judgement that needs all of a list: 1.0 when the folded text holds every reference (all of them text)."""
    folded = fold(text)
    texts = [r for r in references if isinstance(r, str)]
    return 1.0 if texts and len(texts) == len(references) and all(fold(r) in folded for r in texts) else 0.0


def _half(text: str, references: Sequence[str]) -> float:
    return 0.5


class HarnessRaised(ValueError):
    """What the suite's raising judgement raises (inside the harness's scorer)."""


def _raising(text: str, references: Sequence[str]) -> float:
    raise HarnessRaised("the harness scorer raised (a conformance check)")


def _raise(item: Any, output: Any, label: Any) -> Any:
    raise HarnessRaised("the scorebridge scorer raised (a conformance check)")


def _half_credit(item: Any, output: Any, label: Any) -> Any:
    return {"correct": False, "outcome": None, "failure_kind": None, "value": 0.5}


# Scorers made with Scorer, not @scorer: these are no scorers of a user's, to be found by name in a harness.
_raises = Scorer("conformance_raises", _raise)
_partial = Scorer("conformance_half", _half_credit)


def _short(text: str, references: Sequence[str]) -> float:
    """A reference-free judgement: 1.0 for a response of at most 12 characters."""
    return 1.0 if len(text) <= 12 else 0.0


def _short_fn(item: Any, output: Any, label: Any) -> Any:
    text = output if isinstance(output, str) else ""
    return {"correct": len(text) <= 12, "outcome": text, "failure_kind": None}


_LABEL_FREE_CORE = "needs_label" in inspect.signature(Scorer).parameters
"""Whether this scorebridge's Scorer takes needs_label (the label-free checks need it)."""
_short_scorer = Scorer("conformance_short", _short_fn, needs_label=False) if _LABEL_FREE_CORE else None  # type: ignore[call-arg,unused-ignore]

LABEL_FREE: tuple[tuple[Row, tuple[Any, Any, Any]], ...] = (
    ((None, "Paris", None), (True, None, 1.0)),
    ((None, "Paris is the capital of France", None), (False, "wrong", 0.0)),
    ((None, {"failure_kind": "refusal"}, None), (False, "refusal", 0.0)),
    ((None, "Paris", "  "), (True, None, 1.0)),
    ((None, "Paris", "Lyon"), (True, None, 1.0)),
)
"""Rows for a scorer that needs no label (a response of at most 12 characters is correct), and what it records."""


async def _exact_async(item: Any, output: Any, label: Any) -> Score:
    return exact()(item, output, label)


_EXACT_ASYNC = Scorer("exact", _exact_async, recorded=True)


def _noted(exc: BaseException, name: str) -> bool:
    """True when `exc` (or an exception it was raised from) names the scorer `name`: a note, or its message."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        notes = getattr(current, "__notes__", None) or []
        if any(name in str(n) for n in notes) or name in str(current):
            return True
        current = current.__cause__ or current.__context__
    return False


def _reverse_rows(adapter: Adapter, judge: Judge, rows: Iterable[Row], rule: str, asked: bool | None) -> None:
    """from_X(native(judge)) records what exact() records on each row; `asked` False: the harness is not asked."""
    assert adapter.from_harness is not None and adapter.native is not None
    reference = exact()
    for row in rows:
        counted = _Counted(judge)
        made = adapter.from_harness(adapter.native(counted))
        got, want = made(*row), reference(*row)
        if _fields(got) != _fields(want):
            raise ConformanceError(
                f"{adapter.name}: {rule}: on {_shown(row)} exact() records (correct, failure_kind, value) = "
                f"{_fields(want)}; from_harness gave {_fields(got)}"
            )
        if asked is False and counted.calls:
            raise ConformanceError(f"{adapter.name}: {rule}: on {_shown(row)} the harness's scorer was asked")


def _forward_rows(adapter: Adapter, made: Scorer, rows: list[Row], rule: str) -> None:
    """run(to_X(made), rows) counts what `made` scores: its value, or nothing for an unscored row."""
    assert adapter.to_harness is not None and adapter.run is not None
    got = list(adapter.run(adapter.to_harness(made), rows))
    want = [made(*row).value for row in rows]
    if len(got) != len(want):
        raise ConformanceError(f"{adapter.name}: {rule}: run gave {len(got)} numbers for {len(rows)} rows")
    for row, g, w in zip(rows, got, want, strict=True):
        if not (g == w or (g is None and w is None)):
            raise ConformanceError(
                f"{adapter.name}: {rule}: on {_shown(row)} {made.name} scores {w!r}; the harness counted {g!r}"
            )


# --- the rows, by rule -------------------------------------------------------------------------------

REPORTED: tuple[Row, ...] = (
    *((None, {"failure_kind": kind}, "Paris") for kind in FAILURE_KINDS),
    (None, {"failure_kind": "refusal", "answer": "Paris"}, "Paris"),
)
OK_FALSE: tuple[Row, ...] = ((None, {"ok": False, "error": "boom"}, "Paris"), (None, {"ok": False}, "Paris"))
EMPTY: tuple[Row, ...] = ((None, "", "Paris"), (None, "  \n", "Paris"), (None, None, "Paris"))
NOT_IN_DOCUMENT: tuple[Row, ...] = (
    (None, "NOT_IN_DOCUMENT", "Paris"),
    (None, "**not in document.**", ["Paris", "Lyon"]),
    (None, "NOT_IN_DOCUMENT", "NOT_IN_DOCUMENT"),  # the label accepts the sentinel: an answer, and correct
)
UNLABELLED: tuple[Row, ...] = (
    (None, "Paris", None),
    (None, "", None),
    (None, "NOT_IN_DOCUMENT", ""),
    (None, {"failure_kind": "refusal"}, None),
    (None, {"ok": False}, "  "),
    (None, "Paris", []),
    (None, "Paris", math.nan),
    (None, "Paris", ["", None]),
)
ANSWERS: tuple[Row, ...] = (
    ("Capital of France?", "Paris", "Paris"),
    ("Capital of France?", "  paris ", "Paris"),
    ("Capital of France?", "Rome", "Paris"),
    ({"input": "Capital of Italy?"}, "Rome", ["Paris", "Rome"]),
    (None, {"answer": "Paris"}, "Paris"),
    (None, {"text": "Lyon"}, ("Paris",)),
)
WHOLE_LABEL: tuple[tuple[Row, bool], ...] = (
    (("Which fields does the form ask for?", "name, age", ["name", "age"]), True),
    (("Which fields does the form ask for?", "name", ["name", "age"]), False),  # a per-answer loop: correct
)
"""Rows for a harness scorer that needs all of a list label (`every_one`), and its own verdict on each."""
TEXT_ROWS: tuple[Row, ...] = tuple(
    row
    for row in (*EMPTY, *NOT_IN_DOCUMENT, *ANSWERS, *UNLABELLED)
    if row[1] is None or isinstance(row[1], str)
    if isinstance(row[2], (str, list)) or row[2] is None
)
"""The rows whose output is text (or none): what every harness can hand a scorer."""


class _Raises:
    """A hostile object: every protocol method raises."""

    def _raise(self, *_: Any, **__: Any) -> Any:
        raise RuntimeError("hostile")

    __repr__ = __str__ = __eq__ = __bool__ = __len__ = __iter__ = __getitem__ = __float__ = __int__ = _raise
    __hash__ = object.__hash__

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"no {name} here")


def _nested(depth: int) -> Any:
    value: Any = "Paris"
    for _ in range(depth):
        value = [value]
    return value


def _holding_itself() -> list[Any]:
    x: list[Any] = ["Paris"]
    x.append(x)
    return x


def hostile_values() -> list[Any]:
    """Hostile values, made anew: huge text, lone surrogates, numbers too long to write, NaN and infinities,
    bytes, nesting 5,000 deep, a list that holds itself, objects whose every method raises, and outputs whose
    elements are such things."""
    return [
        "x" * 1_000_000 + "\ud800",
        "\udcff",
        "caf\udce9",
        10**5000,
        -(10**400) + 7,
        math.nan,
        math.inf,
        -math.inf,
        b"Paris",
        bytearray(b"Paris"),
        _nested(5_000),
        _holding_itself(),
        _Raises(),
        {"answer": _Raises()},
        {"failure_kind": "not a kind"},
        {"failure_kind": _Raises()},
        {"ok": _Raises()},
        {"ok": False, "error": _Raises()},
        {"text": {"answer": {"answer": "Paris"}}},
        object(),
        1j,
        True,
    ]


_HOSTILE_PLACES: tuple[str, ...] = ("outputs", "labels", "items")


# --- the checks ----------------------------------------------------------------------------------------


def _reverse_checks(a: Adapter) -> list[Check]:
    if a.from_harness is None or a.native is None:
        return []

    def reported() -> None:
        _reverse_rows(a, equal, REPORTED, "an output that reports its failure_kind is recorded so, unasked", False)

    def ok_false() -> None:
        _reverse_rows(a, equal, OK_FALSE, "an output with ok False is an error, unasked", False)

    def empty() -> None:
        _reverse_rows(a, equal, EMPTY, "an output with no text is a parse failure", None)

    def not_in_document() -> None:
        _reverse_rows(a, equal, NOT_IN_DOCUMENT, "NOT_IN_DOCUMENT is recorded not_in_document", None)

    def unlabelled() -> None:
        _reverse_rows(a, equal, UNLABELLED, "no label: unscored, its failure kind kept, the harness unasked", False)

    def answers() -> None:
        _reverse_rows(a, equal, ANSWERS, "an answer is judged by the harness against every accepted answer", True)

    def whole_label() -> None:
        made = a.from_harness(a.native(every_one))  # type: ignore[misc]  # checked above
        for row, native in WHOLE_LABEL:
            want = native or a.one_reference  # one call per accepted answer: "name" matches one of them
            got = made(*row)
            if got.correct is not want:
                how = (
                    "asked once per accepted answer (one_reference), the first correct wins"
                    if a.one_reference
                    else "handed the label as the harness holds it, a list whole, once (kit: Ask.label)"
                )
                raise ConformanceError(
                    f"{a.name}: the label rule: a harness scorer is {how}; on {_shown(row)} a scorer that needs "
                    f"every answer of the list says correct={want}; from_harness gave correct={got.correct!r}"
                )

    def partial() -> None:
        made = a.from_harness(a.native(_half))  # type: ignore[misc]  # checked above
        got = made("Capital of France?", "Pari", "Paris")
        if (got.correct, got.value, got.grade) != (False, 0.5, "P"):
            raise ConformanceError(
                f"{a.name}: partial credit: the harness gave 0.5 points; expected correct False, value 0.5, "
                f"grade P; got correct {got.correct!r}, value {got.value!r}, grade {got.grade!r}"
            )

    def raises() -> None:
        made = a.from_harness(a.native(_raising))  # type: ignore[misc]
        try:
            made("Capital of France?", "Paris", "Paris")
        except HarnessRaised as exc:
            if not _noted(exc, made.name):
                raise ConformanceError(
                    f"{a.name}: an exception inside the harness's scorer must name the scorer {made.name!r} "
                    "(kit.judge does; else kit.note_scorer(exc, name)); it has no such note"
                ) from exc
            return
        except Exception as exc:
            raise ConformanceError(
                f"{a.name}: the harness scorer's exception must propagate as it was raised; got {exc!r:.200}"
            ) from exc
        raise ConformanceError(f"{a.name}: the harness's scorer raised, and from_harness raised nothing")

    def identities() -> None:
        for made in (exact(), _partial):
            if a.to_harness is not None and a.from_harness(a.to_harness(made)) is not made:  # type: ignore[misc]
                raise ConformanceError(f"{a.name}: from_harness(to_harness(s)) is not s for {made!r}")
        native = a.native(equal)  # type: ignore[misc]
        if a.to_harness is not None and a.to_harness(a.from_harness(native)) is not native:  # type: ignore[misc]
            raise ConformanceError(f"{a.name}: to_harness(from_harness(h)) is not h for the harness scorer {native!r}")

    def hostile() -> None:
        made = a.from_harness(a.native(equal))  # type: ignore[misc]
        for where in _HOSTILE_PLACES:
            for value in hostile_values():
                row: Row = {
                    "outputs": ("Capital of France?", value, "Paris"),
                    "labels": ("Capital of France?", "Paris", value),
                    "items": (value, "Paris", "Paris"),
                }[where]
                try:
                    got = made(*row)
                except ScorerContractError:
                    continue
                except Exception as exc:
                    raise ConformanceError(
                        f"{a.name}: hostile {where}: a value that cannot be read is a ScorerContractError naming "
                        f"the scorer; {type(value).__name__} raised {type(exc).__name__}: {str(exc)[:200]}"
                    ) from exc
                if not isinstance(got, Score):
                    raise ConformanceError(f"{a.name}: hostile {where}: the scorer gave {type(got).__name__}")

    found = [
        Check(f"{a.name}: from_harness: reported rejections", reported),
        Check(f"{a.name}: from_harness: ok False", ok_false),
        Check(f"{a.name}: from_harness: an empty output", empty),
        Check(f"{a.name}: from_harness: NOT_IN_DOCUMENT", not_in_document),
        Check(f"{a.name}: from_harness: no label, the kind kept", unlabelled),
        Check(f"{a.name}: from_harness: answers and accepted answers", answers),
        Check(f"{a.name}: from_harness: the label rule (a list label whole, once)", whole_label),
        Check(f"{a.name}: from_harness: partial credit", partial),
        Check(f"{a.name}: from_harness: an exception names the scorer", raises),
        Check(f"{a.name}: round trips are identities", identities),
        Check(f"{a.name}: from_harness: hostile values", hostile),
    ]
    if a.native_async is not None:

        def async_twin() -> None:
            native_async = a.native_async
            assert native_async is not None
            made = a.from_harness(native_async(equal))  # type: ignore[misc]
            sync = a.from_harness(a.native(equal))  # type: ignore[misc]
            rows = [*ANSWERS, *EMPTY, *NOT_IN_DOCUMENT, *UNLABELLED, *REPORTED]
            want = [_fields(sync(*row)) for row in rows]
            items, outputs, labels = ([r[i] for r in rows] for i in range(3))
            ways: dict[str, Callable[[], list[Score]]] = {
                "a plain call": lambda: [made(*row) for row in rows],
                "acall": lambda: asyncio.run(_each(made, rows)),
                "score_many": lambda: made.score_many(items, outputs, labels),
                "ascore_many": lambda: asyncio.run(made.ascore_many(items, outputs, labels)),
            }
            for way, scored in ways.items():
                got = [_fields(s) for s in scored()]
                if got != want:
                    bad = next(i for i, (g, w) in enumerate(zip(got, want, strict=True)) if g != w)
                    raise ConformanceError(
                        f"{a.name}: an async harness scorer, by {way}, on {_shown(rows[bad])}: the sync one "
                        f"records {want[bad]}; the async one {got[bad]}"
                    )

        found.append(Check(f"{a.name}: from_harness: an async harness scorer scores as its sync twin", async_twin))
    if a.from_recording is not None:

        def recording() -> None:
            from_recording = a.from_recording
            assert from_recording is not None
            made = from_recording(a.native(_raising))  # type: ignore[misc]
            for label in ("Paris",):  # an unlabelled row does not ask the harness: nothing raises
                got = made("Capital of France?", "Paris", label)
                want = raised_score(made.name, HarnessRaised("x"), label)
                if _fields(got) != _fields(want) or "HarnessRaised" not in (got.explanation or ""):
                    raise ConformanceError(
                        f"{a.name}: on_error='record', label {label!r}: a raising harness scorer is recorded "
                        f"{_fields(want)} with the exception in the explanation; got {_fields(got)}, "
                        f"{got.explanation!r:.120}"
                    )

        found.append(Check(f"{a.name}: from_harness: on_error='record'", recording))
    if a.label_free is not None:

        def label_free() -> None:
            assert a.label_free is not None
            made = a.from_harness(a.label_free(_short))  # type: ignore[misc]
            for row, want in LABEL_FREE:
                got = _fields(made(*row))
                if got != want:
                    raise ConformanceError(
                        f"{a.name}: a harness scorer that needs no label scores every row: on {_shown(row)} "
                        f"expected (correct, failure_kind, value) = {want}; from_harness gave {got}"
                    )

        found.append(Check(f"{a.name}: from_harness: a scorer that needs no label scores unlabelled rows", label_free))
    if a.variants is not None:

        def header() -> None:
            variants = a.variants
            assert variants is not None
            one, same, other = (a.from_harness(h) for h in variants())  # type: ignore[misc]
            with tempfile.TemporaryDirectory(prefix="sb-conformance-") as folder:
                out = os.path.join(folder, "run.jsonl")
                arms = {"m": lambda item: "Paris"}
                benchmark(arms, ["Capital of France?"], ["Paris"], scorer=one, out=out)
                try:
                    benchmark(arms, ["Capital of France?", "Capital of Italy?"], ["Paris", "Rome"], same, out=out)
                except ValueError as exc:
                    raise ConformanceError(
                        f"{a.name}: the same harness scorer made again has another identity: {exc}"
                    ) from exc
                try:
                    benchmark(arms, ["Capital of France?"], ["Paris"], scorer=other, out=out)
                except ValueError as exc:
                    if other.name not in str(exc):
                        raise ConformanceError(f"{a.name}: the refusal does not name the scorer: {exc}") from exc
                    return
                raise ConformanceError(
                    f"{a.name}: a benchmark out file scored by {one!r} resumed under {other!r}: a harness scorer's "
                    "own arguments must be in the Scorer's options"
                )

        found.append(Check(f"{a.name}: options: a resume under other arguments is refused", header))
    return found


async def _each(made: Scorer, rows: list[Row]) -> list[Score]:
    return [await made.acall(*row) for row in rows]


def _forward_checks(a: Adapter) -> list[Check]:
    if a.to_harness is None or a.run is None:
        return []
    rows: list[Row] = list(TEXT_ROWS)
    if a.carries_objects:
        rows += [*REPORTED, *OK_FALSE, (None, {"answer": "Paris"}, "Paris"), (None, {"failure_kind": "refusal"}, None)]

    def counts_exact() -> None:
        _forward_rows(a, exact(), rows, "the harness counts exact()'s value, and leaves unscored rows out")

    def counts_partial() -> None:
        _forward_rows(a, _partial, [("q", "Pari", "Paris")], "the harness counts partial credit as it is")

    def counts_async() -> None:
        _forward_rows(a, _EXACT_ASYNC, rows, "an async scorer is counted as its sync twin")

    def raises() -> None:
        assert a.to_harness is not None and a.run is not None
        try:
            a.run(a.to_harness(_raises), [("q", "Paris", "Paris")])
        except Exception as exc:
            if not _noted(exc, _raises.name):
                raise ConformanceError(
                    f"{a.name}: a scorer's exception inside the harness must name the scorer "
                    f"{_raises.name!r}; got {exc!r:.200}"
                ) from exc
            return
        raise ConformanceError(f"{a.name}: the scorer raised inside the harness, and the run raised nothing")

    def counts_label_free() -> None:
        assert _short_scorer is not None
        unlabelled = [row for row in rows if row[2] is None] + [("q", "Paris is the capital of France", None)]
        _forward_rows(a, _short_scorer, unlabelled, "a scorer that needs no label is counted on unlabelled rows")

    found = [
        Check(f"{a.name}: to_harness: exact()'s values counted", counts_exact),
        Check(f"{a.name}: to_harness: partial credit", counts_partial),
        Check(f"{a.name}: to_harness: an async scorer", counts_async),
        Check(f"{a.name}: to_harness: an exception names the scorer", raises),
    ]
    if a.carries_objects:

        def hostile() -> None:
            assert a.to_harness is not None and a.run is not None
            check = a.to_harness(exact())
            for value in hostile_values():
                for row in (("q", value, "Paris"), ("q", "Paris", value)):
                    try:
                        got = list(a.run(check, [row]))
                    except ScorerContractError:
                        continue
                    except Exception as exc:
                        raise ConformanceError(
                            f"{a.name}: hostile values through the harness: a value that cannot be read is a "
                            f"ScorerContractError naming the scorer; {type(value).__name__} raised "
                            f"{type(exc).__name__}: {str(exc)[:200]}"
                        ) from exc
                    if len(got) != 1 or not (got[0] is None or isinstance(got[0], (int, float))):
                        raise ConformanceError(f"{a.name}: hostile values: the harness counted {got!r:.80}")

        found.append(Check(f"{a.name}: to_harness: hostile values", hostile))
    if _short_scorer is not None:  # this scorebridge has scorers that need no label
        found.append(Check(f"{a.name}: to_harness: a scorer that needs no label", counts_label_free))
    if a.to_recording is not None:

        def recording() -> None:
            assert a.to_recording is not None and a.run is not None
            got = list(a.run(a.to_recording(_raises), [("q", "Paris", "Paris"), ("q", "Paris", None)]))
            want = [raised_score(_raises.name, HarnessRaised("x"), label).value for label in ("Paris", None)]
            if got != want:
                raise ConformanceError(
                    f"{a.name}: on_error='record': a raising scorer is counted {want} (wrong, failure kind error; "
                    f"unscored without a label); the harness counted {got}"
                )

        found.append(Check(f"{a.name}: to_harness: on_error='record'", recording))
    return found


def _thirds(text: str, references: Sequence[str]) -> float:
    """A judgement on three levels: none, half or full marks by the response ("poor", "fair", "good")."""
    return {"good": 1.0, "fair": 0.5}.get(text, 0.0)


def _three(text: str, references: Sequence[str]) -> float:
    return 3.0


def _scale_checks(a: Adapter) -> list[Check]:
    if a.from_harness is None or a.native is None or (a.ranged is None and not a.unit_points):
        return []
    ranged, from_harness, native = a.ranged, a.from_harness, a.native

    def mapped() -> None:
        assert ranged is not None
        made = from_harness(ranged(_thirds, (1.0, 5.0)))  # 1, 3 and 5 points on a scale of 1 to 5
        outputs = ["poor", "fair", "good"]
        got = [(s.correct, s.value) for s in (made("q", o, "Paris") for o in outputs)]
        want = [(False, 0.0), (False, 0.5), (True, 1.0)]
        if got != want:
            raise ConformanceError(
                f"{a.name}: points of 1, 3 and 5 on a declared range of 1-5 are (correct, value) {want} (mapped "
                f"onto 0-1, correct at the top); from_harness gave {got}"
            )
        result = benchmark({"m": lambda i: outputs[i]}, [0, 1, 2], ["Paris"] * 3, scorer=made)
        accuracy = result.summary()["m"].accuracy
        if accuracy is None or not 0.0 <= accuracy <= 1.0:
            raise ConformanceError(f"{a.name}: benchmark() over points of 1, 3 and 5 gave accuracy {accuracy!r}")

    def undeclared() -> None:
        made = from_harness(native(_three))
        try:
            got = made("q", "Paris", "Paris")
        except ScorerContractError as exc:
            if made.name not in str(exc):
                raise ConformanceError(f"{a.name}: the refusal of 3 points does not name the scorer: {exc}") from exc
            return
        raise ConformanceError(
            f"{a.name}: a harness scorer that declares no range gave 3 points; expected a ScorerContractError "
            f"naming it, got {got!r:.160}"
        )

    refused = Check(f"{a.name}: from_harness: points above 1 on no declared range are refused", undeclared)
    if ranged is None:
        return [refused]
    return [Check(f"{a.name}: from_harness: points on a declared range are mapped onto 0-1", mapped), refused]


ANSWERED_WITHIN = 2.0
"""Seconds within which a number label of any size or precision is answered (a Score or a ScorerContractError):
written in plain digits, `Decimal("1e1000000")` is a million characters, and took 22 s before it was refused."""


def huge_numbers() -> list[Any]:
    """Number labels of any size or precision: `Decimal("1e1000000")` and its negative, `Decimal("1e-1000000")`,
    a million digits of precision, and an int of 100,001 digits."""
    return [Decimal("1e1000000"), Decimal("-1e1000000"), Decimal("1e-1000000"), Decimal("1." + "3" * 1_000_000),
            10**100_000]  # fmt: skip


def _answered(a: Adapter, where: str, call: Callable[..., object], row: Row) -> None:
    """`call(*row)` gives an answer, or a ScorerContractError, within `ANSWERED_WITHIN` seconds."""
    start = time.perf_counter()
    try:
        call(*row)
    except ScorerContractError:
        pass
    except Exception as exc:
        raise ConformanceError(
            f"{a.name}: {where}: a number label it cannot read is a ScorerContractError naming the scorer; "
            f"{shown(row[2], 60)} raised {type(exc).__name__}: {str(exc)[:200]}"
        ) from exc
    took = time.perf_counter() - start
    if took > ANSWERED_WITHIN:
        raise ConformanceError(
            f"{a.name}: {where}: the label {shown(row[2], 60)} took {took:.1f} s; a number label of any size is "
            f"answered within {ANSWERED_WITHIN:g} s"
        )


def _huge_number_checks(a: Adapter) -> list[Check]:
    found: list[Check] = []
    if a.from_harness is not None and a.native is not None:
        from_harness, native = a.from_harness, a.native

        def reverse() -> None:
            made = from_harness(native(equal))
            for value in huge_numbers():
                _answered(a, "from_harness", made, ("Capital of France?", "Paris", value))

        found.append(Check(f"{a.name}: from_harness: a number label of any size is answered at once", reverse))
    if a.to_harness is not None and a.run is not None and a.carries_objects:
        to_harness, run = a.to_harness, a.run

        def forward() -> None:
            check = to_harness(exact())
            for value in huge_numbers():
                _answered(a, "to_harness", lambda *row: list(run(check, [row])), ("q", "Paris", value))

        found.append(Check(f"{a.name}: to_harness: a number label of any size is answered at once", forward))
    return found


def checks(adapter: Adapter) -> list[Check]:
    """The conformance checks that apply to `adapter`, each a `Check` to call (one pytest test each)."""
    if not isinstance(adapter, Adapter):
        raise TypeError(f"checks: expected a scorebridge.kit.testing.Adapter; got {type(adapter).__name__}")
    return [
        *_forward_checks(adapter),
        *_reverse_checks(adapter),
        *_scale_checks(adapter),
        *_huge_number_checks(adapter),
    ]


def run_checks(adapter: Adapter) -> list[str]:
    """Run every check on `adapter`; the messages of those that failed (an empty list: it conforms)."""
    failed: list[str] = []
    for check in checks(adapter):
        try:
            check()
        except ConformanceError as exc:
            failed.append(str(exc))
    return failed
