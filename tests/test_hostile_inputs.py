"""Every public entry point of the core, fed hostile values: a Score or one clear error, never anything else.

The values are `hostile.hostile()` (10 MB strings, lone surrogates, numbers
too long to write, deep nesting, objects whose methods raise, ...), given as
the item, the output or the label in turn, the other two ordinary. Allowed
outcomes, per entry point:

- a `Score`;
- a `ScorerContractError` whose message starts with the scorer's name;
- for the pytest plugin's assertions, their own `AssertionError`;
- for a user scorer whose own function raises (`compares`, which runs
  `output == label`), that exception, with a note naming the scorer.

Anything else is the bug this file guards against: model_graded_qa raising
ValueError on a label of 10**5000, a user scorer raising RecursionError on a
label nested 5,000 deep before its function ran, the pytest report crashing on
a lone surrogate (issue: "every hostile input gets a Score or a clear error").

The default run draws SCOREBRIDGE_HOSTILE_EXAMPLES examples per entry point
(200 when unset); set it to 10000 for the full run. With
SCOREBRIDGE_HOSTILE_EXAMPLES set, each call must also finish within
SCOREBRIDGE_HOSTILE_SECONDS (default 2), and `-s` prints the counts.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hostile import BIG, Hostile, HostileMapping, HostileStr, deep_list, hostile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorebridge as sb
from scorebridge.testing import FakeGrader

FULL = "SCOREBRIDGE_HOSTILE_EXAMPLES" in os.environ
EXAMPLES = int(os.environ.get("SCOREBRIDGE_HOSTILE_EXAMPLES", "200"))
SECONDS = float(os.environ.get("SCOREBRIDGE_HOSTILE_SECONDS", "2"))

ITEM, OUTPUT, LABEL = "What is the capital of France?", "The answer is Paris", "Paris"


def echo(item: Any, output: Any, label: Any) -> Any:
    """A user scorer returning the output itself: the recording rules read whatever comes back."""
    return output


def fields(item: Any, output: Any, label: Any) -> Any:
    """A user scorer that records the values it was given in its Score's fields."""
    return {"correct": None, "outcome": item, "explanation": None, "metadata": {"label": label, "output": output}}


def constant(item: Any, output: Any, label: Any) -> bool:
    """A user scorer that reads nothing: only the Scorer's own handling of the call touches the values."""
    return True


def compares(item: Any, output: Any, label: Any) -> Any:
    """A user scorer that compares output and label itself: a hostile `__eq__` raises inside it."""
    return output == label


async def async_echo(item: Any, output: Any, label: Any) -> Any:
    return output


USER = {f.__name__: sb.scorer(f) for f in (echo, fields, constant, compares, async_echo)}
# User scorers whose own call may raise: `compares` runs `output == label` itself, and `echo` returns the
# output, which may be an awaitable that raises when awaited (awaiting what a scorer returns is running it).
OWN_EXCEPTIONS = {"compares", "echo"}


@dataclass(frozen=True)
class Entry:
    """One public entry point: its name, the scorer name its errors carry, and the call."""

    name: str
    scorer: str
    call: Callable[[Any, Any, Any], Any]  # (item, output, label) -> Score(s)
    assertion: bool = False  # the pytest plugin's assertions: an AssertionError is their verdict
    after: Callable[[], None] | None = None  # checks run after the timed call (the plugin's report)
    wraps: bool = False  # it wraps a harness's scorer: that scorer's own exception may pass, noted


def _plain(s: sb.Scorer) -> Callable[[Any, Any, Any], Any]:
    return s


def _awaited(s: sb.Scorer) -> Callable[[Any, Any, Any], Any]:
    return lambda i, o, lab: asyncio.run(s.acall(i, o, lab))


def _many(s: sb.Scorer, concurrency: int = 4) -> Callable[[Any, Any, Any], Any]:
    # the hostile row between two ordinary ones
    return lambda i, o, lab: s.score_many(
        [ITEM, i, ITEM], [OUTPUT, o, OUTPUT], [LABEL, lab, LABEL], concurrency=concurrency
    )


