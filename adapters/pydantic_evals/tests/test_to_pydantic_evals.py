"""to_pydantic_evals: a scorebridge scorer as a pydantic-evals Evaluator, run by Dataset.evaluate for real."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from inspect_ai.scorer import match
from pe_support import context, evaluate
from pydantic_evals import Case, Dataset
from pydantic_evals.evaluators import EqualsExpected, EvaluationReason
from pydantic_evals.online import run_evaluators

import scorebridge as sb
from scorebridge.kit import raised_score
from scorebridge_inspect import from_inspect
from scorebridge_pydantic_evals import ScorerEvaluator, to_pydantic_evals

ROWS = [  # (item, output, label)
    ("q0", "Paris", "Paris"),
    ("q1", "  paris ", "Paris"),
    ("q2", "Lyon", "Paris"),
    ("q3", "", "Paris"),
    ("q4", "NOT_IN_DOCUMENT", "Paris"),
    ("q5", "Rome", None),  # no label: skipped
    ("q6", "Paris", None),  # no label: skipped
]
LABELLED = [row for row in ROWS if row[2] is not None]


@sb.scorer
def starts_like(item: Any, output: Any, label: Any) -> dict[str, Any]:
    """A scorer of one's own: the first letter right is half a point; the whole word, one."""
    text = str(output).strip().lower()
    if not text:
        return {"correct": False, "outcome": None, "failure_kind": "parse_failure", "explanation": "empty"}
    if text == str(label).lower():
        return {"correct": True, "outcome": text, "failure_kind": None}
    half = text[:1] == str(label)[:1].lower()
    return {"correct": False, "outcome": text, "failure_kind": None, "value": 0.5 if half else 0.0}


async def _starts_like_async(item: Any, output: Any, label: Any) -> dict[str, Any]:
    await asyncio.sleep(0)
    return starts_like.fn(item, output, label)  # type: ignore[no-any-return]


starts_like_async = sb.scorer(_starts_like_async, name="starts_like_async")


def _numbers(report: Any, name: str) -> dict[str, Any]:
    averages = report.averages()
    with_ours = [case for case in report.cases if name in case.assertions]
    return {
        "assertions": sum(case.assertions[name].value for case in with_ours) / len(with_ours),
        "value": averages.scores[f"{name}_value"],
        "cases": len(with_ours),
        "kinds": averages.labels.get(f"{name}_failure_kind", {}),
    }


@pytest.mark.parametrize(
    "scorer", [starts_like, starts_like_async, sb.exact(), from_inspect(match())], ids=lambda s: s.name
)
def test_report_averages_equal_the_summary_with_unlabelled_cases_skipped(scorer: sb.Scorer) -> None:
    report = evaluate([to_pydantic_evals(scorer)], ROWS)
    summary = sb.Summary.of(scorer.name, scorer.score_many(*zip(*ROWS, strict=True)))
    got = _numbers(report, scorer.name)
    assert got["cases"] == summary.scored == len(LABELLED)  # the two unlabelled cases are skipped, not counted
    assert got["value"] == pytest.approx(summary.accuracy)
    assert got["assertions"] == pytest.approx(summary.correct / summary.scored)
    wrong = summary.scored - summary.correct
    assert {k: round(f * wrong) for k, f in got["kinds"].items()} == {
        k: n for k, n in summary.failure_kinds.items() if n
    }
    if not any(0 < (s.value or 0) < 1 for s in scorer.score_many(*zip(*ROWS, strict=True))):
        assert report.averages().assertions == pytest.approx(summary.accuracy)  # alone, the pooled rate is ours


def test_the_assertion_is_named_after_the_scorer_with_its_explanation_as_reason() -> None:
    [case] = evaluate([to_pydantic_evals(starts_like)], [("q", "", "Paris")]).cases
    assertion = case.assertions["starts_like"]
    assert (assertion.value, assertion.reason) == (False, "empty")


def test_partial_credit_is_the_score_and_a_wrong_assertion() -> None:
    [case] = evaluate([to_pydantic_evals(starts_like)], [("q", "Prague", "Paris")]).cases
    assert case.assertions["starts_like"].value is False
    assert case.scores["starts_like_value"].value == 0.5


def test_the_failure_kind_is_a_label_and_only_on_wrong_cases() -> None:
    report = evaluate([to_pydantic_evals(sb.exact())], [("q", "", "Paris"), ("q", "Paris", "Paris")])
    assert [{k: v.value for k, v in case.labels.items()} for case in report.cases] == [
        {"exact_failure_kind": "parse_failure"},
        {},
    ]
    assert report.averages().labels == {"exact_failure_kind": {"parse_failure": 1.0}}


