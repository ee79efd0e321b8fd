"""summarize: the summary benchmark() and the CLI give (Summary.of), counted where the rows are."""

from __future__ import annotations

from typing import Any

import pytest
import ray.data

import scorebridge as sb
from scorebridge_ray import SCORE_COLUMNS, score_dataset, summarize

KINDS: dict[str, dict[str, Any]] = {
    "right": {"correct": True, "failure_kind": None},
    "wrong": {"correct": False, "failure_kind": None},
    "unparsed": {"correct": False, "failure_kind": "parse_failure"},
    "refused": {"correct": False, "failure_kind": "refusal"},
    "half": {"correct": False, "failure_kind": None, "value": 0.5},
    "three-quarters": {"correct": False, "failure_kind": None, "value": 0.75},
}


@sb.scorer
def kind_of(item: Any, output: Any, label: Any) -> dict[str, Any]:
    return {**KINDS[output], "outcome": output}


def rows() -> list[dict[str, Any]]:
    # Labelled and unlabelled rows of every verdict, in blocks of different sizes.
    words = [w for w in KINDS for _ in range(3)] + ["right"] * 5
    return [{"output": w, "label": None if i % 4 == 0 else "x"} for i, w in enumerate(words)]


@pytest.fixture(scope="module")
def scored() -> ray.data.Dataset:
    ds = ray.data.from_items(rows(), override_num_blocks=4)
    return score_dataset(ds, kind_of, batch_size=5).materialize()


def test_the_summary_is_summary_of_the_same_scores(scored: ray.data.Dataset) -> None:
    data = rows()
    want = sb.Summary.of("kinds", kind_of.score_many(None, [r["output"] for r in data], [r["label"] for r in data]))
    got = summarize(scored, "kinds")
    assert got == want
    assert got.unscored > 0 and got.failure_kinds["parse_failure"] > 0  # the rows do cover what is counted


def test_unscored_rows_count_once_and_not_under_their_failure_kind() -> None:
    # Summary's rule: an unscored row keeps its kind, but is counted only as unscored (as Inspect AI leaves it out).
    table = {
        "correct": [None, False, True],
        "value": [None, 0.0, 1.0],
        "failure_kind": ["refusal", "refusal", None],
    }
    ds = ray.data.from_items([dict(zip(table, values, strict=True)) for values in zip(*table.values(), strict=True)])
    summary = summarize(ds)
    assert (summary.rows, summary.scored, summary.unscored, summary.failure_kinds["refusal"]) == (3, 2, 1, 1)


def test_the_summary_is_named_and_read_after_a_prefix(scored: ray.data.Dataset) -> None:
    renamed = scored.rename_columns({c: f"s_{c}" for c in SCORE_COLUMNS})
    assert summarize(renamed, "mine", prefix="s_") == summarize(scored, "mine")
    assert summarize(scored).name == "scores"


def test_a_dataset_without_the_score_columns_is_an_error_naming_them() -> None:
    ds = ray.data.from_items([{"output": "a", "label": "a"}])
    with pytest.raises(ValueError, match=r"no column 'correct', 'value', 'failure_kind'; its columns are 'output'"):
        summarize(ds)


def test_a_failure_kind_that_is_none_of_the_six_is_an_error() -> None:
    ds = ray.data.from_items([{"correct": False, "value": 0.0, "failure_kind": "timeout"}])
    with pytest.raises(ValueError, match=r"1 row\(s\) have a failure_kind that is not one of"):
        summarize(ds)


def test_an_empty_dataset_has_no_rows() -> None:
    empty = summarize(ray.data.from_items([]), "none")
    assert (empty.rows, empty.scored, empty.accuracy) == (0, 0, None)


def test_summarize_takes_only_a_dataset() -> None:
    with pytest.raises(TypeError, match=r"ds must be a ray.data.Dataset; got list"):
        summarize([])  # type: ignore[arg-type]
