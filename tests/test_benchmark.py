"""`benchmark()`: every run of every arm on every item, scored and recorded; the summary and the comparison."""

from __future__ import annotations

import asyncio
import contextvars
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

import scorebridge as sb
from scorebridge._runner import run as _benchmark
from scorebridge._runner.records import FIELDS

ITEMS = ["a", "b", "c"]
LABELS = ["A", "B", "C"]


def upper(item: str) -> str:
    return item.upper()


async def aupper(item: str) -> str:
    await asyncio.sleep(0)
    return item.upper()


def test_every_run_of_every_arm_on_every_item_is_recorded_in_arm_item_run_order() -> None:
    result = sb.benchmark({"x": upper, "y": aupper}, ITEMS, LABELS, runs=2)
    keys = [(r.arm, r.item_id, r.run) for r in result.records]
    assert keys == [(arm, i, run) for arm in ("x", "y") for i in range(3) for run in range(2)]
    assert all(r.correct for r in result.records)


def test_records_have_exactly_these_field_names() -> None:
    result = sb.benchmark({"x": upper}, ITEMS, LABELS)
    names = [
        *("arm", "item_id", "run", "correct", "value", "outcome", "failure_kind", "explanation", "metadata"),
        *("seconds", "error", "output"),
    ]
    assert [list(r) for r in result.to_records()] == [names] * 3
    assert list(FIELDS) == names


def test_records_are_immutable() -> None:
    record = sb.benchmark({"x": upper}, ITEMS, LABELS).records[0]
    with pytest.raises(AttributeError):
        record.correct = False  # type: ignore[misc]


def test_record_holds_what_the_scorer_saw() -> None:
    (record,) = sb.benchmark({"x": lambda item: "  Paris "}, ["q"], ["paris"]).records
    assert (record.correct, record.value, record.outcome, record.failure_kind, record.error) == (
        True,
        1.0,
        "paris",
        None,
        None,
    )


def test_an_arm_that_raises_on_one_item_is_recorded_error_and_the_run_goes_on() -> None:
    def flaky(item: str) -> str:
        if item == "b":
            raise ConnectionError("server went away")
        return item.upper()

    result = sb.benchmark({"flaky": flaky}, ITEMS, LABELS)
    assert [(r.correct, r.failure_kind, r.error) for r in result.records] == [
        (True, None, None),
        (False, "error", "ConnectionError: server went away"),
        (True, None, None),
    ]


def test_error_text_without_a_message_is_the_exception_type() -> None:
    def broken(item: str) -> str:
        raise RuntimeError

    assert sb.benchmark({"b": broken}, ["a"], ["A"]).records[0].error == "RuntimeError"


def test_budget_exceeded_from_an_arm_is_recorded_budget_stop() -> None:
    def capped(item: str) -> str:
        raise sb.BudgetExceeded("100 calls used")

    (record,) = sb.benchmark({"capped": capped}, ["a"], ["A"]).records
    assert (record.correct, record.failure_kind, record.error) == (
        False,
        "budget_stop",
        "BudgetExceeded: 100 calls used",
    )


def test_an_exception_marked_budget_stop_is_recorded_budget_stop() -> None:
    # A client library marks its own budget error without importing scorebridge.
    class CostLimit(Exception):
        budget_stop = True

    def capped(item: str) -> str:
        raise CostLimit("$5 spent")

    assert sb.benchmark({"capped": capped}, ["a"], ["A"]).records[0].failure_kind == "budget_stop"


def test_a_budget_stop_attribute_that_is_not_true_is_an_error() -> None:
    class Odd(Exception):
        budget_stop = "yes"

    def odd(item: str) -> str:
        raise Odd

    assert sb.benchmark({"odd": odd}, ["a"], ["A"]).records[0].failure_kind == "error"


def test_an_arm_error_on_an_unlabelled_item_is_unscored_with_its_kind_kept() -> None:
    # The hr package's protocol: "an item with no label: every run on it is recorded NA, with its failure_kind kept."
    def broken(item: str) -> str:
        raise ValueError("no")

    (record,) = sb.benchmark({"b": broken}, ["a"], [None]).records
    assert (record.correct, record.value, record.failure_kind) == (None, None, "error")


