"""`scorebridge score FILE --engine ray`: score_with_ray, called as the CLI calls it, on the session's local Ray."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import scorebridge as sb
from scorebridge._cli.ray_engine import score_with_ray
from scorebridge.kit import RowError, read_rows
from scorebridge_ray import SCORE_COLUMNS

ROWS: list[dict[str, Any]] = [
    {"question": "2+2?", "output": "4", "label": "4"},
    {"question": "Capital?", "output": " paris ", "label": "Paris"},
    {"question": "Padded?", "output": "01", "label": "1"},  # "01" must reach the scorer as text, not the number 1
    {"question": "Blank?", "output": "", "label": "x"},
    {"question": "Unlabelled?", "output": "a", "label": None},
]


@sb.scorer
def echo_item(item: Any, output: Any, label: Any) -> dict[str, Any]:
    """Exact match that records the item and the output it was given."""
    return {
        "correct": output == label,
        "outcome": None,
        "failure_kind": None,
        "metadata": {"item": item, "output": output},
    }


def namespace(file: Path, **changes: Any) -> argparse.Namespace:
    """The arguments `scorebridge score FILE --engine ray` parses to."""
    fields = {"item_field": None, "output_field": "output", "label_field": "label", "out": None, "address": None}
    return argparse.Namespace(file=str(file), **{**fields, **changes})


def written_rows(out: Path) -> list[dict[str, Any]]:
    """The rows of an --out file, after its header line (which names the scorers and the input)."""
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return [r for r in records if "scorebridge" not in r]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def local_summary(path: Path, scorer: sb.Scorer) -> sb.Summary:
    """The summary the local engine gives: the rows read by read_rows, scored one by one."""
    rows = [row for _, row in read_rows(path)]
    items = [next((row[f] for f in ("item", "input", "question") if f in row), None) for row in rows]
    return sb.Summary.of(scorer.name, scorer.score_many(items, [r["output"] for r in rows], [r["label"] for r in rows]))


@pytest.fixture(scope="module")
def from_jsonl(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, sb.Summary, list[dict[str, Any]]]:
    """ROWS, each with an `input` too, as a JSONL file scored by `echo_item`: the file, the summary, --out's rows."""
    folder = tmp_path_factory.mktemp("jsonl")
    source = write_jsonl(folder / "data.jsonl", [{"input": f"in {i}", **row} for i, row in enumerate(ROWS)])
    out = folder / "scored.jsonl"
    [summary], _ = score_with_ray(namespace(source, out=str(out)), echo_item)
    return source, summary, written_rows(out)


def test_a_jsonl_file_gives_the_local_engines_summary(from_jsonl: tuple[Path, sb.Summary, Any]) -> None:
    source, summary, _ = from_jsonl
    assert summary == local_summary(source, echo_item)


def test_out_has_the_rows_in_order_with_their_scores(from_jsonl: tuple[Path, sb.Summary, Any]) -> None:
    _, _, written = from_jsonl
    assert [{k: row[k] for k in ("question", "output", "label")} for row in written] == ROWS
    assert [row["echo_item.grade"] for row in written] == ["C", "I", "I", "I", "N"]


def test_a_jsonl_value_reaches_the_scorer_as_json_has_it(from_jsonl: tuple[Path, sb.Summary, Any]) -> None:
    _, _, written = from_jsonl
    assert [json.loads(row["echo_item.metadata"])["output"] for row in written] == [row["output"] for row in ROWS]


def test_the_item_is_the_first_of_item_input_question_the_data_has(from_jsonl: tuple[Path, sb.Summary, Any]) -> None:
    _, _, written = from_jsonl
    assert [json.loads(row["echo_item.metadata"])["item"] for row in written] == [f"in {i}" for i in range(len(ROWS))]


