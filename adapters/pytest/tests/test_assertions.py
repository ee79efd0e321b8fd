"""`assert_scored` and `assert_accuracy`: when they pass, and what their failure messages show."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorebridge as sb
from pytest_scorebridge import assert_accuracy, assert_accuracy_async, assert_scored, assert_scored_async
from pytest_scorebridge._state import Records, pop, push


@pytest.fixture(autouse=True)
def records() -> Iterator[Records]:
    """A run of the test's own: what the assertions record stays out of the real run's summary."""
    mine = Records()
    push(mine)
    yield mine
    pop(mine)


def _within_1pct(item: Any, output: Any, label: Any) -> dict[str, Any]:
    # The hr package's own example of a scorer: a number within 1% of the label.
    try:
        x = float(output)
    except (TypeError, ValueError):
        return {"correct": False, "outcome": None, "failure_kind": "parse_failure", "explanation": "not a number"}
    return {"correct": abs(x - label) <= 0.01 * abs(label), "outcome": f"{x:g}", "failure_kind": None}


within_1pct = sb.scorer(_within_1pct)


async def _async_exact(item: Any, output: Any, label: Any) -> bool:
    await asyncio.sleep(0)
    return bool(output == label)


async_exact = sb.scorer(_async_exact)
"""An async scorer: stands in for one wrapped from Inspect AI or DSPy."""


def _fails(call: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(AssertionError) as info:
        call(*args, **kwargs)
    return str(info.value)


# --- assert_scored ----------------------------------------------------------


def test_a_correct_output_passes_and_returns_its_score() -> None:
    score = assert_scored(sb.exact(), "  paris ", "Paris")
    assert score.correct is True
    assert score.outcome == "paris"


def test_a_wrong_output_fails_with_every_field_in_the_message() -> None:
    message = _fails(assert_scored, within_1pct, "about ten", 10)
    assert message.splitlines() == [
        "_within_1pct: the output is not correct (failure kind: parse_failure)",
        "  output:       'about ten'",
        "  label:        10",
        "  outcome:      -",
        "  failure kind: parse_failure",
        "  explanation:  'not a number'",
    ]


def test_a_long_output_is_cut_with_its_whole_length() -> None:
    message = _fails(assert_scored, sb.exact(), "x" * 5000, "y")
    assert f"  output:       {'x' * 200!r}… (5000 chars)" in message.splitlines()
    assert "x" * 201 not in message


def test_the_item_is_shown_when_one_is_given() -> None:
    message = _fails(assert_scored, sb.exact(), "Lyon", "Paris", item="Capital of France?")
    assert "  item:         'Capital of France?'" in message.splitlines()


def test_an_item_with_no_label_fails_as_not_scored() -> None:
    # The hr package's protocol: "an item with no label: every run on it is recorded NA" -- not a pass.
    message = _fails(assert_scored, sb.exact(), "Paris", None)
    assert message.splitlines()[0] == "exact: not scored: the item has no label"


def test_a_scorer_that_cannot_tell_fails_as_not_scored() -> None:
    unsure = sb.scorer(lambda item, output, label: {"correct": None}, name="unsure")
    message = _fails(assert_scored, unsure, "Paris", "Paris")
    assert message.splitlines()[0] == "unsure: not scored: the scorer could not tell (correct is None)"


def _near(item: Any, output: Any, label: float) -> Any:
    return {"correct": None if label is None else abs(float(output) - label) <= 0.01 * abs(label)}


def test_a_label_the_scorer_reads_as_none_fails_as_having_no_label() -> None:
    # A CSV cell "NaN" is no label to `label: float`, yet the message blamed the scorer ("could not tell").
    message = _fails(assert_scored, sb.scorer(_near), "3.14", "NaN")
    assert message.splitlines()[0] == "_near: not scored: the item has no label"


def test_a_scorer_that_needs_no_label_and_says_none_could_not_tell() -> None:
    # With needs_label=False a missing label does not make a row unscored: the scorer's own None did.
    unsure = sb.scorer(
        lambda item, output, label: {"correct": None if label is None else True}, name="unsure", needs_label=False
    )
    message = _fails(assert_scored, unsure, "Paris", None)
    assert message.splitlines()[0] == "unsure: not scored: the scorer could not tell (correct is None)"


def test_a_partial_value_is_shown_in_the_message() -> None:
    half = sb.scorer(lambda item, output, label: {"correct": False, "value": 0.4}, name="half")
    assert "  value:        0.4" in _fails(assert_scored, half, "a", "b").splitlines()


def test_a_correct_score_with_partial_credit_passes() -> None:
    half = sb.scorer(lambda item, output, label: {"correct": True, "value": 0.5}, name="half")
    assert assert_scored(half, "a", "b").grade == "P"


def test_an_async_scorer_runs_under_the_sync_assertion() -> None:
    assert assert_scored(async_exact, "a", "a").correct is True
    assert "_async_exact: the output is not correct" in _fails(assert_scored, async_exact, "a", "b")


def test_assert_scored_async_awaits_an_async_scorer() -> None:
    assert asyncio.run(assert_scored_async(async_exact, "a", "a")).correct is True
    with pytest.raises(AssertionError, match="failure kind: wrong"):
        asyncio.run(assert_scored_async(async_exact, "a", "b"))


def test_the_sync_assertion_works_inside_a_running_event_loop() -> None:
    # An async test calling the sync assertion: the async scorer runs on a helper thread.
    async def test_body() -> sb.Score:
        return assert_scored(async_exact, "a", "a")

    assert asyncio.run(test_body()).correct is True


def test_assert_scored_records_its_score_whether_it_passes_or_fails(records: Records) -> None:
    records.current = "test_x.py::test_x"
    assert_scored(sb.exact(), "Paris", "Paris")
    _fails(assert_scored, sb.exact(), "Lyon", "Paris")
    assert [(r["nodeid"], r["scorer"], r["grade"]) for r in records.rows] == [
        ("test_x.py::test_x", "exact", "C"),
        ("test_x.py::test_x", "exact", "I"),
    ]


def test_the_assertions_work_in_plain_python_outside_pytest() -> None:
    code = (
        "import scorebridge as sb; from pytest_scorebridge import assert_scored; "
        "print(assert_scored(sb.exact(), 'Paris', 'Paris').grade)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "C"


def test_a_plain_function_is_refused_with_a_hint() -> None:
    with pytest.raises(
        TypeError, match=r"assert_scored: scorer must be a scorebridge.Scorer .*scorebridge.scorer\(fn\)"
    ):
        assert_scored(_within_1pct, "1", 1)  # type: ignore[arg-type]


def test_an_exception_in_the_scorer_propagates_naming_it() -> None:
    def broken(item: Any, output: Any, label: Any) -> bool:
        raise RuntimeError("grader offline")

    with pytest.raises(RuntimeError, match="grader offline") as info:
        assert_scored(sb.scorer(broken), "a", "a")
    assert "raised inside the scorer 'broken'" in getattr(info.value, "__notes__", [])


def test_an_output_whose_repr_raises_still_gives_the_message() -> None:
    class Hostile:
        text = "Lyon"

        def __repr__(self) -> str:
            raise ValueError("no repr")

    message = _fails(assert_scored, sb.exact(), Hostile(), "Paris")
    assert "  output:       <Hostile whose repr raised ValueError>" in message.splitlines()


# --- assert_accuracy --------------------------------------------------------


def test_accuracy_averages_partial_credit_as_inspect_and_dspy_do() -> None:
    # One number everywhere: Inspect's accuracy() and DSPy's Evaluate average the value, so two halves are 0.5
    # here too (it was correct / scored, 0.0, a number no other harness gave).
    half = sb.scorer(lambda item, output, label: {"correct": False, "value": 0.5}, name="half")
    assert len(assert_accuracy(half, ["a", "b"], ["a", "b"], at_least=0.5)) == 2
    message = _fails(assert_accuracy, half, ["a", "b"], ["a", "b"], at_least=0.6)
    assert message.startswith("half: accuracy 0.500 (0 of 2 scored correct)")


def test_accuracy_at_the_bar_passes_and_returns_every_score() -> None:
    # 7 of 10 against at_least=0.7: compared as correct / scored, with no float slip.
    outputs = ["a"] * 7 + ["b"] * 3
    scores = assert_accuracy(sb.exact(), outputs, ["a"] * 10, at_least=0.7)
    assert [s.correct for s in scores] == [True] * 7 + [False] * 3


def test_accuracy_below_the_bar_fails_with_the_counts_and_a_table_of_the_wrong_ones() -> None:
    outputs = ["Paris", "Roma", None, "Madrid"]
    labels = ["Paris", "Rome", "Berlin", "Madrid"]
    lines = _fails(assert_accuracy, sb.exact(), outputs, labels, at_least=0.9).splitlines()
    assert lines[0] == "exact: accuracy 0.500 (2 of 4 scored correct) is below at_least=0.9"
    assert lines[1] == "  failure kinds: parse_failure 1, wrong 1"
    assert re.split(r"\s{2,}", lines[3].strip()) == ["index", "output", "label", "failure kind", "explanation"]
    assert re.split(r"\s{2,}", lines[4].strip()) == ["1", "'Roma'", "'Rome'", "wrong", "-"]
    assert re.split(r"\s{2,}", lines[5].strip()) == ["2", "None", "'Berlin'", "parse_failure", "'there is no output'"]
    assert len(lines) == 6


def test_unscored_outputs_are_left_out_of_the_accuracy_and_reported() -> None:
    # 1 of 2 scored is correct; the two unlabelled items do not count as wrong.
    message = _fails(assert_accuracy, sb.exact(), ["a", "b", "c", "d"], ["a", None, "x", ""], at_least=0.6)
    assert "accuracy 0.500 (1 of 2 scored correct)" in message
    assert "  unscored (left out of the accuracy): 2, at index 1, 3" in message.splitlines()
    scores = assert_accuracy(sb.exact(), ["a", "b", "c"], ["a", None, "c"], at_least=1.0)
    assert [s.grade for s in scores] == ["C", "N", "C"]


def test_accuracy_fails_when_nothing_is_scored() -> None:
    message = _fails(assert_accuracy, sb.exact(), ["a", "b"], [None, None], at_least=0.0)
    assert message.splitlines()[0] == "exact: nothing was scored (2 outputs, 2 unscored); at_least=0.0"
    assert "nothing was scored (0 outputs" in _fails(assert_accuracy, sb.exact(), [], [], at_least=0.0)


def test_the_table_lists_the_first_50_wrong_ones_and_counts_the_rest() -> None:
    lines = _fails(assert_accuracy, sb.exact(), ["b"] * 60, ["a"] * 60).splitlines()
    assert lines[-1] == "    … and 10 more"
    assert lines[-2].split()[0] == "49"


@pytest.mark.parametrize(
    ("at_least", "error"), [(True, TypeError), ("0.9", TypeError), (1.5, ValueError), (float("nan"), ValueError)]
)
def test_a_bad_at_least_is_refused_before_scoring(at_least: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="assert_accuracy: at_least must be a number from 0 to 1"):
        assert_accuracy(sb.exact(), ["a"], ["a"], at_least=at_least)


def test_outputs_and_labels_of_different_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="exact: score_many needs as many items, outputs and labels"):
        assert_accuracy(sb.exact(), ["a", "b"], ["a"])


def test_assert_accuracy_records_every_score(records: Records) -> None:
    _fails(assert_accuracy, sb.exact(), ["a", "b", "c"], ["a", "x", None])
    assert [r["grade"] for r in records.rows] == ["C", "I", "N"]


def test_accuracy_takes_generators_and_items() -> None:
    scores = assert_accuracy(
        within_1pct, (str(x) for x in (10, 20)), iter([10, 20.1]), items=["q1", "q2"], at_least=1.0
    )
    assert [s.outcome for s in scores] == ["10", "20"]


def test_assert_accuracy_async_awaits_an_async_scorer() -> None:
    scores = asyncio.run(assert_accuracy_async(async_exact, ["a", "b"], ["a", "b"], at_least=1.0))
    assert [s.correct for s in scores] == [True, True]
    with pytest.raises(AssertionError, match=r"accuracy 0\.500 \(1 of 2 scored correct\)"):
        asyncio.run(assert_accuracy_async(async_exact, ["a", "x"], ["a", "b"]))


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # `records` needs no reset
@given(st.lists(st.sampled_from([True, False, None]), max_size=30), st.floats(0, 1))
def test_accuracy_passes_exactly_when_correct_over_scored_reaches_the_bar(
    verdicts: list[bool | None], at_least: float
) -> None:
    # The output is the verdict; an unlabelled item (label None) is unscored.
    verdict = sb.scorer(lambda item, output, label: output, name="verdict")
    outputs = [v is True for v in verdicts]
    labels = [None if v is None else "x" for v in verdicts]
    scored = [v for v in verdicts if v is not None]
    should_pass = bool(scored) and sum(scored) / len(scored) >= at_least
    try:
        assert_accuracy(verdict, outputs, labels, at_least=at_least)
    except AssertionError:
        assert not should_pass
    else:
        assert should_pass