@pytest.mark.parametrize("concurrency", [1, 3])
def test_a_keyboard_interrupt_from_an_arm_propagates(concurrency: int) -> None:
    def interrupted(item: str) -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sb.benchmark({"i": interrupted}, ITEMS, LABELS, concurrency=concurrency)


def test_an_exception_from_the_scorer_stops_the_benchmark() -> None:
    # A broken scorer is a bug to fix, not the arm's "error".
    with pytest.raises(sb.ScorerContractError, match="a label must be"):
        sb.benchmark({"x": upper}, ["a"], [{"not": "a label"}])


def test_items_mapping_gives_the_item_ids_and_labels_by_id() -> None:
    result = sb.benchmark({"x": upper}, {"q1": "a", "q2": "b"}, {"q2": "B", "q1": "wrong"})
    assert [(r.item_id, r.correct) for r in result.records] == [("q1", False), ("q2", True)]


def test_labels_sequence_is_aligned_with_an_items_mapping() -> None:
    result = sb.benchmark({"x": upper}, {"q1": "a", "q2": "b"}, ["A", "x"])
    assert [(r.item_id, r.correct) for r in result.records] == [("q1", True), ("q2", False)]


def test_labels_mapping_without_an_item_id_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"no entry for 1 item id\(s\), e.g. \['q2'\]"):
        sb.benchmark({"x": upper}, {"q1": "a", "q2": "b"}, {"q1": "A"})