def test_a_parquet_file_is_read_with_its_types_and_written_as_parquet(tmp_path: Path) -> None:
    source = tmp_path / "data.parquet"
    pq.write_table(pa.Table.from_pylist(ROWS), source)
    out = tmp_path / "scored.parquet"
    [summary], _ = score_with_ray(namespace(source, out=str(out)), sb.exact())
    assert summary == local_summary(write_jsonl(tmp_path / "same.jsonl", ROWS), sb.exact())
    table = pq.read_table(out)
    assert table.column_names == ["line", "question", "output", "label", *(f"exact.{c}" for c in SCORE_COLUMNS)]
    assert table.column("exact.grade").to_pylist() == ["C", "C", "I", "I", "N"]


@pytest.fixture(scope="module")
def from_csv(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, sb.Summary, list[dict[str, Any]]]:
    """A CSV file scored by `echo_item` with `--out -`: the file, the summary, the rows written to stdout."""
    source = tmp_path_factory.mktemp("csv") / "data.csv"
    source.write_text('question,output,label\nq,01,1\nq,"a, b","a, b"\nq,,x\nq,7,\n', encoding="utf-8")
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        [summary], _ = score_with_ray(namespace(source, out="-"), echo_item)
    return source, summary, [json.loads(line) for line in shown.getvalue().splitlines()]


def test_a_csv_file_is_read_as_text_as_the_local_engine_reads_it(from_csv: tuple[Path, sb.Summary, Any]) -> None:
    source, summary, written = from_csv
    assert summary == local_summary(source, echo_item)
    assert [json.loads(row["echo_item.metadata"])["output"] for row in written] == ["01", "a, b", "", "7"]


@sb.scorer
def every_field(item: Any, output: Any, label: list[str]) -> bool:
    """Correct when the output names every field of the label."""
    return all(field in output for field in label)


# A CSV cell is one string: label: list[str] read ["name", "age"] as one key in Ray too, where JSONL gave the list
def test_a_json_array_label_cell_scores_as_the_same_rows_in_jsonl(tmp_path: Path) -> None:
    rows = [("name, age", ["name", "age"]), ("name", ["name", "age"]), ("zip", ["zip"])]
    as_csv = tmp_path / "fields.csv"
    as_csv.write_text(
        "output,label\n" + "".join(f'"{o}","{json.dumps(lab).replace(chr(34), chr(34) * 2)}"\n' for o, lab in rows),
        encoding="utf-8",
    )
    as_jsonl = write_jsonl(tmp_path / "fields.jsonl", [{"output": o, "label": lab} for o, lab in rows])
    [from_csv], _ = score_with_ray(namespace(as_csv), every_field)
    [from_jsonl], _ = score_with_ray(namespace(as_jsonl), every_field)
    assert from_csv.accuracy == from_jsonl.accuracy == pytest.approx(2 / 3)


def test_out_dash_writes_the_scored_rows_to_standard_output(from_csv: tuple[Path, sb.Summary, Any]) -> None:
    _, _, written = from_csv
    assert [row["echo_item.grade"] for row in written] == ["I", "C", "I", "N"]


def test_a_row_without_the_label_field_is_named_by_file_and_line(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "data.jsonl", [{"output": "a", "label": "a"}, {"output": "b"}])
    with pytest.raises(RowError, match=r"data.jsonl:2: no field 'label'; the row has output$"):
        score_with_ray(namespace(source), sb.exact())


def test_a_parquet_file_without_the_output_column_is_an_error_naming_its_columns(tmp_path: Path) -> None:
    source = tmp_path / "data.parquet"
    pq.write_table(pa.table({"answer": ["a"], "label": ["a"]}), source)
    with pytest.raises(RowError, match=r"data.parquet: no field 'output'; the rows have answer, label$"):
        score_with_ray(namespace(source), sb.exact())


def test_a_field_whose_json_type_changes_is_refused_naming_both_lines(tmp_path: Path) -> None:
    rows = [{"output": "a", "label": "a"}, {"output": "b", "label": None}, {"output": "c", "label": ["c", "d"]}]
    source = write_jsonl(tmp_path / "data.jsonl", rows)
    with pytest.raises(RowError, match=r"data.jsonl:3: the field 'label' is a list here but a string on line 1"):
        score_with_ray(namespace(source), sb.exact())


