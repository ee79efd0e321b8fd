"""score_dataset: the Scores `score_many` gives for the same rows, from a real local Ray (conftest.py).

The scorers of this module are a user's own, defined in a test module: pytest
imports it under a name Ray's workers cannot import, so they reach the workers
only because score_dataset sends their module by value.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import ray.data

import scorebridge as sb
from scorebridge.testing import FakeGrader
from scorebridge_ray import SCORE_COLUMNS, score_dataset, score_of

VERDICTS: dict[str, dict[str, Any]] = {
    "right": {"correct": True, "failure_kind": None},
    "wrong": {"correct": False, "failure_kind": None},
    "unparsed": {"correct": None, "failure_kind": "parse_failure"},
    "refused": {"correct": False, "failure_kind": "refusal"},
    "absent": {"correct": False, "failure_kind": "not_in_document"},
    "cut": {"correct": None, "failure_kind": "budget_stop"},
    "broken": {"correct": False, "failure_kind": "error"},
    "half": {"correct": False, "failure_kind": None, "value": 0.5},
    "quarter": {"correct": True, "failure_kind": None, "value": 0.25},
}
"""An output word to what `verdict_of` returns for it: every failure kind, and partial credit."""


@sb.scorer
def verdict_of(item: Any, output: Any, label: Any) -> dict[str, Any]:
    """The verdict `VERDICTS` names, with an explanation and metadata that say what the scorer saw."""
    verdict = dict(VERDICTS[output])
    verdict["outcome"] = output.upper()
    verdict["explanation"] = f"{output} against {label!r}"
    verdict["metadata"] = {"item": item, "label": label, "length": len(output), "words": output.split("e")}
    return verdict


_in_flight = 0
_peak = 0


@sb.scorer
async def counting_match(item: Any, output: Any, label: Any) -> dict[str, Any]:
    """An async scorer that records in its metadata the most rows its process has scored at once so far."""
    global _in_flight, _peak
    _in_flight += 1
    _peak = max(_peak, _in_flight)
    try:
        await asyncio.sleep(0.02)
        metadata = {"peak": _peak, "item": item}
        return {"correct": output == label, "outcome": output, "failure_kind": None, "metadata": metadata}
    finally:
        _in_flight -= 1


@sb.scorer
def fails_on_42(item: Any, output: Any, label: Any) -> bool:
    """Whether the output is the label; raises ZeroDivisionError on the output "42"."""
    if output == "42":
        raise ZeroDivisionError("no 42 here")
    return bool(output == label)


def dataset(rows: list[dict[str, Any]]) -> ray.data.Dataset:
    """The rows as a dataset that Ray keeps in order (its own context's setting; Ray does not by default)."""
    ds = ray.data.from_items(rows)
    ds.context.execution_options.preserve_order = True
    return ds


def scored(rows: list[dict[str, Any]], scorer: Any, **options: Any) -> list[dict[str, Any]]:
    """The rows scored on the local Ray, in order."""
    return score_dataset(dataset(rows), scorer, **options).take_all()


def local_scores(scorer: sb.Scorer, rows: list[dict[str, Any]], item: str | None = None) -> list[sb.Score]:
    items = None if item is None else [row[item] for row in rows]
    return scorer.score_many(items, [row["output"] for row in rows], [row["label"] for row in rows])


def verdict_rows() -> list[dict[str, Any]]:
    """Every verdict of `verdict_of`, labelled and not (an unlabelled row is unscored, its failure kind kept)."""
    return [
        {"id": i, "question": f"q{i}", "output": word, "label": label}
        for i, (word, label) in enumerate((w, lab) for w in VERDICTS for lab in ("gold", None))
    ]


@pytest.fixture(scope="module")
def verdicts() -> list[dict[str, Any]]:
    """`verdict_rows()` scored by `verdict_of` on two actors, three rows a call."""
    return scored(verdict_rows(), verdict_of, item="question", actors=2, batch_size=3)


def test_every_failure_kind_partial_credit_and_unscored_rows_are_the_scores_of_score_many(
    verdicts: list[dict[str, Any]],
) -> None:
    want = local_scores(verdict_of, verdict_rows(), item="question")
    assert [score_of(row) for row in verdicts] == want
    assert {s.failure_kind for s in want} == set(sb.FAILURE_KINDS) | {None}  # the rows do cover every kind
    assert {s.grade for s in want} == {"C", "P", "I", "N"}


def test_the_rows_keep_their_columns_and_order_and_gain_the_score_columns(verdicts: list[dict[str, Any]]) -> None:
    rows = verdict_rows()
    assert [row["id"] for row in verdicts] == [row["id"] for row in rows]
    assert list(verdicts[0]) == [*rows[0], *SCORE_COLUMNS]


def test_the_grade_is_the_scores_and_the_metadata_is_json_text(verdicts: list[dict[str, Any]]) -> None:
    for row, score in zip(verdicts, local_scores(verdict_of, verdict_rows(), item="question"), strict=True):
        assert row["grade"] == score.grade
        assert json.loads(row["metadata"]) == dict(score.metadata)


def test_exact_on_every_kind_of_output_and_label_is_the_scores_of_score_many() -> None:
    outputs = ["Paris", " paris. ", "Lyon", None, "", "   ", "NOT_IN_DOCUMENT", "42", "The answer is 42", "B"]
    labels: list[Any] = [["Paris"], ["Paris"], ["Paris"], ["Paris"], ["x"], ["x"], ["Paris"], ["42"], ["42"], None]
    labels += [["A", "B"]]
    outputs += ["B"]
    rows = [{"output": o, "label": lab} for o, lab in zip(outputs, labels, strict=True)]
    got = scored(rows, sb.exact(), batch_size=5)
    assert [score_of(row) for row in got] == local_scores(sb.exact(), rows)


def test_a_model_graded_scorer_with_its_grader_made_in_each_actor_grades_as_score_many() -> None:
    # A FakeGrader holds a lock, which cannot be pickled: a function that makes the scorer is sent instead, as
    # for a grader's client. The grader is async, as an LM client is: the rows are graded concurrently.
    replies = {"Paris": "The capital.\nGRADE: C", "Lyon": "No.\nGRADE: I", "": "GRADE: maybe"}

    def make() -> sb.Scorer:
        return sb.model_graded_qa(FakeGrader(replies, asynchronous=True), partial_credit=True)

    rows = [
        {"question": "Capital of France?", "output": answer, "label": "Paris"}
        for answer in ("Paris", "Lyon", "Paris is big", None)
    ] + [{"question": "Capital of France?", "output": "Paris", "label": None}]
    got = scored(rows, make, item="question", actors=2, batch_size=2)
    assert [score_of(row) for row in got] == local_scores(make(), rows, item="question")


def counted_rows() -> list[dict[str, Any]]:
    return [{"output": str(i % 3), "label": "1" if i % 4 else None, "question": "q"} for i in range(64)]


@pytest.fixture(scope="module")
def counted() -> list[dict[str, Any]]:
    """`counted_rows()` scored by the async `counting_match` on one actor, 8 rows at once, without item=."""
    return scored(counted_rows(), counting_match, actors=1, batch_size=32, concurrency=8)


def test_an_async_scorer_of_your_own_scores_as_score_many(counted: list[dict[str, Any]]) -> None:
    want = local_scores(counting_match, counted_rows())
    drop_metadata = {"metadata": "{}"}  # it says how many rows ran at once, which differs
    assert [score_of({**row, **drop_metadata}) for row in counted] == [
        sb.Score(s.correct, s.outcome, s.failure_kind, s.value, s.explanation) for s in want
    ]


def test_an_async_scorer_scores_concurrency_rows_at_once_in_each_actor(counted: list[dict[str, Any]]) -> None:
    assert max(json.loads(row["metadata"])["peak"] for row in counted) == 8


def test_without_item_the_scorer_gets_none_though_a_question_column_is_there(counted: list[dict[str, Any]]) -> None:
    assert {json.loads(row["metadata"])["item"] for row in counted} == {None}


@pytest.fixture(scope="module")
def renamed() -> dict[str, Any]:
    """A row whose columns have other names, and two of the Score's names, scored with a prefix."""
    rows = [{"answer": "right", "expected": "gold", "prompt": "q", "value": 7, "grade": "school"}]
    (row,) = scored(rows, verdict_of, output="answer", label="expected", item="prompt", prefix="score_")
    return row


def test_the_columns_read_are_named_by_output_label_and_item(renamed: dict[str, Any]) -> None:
    assert json.loads(renamed["score_metadata"]) == {"item": "q", "label": "gold", "length": 5, "words": ["right"]}


def test_a_prefix_names_the_score_columns_beside_columns_of_the_same_names(renamed: dict[str, Any]) -> None:
    assert (renamed["value"], renamed["grade"], renamed["score_value"], renamed["score_grade"]) == (7, "school", 1, "C")
    assert score_of(renamed, prefix="score_") == verdict_of("q", "right", "gold")


def test_a_missing_column_is_an_error_when_score_dataset_is_called_before_anything_runs() -> None:
    ds = ray.data.from_items([{"answer": "a", "label": "a"}])
    # The error comes from the call itself: nothing is consumed here, so nothing was scheduled.
    with pytest.raises(ValueError, match=r"no column for output='output'; its columns are 'answer', 'label'"):
        score_dataset(ds, sb.exact())


def test_a_missing_item_column_is_named() -> None:
    ds = ray.data.from_items([{"output": "a", "label": "a"}])
    with pytest.raises(ValueError, match=r"no column for item='question'"):
        score_dataset(ds, sb.exact(), item="question")


def test_a_column_the_scores_would_replace_is_an_error_that_suggests_a_prefix() -> None:
    ds = ray.data.from_items([{"output": "a", "label": "a", "correct": True}])
    with pytest.raises(ValueError, match=r"already has the column 'correct'.*prefix='score_'"):
        score_dataset(ds, sb.exact())


def test_a_scorer_that_cannot_be_pickled_is_an_error_that_says_to_pass_a_function() -> None:
    ds = ray.data.from_items([{"output": "a", "label": "a"}])
    with pytest.raises(TypeError, match=r"cannot be sent to the Ray workers.*Pass a function of no arguments"):
        score_dataset(ds, sb.model_graded_qa(FakeGrader("GRADE: C")))


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"output": 3}, TypeError, "output must be a column name, one string; got int"),
        ({"label": ""}, ValueError, "label must be a column name, not an empty string"),
        ({"concurrency": 0}, ValueError, "concurrency must be a whole number, at least 1; got 0"),
        ({"batch_size": True}, ValueError, "batch_size must be a whole number, at least 1; got True"),
        ({"actors": (3, 2)}, ValueError, r"actors \(min, max\) needs min <= max; got \(3, 2\)"),
        ({"actors": 0}, ValueError, "actors must be a whole number, at least 1; got 0"),
        ({"num_cpus": -1}, ValueError, "num_cpus must be a number, 0 or more, or None; got -1"),
        ({"on_error": "ignore"}, ValueError, "on_error must be 'raise' or 'record'; got 'ignore'"),
        ({"prefix": None}, TypeError, "prefix must be a string; got NoneType"),
        ({"ray_options": {"compute": 1}}, ValueError, "ray_options cannot set compute; score_dataset sets them"),
    ],
)
def test_a_wrong_argument_is_named(options: dict[str, Any], error: type[Exception], message: str) -> None:
    ds = ray.data.from_items([{"output": "a", "label": "a"}])
    with pytest.raises(error, match=rf"^score_dataset\(exact\): {message}"):
        score_dataset(ds, sb.exact(), **options)


