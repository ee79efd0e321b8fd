"""`--group-by` for `scorebridge score` and `benchmark()`'s `summary(group_by=...)`: per-group summaries that add up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import scorebridge as sb
from scorebridge._cli.main import main

COUNTS = ("rows", "scored", "correct", "unscored")


def rows() -> list[dict[str, Any]]:
    out = []
    for i in range(60):
        output = "Paris" if i % 4 else ("" if i % 8 == 0 else "Lyon")
        label = None if i % 11 == 0 else "Paris"
        out.append(
            {
                "id": i,
                "output": output,
                "label": label,
                "category": ("geo", "math", "art")[i % 3],
                "lang": "en" if i % 2 else "fr",
            }
        )
    return out


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows()), encoding="utf-8")
    return path


def adds_up(groups: list[dict[str, Any]], whole: dict[str, Any]) -> None:
    for count in COUNTS:
        assert sum(g[count] for g in groups) == whole[count], count
    for kind in sb.FAILURE_KINDS:
        assert sum(g["failure_kinds"][kind] for g in groups) == whole["failure_kinds"][kind], kind


def test_group_by_category_gives_per_group_summaries_that_add_up_to_the_whole(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["score", str(data), "--scorer", "exact", "--group-by", "category", "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [g["group"] for g in summary["groups"]] == [{"category": c} for c in ("art", "geo", "math")]
    adds_up(summary["groups"], summary)
    assert summary["failure_kinds"]["parse_failure"] and summary["unscored"]  # something to add up


def test_the_text_has_a_line_per_group_then_the_whole(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(data), "--scorer", "exact", "--group-by", "category"]) == 0
    out = capsys.readouterr().out
    table = out.split("by category:\n")[1].splitlines()
    assert [line.split()[0] for line in table] == ["category", "--------", "art", "geo", "math", "all"]
    whole = next(line for line in out.splitlines() if line.startswith("exact "))
    assert table[-1].split()[1:] == whole.split()[1:]


def test_several_columns_group_by_their_combination(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--group-by", "category,lang"], ["--group-by", "category", "--group-by", "lang"]):
        assert main(["score", str(data), "--scorer", "exact", *argv, "--format", "json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        assert len(summary["groups"]) == 6
        assert summary["groups"][0]["name"] == "category=art, lang=en"
        adds_up(summary["groups"], summary)


def test_a_row_without_the_column_is_in_the_none_group(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"output": "a", "label": "a", "k": "x"}\n{"output": "a", "label": "b"}\n', encoding="utf-8")
    assert main(["score", str(path), "--scorer", "exact", "--group-by", "k", "--format", "json"]) == 0
    groups = json.loads(capsys.readouterr().out)["groups"]
    assert [(g["name"], g["rows"]) for g in groups] == [("x", 1), ("(none)", 1)]


def test_a_column_no_row_has_is_a_usage_error_after_the_summary(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A misspelt --group-by catgory put every row in one "(none)" group and exited 0 (compare refuses it).
    assert main(["score", str(data), "--scorer", "exact", "--group-by", "catgory", "--fail-under", "0.1"]) == 2
    out, err = capsys.readouterr()
    assert "accuracy" in out and "(none)" not in out
    assert err == "scorebridge score: --group-by: no row has the column 'catgory', so no groups\n"


def test_a_column_given_twice_is_a_usage_error_before_any_row_is_scored(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # it was checked only with --report: without one, a traceback
    assert main(["score", str(data), "--scorer", "exact", "--group-by", "category,category"]) == 2
    assert capsys.readouterr().err == "scorebridge score: --group-by: the column 'category' is given twice\n"


def test_benchmark_summaries_by_an_item_field_add_up_per_arm() -> None:
    items = {f"q{i}": {"text": f"question {i}", "category": ("geo", "math")[i % 2]} for i in range(20)}
    labels = {k: "4" for k in items}
    arms = {"a": lambda item: "4" if item["category"] == "geo" else "5", "b": lambda item: "4"}
    result = sb.benchmark(arms, items, labels)
    table = result.summary(group_by="category")
    assert [s.name for s in table] == ["a / geo", "a / math", "a", "b / geo", "b / math", "b"]
    assert table["a / geo"].accuracy == 1.0 and table["a / math"].accuracy == 0.0
    for arm in ("a", "b"):
        groups = [s.as_dict() for s in table if s.name.startswith(f"{arm} / ")]
        adds_up(groups, table[arm].as_dict())
    assert "arm / category" in str(table)


def test_benchmark_group_by_a_field_no_item_has_is_an_error() -> None:
    result = sb.benchmark({"a": str}, ["x", "y"], ["x", "y"])
    with pytest.raises(ValueError, match="no item has the field 'category'"):
        result.summary(group_by="category")


def test_groups_whose_values_print_the_same_are_named_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The number 1 and the text "1" are two groups, but both lines were named `1` (and null and "(none)" both
    # `(none)`): where two names would be the same, text is quoted and numbers are bare; other names stay plain.
    values = [1, "1", None, "(none)", "'1'", "geo"]
    path = tmp_path / "d.jsonl"
    lines = (json.dumps({"output": "a", "label": "a" if n else "b", "k": v}) for v in values for n in range(2))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["score", str(path), "--scorer", "exact", "--group-by", "k"]) == 0
    table = capsys.readouterr().out.split("by k:\n")[1].splitlines()[2:]
    assert [line.split()[0] for line in table] == ["\"'1'\"", "'(none)'", "1", "'1'", "geo", "(none)", "all"]
    assert main(["score", str(path), "--scorer", "exact", "--group-by", "k", "--format", "json"]) == 0
    groups = json.loads(capsys.readouterr().out)["groups"]
    assert [(g["group"]["k"], g["name"]) for g in groups][2:4] == [(1, "1"), ("1", "'1'")]
    result = sb.benchmark({"a": lambda item: "a"}, {f"q{n}": {"k": v} for n, v in enumerate(values)}, ["a"] * 6)
    named = [s.name.removeprefix("a / ") for s in result.summary(group_by="k")]
    assert named == [line.split()[0] for line in table[:-1]] + ["a"]  # a benchmark's groups are named alike


def test_a_group_table_of_cjk_and_accented_names_lines_up(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # guards: text tables padded by len(), so a CJK or accented group name pushed its row's columns out of line
    from scorebridge._runner.summary import display_width

    topics = ["日本語", "cafe\u0301", "abc"]
    rows = [{"question": f"q{i}", "output": "a", "label": "a", "topic": topics[i % 3]} for i in range(6)]
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert main(["score", str(data), "--scorer", "exact", "--group-by", "topic"]) == 0
    table = capsys.readouterr().out.split("by topic:\n")[1].strip("\n").splitlines()
    assert [line.split()[0] for line in table[2:]] == ["abc", "cafe\u0301", "日本語", "all"]
    assert {display_width(line) for line in table} == {display_width(table[0])}  # every row ends in one column