def _amany(s: sb.Scorer) -> Callable[[Any, Any, Any], Any]:
    return lambda i, o, lab: asyncio.run(s.ascore_many([i, ITEM], [o, OUTPUT], [lab, LABEL], concurrency=2))


BUILTINS: list[sb.Scorer] = [
    sb.exact(),
    sb.exact(normalise=False),
    sb.detect_includes(),
    sb.detect_includes(case_sensitive=True),
    *(sb.detect_match(location=loc) for loc in ("end", "begin", "any", "exact")),
    sb.detect_pattern(r"answer is (.+)$"),
    sb.detect_pattern(r"(\w+)\s+(\w+)", all=True, case_sensitive=True),
    *(sb.detect_answer(format=f) for f in ("line", "word", "letter")),
    sb.detect_exact(),
]
GRADED: list[sb.Scorer] = [
    sb.model_graded_qa(FakeGrader("Reasoning.\nGRADE: C")),
    sb.model_graded_fact(FakeGrader("GRADE: I", asynchronous=True)),
    sb.model_graded_qa(FakeGrader({"": "GRADE: P"}), partial_credit=True, timeout=None),
]


def _entries() -> list[Entry]:
    entries = [Entry(f"{s!r}", s.name, _plain(s)) for s in BUILTINS + GRADED]
    entries += [Entry(f"{s!r}.acall", s.name, _awaited(s)) for s in (BUILTINS[0], GRADED[1])]
    entries += [Entry(f"scorer({name})", name, _plain(s)) for name, s in USER.items()]
    entries += [Entry(f"scorer({name}).acall", name, _awaited(s)) for name, s in USER.items() if name != "constant"]
    entries += [
        Entry("exact().score_many", "exact", _many(sb.exact())),
        Entry("detect_pattern().score_many", "detect_pattern", _many(BUILTINS[8])),
        Entry("model_graded_qa(sync).score_many", "model_graded_qa", _many(GRADED[0])),
        Entry("model_graded_fact(async).score_many", "model_graded_fact", _many(GRADED[1])),
        Entry("scorer(echo).score_many", "echo", _many(USER["echo"])),
        Entry("scorer(async_echo).score_many", "async_echo", _many(USER["async_echo"])),
        Entry("scorer(fields).ascore_many", "fields", _amany(USER["fields"])),
        Entry("model_graded_qa(sync).ascore_many", "model_graded_qa", _amany(GRADED[0])),
    ]
    return entries


def _adapter_entries() -> list[Entry]:
    """The reverse adapters: an Inspect AI scorer and a DSPy metric brought in, where the harness is installed.

    Their reading of the item, output and label is scorebridge's, and held to the same rule; what the
    wrapped scorer or metric raises of its own (answer_exact_match's TypeError on a number) passes with
    a note naming it, but for `on_error="record"`, which never raises.
    """
    entries: list[Entry] = []
    try:
        from inspect_ai.scorer import includes, match

        from scorebridge_inspect import from_inspect
    except ImportError:  # Python 3.10: no Inspect AI
        pass
    else:
        for made in (from_inspect(match()), from_inspect(includes())):
            entries.append(Entry(f"from_inspect({made.name}())", made.name, _plain(made), wraps=True))
    try:
        from dspy.evaluate import answer_exact_match

        from scorebridge_dspy import from_dspy
    except ImportError:
        pass
    else:
        raising = from_dspy(answer_exact_match)
        recording = from_dspy(answer_exact_match, on_error="record")
        entries.append(Entry("from_dspy(answer_exact_match)", raising.name, _plain(raising), wraps=True))
        entries.append(Entry("from_dspy(answer_exact_match, on_error='record')", recording.name, _plain(recording)))
    from scorebridge_rl import from_trl, from_verl

    def reward(completions: list[Any], solution: list[Any], **kwargs: Any) -> list[float]:
        return [1.0 if str(c) == str(s) else 0.0 for c, s in zip(completions, solution, strict=True)]

    def compute_score(data_source: Any, solution_str: Any, ground_truth: Any, extra_info: Any = None) -> float:
        return 1.0 if str(solution_str) == str(ground_truth) else 0.0

    # the label reaches these as the harness hands it: what the function itself makes of a huge one is its own
    for made in (from_trl(reward), from_verl(compute_score)):
        entries.append(Entry(f"{made!r}", made.name, _plain(made), wraps=True))
    return entries