def test_an_unscored_score_is_the_librarys_skip() -> None:
    ctx = context("Paris", label=None)
    assert to_pydantic_evals(sb.exact()).evaluate(ctx) == {}
    [case] = evaluate([to_pydantic_evals(sb.exact())], [("q", "Paris", None)]).cases
    assert (case.assertions, case.scores, case.labels, case.evaluator_failures) == ({}, {}, {}, [])


def test_value_false_leaves_the_score_out() -> None:
    out = to_pydantic_evals(sb.exact(), value=False).evaluate(context("Lyon", "Paris"))
    assert out == {"exact": EvaluationReason(False, None), "exact_failure_kind": "wrong"}


def test_the_pooled_assertion_rate_mixes_every_evaluator_and_the_value_stays_ours() -> None:
    # pydantic-evals pools assertions over all evaluators: beside EqualsExpected (strict ==), exact()'s 2 of 4
    # and EqualsExpected's 1 of 4 make 3 of 8. exact_value's mean is exact()'s own accuracy.
    report = evaluate([to_pydantic_evals(sb.exact()), EqualsExpected()], LABELLED[:4])
    averages = report.averages()
    assert averages.assertions == pytest.approx(3 / 8)
    assert averages.scores["exact_value"] == pytest.approx(2 / 4)


def test_the_spec_names_the_scorer_and_its_options() -> None:
    spec = to_pydantic_evals(sb.detect_includes(case_sensitive=True)).as_spec()
    assert spec.name == "ScorerEvaluator"
    assert spec.arguments == {"scorer": "detect_includes", "options": {"case_sensitive": True}}
    recording = to_pydantic_evals(sb.exact(), on_error="record", value=False).as_spec().arguments
    assert recording == {"scorer": "exact", "options": {"normalise": True}, "on_error": "record", "value": False}


def test_a_saved_dataset_makes_a_built_in_scorer_again(tmp_path: Any) -> None:
    dataset = Dataset[str, str, Any](
        name="saved",
        cases=[Case(name="c", inputs="q", expected_output="Paris")],
        evaluators=[to_pydantic_evals(sb.exact(normalise=False))],
    )
    path = tmp_path / "dataset.yaml"
    dataset.to_file(path)
    loaded = Dataset[str, str, Any].from_file(path, custom_evaluator_types=[ScorerEvaluator])
    [evaluator] = loaded.evaluators
    assert isinstance(evaluator, ScorerEvaluator)
    assert evaluator.the_scorer.options == {"normalise": False}
    report = loaded.evaluate_sync(lambda q: " Paris", progress=False)
    assert report.cases[0].assertions["exact"].value is False  # normalise=False kept: " Paris" is not "Paris"


def test_a_spec_finds_a_scorer_defined_with_the_decorator_by_name() -> None:
    assert ScorerEvaluator("starts_like").the_scorer is starts_like


def test_a_spec_naming_no_known_scorer_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no scorer named 'nowhere'"):
        ScorerEvaluator("nowhere")


def test_run_evaluators_scores_stored_outputs() -> None:
    results, failures = asyncio.run(run_evaluators([to_pydantic_evals(sb.exact())], context("paris", "Paris")))
    assert failures == []
    assert {r.name: r.value for r in results} == {"exact": True, "exact_value": 1.0}


@sb.scorer
def boom(item: Any, output: Any, label: Any) -> bool:
    raise ValueError("boom")


def test_an_exception_is_the_librarys_evaluator_failure_by_default() -> None:
    [case] = evaluate([to_pydantic_evals(boom), EqualsExpected()], [("q", "Paris", "Paris")]).cases
    [failure] = case.evaluator_failures
    assert (failure.name, failure.error_message) == ("boom", "ValueError: boom")
    assert case.assertions["EqualsExpected"].value is True  # the case's other evaluators still count


def test_the_exception_carries_a_note_naming_the_scorer() -> None:
    with pytest.raises(ValueError, match="boom") as raised:
        to_pydantic_evals(boom).evaluate(context("Paris", "Paris"))
    assert "raised inside the scorer 'boom'" in raised.value.__notes__


def test_on_error_record_counts_the_case_wrong_with_kind_error() -> None:
    [case] = evaluate([to_pydantic_evals(boom, on_error="record")], [("q", "Paris", "Paris")]).cases
    expected = raised_score("boom", ValueError("boom"), "Paris")
    assert case.evaluator_failures == []
    assert (case.assertions["boom"].value, case.assertions["boom"].reason) == (False, expected.explanation)
    assert case.scores["boom_value"].value == 0.0
    assert case.labels["boom_failure_kind"].value == "error"