def test_a_list_mixing_objects_and_numbers_is_refused_naming_the_line_and_where(tmp_path: Path) -> None:
    # The local engine scored it; --engine ray ended in 40 lines of Ray traceback ("cannot mix struct and
    # non-struct, non-null values"): Arrow holds one type in a list too.
    rows = [{"output": "a", "label": "a"}, {"output": "b", "label": "b", "meta": {"nested": {"a": [1, 2, {"b": "ü"}]}}}]
    source = write_jsonl(tmp_path / "data.jsonl", rows)
    with pytest.raises(
        RowError, match=r"data.jsonl:2: the field 'meta' has an object at meta.nested.a\[\] here but a number"
    ):
        score_with_ray(namespace(source), sb.exact())


def test_an_objects_key_whose_type_changes_is_refused_naming_both_lines(tmp_path: Path) -> None:
    rows = [{"output": "a", "label": "a", "m": {"k": 1}}, {"output": "b", "label": "b", "m": {"k": "one"}}]
    source = write_jsonl(tmp_path / "data.jsonl", rows)
    with pytest.raises(
        RowError,
        match=r"data.jsonl:2: the field 'm' has a string at m.k here but a number there "
        r"before \(first seen on line 1\)",
    ):
        score_with_ray(namespace(source), sb.exact())


@pytest.mark.parametrize(
    ("name", "out", "message"),
    [
        ("data.txt", None, "data.txt: unknown format for the input; the file name must end in .jsonl, .ndjson, .csv"),
        ("data.jsonl", "scored.csv", "scored.csv: unknown format for --out; the file name must end in .jsonl, .ndjson"),
        ("missing.parquet", None, "missing.parquet: cannot be read: no such file"),
        ("missing.jsonl", None, "missing.jsonl: cannot be read"),
    ],
)
def test_a_file_that_cannot_be_read_or_written_is_a_row_error(
    tmp_path: Path, name: str, out: str | None, message: str
) -> None:
    source = tmp_path / name
    if not name.startswith("missing"):
        write_jsonl(source, ROWS)
    with pytest.raises(RowError, match=message):
        score_with_ray(namespace(source, out=None if out is None else str(tmp_path / out)), sb.exact())


CLI = [sys.executable, "-c", "import sys; from scorebridge._cli.main import main; sys.exit(main())"]


# A command that starts a Ray of its own takes 20 to 60 s on a shared 2-core machine: it is given 240 s, and a
# pool that never scores ends it at --stall-timeout with what Ray reports. It was pytest's 120 s timeout that
# ended these tests before, twice, without the command's stderr: the cause was never seen.
OWN_RAY = 240


@pytest.mark.timeout(OWN_RAY + 30)
def test_the_command_scores_a_parquet_file_on_a_ray_it_starts(tmp_path: Path, bounded: Any) -> None:
    source = tmp_path / "data.parquet"
    pq.write_table(pa.Table.from_pylist(ROWS), source)
    out = tmp_path / "scored.parquet"
    env = {name: value for name, value in os.environ.items() if name != "RAY_ADDRESS"}  # a Ray of its own
    command = [*CLI, "score", str(source), "--scorer", "exact", "--engine", "ray", "--out", str(out)]
    done = bounded([*command, "--stall-timeout", "120"], OWN_RAY, env=env)
    assert done.returncode == 0, done.stderr
    assert "exact" in done.stdout
    assert pq.read_table(out).column("exact.correct").to_pylist() == [True, True, False, False, None]


