"""List labels in CSV: a cell holding a JSON array reads as the list for a scorer that declares `label: list[...]`.

A CSV cell is one string, so `label: list[str]` once read the cell `["name", "age"]` as one key: accuracy 0.000
where the same rows in JSONL gave 0.533, and nothing warned. A one-element label that looks like JSON or holds a
comma now gets a warning naming the row and the column.
"""

from __future__ import annotations

import csv
import json
import pickle
import warnings
from pathlib import Path
from typing import Any

import pytest

import scorebridge as sb
from scorebridge._cli.main import main
from scorebridge.kit import read_rows

SCORERS = '''
import scorebridge as sb


@sb.scorer
def every_field(item, output, label: list[str]):
    """Correct when the output names every field of the label."""
    return all(field in output for field in label)
'''

# (the extraction's output, the fields the form asks for): 8 of 15 name every field, 0.533
ROWS: list[tuple[str, list[str]]] = [
    ("name, age", ["name", "age"]),
    ("name", ["name", "age"]),
    ("zip", ["zip"]),
    ("city, zip", ["zip", "city"]),
    ("email", ["email", "phone"]),
    ("phone, email", ["email", "phone"]),
    ("age", ["age"]),
    ("name, city", ["name", "city", "zip"]),
    ("id", ["id"]),
    ("title", ["title", "name"]),
    ("date, time", ["date", "time"]),
    ("time", ["date"]),
    ("country, zip", ["country"]),
    ("street", ["street", "city"]),
    ("phone", ["fax"]),
]


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    module = tmp_path / "fields.py"
    module.write_text(SCORERS, encoding="utf-8")
    as_jsonl = tmp_path / "rows.jsonl"
    as_jsonl.write_text("".join(json.dumps({"output": o, "label": lab}) + "\n" for o, lab in ROWS), encoding="utf-8")
    as_csv = tmp_path / "rows.csv"
    with as_csv.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["output", "label"])
        writer.writerows([o, json.dumps(lab)] for o, lab in ROWS)
    return module, as_jsonl, as_csv


def _accuracy(capsys: pytest.CaptureFixture[str], module: Path, data: Path) -> float:
    assert main(["score", str(data), "--scorer", f"{module}@every_field", "--format", "json"]) == 0
    return float(json.loads(capsys.readouterr().out.splitlines()[-1])["accuracy"])


def test_a_json_array_cell_gives_the_accuracy_the_same_rows_give_in_jsonl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module, as_jsonl, as_csv = _files(tmp_path)
    assert _accuracy(capsys, module, as_jsonl) == _accuracy(capsys, module, as_csv) == pytest.approx(8 / 15)


def test_a_comma_separated_cell_is_one_answer_and_the_command_names_its_row_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module, _, _ = _files(tmp_path)
    data = tmp_path / "plain.csv"
    data.write_text('output,fields\n"name, age","name,age"\nzip,zip\n', encoding="utf-8")
    assert main(["score", str(data), "--scorer", f"{module}@every_field", "--label-field", "fields"]) == 0
    err = capsys.readouterr().err
    assert f"{data}:2, column 'fields': every_field reads the label 'name,age' as one accepted answer" in err
    assert 'write them as a JSON array: ["name", "age"]' in err and ":3," not in err


def test_a_cell_that_looks_like_json_but_is_no_array_is_warned_about(tmp_path: Path) -> None:
    every = sb.scorer(lambda item, output, label: True, name="every", label=list[str])
    data = [row for _, row in _rows(tmp_path, 'output,label\nx,"[name, age]"\n')]
    with pytest.warns(UserWarning, match=r"column 'label': every reads the label '\[name, age\]'.*looks like JSON"):
        every(None, "x", data[0]["label"])


def test_a_one_element_json_array_reads_without_a_warning(tmp_path: Path) -> None:
    seen: list[Any] = []
    every = sb.scorer(lambda item, output, label: seen.append(label) or True, name="every", label=list[str])
    [row] = [row for _, row in _rows(tmp_path, 'output,label\nx,"[""zip""]"\n')]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        every(None, "x", row["label"])
    assert seen == [["zip"]]


def test_a_scorer_reading_text_gets_the_cell_as_it_is(tmp_path: Path) -> None:
    seen: list[Any] = []
    text = sb.scorer(lambda item, output, label: seen.append(label) or True, name="text", label=str)
    [row] = [row for _, row in _rows(tmp_path, 'output,label\nx,"[""a"", ""b""]"\n')]
    text(None, "x", row["label"])
    assert seen == ['["a", "b"]']


def test_a_cell_is_plain_text_to_everything_else_and_pickles_as_a_str(tmp_path: Path) -> None:
    [row] = [row for _, row in _rows(tmp_path, 'output,label\n"Paris, France","[""Paris""]"\n')]
    assert row == {"output": "Paris, France", "label": '["Paris"]'}
    assert type(pickle.loads(pickle.dumps(row["output"]))) is str
    assert sb.exact()(None, row["output"], "paris, france").correct is True


def _rows(tmp_path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    path = tmp_path / "rows.csv"
    path.write_text(text, encoding="utf-8")
    return list(read_rows(path))