def test_a_dataset_that_is_not_a_ray_dataset_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"ds must be a ray.data.Dataset; got list"):
        score_dataset([{"output": "a", "label": "a"}], sb.exact())  # type: ignore[arg-type]


def test_an_empty_dataset_scores_to_no_rows() -> None:
    assert score_dataset(ray.data.from_items([]), sb.exact()).take_all() == []


def test_on_error_raise_fails_the_job_with_the_scorers_exception_and_its_name() -> None:
    ds = ray.data.from_items([{"output": o, "label": "1"} for o in ("1", "42", "2")])
    result = score_dataset(ds, fails_on_42)
    with pytest.raises(Exception) as caught:  # Ray wraps it: RayTaskError(UserCodeException)
        result.take_all()
    text = str(caught.value)
    assert "ZeroDivisionError: no 42 here" in text
    assert "raised inside the scorer 'fails_on_42'" in text


def test_on_error_record_records_the_exception_as_an_error_score_and_goes_on() -> None:
    rows = [{"output": o, "label": lab} for o, lab in (("1", "1"), ("42", "1"), ("42", None), ("2", "1"))]
    got = [score_of(row) for row in scored(rows, fails_on_42, on_error="record")]
    raised = "the scorer raised ZeroDivisionError('no 42 here')"
    assert got == [
        sb.Score(True),
        sb.Score(False, failure_kind="error", explanation=raised),
        sb.Score(None, failure_kind="error", explanation=raised),  # no label: unscored, its kind kept
        sb.Score(False, failure_kind="wrong"),
    ]