ENTRIES = _entries() + _adapter_entries()


# --- the pytest plugin's entry points: assertions and the recorder, into records of their own -----------


def _plugin_entries() -> list[Entry]:
    plugin = pytest.importorskip("pytest_scorebridge")
    from pytest_scorebridge import _state, _summary

    report = Path(tempfile.mkdtemp(prefix="scorebridge-hostile-")) / "report.jsonl"
    recorded: list[_state.Records] = []

    def reported() -> None:
        # after the timed call: the report and the xdist transport carry every row recorded
        for records in recorded:
            _summary.write_report(report, records.rows)
            assert _state.unpack(_state.pack(records.rows)) == records.rows
        recorded.clear()

    def isolated(run: Callable[[], Any]) -> Any:
        # records of their own, so the run's summary does not keep 10 MB outcomes
        records = _state.Records()
        recorded.append(records)
        _state.push(records)
        try:
            return run()
        finally:
            _state.pop(records)

    def scored(s: sb.Scorer) -> Callable[[Any, Any, Any], Any]:
        return lambda i, o, lab: isolated(lambda: plugin.assert_scored(s, o, lab, i))

    def accuracy(s: sb.Scorer) -> Callable[[Any, Any, Any], Any]:
        return lambda i, o, lab: isolated(lambda: plugin.assert_accuracy(s, [o, OUTPUT], [lab, LABEL], [i, ITEM], 0.5))

    def recorder(s: sb.Scorer) -> Callable[[Any, Any, Any], Any]:
        def call(i: Any, o: Any, lab: Any) -> Any:
            records = _state.Records()
            recorded.append(records)
            return plugin.Recorder(records, "test_hostile.py::case")(s, o, lab, i)

        return call

    return [
        Entry("assert_scored(exact())", "exact", scored(sb.exact()), True, reported),
        Entry("assert_scored(scorer(fields))", "fields", scored(USER["fields"]), True, reported),
        Entry("assert_accuracy(detect_match())", "detect_match", accuracy(sb.detect_match()), True, reported),
        # `fields`, not `echo`: a bare number read as a grade may be any value, and the summary's confidence
        # interval refuses one outside [0, 1] (test_an_accuracy_over_values_on_any_scale_is_a_verdict below)
        Entry("assert_accuracy(scorer(fields))", "fields", accuracy(USER["fields"]), True, reported),
        Entry("scorebridge_record(scorer(fields))", "fields", recorder(USER["fields"]), False, reported),
        Entry("scorebridge_record(model_graded_qa)", "model_graded_qa", recorder(GRADED[0]), False, reported),
    ]


# --- the run -----------------------------------------------------------------------------------------------

_counts: dict[str, Counter[str]] = defaultdict(Counter)
_slowest: dict[str, float] = defaultdict(float)


@pytest.fixture(scope="module", autouse=True)
def _report_counts() -> Iterator[None]:
    yield
    if FULL:
        print(f"\nhostile inputs, {EXAMPLES} examples per entry point:")
        for name, counts in sorted(_counts.items()):
            shown = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
            print(f"  {name:55} max {_slowest[name]:6.3f} s   {shown}")