def test_on_error_record_of_an_unlabelled_case_is_skipped() -> None:
    assert to_pydantic_evals(boom, on_error="record").evaluate(context("Paris", None)) == {}


def test_a_blocking_sync_scorer_does_not_stall_the_other_cases() -> None:
    # pydantic-evals runs a sync evaluate() inline on its event loop: a scorer that blocks there would score 32
    # cases one after another. Each call waits here until all 32 are in at once (a serial run breaks the
    # barrier); how long they take is measured in benchmarks/bench_pydantic_evals.py, not asserted.
    together = threading.Barrier(32, timeout=30)

    @sb.scorer
    def slow(item: Any, output: Any, label: Any) -> bool:
        together.wait()
        return True

    report = evaluate([to_pydantic_evals(slow)], [(i, "Paris", "Paris") for i in range(32)], max_concurrency=32)
    assert len(report.cases) == 32 and all(case.assertions["slow"].value for case in report.cases)


def test_an_async_scorer_is_awaited_on_the_loop_concurrently() -> None:
    threads: set[str] = set()
    waiting = 0
    most = 0

    async def waits(item: Any, output: Any, label: Any) -> bool:
        nonlocal waiting, most
        threads.add(threading.current_thread().name)
        waiting += 1
        most = max(most, waiting)
        await asyncio.sleep(0.05)
        waiting -= 1
        return True

    report = evaluate([to_pydantic_evals(sb.scorer(waits))], [(i, "x", "x") for i in range(16)], max_concurrency=16)
    assert all(case.assertions["waits"].value for case in report.cases)
    assert most == 16  # all 16 cases awaited at once
    assert threads == {threading.main_thread().name}


def test_a_fast_scorer_runs_inline_and_any_other_sync_scorer_in_a_worker_thread() -> None:
    seen: dict[str, str] = {}

    def where(name: str) -> Any:
        def fn(item: Any, output: Any, label: Any) -> bool:
            seen[name] = threading.current_thread().name
            return True

        return fn

    fast = sb.Scorer("fast", where("fast"), fast=True)
    slow = sb.Scorer("slow", where("slow"))
    evaluate([to_pydantic_evals(fast), to_pydantic_evals(slow)], [("q", "x", "x")])
    assert seen["fast"] == threading.main_thread().name
    assert seen["slow"] != threading.main_thread().name


def test_the_evaluators_own_sync_call_works_for_sync_and_async_scorers() -> None:
    for scorer in (starts_like, starts_like_async):
        out = to_pydantic_evals(scorer).evaluate_sync(context("Paris", "Paris"))
        assert out == {scorer.name: EvaluationReason(True, None), f"{scorer.name}_value": 1.0}


def test_what_is_not_a_scorer_is_refused() -> None:
    with pytest.raises(TypeError, match="must be a scorebridge Scorer"):
        to_pydantic_evals(EqualsExpected())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="on_error must be 'raise' or 'record'"):
        to_pydantic_evals(sb.exact(), on_error="ignore")  # type: ignore[arg-type]


def test_a_case_level_evaluator_scores_its_case_only() -> None:
    dataset = Dataset[str, str, Any](
        name="case level",
        cases=[
            Case(name="with", inputs="q", expected_output="Paris", evaluators=[to_pydantic_evals(sb.exact())]),
            Case(name="without", inputs="q", expected_output="Paris"),
        ],
    )
    report = dataset.evaluate_sync(lambda q: "Paris", progress=False)
    assert [list(case.assertions) for case in report.cases] == [["exact"], []]


def test_repeated_runs_average_as_the_summary_of_every_run() -> None:
    rows = [("q0", "Paris", "Paris"), ("q1", "Lyon", "Paris")]
    report = evaluate([to_pydantic_evals(sb.exact())], rows, repeat=3)
    assert len(report.cases) == 6
    assert report.averages().scores["exact_value"] == pytest.approx(0.5)


def test_a_scorer_that_needs_no_label_is_scored_on_unlabelled_cases() -> None:
    @sb.scorer(needs_label=False)
    def short(item: Any, output: Any, label: Any) -> bool:
        return len(str(output)) < 6

    report = evaluate([to_pydantic_evals(short)], [("q", "Paris", None), ("q", "Buenos Aires", None)])
    assert [case.assertions["short"].value for case in report.cases] == [True, False]