def test_on_error_record_gives_one_of_three_when_one_row_of_three_raises() -> None:
    rows = [{"output": o, "label": lab} for o, lab in (("1", "1"), ("42", "1"), ("2", "1"))]
    got = [score_of(row) for row in scored(rows, fails_on_42, on_error="record")]
    assert sb.Summary.of("fails_on_42", got).accuracy == pytest.approx(1 / 3)


@sb.scorer
def near(item: Any, output: Any, label: float) -> dict[str, Any]:
    """The output is within 1% of the label, a number however the column holds it."""
    if label is None:
        return {"correct": None, "outcome": output, "failure_kind": None, "metadata": {"label": None}}
    correct = abs(float(output) - label) <= 0.01 * abs(label)
    return {"correct": correct, "outcome": output, "failure_kind": None, "metadata": {"label": label}}


def test_a_declared_float_label_gets_a_text_column_as_numbers_and_blanks_and_nulls_as_none() -> None:
    rows = [{"output": "45.3", "label": lab} for lab in ("45.2", "", None, "  ")]
    got = [score_of(row) for row in scored(rows, near)]
    assert [(s.grade, s.metadata["label"]) for s in got] == [("C", 45.2), ("N", None), ("N", None), ("N", None)]


@sb.scorer(needs_label=False)
def short(item: Any, output: Any, label: Any) -> bool:
    """A label-free check: the output is at most 5 characters."""
    return len(output) <= 5


