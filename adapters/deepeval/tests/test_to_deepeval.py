"""to_deepeval: a scorebridge scorer as a deepeval metric, in deepeval's own evaluate and assert_test, offline."""

from __future__ import annotations

from typing import Any

import deepeval
import pytest
from de_offline import CONNECTIONS, evaluated
from deepeval.evaluate.utils import aggregate_metric_pass_rates

import scorebridge as sb
from scorebridge.testing import FakeGrader
from scorebridge_deepeval import as_test_case, row_of, to_deepeval

# 20 rows: 2 unlabelled, 1 whose output makes the scorer raise ("boom"), right and wrong answers
OUTPUTS = ["Paris", "Lyon", "Rome", "Milan", "boom", "Paris", "Berlin", "Bonn", "Paris", "Nice"] * 2
LABELS: list[Any] = ["Paris", "Paris", "Rome", "Rome", "Paris", None, "Berlin", "Berlin", "Paris", "Paris"] * 2
OUTPUTS[14] = "Paris"  # one row whose scorer raises
ROWS = [(f"q{n}", out, label) for n, (out, label) in enumerate(zip(OUTPUTS, LABELS, strict=True))]


def _capital(item: Any, output: Any, label: Any) -> dict[str, Any]:
    if output == "boom":
        raise RuntimeError("the grader crashed")
    return {"correct": output == label, "outcome": output, "failure_kind": None}


CAPITAL = sb.scorer(_capital, name="capital")


def _summary(scorer: sb.Scorer) -> sb.Summary:
    return sb.Summary.of(scorer.name, scorer.score_many(*zip(*ROWS, strict=True), on_error="record"))


def test_evaluate_pass_rate_is_scorebridges_accuracy() -> None:
    # the bar: deepeval.evaluate over 20 rows (2 unlabelled, 1 raising, "record") reports scorebridge's accuracy
    assert sum(label is None for _, _, label in ROWS) == 2 and OUTPUTS.count("boom") == 1
    metric = to_deepeval(CAPITAL, on_error="record")
    data = evaluated(metric, ROWS)
    [rate] = aggregate_metric_pass_rates([r for r in _results(metric)]).values()
    summary = _summary(CAPITAL)
    assert rate == pytest.approx(summary.accuracy)
    assert sum(d is not None for d in data) == summary.scored == 18


def _results(metric: Any) -> list[Any]:
    from de_offline import cases
    from deepeval.evaluate.configs import AsyncConfig, CacheConfig, DisplayConfig

    display = DisplayConfig(print_results=False, show_indicator=False, inspect_after_run=False)
    return deepeval.evaluate(
        cases(ROWS), [metric], async_config=AsyncConfig(max_concurrent=8), display_config=display,
        cache_config=CacheConfig(write_cache=False),
    ).test_results  # fmt: skip


def test_unlabelled_rows_are_skipped_not_zero() -> None:
    data = evaluated(to_deepeval(CAPITAL, on_error="record"), ROWS)
    assert [n for n, d in enumerate(data) if d is None] == [n for n, (_, _, label) in enumerate(ROWS) if label is None]


def test_a_raising_row_under_record_fails_with_the_error_in_its_reason() -> None:
    data = evaluated(to_deepeval(CAPITAL, on_error="record"), ROWS)
    boom = data[OUTPUTS.index("boom")]
    assert (boom.score, boom.success) == (0.0, False)
    assert boom.reason.startswith("error: ") and "the grader crashed" in boom.reason


def test_a_raising_row_under_raise_is_deepevals_error_naming_the_scorer() -> None:
    data = evaluated(to_deepeval(CAPITAL), ROWS, ignore_errors=True)
    boom = data[OUTPUTS.index("boom")]
    assert boom.success is False and "the grader crashed" in boom.error


def test_reason_names_the_failure_kind() -> None:
    metric = to_deepeval(sb.exact())
    metric.measure(as_test_case("q", "Lyon", "Paris"))
    assert (metric.score, metric.success, metric.reason) == (0.0, False, "wrong")


def test_a_model_graded_scorer_runs_in_evaluate() -> None:
    grader = FakeGrader({"Paris": "GRADE: C", "": "GRADE: I"})
    graded = sb.model_graded_qa(grader=grader)
    data = evaluated(to_deepeval(graded, on_error="record"), ROWS)
    want = [s.value for s in graded.score_many(*zip(*ROWS, strict=True), on_error="record")]
    assert [None if d is None else d.score for d in data] == want
    assert 0 < sum(v or 0 for v in want) < len(want)  # verdicts that tell the rows apart


def test_assert_test_passes_a_right_answer_and_fails_a_wrong_one() -> None:
    deepeval.assert_test(as_test_case("q", "Paris", "Paris"), [to_deepeval(sb.exact())])
    with pytest.raises(AssertionError):
        deepeval.assert_test(as_test_case("q", "Lyon", "Paris"), [to_deepeval(sb.exact())])


def test_a_given_threshold_is_deepevals_rule_on_the_value() -> None:
    half = sb.scorer(lambda item, output, label: 0.5, name="half")
    assert to_deepeval(half).threshold == 1.0  # shown; the verdict is the scorer's own (0.5: partial, not correct)
    by_verdict, by_threshold = to_deepeval(half), to_deepeval(half, threshold=0.5)
    by_verdict.measure(as_test_case("q", "x", "y"))
    by_threshold.measure(as_test_case("q", "x", "y"))
    assert (by_verdict.success, by_threshold.success) == (half(None, "x", "y").correct, True)


def test_a_list_label_rides_in_the_cases_metadata() -> None:
    # deepeval's expected_output is one text; several accepted answers reach the scorer whole
    case = as_test_case({"input": "q", "context": "c"}, "Lyon", ["Paris", "Lyon"])
    assert row_of(case) == ({"input": "q", "context": ["c"]}, "Lyon", ["Paris", "Lyon"])
    metric = to_deepeval(sb.exact())
    assert metric.measure(case) == 1.0


def test_no_request_leaves_the_machine() -> None:
    evaluated(to_deepeval(CAPITAL, on_error="record"), ROWS)
    evaluated(to_deepeval(sb.model_graded_qa(grader=FakeGrader("GRADE: C")), on_error="record"), ROWS)
    assert CONNECTIONS == []