def test_labels_of_another_length_are_an_error() -> None:
    with pytest.raises(ValueError, match="3 items but 2 labels"):
        sb.benchmark({"x": upper}, ITEMS, ["A", "B"])


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"arms": {}}, TypeError, "non-empty mapping"),
        ({"arms": [upper]}, TypeError, "non-empty mapping"),
        ({"arms": {"x": "upper"}}, TypeError, "arm 'x' is not callable"),
        ({"arms": {" ": upper}}, TypeError, "non-blank string"),
        ({"items": "abc"}, TypeError, "items must be a sequence or a mapping"),
        ({"labels": "ABC"}, TypeError, "labels must be a sequence or a mapping"),
        ({"scorer": upper}, TypeError, "wrap a function with scorebridge.scorer"),
        ({"runs": 0}, ValueError, "runs must be an int of at least 1"),
        ({"concurrency": 1.5}, ValueError, "concurrency must be an int of at least 1"),
        ({"progress": "yes"}, TypeError, "progress must be None, True or False"),
    ],
)
def test_bad_arguments_raise_one_clear_error(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    args: dict[str, Any] = {"arms": {"x": upper}, "items": ITEMS, "labels": LABELS, **kwargs}
    with pytest.raises(error, match=message):
        sb.benchmark(**args)


def test_a_benchmark_of_no_items_is_an_error() -> None:
    # It used to return an empty summary, silently: a benchmark that measured nothing.
    with pytest.raises(ValueError, match="there are no items"):
        sb.benchmark({"x": upper}, [], [])


def test_sync_arms_at_concurrency_one_run_in_the_calling_thread() -> None:
    # So a client bound to its thread (a sqlite3 connection, a thread-local session) works.
    threads: set[int] = set()

    def arm(item: str) -> str:
        threads.add(threading.get_ident())
        return item.upper()

    sb.benchmark({"x": arm}, ITEMS, LABELS)
    assert threads == {threading.get_ident()}


@pytest.mark.parametrize("concurrency", [1, 2])
def test_a_sync_arm_may_call_asyncio_run(concurrency: int) -> None:
    # A sync arm that wraps an async client with asyncio.run must not meet a running event loop.
    def arm(item: str) -> str:
        return asyncio.run(aupper(item))

    result = sb.benchmark({"x": arm, "y": aupper}, ITEMS, LABELS, concurrency=concurrency)
    assert [r.failure_kind for r in result.records] == [None] * 6


CALLER: contextvars.ContextVar[str] = contextvars.ContextVar("CALLER", default="unset")


def test_a_sync_arm_sees_the_callers_context_variables() -> None:
    token = CALLER.set("A")
    try:
        result = sb.benchmark({"x": lambda item: CALLER.get()}, ["a"], ["A"], concurrency=2)
    finally:
        CALLER.reset(token)
    assert result.records[0].correct


def test_sync_arms_run_in_a_thread_pool_of_concurrency_size() -> None:
    # All three calls must be in flight at once to pass the barrier; one at a time they break it.
    barrier = threading.Barrier(3, timeout=10)

    def arm(item: str) -> str:
        barrier.wait()
        return item.upper()

    result = sb.benchmark({"x": arm}, ITEMS, LABELS, concurrency=3)
    assert [r.failure_kind for r in result.records] == [None, None, None]


@pytest.mark.parametrize(("concurrency", "peak"), [(1, 1), (4, 4)])
def test_async_arms_run_concurrently_up_to_concurrency(concurrency: int, peak: int) -> None:
    in_flight = most = 0

    async def arm(item: int) -> str:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        for _ in range(3):
            await asyncio.sleep(0)
        in_flight -= 1
        return str(item)

    result = sb.benchmark({"x": arm}, list(range(20)), [str(i) for i in range(20)], concurrency=concurrency)
    assert most == peak
    assert all(r.correct for r in result.records)


def test_records_keep_their_order_whatever_the_completion_order() -> None:
    async def slower_first(item: int) -> str:
        await asyncio.sleep(0.002 * (5 - item))
        return str(item)

    result = sb.benchmark({"x": slower_first}, list(range(5)), [str(i) for i in range(5)], concurrency=5)
    assert [r.item_id for r in result.records] == [0, 1, 2, 3, 4]


def test_an_object_with_an_async_call_is_an_async_arm() -> None:
    class Arm:
        async def __call__(self, item: str) -> str:
            return item.upper()

    assert all(r.correct for r in sb.benchmark({"x": Arm()}, ITEMS, LABELS).records)


@pytest.mark.parametrize("concurrency", [1, 2])
def test_a_sync_callable_returning_a_coroutine_is_awaited(concurrency: int) -> None:
    result = sb.benchmark({"x": lambda item: aupper(item)}, ITEMS, LABELS, concurrency=concurrency)
    assert all(r.correct for r in result.records)


def test_an_async_scorer_scores_every_run() -> None:
    async def same(item: Any, output: Any, label: Any) -> bool:
        await asyncio.sleep(0)
        return bool(output == label)

    result = sb.benchmark({"x": upper}, ITEMS, ["A", "x", "C"], scorer=sb.scorer(same))
    assert [r.correct for r in result.records] == [True, False, True]


def test_seconds_is_the_wall_time_of_the_arm_call() -> None:
    def slow(item: str) -> str:
        time.sleep(0.02)
        return item.upper()

    (record,) = sb.benchmark({"slow": slow}, ["a"], ["A"]).records
    assert record.seconds >= 0.02


def test_benchmark_works_inside_a_running_event_loop() -> None:
    async def notebook_cell() -> sb.BenchmarkResult:
        return sb.benchmark({"x": aupper}, ITEMS, LABELS, concurrency=2)

    assert len(asyncio.run(notebook_cell())) == 3


def test_abenchmark_runs_in_the_current_event_loop() -> None:
    async def main() -> tuple[sb.BenchmarkResult, asyncio.AbstractEventLoop, set[asyncio.AbstractEventLoop]]:
        loops: set[asyncio.AbstractEventLoop] = set()

        async def arm(item: str) -> str:
            loops.add(asyncio.get_running_loop())
            return item.upper()

        return await sb.abenchmark({"x": arm}, ITEMS, LABELS, concurrency=3), asyncio.get_running_loop(), loops

    result, loop, loops = asyncio.run(main())
    assert loops == {loop}
    assert len(result) == 3


def test_keyboard_interrupt_inside_a_running_loop_leaves_the_helper_loop_working() -> None:
    # The helper thread's loop must survive: a KeyboardInterrupt escaping a task there would stop
    # that loop, and every later call from a running loop would wait for ever.
    def interrupted(item: str) -> str:
        raise KeyboardInterrupt

    async def cells() -> None:
        with pytest.raises(KeyboardInterrupt):
            sb.benchmark({"i": interrupted}, ITEMS, LABELS)
        lengths.append(len(sb.benchmark({"x": aupper}, ITEMS, LABELS)))

    lengths: list[int] = []
    notebook = threading.Thread(target=asyncio.run, args=(cells(),), daemon=True)
    notebook.start()
    notebook.join(timeout=30)  # a regression hangs; fail instead of waiting for ever
    assert lengths == [3]


def _result_for(verdicts: Mapping[str, Sequence[bool | None]]) -> sb.BenchmarkResult:
    """A benchmark whose arm NAME answers right where verdicts[NAME][item] is True (None: item unlabelled)."""
    n = len(next(iter(verdicts.values())))

    def arm_for(name: str) -> Any:
        return lambda item: "yes" if verdicts[name][item] else "no"

    labels = ["yes" if all(v[i] is not None for v in verdicts.values()) else None for i in range(n)]
    return sb.benchmark({name: arm_for(name) for name in verdicts}, list(range(n)), labels)


def test_summary_counts_accuracy_interval_failure_kinds_and_unscored() -> None:
    def arm(item: int) -> str:
        if item == 8:
            raise TimeoutError("slow")
        return "yes" if item < 8 else "no"

    labels: list[str | None] = ["yes"] * 10 + [None]
    summary = sb.benchmark({"arm": arm}, list(range(11)), labels).summary()["arm"]
    assert (summary.rows, summary.scored, summary.correct, summary.unscored) == (11, 10, 8, 1)
    assert summary.accuracy == 0.8
    assert summary.interval == pytest.approx((0.4902, 0.9433), abs=5e-5)
    assert (summary.failure_kinds["error"], summary.failure_kinds["wrong"], summary.failure_kinds["refusal"]) == (
        1,
        1,
        0,
    )


def test_summary_prints_an_aligned_table() -> None:
    result = _result_for({"good": [True] * 8 + [False] * 2, "bad": [True] * 3 + [False] * 7})
    lines = str(result.summary()).splitlines()
    assert lines[0].split() == ["arm", "rows", "scored", "correct", "accuracy", "95%", "CI", "wrong", "unscored"]
    assert lines[2].split() == ["good", "10", "10", "8", "0.800", "[0.490,", "0.943]", "2", "0"]
    assert lines[3].startswith("bad ")
    assert len({len(line) for line in lines}) == 1


def test_one_summary_prints_as_its_table_not_a_tuple() -> None:
    # print(summary) once showed Summary(name=..., failure_kinds=mappingproxy({...})).
    scores = sb.exact().score_many([None] * 3, ["Paris", "Lyon", "Nice"], ["Paris", "Paris", None])
    lines = str(sb.Summary.of("exact", scores)).splitlines()
    assert lines[0].split() == ["name", "rows", "scored", "correct", "accuracy", "95%", "CI", "wrong", "unscored"]
    assert lines[2].split() == ["exact", "3", "2", "1", "0.500", "[0.095,", "0.905]", "1", "1"]


def test_summary_of_an_arm_with_nothing_scored_shows_dashes() -> None:
    summary = sb.benchmark({"x": upper}, ITEMS, [None, None, None]).summary()
    assert (summary["x"].accuracy, summary["x"].interval) == (None, None)
    assert str(summary).splitlines()[2].split()[4:6] == ["-", "-"]


def test_summary_accuracy_averages_partial_credit_as_inspect_and_dspy_do() -> None:
    half = sb.scorer(lambda item, output, label: {"correct": True, "value": 0.5}, name="half")
    summary = sb.benchmark({"x": upper}, ITEMS, LABELS, scorer=half).summary()
    assert (summary["x"].accuracy, summary["x"].correct) == (0.5, 3)


def test_summary_of_an_unknown_arm_is_a_key_error_naming_the_arms() -> None:
    with pytest.raises(KeyError, match="the arms are"):
        sb.benchmark({"x": upper}, ITEMS, LABELS).summary()["y"]


def test_compare_uses_the_exact_mcnemar_test_on_discordant_pairs() -> None:
    # b = 1 pair only "a" got right, c = 9 pairs only "b" got right: p = 0.021484375.
    a = [True] + [False] * 9 + [True] * 5 + [False] * 5
    b = [False] + [True] * 9 + [True] * 5 + [False] * 5
    comparison = _result_for({"a": a, "b": b}).compare("a", "b")
    assert (comparison.pairs, comparison.both_correct, comparison.only_a, comparison.only_b, comparison.both_wrong) == (
        20,
        5,
        1,
        9,
        5,
    )
    assert comparison.p_value == 0.021484375
    assert (comparison.accuracy_a, comparison.accuracy_b) == (0.3, 0.7)
    assert comparison.difference == pytest.approx(-0.4)


def test_compare_prints_accuracies_discordant_pairs_and_the_test() -> None:
    text = str(_result_for({"a": [True, False, True], "b": [False, False, True]}).compare("a", "b"))
    assert "a vs b on 3 (item, run) pairs" in text
    assert "1 only a correct, 0 only b correct" in text
    assert "exact McNemar test, two-sided: p = 1" in text


def test_compare_leaves_out_pairs_that_are_unscored() -> None:
    comparison = _result_for({"a": [True, None, True], "b": [False, None, True]}).compare("a", "b")
    assert comparison.pairs == 2


def test_compare_with_no_pair_says_so() -> None:
    comparison = _result_for({"a": [None], "b": [None]}).compare("a", "b")
    assert (comparison.pairs, comparison.difference, comparison.p_value) == (0, None, 1.0)
    assert "no (item, run) pair" in str(comparison)


def test_compare_an_unknown_arm_is_an_error() -> None:
    with pytest.raises(ValueError, match="no arm 'z'"):
        _result_for({"a": [True], "b": [True]}).compare("a", "z")


def test_to_pandas_has_one_row_per_record_and_the_record_columns() -> None:
    pytest.importorskip("pandas")
    frame = sb.benchmark({"x": upper, "y": upper}, ITEMS, LABELS).to_pandas()
    assert list(frame.columns) == list(FIELDS)
    assert len(frame) == 6
    assert list(frame["arm"]) == ["x"] * 3 + ["y"] * 3


def test_to_pandas_without_pandas_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    result = sb.benchmark({"x": upper}, ITEMS, LABELS)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        result.to_pandas()


def test_progress_true_shows_a_bar_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    sb.benchmark({"x": upper}, ITEMS, LABELS, progress=True)
    assert "benchmark" in capsys.readouterr().err


def test_progress_false_shows_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    sb.benchmark({"x": upper}, ITEMS, LABELS, progress=False)
    assert capsys.readouterr().err == ""


def test_progress_is_off_by_default_when_stderr_is_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    sb.benchmark({"x": upper}, ITEMS, LABELS)
    assert capsys.readouterr().err == ""


def test_progress_on_a_terminal_stays_hidden_for_a_run_shorter_than_the_delay(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # No timed assertion (review defect: this assumed the run took under tqdm's 1 s delay):
    # a delay no run reaches stands for "a short run".
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setattr(_benchmark, "_PROGRESS_DELAY", 1e9)
    sb.benchmark({"x": upper}, ITEMS, LABELS)
    assert capsys.readouterr().err == ""


def test_progress_on_a_terminal_shows_for_a_run_longer_than_the_delay(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # No timed assertion (review defect: this slept 1.2 s to pass tqdm's 1 s delay):
    # a delay of 0 stands for "a long run".
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setattr(_benchmark, "_PROGRESS_DELAY", 0.0)
    sb.benchmark({"x": upper}, ITEMS, LABELS)
    assert "benchmark" in capsys.readouterr().err


def test_result_repr_names_records_arms_and_scorer() -> None:
    assert repr(sb.benchmark({"x": upper}, ITEMS, LABELS)) == "<BenchmarkResult 3 records, arms ['x'], scorer exact>"


def test_importing_scorebridge_leaves_the_progress_bar_and_the_cli_unimported() -> None:
    # tqdm alone costs tens of milliseconds; it is imported when a bar is shown.
    code = "import sys, scorebridge; print(sorted(m for m in ('tqdm', 'argparse', 'csv') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_mean_value_outside_zero_to_one_has_no_interval_but_an_accuracy() -> None:
    # A scorer on a scale of its own (0 to 5): the Wilson interval of a proportion does not apply, and it
    # raised "successes must be between 0 and 1" from inside the summary.
    five = sb.scorer(lambda item, output, label: {"correct": True, "value": 5.0}, name="five")
    summary = sb.benchmark({"x": upper}, ITEMS, LABELS, scorer=five).summary()["x"]
    assert (summary.accuracy, summary.interval) == (5.0, None)


def test_a_record_keeps_what_the_arm_returned_and_none_when_it_raised() -> None:
    def arm(item: str) -> str:
        if item == "c":
            raise ValueError("no answer")
        return item.upper()

    result = sb.benchmark({"x": arm}, ["a", "c"], ["A", "C"])
    assert [r.output for r in result.records] == ["A", None]
