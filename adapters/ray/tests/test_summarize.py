"""summarize: the summary benchmark() and the CLI give (Summary.of), counted where the rows are."""

from __future__ import annotations

from typing import Any

import pytest
import ray.data

import scorebridge as sb
from scorebridge_ray import SCORE_COLUMNS, score_dataset, summarize, summarize_groups

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
    # Labelled and unlabelled rows of every verdict, in blocks of different sizes; fields to group by: a
    # category the first block's rows lack (so the block has no such column) and some rows have null, a
    # language, a level (a number), a bool and a struct.
    words = [w for w in KINDS for _ in range(3)] + ["right"] * 5
    made = []
    for i, w in enumerate(words):
        row: dict[str, Any] = {"output": w, "label": None if i % 4 == 0 else "x", "lang": ("en", "fr", "de")[i % 3]}
        if i >= 6:
            row["category"] = None if i % 5 == 0 else ("geo", "math")[i % 2]
        row.update(level=i % 4, hard=i % 3 == 0, source={"set": ("a", "b")[i % 2], "split": i % 2})
        made.append(row)
    return made


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


def kinds_by(columns: tuple[str, ...]) -> sb.GroupedSummaries:
    """What the local engine gives for rows() scored by kind_of, by `columns`: GroupedSummaries.of."""
    data = rows()
    scores = kind_of.score_many(None, [r["output"] for r in data], [r["label"] for r in data])
    return sb.GroupedSummaries.of("kinds", columns, zip(data, scores, strict=True))


def same(got: sb.GroupedSummaries, want: sb.GroupedSummaries) -> None:
    assert (got.columns, got.keys, got.groups, got.whole) == (want.columns, want.keys, want.groups, want.whole)


def test_the_groups_are_grouped_summaries_of_the_same_rows(scored: ray.data.Dataset) -> None:
    blocks = scored.iter_batches(batch_format="pyarrow", batch_size=None)
    assert any("category" not in block.column_names for block in blocks)  # a block without the column
    got = summarize_groups(scored, ["category", "lang"], "kinds")
    same(got, kinds_by(("category", "lang")))
    names = [g.name for g in got.groups]
    assert "category=(none), lang=en" in names and "category=geo, lang=fr" in names  # missing, null, and present
    assert got.whole == summarize(scored, "kinds")


def test_a_number_a_bool_and_a_struct_group_as_the_local_engine_groups_them(scored: ray.data.Dataset) -> None:
    got = summarize_groups(scored, "level,hard,source", "kinds")
    same(got, kinds_by(("level", "hard", "source")))
    assert got.groups[0].name == 'level=0, hard=False, source={"set": "a", "split": 0}'


def test_a_column_no_row_has_is_an_error_naming_it_and_the_rows_columns(scored: ray.data.Dataset) -> None:
    with pytest.raises(ValueError, match=r"no row has the column 'topic'; the rows have 'output', 'label', 'lang'"):
        summarize_groups(scored, ["lang", "topic"])


@pytest.mark.parametrize(
    ("group_by", "message"),
    [
        ("lang,,level", "group_by: a blank column name in 'lang,,level'"),
        (["lang", "lang"], "group_by: the column 'lang' is given twice"),
        ([], "summarize_groups: group_by names no column"),
    ],
)
def test_a_bad_group_by_is_refused_as_parse_group_by_refuses_it(group_by: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        summarize_groups(ray.data.from_items([{"lang": "en"}]), group_by)


def test_an_empty_dataset_has_no_groups() -> None:
    empty = summarize_groups(ray.data.from_items([]), "lang", "none")
    assert (empty.groups, empty.whole.rows, empty.whole.name) == ((), 0, "none")


def grader_down(prompt: str) -> str:
    raise ValueError("the grader is down")


def test_the_graders_failures_are_counted_apart_from_the_rows_with_no_label() -> None:
    # Before, summarize counted a row whose grader failed with the unlabelled rows (grader_failed 0), where
    # Summary.of, benchmark() and the local CLI count it apart.
    def make() -> sb.Scorer:  # the scorer holds its grader's pacing (locks): it is made on each worker
        return sb.model_graded_qa(grader_down)

    graded = make()
    data = rows()
    scored = score_dataset(ray.data.from_items(data, override_num_blocks=2), make).materialize()
    want = sb.Summary.of("qa", graded.score_many(None, [r["output"] for r in data], [r["label"] for r in data]))
    got = summarize(scored, "qa")
    assert got == want and got.grader_failed == 17 and got.unscored == 23  # 17 labelled rows, 6 without a label
    assert summarize_groups(scored, "lang", "qa").whole == want