@pytest.mark.timeout(OWN_RAY + 30)
def test_the_command_takes_several_scorers_on_error_and_concurrency_with_ray(tmp_path: Path, bounded: Any) -> None:
    source = write_jsonl(tmp_path / "data.jsonl", ROWS)
    env = {name: value for name, value in os.environ.items() if name != "RAY_ADDRESS"}
    command = [*CLI, "score", str(source), "--scorer", "exact", "--scorer", "detect_match", "--engine", "ray"]
    command += ["--on-error", "record", "--concurrency", "4", "--format", "json", "--stall-timeout", "120"]
    done = bounded(command, OWN_RAY, env=env)
    assert done.returncode == 0, done.stderr
    summaries = [json.loads(line) for line in done.stdout.splitlines()]
    assert summaries == [local_summary(source, s).as_dict() for s in (sb.exact(), sb.detect_match())]


def test_importing_the_command_line_imports_no_ray() -> None:
    # The CLI imports the Ray engine only for --engine ray: `scorebridge list` must not pay for Ray.
    code = "import sys, scorebridge._cli.main; print(sorted(m for m in ('ray', 'pyarrow') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_an_exception_inside_the_scorer_is_a_row_error_naming_its_line_and_the_scorer(tmp_path: Path) -> None:
    @sb.scorer
    def picky(item: Any, output: Any, label: Any) -> bool:
        if output == "01":
            raise ValueError("padded numbers are not allowed")
        return bool(output == label)

    source = write_jsonl(tmp_path / "data.jsonl", ROWS)
    with pytest.raises(RowError) as info:
        score_with_ray(namespace(source), picky)
    # it said "(Ray does not say which line; the command without --engine ray does)": now the line, as locally
    assert str(info.value) == (
        f"{source}:3: the scorer 'picky' raised ValueError: padded numbers are not allowed (test_cli_engine.py, line "
        f"{picky.fn.__code__.co_firstlineno + 3})"
    )


def test_a_field_named_as_a_column_out_writes_is_refused(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "data.jsonl", [{"output": "a", "label": "a", "exact.grade": 3, "line": 1}])
    with pytest.raises(
        RowError, match=r"data.jsonl: the rows have a field named as a column --out writes \(exact.grade, line\)"
    ):
        score_with_ray(namespace(source), sb.exact())


def test_a_field_named_as_a_plain_score_field_is_kept(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "data.jsonl", [{"output": "a", "label": "a", "grade": 3}])
    out = tmp_path / "scored.jsonl"
    score_with_ray(namespace(source, out=str(out)), sb.exact())
    [row] = written_rows(out)
    assert (row["grade"], row["exact.grade"]) == (3, "C")


def test_out_has_the_local_engines_columns_and_values(tmp_path: Path) -> None:
    from scorebridge._cli.main import main

    source = write_jsonl(tmp_path / "data.jsonl", ROWS)
    main(["score", str(source), "--scorer", "exact", "--out", str(tmp_path / "local.jsonl")])
    score_with_ray(namespace(source, out=str(tmp_path / "ray.jsonl")), sb.exact())
    local, on_ray = (written_rows(tmp_path / name) for name in ("local.jsonl", "ray.jsonl"))
    assert [list(row) for row in on_ray] == [list(row) for row in local]  # the same columns, in the same order
    assert on_ray == local


def test_on_error_record_gives_a_scorer_raising_on_row_2_of_3_a_third_over_3(tmp_path: Path) -> None:
    @sb.scorer
    def fragile(item: Any, output: Any, label: Any) -> bool:
        if output == "b":
            raise ValueError("no b")
        return bool(output == label)

    rows = [{"output": "a", "label": "a"}, {"output": "b", "label": "a"}, {"output": "c", "label": "d"}]
    [summary], _ = score_with_ray(namespace(write_jsonl(tmp_path / "data.jsonl", rows), on_error="record"), fragile)
    assert (summary.rows, summary.scored, summary.failure_kinds["error"]) == (3, 3, 1)
    assert summary.accuracy == pytest.approx(1 / 3)


