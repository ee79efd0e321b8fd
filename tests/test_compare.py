"""`scorebridge compare BASE NEW` and `scorebridge.compare`: two scored runs, item by item.

The runs are made as a user makes them: `scorebridge score --out` on two files
of outputs, and `benchmark(out=...)`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import scorebridge as sb
from scorebridge._cli.main import main
from scorebridge._runner.compare import paired_interval
from scorebridge._runner.files import RowError

CATEGORIES = ("math", "geo", "art")
REGRESSED = {3, 17, 42, 77, 108, 150, 199}
IMPROVED = {5, 120}


def outputs(new: bool) -> list[dict[str, Any]]:
    """200 questions, a tenth answered wrong in base; new breaks 7 of the right ones and mends 2 of the wrong."""
    rows = []
    for i in range(200):
        right = i % 10 != 5 if i not in IMPROVED else False
        if i in REGRESSED:
            right = True
        if new and (i in REGRESSED or i in IMPROVED):
            right = not right
        answer = f"answer {i}"
        rows.append(
            {
                "id": f"q{i:03d}",
                "question": f"question {i}" + " and more" * (i % 7),
                "output": answer if right else f"not {answer}",
                "label": answer,
                "category": CATEGORIES[i % 3],
            }
        )
    return rows


def scored(tmp_path: Path, name: str, rows: list[dict[str, Any]], *extra: str) -> Path:
    data = tmp_path / f"{name}-outputs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / f"{name}.jsonl"
    assert main(["score", str(data), "--scorer", "exact", "--out", str(out), *extra]) == 0
    return out


@pytest.fixture
def runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    base_rows, new_rows = outputs(False), outputs(True)
    base_rows.append({"id": "gone", "question": "dropped later", "output": "x", "label": "x", "category": "art"})
    new_rows.append({"id": "fresh", "question": "added later", "output": "y", "label": "z", "category": "geo"})
    pair = scored(tmp_path, "base", base_rows), scored(tmp_path, "new", new_rows)
    capsys.readouterr()
    return pair


def compare_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["compare", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_seven_regressed_and_two_improved_items_are_listed_exactly(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = compare_cli(capsys, str(runs[0]), str(runs[1]), "--format", "json", "--show", "all")
    data = json.loads(out)
    assert status == 0
    assert sorted(f["id"] for f in data["regressed"]) == sorted(f"q{i:03d}" for i in REGRESSED)
    assert sorted(f["id"] for f in data["improved"]) == sorted(f"q{i:03d}" for i in IMPROVED)
    one = data["regressed"][0]
    assert one["base"]["correct"] is True and one["new"]["correct"] is False
    assert one["new"]["failure_kind"] == "wrong" and one["new"]["output"].startswith("not answer")


def test_mcnemars_exact_p_and_the_paired_interval_are_given(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = compare_cli(capsys, str(runs[0]), str(runs[1]))
    assert status == 0
    # 7 against 2 flips: p = 2 * (1 + 9 + 36) / 2**9
    assert "exact McNemar test, two-sided: p = 0.1797" in out
    paired = sb.compare(runs[0], runs[1]).paired
    assert paired.p_value == pytest.approx(92 / 512)
    assert paired.difference == pytest.approx(-5 / 200)
    low, high = paired.interval or (0, 0)
    assert low < -5 / 200 < high < 0.02
    assert f"difference (new - base) -0.025, 95% CI [{low:+.3f}, {high:+.3f}]" in out


def test_fail_on_regression_exits_3_and_says_why(runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = compare_cli(capsys, str(runs[0]), str(runs[1]), "--fail-on-regression")
    assert status == 3
    assert "7 items regressed, more than 0" in err


def test_fail_on_regression_with_a_count_allows_that_many(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert compare_cli(capsys, str(runs[0]), str(runs[1]), "--fail-on-regression=7")[0] == 0
    assert compare_cli(capsys, str(runs[0]), str(runs[1]), "--fail-on-regression", "6")[0] == 3
    # 7 against 2 is no significant drop
    assert compare_cli(capsys, str(runs[0]), str(runs[1]), "--fail-on-regression=significant")[0] == 0


def test_a_significant_drop_fails_even_under_the_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = outputs(False)
    new = outputs(False)
    for i in [i for i in range(200) if i % 10 != 5 and i not in IMPROVED][:20]:
        new[i]["output"] = "broken"  # 20 right answers broken, none mended: p = 2 / 2**20
    a, b = scored(tmp_path, "a", base), scored(tmp_path, "b", new)
    capsys.readouterr()
    status, _, err = compare_cli(capsys, str(a), str(b), "--fail-on-regression=significant")
    assert status == 3
    assert "a significant drop" in err and "20 regressed against 0 improved" in err


def test_rows_on_one_side_only_are_counted_and_named(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = compare_cli(capsys, str(runs[0]), str(runs[1]))
    assert "1 only in base, 1 only in new" in out
    assert "only in base: 1: gone" in out and "only in new: 1: fresh" in out
    data = sb.compare(runs[0], runs[1]).as_dict()
    assert data["only_base"] == {"count": 1, "ids": ["gone"]}
    assert data["only_new"] == {"count": 1, "ids": ["fresh"]}
    assert data["base"]["rows"] == 201 and data["paired"]["pairs"] == 200


def test_each_side_has_the_summary_score_printed(runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    data_file = runs[0].parent / "base-outputs.jsonl"
    main(["score", str(data_file), "--scorer", "exact", "--format", "json"])
    summary = json.loads(capsys.readouterr().out)
    compared = sb.compare(runs[0], runs[1]).base.as_dict()
    assert {**compared, "name": summary["name"]} == summary


def test_flips_are_listed_shortest_first(runs: tuple[Path, Path]) -> None:
    regressed = sb.compare(runs[0], runs[1]).regressed
    lengths = [len(f.base.item or "") + len(f.base.output or "") + len(f.new.output or "") for f in regressed]
    assert lengths == sorted(lengths)


def test_show_cuts_the_lists_but_not_the_counts(runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = compare_cli(capsys, str(runs[0]), str(runs[1]), "--show", "2")
    assert "regressed: 7, shortest first (the first 2; --show N for more)" in out
    _, out, _ = compare_cli(capsys, str(runs[0]), str(runs[1]), "--show", "2", "--format", "json")
    data = json.loads(out)
    assert len(data["regressed"]) == 2 and data["paired"]["regressed"] == 7


def test_parquet_runs_compare_as_jsonl_ones(runs: tuple[Path, Path]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    paths = []
    for path in runs:
        rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()[1:]]  # after the header
        target = path.with_suffix(".parquet")
        pq.write_table(pa.Table.from_pylist(rows), target)
        paths.append(target)
    from_parquet = sb.compare(*paths).as_dict()
    from_jsonl = sb.compare(*runs).as_dict()
    for key in ("base", "new", "paired", "only_base", "only_new"):
        assert from_parquet[key] == from_jsonl[key]
    assert [f["id"] for f in from_parquet["regressed"]] == [f["id"] for f in from_jsonl["regressed"]]


def test_benchmark_files_and_results_compare_alike(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base_rows, new_rows = outputs(False), outputs(True)
    items = {r["id"]: r["question"] for r in base_rows}
    labels = {r["id"]: r["label"] for r in base_rows}
    answers = {
        "old": {r["question"]: r["output"] for r in base_rows},
        "new": {r["question"]: r["output"] for r in new_rows},
    }
    results = {}
    for name, table in answers.items():
        results[name] = sb.benchmark({"model": table.__getitem__}, items, labels, out=tmp_path / f"{name}.jsonl")
    from_files = sb.compare(tmp_path / "old.jsonl", tmp_path / "new.jsonl")
    from_results = sb.compare(results["old"], results["new"])
    assert from_files.paired == from_results.paired
    assert from_files.paired.regressed == 7 and from_files.paired.improved == 2
    assert [f.id for f in from_files.regressed] == [f.id for f in from_results.regressed]
    status, out, _ = compare_cli(capsys, str(tmp_path / "old.jsonl"), str(tmp_path / "new.jsonl"))
    assert status == 0 and "paired by 'item_id'" in out


def test_two_arms_of_one_benchmark_compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base_rows, new_rows = outputs(False), outputs(True)
    items = [r["question"] for r in base_rows]
    labels = [r["label"] for r in base_rows]
    arms = {
        "old": dict(zip(items, (r["output"] for r in base_rows), strict=True)).__getitem__,
        "new": dict(zip(items, (r["output"] for r in new_rows), strict=True)).__getitem__,
    }
    result = sb.benchmark(arms, items, labels, out=tmp_path / "runs.jsonl")
    compared = sb.compare(result, result, arm=("old", "new"))
    arms_compared = result.compare("new", "old")
    assert (compared.paired.regressed, compared.paired.improved) == (arms_compared.only_b, arms_compared.only_a)
    assert compared.paired.p_value == arms_compared.p_value
    status, _, err = compare_cli(capsys, str(tmp_path / "runs.jsonl"), str(tmp_path / "runs.jsonl"))
    assert status == 1 and "several arms" in err and "--arm" in err
    status, out, _ = compare_cli(capsys, *[str(tmp_path / "runs.jsonl")] * 2, "--arm", "old", "--arm", "new")
    assert status == 0 and "7 regressed" in out


def test_rows_as_a_ray_dataset_writes_them_compare_alike(runs: tuple[Path, Path]) -> None:
    # score_dataset's shape: the row's columns, then the Score's, side by side, unprefixed
    def flat(path: Path) -> list[dict[str, Any]]:
        rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()[1:]]  # after the header
        return [{k.removeprefix("exact."): v for k, v in r.items()} for r in rows]

    assert sb.compare(flat(runs[0]), flat(runs[1])).paired == sb.compare(*runs).paired


def test_an_id_twice_on_one_side_is_an_error_naming_both_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = outputs(False)
    rows[9]["id"] = rows[2]["id"]
    a = scored(tmp_path, "a", rows)
    capsys.readouterr()
    status, _, err = compare_cli(capsys, str(a), str(a))
    assert status == 1
    assert err.startswith(f"{a}:11: the id 'q002' is already on row 4")  # the file's lines: its header is line 1


def test_a_file_that_is_not_scored_is_refused_with_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = tmp_path / "raw.jsonl"
    raw.write_text(json.dumps({"output": "x", "label": "y"}) + "\n", encoding="utf-8")
    status, _, err = compare_cli(capsys, str(raw), str(raw))
    assert status == 1 and err.startswith(f"{raw}:1: not a scored row")


def test_an_id_column_of_your_own(runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = compare_cli(capsys, str(runs[0]), str(runs[1]), "--id", "question")
    assert status == 0 and "paired by 'question'" in out and "7 regressed" in out
    status, _, err = compare_cli(capsys, str(runs[0]), str(runs[1]), "--id", "nope")
    assert status == 1 and "no id field 'nope'" in err


def test_by_group_the_pairs_add_up_to_the_whole(runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    result = sb.compare(runs[0], runs[1], group_by="category")
    assert [g.name for g in result.groups] == ["art", "geo", "math"]
    for field in ("pairs", "regressed", "improved", "both_correct", "both_wrong"):
        assert sum(getattr(g.paired, field) for g in result.groups) == getattr(result.paired, field)
    for side in ("base", "new"):
        assert sum(getattr(g, side).rows for g in result.groups) == getattr(result, side).rows
    _, out, _ = compare_cli(capsys, str(runs[0]), str(runs[1]), "--group-by", "category")
    assert "by category:" in out and "\n  all " in out


def test_a_group_column_no_row_has_is_a_usage_error(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = compare_cli(capsys, str(runs[0]), str(runs[1]), "--group-by", "colour")
    assert status == 2 and "no row of either run has the group-by column 'colour'" in err


def test_the_paired_interval_holds_the_difference_and_is_no_point_without_flips() -> None:
    low, high = paired_interval(180, 0, 0, 20)
    assert low < 0 < high  # no flip: not the Wald interval's [0, 0]
    low, high = paired_interval(173, 7, 2, 18)
    assert low < -5 / 200 < high
    assert paired_interval(0, 10, 0, 0)[0] >= -1
    assert paired_interval(0, 0, 10, 0)[1] <= 1


def test_partial_credit_gives_the_mean_paired_difference() -> None:
    def run(values: list[float]) -> list[dict[str, Any]]:
        return [{"id": i, "correct": v == 1.0, "value": v, "failure_kind": None} for i, v in enumerate(values)]

    base = run([1.0, 0.5, 0.5, 1.0, 0.0, 0.5])
    new = run([1.0, 1.0, 0.0, 0.5, 0.0, 0.5])
    paired = sb.compare(base, new).paired
    assert paired.difference == pytest.approx((0 + 0.5 - 0.5 - 0.5 + 0 + 0) / 6)
    low, high = paired.interval or (0, 0)
    assert low < paired.difference < high
    assert (paired.regressed, paired.improved) == (1, 1)  # McNemar counts flips of correct


def two_scorers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    """Base and new scored by exact and detect_includes (which reads "not answer 3" as holding "answer 3")."""
    pair = (
        scored(tmp_path, "base", outputs(False), "--scorer", "detect_includes"),
        scored(tmp_path, "new", outputs(True), "--scorer", "detect_includes"),
    )
    capsys.readouterr()
    return pair


def test_two_files_of_two_scorers_each_print_both_scorers_sections(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # guards: compare refused a file of several scorers unless one was named, so only one was ever compared
    base, new = two_scorers(tmp_path, capsys)
    status, out, err = compare_cli(capsys, str(base), str(new))
    assert status == 0, err
    exact, includes = out.split("== scorer detect_includes ==")
    assert exact.startswith("== scorer exact ==\n")
    assert "flips: 7 regressed (right in base, wrong in new), 2 improved" in exact
    assert "flips: 0 regressed (right in base, wrong in new), 0 improved" in includes


def test_the_json_of_two_scorers_holds_a_comparison_of_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, new = two_scorers(tmp_path, capsys)
    status, out, _ = compare_cli(capsys, str(base), str(new), "--format", "json", "--fail-on-regression")
    data = json.loads(out)
    assert status == 3
    assert data["scorers"] == ["exact", "detect_includes"]
    assert [(c["scorer"], c["paired"]["regressed"]) for c in data["comparisons"]] == [
        ("exact", 7),
        ("detect_includes", 0),
    ]
    assert data["regression"].startswith("exact: 7 items regressed")
    assert data["comparisons"][1]["regression"] is None


def test_a_regression_of_one_scorer_of_two_fails_naming_that_scorer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, new = two_scorers(tmp_path, capsys)
    status, _, err = compare_cli(capsys, str(base), str(new), "--fail-on-regression")
    assert status == 3
    assert err == "scorebridge compare: a regression: exact: 7 items regressed, more than 0\n"


def test_scorer_once_compares_that_scorer_of_both_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, new = two_scorers(tmp_path, capsys)
    status, out, _ = compare_cli(capsys, str(base), str(new), "--scorer", "detect_includes")
    assert status == 0 and "== scorer" not in out and "flips: 0 regressed" in out


def test_scorer_twice_pairs_base_s_scorer_with_new_s(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, new = two_scorers(tmp_path, capsys)
    status, out, _ = compare_cli(capsys, str(base), str(new), "--scorer", "detect_includes", "--scorer", "exact")
    assert status == 0
    # base by detect_includes is right everywhere, so every row new's exact finds wrong is regressed
    wrong = sum(r["output"] != r["label"] for r in outputs(True))
    assert f"flips: {wrong} regressed (right in base, wrong in new), 0 improved" in out
    compared = sb.compare(base, new, scorer=("detect_includes", "exact"))
    assert compared.scorer == "detect_includes (base) and exact (new)"


def test_a_scorer_neither_file_holds_is_a_usage_error_in_cli_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # guards: a file of several scorers without --scorer was exit status 1 with a Python hint, "(scorer=)"
    base, new = two_scorers(tmp_path, capsys)
    status, _, err = compare_cli(capsys, str(base), str(new), "--scorer", "f1")
    assert status == 2
    assert f"--scorer f1: {base} holds scores of exact, detect_includes, not of 'f1'" in err
    assert "scorer=" not in err and "Traceback" not in err


def test_files_with_no_scorer_in_common_are_a_usage_error_naming_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = scored(tmp_path, "base", outputs(False), "--scorer", "detect_includes")
    data = tmp_path / "other-outputs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in outputs(True)), encoding="utf-8")
    new = tmp_path / "other.jsonl"
    assert main(["score", str(data), "--scorer", "detect_exact", "--scorer", "detect_match", "--out", str(new)]) == 0
    capsys.readouterr()
    status, _, err = compare_cli(capsys, str(base), str(new))
    assert status == 2
    assert f"{base} holds scores of exact, detect_includes, and {new} holds scores of detect_exact, detect_match" in err
    assert "--scorer twice (base's, then new's)" in err and "scorer=" not in err


def test_python_compare_of_two_scorers_asks_for_one_in_python_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, new = two_scorers(tmp_path, capsys)
    with pytest.raises(ValueError, match=r"several scorers \(exact, detect_includes\): choose one with scorer="):
        sb.compare(base, new)
    each = sb.compare_scorers(base, new)
    assert [(c.scorer, c.paired.regressed) for c in each] == [("exact", 7), ("detect_includes", 0)]


def test_a_benchmark_out_file_compares_with_a_score_file_of_several_scorers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # guards: "holds one unnamed scorer's scores" although the benchmark file's header names its scorer
    rows = outputs(False)
    items = {r["id"]: r["question"] for r in rows}
    answers = {r["question"]: r["output"] for r in rows}
    sb.benchmark({"m": answers.__getitem__}, items, {r["id"]: r["label"] for r in rows}, out=tmp_path / "bench.jsonl")
    new = scored(tmp_path, "new", outputs(True), "--scorer", "detect_includes")
    capsys.readouterr()
    status, out, err = compare_cli(capsys, str(tmp_path / "bench.jsonl"), str(new), "--format", "json")
    assert status == 0, err
    data = json.loads(out)
    assert data["scorer"] == "exact"
    assert (data["paired"]["pairs"], data["paired"]["regressed"], data["paired"]["improved"]) == (200, 7, 2)
    assert data["provenance"]["id"] == ["item_id", "id"]


def test_the_out_shape_written_before_is_read_too(tmp_path: Path) -> None:
    def old(path: Path, rows: list[dict[str, Any]]) -> Path:
        lines = []
        for n, row in enumerate(rows, start=1):
            right = row["output"] == row["label"]
            kind = None if right else "wrong"
            score = {"correct": right, "outcome": row["output"], "failure_kind": kind, "value": float(right)}
            score |= {"explanation": None, "metadata": {}, "grade": "C" if right else "I"}
            lines.append(json.dumps({"line": n, "row": row, "score": score}) + "\n")
        path.write_text("".join(lines), encoding="utf-8")
        return path

    compared = sb.compare(old(tmp_path / "a.jsonl", outputs(False)), old(tmp_path / "b.jsonl", outputs(True)))
    assert (compared.paired.regressed, compared.paired.improved) == (7, 2)
    assert compared.regressed[0].new.output is not None


def test_two_benchmark_runs_show_each_runs_output_side_by_side(tmp_path: Path) -> None:
    # A benchmark record held the Score but not the arm's output, so a flip of a scorer of one's own (whose
    # Score has no outcome) showed nothing of what either run answered.
    def same(item: str, output: str, label: str) -> bool:
        return output == label

    mine = sb.scorer(same)
    items, labels = ["q1", "q2"], ["a", "b"]
    sb.benchmark({"m": {"q1": "a", "q2": "b"}.__getitem__}, items, labels, scorer=mine, out=tmp_path / "old.jsonl")
    sb.benchmark({"m": {"q1": "a", "q2": "no"}.__getitem__}, items, labels, scorer=mine, out=tmp_path / "new.jsonl")
    (flip,) = sb.compare(tmp_path / "old.jsonl", tmp_path / "new.jsonl").regressed
    assert (flip.id, flip.base.output, flip.new.output) == (1, "b", "no")


def test_a_benchmark_file_written_before_records_held_the_output_still_compares(tmp_path: Path) -> None:
    sb.benchmark({"m": str.upper}, ["a", "b"], ["A", "B"], out=tmp_path / "old.jsonl")
    lines = (tmp_path / "old.jsonl").read_text("utf-8").splitlines()
    records = [json.loads(line) for line in lines[1:]]
    older = [lines[0], *(json.dumps({k: v for k, v in r.items() if k != "output"}) for r in records)]
    (tmp_path / "older.jsonl").write_text("\n".join(older) + "\n", encoding="utf-8")
    compared = sb.compare(tmp_path / "older.jsonl", tmp_path / "old.jsonl")
    assert (compared.paired.pairs, compared.paired.regressed, len(compared.only_base)) == (2, 0, 0)


def test_a_report_that_cannot_be_written_is_refused_before_comparing(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `compare --report nodir/r.html` ended in a FileNotFoundError traceback, after the comparison.
    status, out, err = compare_cli(capsys, *map(str, runs), "--report", str(tmp_path / "nodir" / "r.html"))
    assert status == 1 and out == ""
    assert "r.html: cannot be written: no folder" in err and "Traceback" not in err


def test_ids_that_are_numbers_in_one_run_and_text_in_the_other_pair(tmp_path: Path) -> None:
    # A run read from CSV has every id as text; a JSONL run of the same items has numbers: they paired nothing.
    rows = [{"id": i, "output": "a", "label": "a" if i != 2 else "b"} for i in range(1, 6)]
    as_text = [{**r, "id": str(r["id"])} for r in rows]
    compared = sb.compare(scored(tmp_path, "numbers", rows), scored(tmp_path, "text", as_text))
    assert (compared.paired.pairs, compared.only_base, compared.only_new) == (5, (), ())


def test_a_number_and_its_text_on_one_side_are_one_id_twice(tmp_path: Path) -> None:
    rows = [{"id": 1, "output": "a", "label": "a"}, {"id": "1", "output": "a", "label": "a"}]
    with pytest.raises(RowError, match=r"is already on row 2 as 1 \(a number and its text pair as one\)"):
        sb.compare(scored(tmp_path, "base", rows), scored(tmp_path, "new", rows[:1]))


def test_fail_on_regression_fails_when_no_pair_was_scored_in_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two runs whose ids never matched passed the CI gate: 0 pairs, so 0 regressed.
    base = scored(tmp_path, "base", [{"id": "a", "output": "x", "label": "x"}])
    new = scored(tmp_path, "new", [{"id": "b", "output": "x", "label": "x"}])
    status, _, err = compare_cli(capsys, str(base), str(new), "--fail-on-regression")
    assert status == 3 and "no pair was scored in both runs (1 only in base, 1 only in new" in err


def test_a_row_without_the_scores_after_scored_ones_is_refused_with_its_line(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # The row was counted unscored, silently, where the same row on line 1 is refused.
    base, new = runs
    with base.open("a", encoding="utf-8") as f:
        f.write(json.dumps({"id": "zz", "output": "a"}) + "\n")
    status, _, err = compare_cli(capsys, str(base), str(new))
    assert status == 1 and f"{base}:203: not a scored row: no 'exact.correct'" in err


def test_show_0_gives_the_counts_without_an_empty_list(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # It printed "only in base: 1: , ... (1 more)".
    _, out, _ = compare_cli(capsys, *map(str, runs), "--show", "0")
    assert "regressed: 7 (--show N lists them)" in out.splitlines()
    assert "only in base: 1 (--show N lists them)" in out.splitlines()


def test_an_id_column_for_each_side_pairs_a_benchmark_file_with_a_scored_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --id named one column for both files, and no column is in both a benchmark file and a scored one.
    rows = outputs(False)[:20]
    items = {r["id"]: r["question"] for r in rows}
    answers = {r["question"]: r["output"] for r in outputs(True)[:20]}
    labels = {r["id"]: r["label"] for r in rows}
    sb.benchmark({"model": answers.__getitem__}, items, labels, out=tmp_path / "runs.jsonl")
    base = scored(tmp_path, "base", rows)
    capsys.readouterr()
    status, out, _ = compare_cli(capsys, str(base), str(tmp_path / "runs.jsonl"), "--id", "id", "--id", "item_id")
    assert (
        status == 0
        and "paired by 'id' (base) and 'item_id' (new): 20 pairs" in out
        and "flips: 2 regressed (right in base, wrong in new), 1 improved" in out
    )


def test_benchmark_results_group_by_an_item_field(tmp_path: Path) -> None:
    # result.summary(group_by="category") worked, while compare(result, result, group_by="category") said no row
    # had the column: a record holds the item's id, not its fields.
    rows = outputs(False)
    items = {r["id"]: r for r in rows}
    labels = {r["id"]: r["label"] for r in rows}
    old = {r["id"]: r["output"] for r in rows}
    new = {r["id"]: r["output"] for r in outputs(True)}
    a = sb.benchmark({"m": lambda item: old[item["id"]]}, items, labels)
    b = sb.benchmark({"m": lambda item: new[item["id"]]}, items, labels)
    compared = sb.compare(a, b, group_by="category")
    assert [g.name for g in compared.groups] == sorted(CATEGORIES)
    assert sum(g.paired.regressed for g in compared.groups) == 7


def test_a_benchmark_file_grouped_by_an_item_field_says_it_holds_no_items(tmp_path: Path) -> None:
    sb.benchmark({"m": str.upper}, {"a": {"category": "x"}}, {"a": "A"}, out=tmp_path / "runs.jsonl")
    with pytest.raises(ValueError, match="a benchmark file holds no item fields"):
        sb.compare(tmp_path / "runs.jsonl", tmp_path / "runs.jsonl", group_by="category")


def test_the_json_provenance_names_the_scorebridge_version(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = compare_cli(capsys, *map(str, runs), "--format", "json")
    assert json.loads(out)["provenance"]["scorebridge"] == sb.__version__


def test_a_truncated_json_line_says_where_its_string_starts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "Unterminated string starting at at column 13"
    path = tmp_path / "cut.jsonl"
    path.write_text('{"id": "a", "output', encoding="utf-8")
    status, _, err = compare_cli(capsys, str(path), str(path))
    assert status == 1 and "not valid JSON (Unterminated string starting at column 13)" in err


def test_a_group_column_only_new_has_is_refused_saying_a_pair_is_grouped_by_base(tmp_path: Path) -> None:
    # Every pair went to the group (none), beside groups of 0 pairs named by new's values, with no word why.
    base = scored(tmp_path, "base", [{"id": "a", "output": "x", "label": "x"}])
    new = scored(tmp_path, "new", [{"id": "a", "output": "x", "label": "x", "lang": "en"}])
    with pytest.raises(ValueError, match="no row of base has the group-by column 'lang', only new's rows"):
        sb.compare(base, new, group_by="lang")


def test_groups_whose_values_print_the_same_are_named_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The number 1 and the text "1" are two groups, but the `by k` table had two lines `1` and a flip's group
    # column could not say which: named `1` and `'1'` there as `score --group-by` names them.
    rows = [{"id": f"q{n}", "output": "a", "label": "a", "k": (1, "1", "geo")[n % 3]} for n in range(6)]
    base = scored(tmp_path, "base", rows)
    new = scored(tmp_path, "new", [{**r, "output": "b"} if r["id"] == "q1" else r for r in rows])
    capsys.readouterr()
    _, out, _ = compare_cli(capsys, str(base), str(new), "--group-by", "k")
    table = out.split("by k:\n")[1].split("\n\n")[0].splitlines()[2:]
    assert [line.split()[0] for line in table] == ["1", "'1'", "geo", "all"]
    flip = out.split("regressed: 1, shortest first\n")[1].splitlines()[2]
    assert flip.split()[:2] == ["q1", "'1'"]
    assert [g.name for g in sb.compare(base, new, group_by="k").groups] == ["1", "'1'", "geo"]
    text = [r for r in rows if r["k"] != 1]  # and new has the number where base has the text, on pairs only:
    numbers = [{**r, "k": 1} if r["k"] == "1" else r for r in text]  # one group, base's "1", named plain
    compared = sb.compare(scored(tmp_path, "base2", text), scored(tmp_path, "new2", numbers), group_by="k")
    assert [g.name for g in compared.groups] == ["1", "geo"]


def test_the_report_names_each_sides_id_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sb.benchmark({"m": str.upper}, {"q1": "a"}, {"q1": "A"}, out=tmp_path / "runs.jsonl")
    base = scored(tmp_path, "base", [{"id": "q1", "output": "A", "label": "A"}])
    page = tmp_path / "r.html"
    status, _, _ = compare_cli(
        capsys, str(base), str(tmp_path / "runs.jsonl"), "--id", "id", "--id", "item_id", "--report", str(page)
    )
    assert status == 0 and "<dt>paired by</dt><dd>id (base) and item_id (new)</dd>" in page.read_text(encoding="utf-8")


def test_one_pair_is_one_pair_in_the_text() -> None:
    # guards: "1 pairs"
    text = str(sb.compare([{"id": 1, "correct": True}], [{"id": 1, "correct": False}]))
    assert "paired by 'id': 1 pair (0 unscored on a side, left out)" in text
    assert "accuracy on the 1 pair scored in both" in text


def test_a_scorer_in_one_file_only_is_named_as_not_compared(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # rows on one side only are named, never dropped silently; so are scorers
    base = scored(tmp_path, "base", outputs(False), "--scorer", "detect_includes")
    new = scored(tmp_path, "new", outputs(True), "--scorer", "detect_includes", "--scorer", "detect_exact")
    capsys.readouterr()
    status, out, _ = compare_cli(capsys, str(base), str(new), "--show", "0")
    assert status == 0
    assert out.count("== scorer ") == 2
    assert out.rstrip().endswith("not compared: new's detect_exact")
    compare_cli(capsys, str(base), str(new), "--report", str(tmp_path / "r.html"))
    assert "not compared: new&#x27;s detect_exact" in (tmp_path / "r.html").read_text("utf-8")