def _check(entry: Entry, role: str, value: Any) -> None:
    args = {"item": ITEM, "output": OUTPUT, "label": LABEL, role: value}
    start = time.perf_counter()
    try:
        result = entry.call(args["item"], args["output"], args["label"])
    except sb.ScorerContractError as exc:
        assert str(exc).startswith(f"{entry.scorer}: "), str(exc)[:300]
        kind = "ScorerContractError"
    except AssertionError as exc:
        if not entry.assertion or not str(exc).startswith(f"{entry.scorer}: "):
            raise
        kind = "AssertionError (the assertion's verdict)"
    except Exception as exc:
        if entry.scorer not in OWN_EXCEPTIONS and not entry.wraps:
            raise
        notes = getattr(exc, "__notes__", ())
        assert any(note.startswith("raised inside the") for note in notes), exc  # the scorer (or metric) named
        kind = f"{type(exc).__name__} (its own, noted)"
    else:
        scores = result if isinstance(result, list) else [result]
        assert all(type(s) is sb.Score for s in scores)
        kind = "Score"
    elapsed = time.perf_counter() - start
    if entry.after is not None:
        entry.after()
    _counts[entry.name][kind] += 1
    _slowest[entry.name] = max(_slowest[entry.name], elapsed)
    if FULL:
        assert elapsed <= SECONDS, f"{entry.name}: one call took {elapsed:.2f} s"


_HYPOTHESIS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
_ROLES = st.sampled_from(["item", "output", "label"])

KNOWN: list[tuple[str, Any]] = [
    # the cases found by probing, in every role: each once crashed an entry point or took seconds
    *((role, value) for role in ("item", "output", "label") for value in (10**5000, Decimal("1e1000000"))),
    ("label", Decimal("1e-1000000")),
    # a number label of any size or precision is answered at once: a million digits of precision, the float
    # extremes, a Fraction too big for a float
    ("label", Decimal("1." + "3" * 1_000_000)),
    ("label", 1.7976931348623157e308),
    ("label", 5e-324),
    ("label", Fraction(10**5000, 3)),
    ("label", -(10**100_000)),
    *((role, deep_list(5_000)) for role in ("item", "output", "label")),
    ("output", deep_list(100_000)),
    *((role, Hostile()) for role in ("item", "output", "label")),
    ("label", HostileStr("Paris")),
    ("output", HostileStr("Paris")),
    ("output", HostileMapping()),
    ("output", "Paris\udfff"),
    ("label", "\ud800"),
    ("output", BIG[1]),
]
"""Always run, before the drawn examples: the rare values that matter most, whatever the example count."""


def _run(entry: Entry) -> None:
    @_HYPOTHESIS
    @given(role=_ROLES, value=hostile())
    def run(role: str, value: Any) -> None:
        _check(entry, role, value)

    for role, value in KNOWN:  # not hypothesis's @example: it shows each example's repr, which these break
        _check(entry, role, value)
    run()


@pytest.mark.filterwarnings("ignore:unrecognised grade")  # what `echo` returns is read as a grade, with a warning
@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_hostile_value_gives_a_score_or_a_contract_error(entry: Entry) -> None:
    _run(entry)


@pytest.mark.filterwarnings("ignore:unrecognised grade")
@pytest.mark.parametrize("index", range(6))
def test_hostile_value_through_the_pytest_plugin_is_a_verdict_and_a_report_row(index: int) -> None:
    _run(_plugin_entries()[index])


def test_an_accuracy_over_values_on_any_scale_is_a_verdict() -> None:
    # found by the hostile strategy: a user scorer returning -1 (a grade on its own scale) made
    # assert_accuracy raise "successes must be between 0 and 1" from deep inside the summary
    plugin = pytest.importorskip("pytest_scorebridge")
    from pytest_scorebridge import _state

    records = _state.Records()  # of its own: the run's summary would meet the same bug
    _state.push(records)
    try:
        with pytest.raises(AssertionError, match=r"^echo: "):
            plugin.assert_accuracy(USER["echo"], [-1, 0], ["x", "x"], at_least=0.9)
    finally:
        _state.pop(records)
