"""Reading case files: rows, ids, and a `FILE:LINE:` message for every bad one."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_scorebridge._cases import CaseFileError, read_cases


def _write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return path


def _error(path: Path) -> str:
    with pytest.raises(CaseFileError) as info:
        read_cases(path, path.name)
    return str(info.value)


def test_a_jsonl_case_is_the_row_as_a_dict_and_blank_lines_are_skipped(tmp_path: Path) -> None:
    path = _write(tmp_path, "c.jsonl", '{"id": "q1", "label": 3}\n\n   \n{"id": 7, "label": [1, 2]}\n')
    assert read_cases(path, "c.jsonl") == [("q1", {"id": "q1", "label": 3}), ("7", {"id": 7, "label": [1, 2]})]


def test_rows_without_an_id_are_numbered_by_case(tmp_path: Path) -> None:
    path = _write(tmp_path, "c.jsonl", '{"q": "a"}\n\n{"q": "b", "id": ""}\n{"q": "c", "id": "named"}\n')
    assert [case_id for case_id, _ in read_cases(path, "c.jsonl")] == ["row1", "row2", "named"]


def test_a_json_string_holding_a_unicode_line_separator_stays_one_row(tmp_path: Path) -> None:
    # str.splitlines() would cut this line in two at U+2028, which JSON allows raw in a string.
    path = _write(tmp_path, "c.jsonl", '{"q": "one\u2028two"}\n{"q": "three"}\n')
    assert [row["q"] for _, row in read_cases(path, "c.jsonl")] == ["one\u2028two", "three"]


def test_csv_values_stay_strings_and_a_byte_order_mark_is_dropped(tmp_path: Path) -> None:
    path = _write(tmp_path, "c.csv", "\ufeffid,question,label\nq1,Capital?,42\n")
    assert read_cases(path, "c.csv") == [("q1", {"id": "q1", "question": "Capital?", "label": "42"})]


def test_a_quoted_csv_field_may_span_lines(tmp_path: Path) -> None:
    path = _write(tmp_path, "c.csv", 'q,label\n"two\nlines",a\nnext,b\n')
    assert [row["q"] for _, row in read_cases(path, "c.csv")] == ["two\nlines", "next"]


@pytest.mark.parametrize(
    ("name", "line", "text", "problem"),
    [
        (
            "c.jsonl",
            3,
            '{"q": 1}\n\n{"q" 2}\n',  # not a trailing comma: Python 3.13 words that one otherwise
            "not valid JSON (Expecting ':' delimiter at column 6)",
        ),
        ("c.jsonl", 2, '{"q": 1}\n[1, 2]\n', "expected a JSON object, got a JSON list"),
        ("c.jsonl", 1, '"just a string"\n', "expected a JSON object, got a JSON str"),
        ("c.jsonl", 2, '{"id": "a"}\n{"id": ["a"]}\n', "the id must be a string or a number; got list"),
        ("c.jsonl", 4, '{"id": "a"}\n{"id": "b"}\n\n{"id": "a"}\n', "the id 'a' is already used on line 1"),
        # A CSV row is named by the line it starts on: a quoted field may span lines.
        ("c.csv", 5, 'q,label\na,b\n"x\ny",z\nc,d,e\n', "3 fields, but the header has 2"),
        ("c.csv", 3, 'q,label\na,b\n"unclosed,c\nd,e\n', "not valid CSV (unexpected end of data)"),
        ("c.csv", 1, "q,,label\na,b,c\n", "the header row is not usable: column 2 has no name"),
        ("c.csv", 1, "q,label,q\na,b,c\n", "the header row is not usable: the column 'q' appears twice"),
    ],
)
def test_a_bad_row_names_its_file_and_line(tmp_path: Path, name: str, line: int, text: str, problem: str) -> None:
    assert _error(_write(tmp_path, name, text)) == f"{name}:{line}: {problem}"


def test_bytes_that_are_not_utf8_name_their_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "c.jsonl", b'{"q": "a"}\n{"q": "caf\xe9"}\n')
    assert _error(path).startswith("c.jsonl:2: not UTF-8 text (invalid continuation byte at byte")


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("c.jsonl", "\n\n", "holds no rows"),
        ("c.csv", "q,label\n", "holds no rows"),
        (
            "c.json",
            "[]",
            "unknown format for the input; the file name must end in .jsonl, .ndjson, .csv, .parquet, .pq",
        ),
    ],
)
def test_a_file_with_no_case_or_of_another_type_is_refused(tmp_path: Path, name: str, text: str, problem: str) -> None:
    assert _error(_write(tmp_path, name, text)) == f"{name}: {problem}"


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    assert _error(tmp_path / "gone.jsonl") == "gone.jsonl: cannot be read: No such file or directory"


# A CSV cell is one string: `label: list[str]` read `["name", "age"]` as one key, where JSONL gave the list.
def test_a_json_array_label_cell_scores_as_the_same_case_in_jsonl(tmp_path: Path) -> None:
    import scorebridge as sb

    every = sb.scorer(lambda item, output, label: all(f in output for f in label), name="every", label=list[str])
    as_csv = read_cases(_write(tmp_path, "c.csv", 'output,label\nname,"[""name"", ""age""]"\n'), "c.csv")
    as_jsonl = read_cases(_write(tmp_path, "c.jsonl", '{"output": "name", "label": ["name", "age"]}\n'), "c.jsonl")
    verdicts = [every(None, row["output"], row["label"]).correct for _, row in (*as_csv, *as_jsonl)]
    assert verdicts == [False, False]