def test_a_scorer_that_needs_no_label_scores_rows_with_a_null_label() -> None:
    rows = [{"output": o, "label": None} for o in ("abc", "abcdefgh")]
    assert [score_of(row).grade for row in scored(rows, short)] == ["C", "I"]


def test_a_function_that_makes_no_scorer_fails_the_job_saying_what_it_made() -> None:
    ds = ray.data.from_items([{"output": "a", "label": "a"}])
    with pytest.raises(Exception, match=r"the function given as the scorer returned str, not a Scorer"):
        score_dataset(ds, lambda: "exact").take_all()


def test_score_of_names_a_missing_column() -> None:
    with pytest.raises(KeyError, match=r"no column metadata; it was not made by score_dataset"):
        score_of(
            {"correct": True, "value": 1.0, "grade": "C", "outcome": "a", "failure_kind": None, "explanation": None}
        )


def test_score_of_refuses_a_failure_kind_that_is_none_of_the_six() -> None:
    row = dict(zip(SCORE_COLUMNS, (False, 0.0, "I", None, "timeout", None, "{}"), strict=True))
    with pytest.raises(ValueError, match=r"failure_kind 'timeout' is not one of"):
        score_of(row)


def test_the_async_scorer_here_is_async() -> None:
    # The async tests above test nothing if this scorer stopped being async.
    assert counting_match.is_async
    assert asyncio.iscoroutinefunction(counting_match.fn)