def test_on_error_record_counts_a_raising_unlabelled_row_for_a_scorer_that_needs_none(tmp_path: Path) -> None:
    # The engine recorded it unscored whatever the scorer's needs_label said: 1 of 1 where score_many gives 1 of 2.
    def free(item: Any, output: Any, label: Any) -> bool:
        if output == "b":
            raise ValueError("no b")
        return True

    rows = [{"output": "a", "label": None}, {"output": "b", "label": None}]
    source = namespace(write_jsonl(tmp_path / "data.jsonl", rows), on_error="record")
    [summary], _ = score_with_ray(source, sb.scorer(free, needs_label=False))
    assert (summary.scored, summary.accuracy) == (2, 0.5)


def test_two_scorers_give_a_summary_each_and_columns_each(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "data.jsonl", ROWS)
    out = tmp_path / "scored.parquet"
    summaries, grouped = score_with_ray(namespace(source, out=str(out)), [sb.exact(), echo_item])
    assert summaries == [local_summary(source, sb.exact()), local_summary(source, echo_item)]
    assert grouped == []  # no --group-by
    table = pq.read_table(out)
    assert table.column("exact.grade").to_pylist() == ["C", "C", "I", "I", "N"]
    assert table.column("echo_item.grade").to_pylist() == ["C", "I", "I", "I", "N"]


@sb.scorer
def words(item: Any, output: Any, label: Any) -> str:
    """A grade no rule reads on two rows of ROWS ("maybe", "yes"), a readable one on the others."""
    return {"4": "C", "01": "maybe"}.get(output, "yes" if output == " paris " else "I")


def test_an_unreadable_grade_is_said_once_with_the_count_and_first_line_as_locally(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from scorebridge._cli.main import main

    (tmp_path / "words.py").write_text(
        "from scorebridge import scorer\n\n\n@scorer\ndef words(item, output, label):\n"
        "    return {'4': 'C', '01': 'maybe', ' paris ': 'yes'}.get(output, 'I')\n",
        encoding="utf-8",
    )
    source = write_jsonl(tmp_path / "data.jsonl", ROWS)
    command = ["score", str(source), "--scorer", f"{tmp_path}/words.py@words", "--out", str(tmp_path / "local.jsonl")]
    main(command)
    local = capsys.readouterr().err
    main([*command[:-1], str(tmp_path / "ray.jsonl"), "--engine", "ray"])
    on_ray = capsys.readouterr().err
    said = f"scorebridge score: words returned a grade no rule reads on 2 rows (the first: {source}:2, 'yes')"
    assert [line for line in on_ray.splitlines() if "returned a grade" in line] == local.splitlines()
    assert local.startswith(said)
    written = [row["words.metadata"] for row in written_rows(tmp_path / "ray.jsonl")]
    assert written == ["{}"] * 5  # the mark that carried it is not written


def grouped_rows() -> list[dict[str, Any]]:
    """ROWS twice, with a category (missing on two rows, null on one) and a level (a number) to group by."""
    made = []
    for i, row in enumerate(ROWS * 2):
        extra: dict[str, Any] = {} if i in (0, 5) else {"category": None if i == 3 else ("geo", "math")[i % 2]}
        made.append({**row, **extra, "level": i % 3})
    return made


def both_engines(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[tuple[int, str], tuple[int, str]]:
    """`scorebridge score ARGV` with the local engine, then with --engine ray: each one's exit status and stdout."""
    from scorebridge._cli.main import main

    done = []
    for engine in ("local", "ray"):
        status = main(["score", *argv, "--engine", engine])
        done.append((status, capsys.readouterr().out))
    return done[0], done[1]


def test_group_by_prints_the_local_engines_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_jsonl(tmp_path / "data.jsonl", grouped_rows())
    local, on_ray = both_engines(capsys, str(source), "--scorer", "exact", "--group-by", "category")
    assert on_ray == local
    assert "\nby category:\n" in local[1] and "\n(none) " in local[1]


def test_group_by_gives_the_local_engines_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_jsonl(tmp_path / "data.jsonl", grouped_rows())
    argv = [str(source), "--scorer", "exact", "--scorer", "detect_match", "--group-by", "category,level"]
    local, on_ray = both_engines(capsys, *argv, "--format", "json")
    assert on_ray == local
    groups = [json.loads(line)["groups"] for line in local[1].splitlines()]
    assert [len(g) for g in groups] == [7, 7]  # each scorer's, by category and level


def test_group_by_on_a_csv_file_prints_the_local_engines_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "data.csv"
    source.write_text("output,label,category\n4,4,geo\n5,4,math\n01,1,\nParis,Paris,geo\n", encoding="utf-8")
    local, on_ray = both_engines(capsys, str(source), "--scorer", "exact", "--group-by", "category")
    assert on_ray == local
    assert "\ngeo " in local[1]


def test_a_group_by_column_no_row_has_is_a_usage_error_after_the_summary_as_locally(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write_jsonl(tmp_path / "data.jsonl", grouped_rows())
    local, on_ray = both_engines(capsys, str(source), "--scorer", "exact", "--group-by", "topic", "--format", "json")
    assert on_ray == local
    assert local[0] == 2
    assert "groups" not in json.loads(local[1]) and json.loads(local[1])["rows"] == len(grouped_rows())


def test_group_by_puts_the_groups_in_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from scorebridge._cli.main import main

    source = write_jsonl(tmp_path / "data.jsonl", grouped_rows())
    report = tmp_path / "report.html"
    command = [str(source), "--scorer", "exact", "--group-by", "category", "--engine", "ray", "--report", str(report)]
    assert main(["score", *command, "--format", "json"]) == 0
    names = [g["name"] for g in json.loads(capsys.readouterr().out)["groups"]]
    page = report.read_text(encoding="utf-8")
    assert names == ["geo", "math", "(none)"] and all(f">{name}<" in page for name in names)


def test_a_scorer_that_cannot_be_pickled_is_refused_before_ray_starts_naming_a_factory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the bug: an unpicklable scorer failed late, with an uncaught TypeError, after connecting and reading the file
    from scorebridge._cli.main import main

    (tmp_path / "locked.py").write_text(
        "import threading\nimport scorebridge as sb\n\nlock = threading.Lock()\n\n\n"
        "@sb.scorer\ndef locked(item, output, label, *, guard=lock):\n    return output == label\n",
        encoding="utf-8",
    )
    source = write_jsonl(tmp_path / "data.jsonl", ROWS)
    status = main(["score", str(source), "--scorer", f"{tmp_path}/locked.py@locked", "--engine", "ray"])
    said = capsys.readouterr().err
    assert status == 2
    assert "cannot be sent to the Ray workers" in said and "path/to/file.py@make_scorer" in said


def test_a_ray_client_address_without_ray_client_says_what_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the bug: --address ray://... was an uncaught ValueError from Ray
    from scorebridge._cli.main import main

    monkeypatch.setitem(sys.modules, "grpc", None)  # Ray Client's grpcio not installed
    source = write_jsonl(tmp_path / "data.jsonl", ROWS)
    status = main(["score", str(source), "--scorer", "exact", "--engine", "ray", "--address", "ray://head:10001"])
    assert status == 2
    assert 'pip install "scorebridge[ray-client]"' in capsys.readouterr().err


def grader_down(prompt: str) -> str:
    raise ValueError("the grader is down")


def test_the_graders_failures_are_counted_apart_as_the_local_engine_counts_them(tmp_path: Path) -> None:
    # The CLI's line "N rows: the grader failed" reads Summary.grader_failed: Ray's summary must carry it too.
    def make() -> sb.Scorer:  # the scorer holds its grader's pacing (locks): it is made on each worker
        return sb.model_graded_qa(grader_down)

    graded = make()
    source = write_jsonl(tmp_path / "data.jsonl", ROWS)
    [summary], _ = score_with_ray(namespace(source), [graded], [make])
    assert summary == local_summary(source, graded) and summary.grader_failed == 3  # 3 labelled rows graded
