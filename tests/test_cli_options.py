"""`-S key=value`: read as Inspect AI reads its own `-S` (YAML values), so one command line works in both CLIs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scorebridge._cli.main import UsageError, main
from scorebridge._cli.options import read_options

# What a user types after -S, and what the scorer must receive (the ones users type most first).
TYPED: list[tuple[str, Any]] = [
    ("a=True", True),
    ("a=yes", True),
    ("a=1.5", 1.5),
    ("a=[a, b]", ["a", "b"]),
    ("a=a,b", ["a", "b"]),  # a plain text with commas is a list, in Inspect too
    ("a=false", False),
    ("a=3", 3),
    ("a=", None),
    ("a=null", None),
    ("a=hello world", "hello world"),
    ("a='123'", "123"),  # quoted: the text
    ("a=x=y", "x=y"),  # only the first "=" splits
    ("a={b: 1}", {"b": 1}),
]


@pytest.mark.parametrize(("typed", "value"), TYPED)
def test_an_option_is_read_as_yaml(typed: str, value: Any) -> None:
    key, _, text = typed.partition("=")
    assert read_options([(key, text)]) == {"a": value}


def test_a_dash_in_the_key_is_an_underscore() -> None:
    assert read_options([("case-sensitive", "true")]) == {"case_sensitive": True}


def test_the_last_of_a_repeated_key_wins() -> None:
    assert read_options([("a", "1"), ("a", "2")]) == {"a": 2}


@pytest.mark.parametrize("typed", [typed for typed, _ in TYPED] + ["case-sensitive=on", "n=0123", "t=1e3"])
def test_options_are_what_inspects_own_parser_gives(typed: str) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai._cli.util import parse_cli_config  # what `inspect score -S` calls

    key, _, text = typed.partition("=")
    assert read_options([(key, text)]) == parse_cli_config(args=(typed,), config=None)


def test_a_value_yaml_cannot_read_is_a_usage_error_saying_to_quote_it() -> None:
    quote = r"""-S "pattern='\[0-9\]\{2\}'\""""
    with pytest.raises(UsageError, match=r"-S pattern=\[0-9\]\{2\}: not a YAML value .*" + quote):
        read_options([("pattern", "[0-9]{2}")])


def test_scorebridge_score_reads_case_sensitive_true(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The bug: "-S case_sensitive=True" failed with "must be True or False; got 'True'" (read as JSON).
    data = tmp_path / "o.jsonl"
    data.write_text('{"output": "it is paris", "label": "Paris"}\n', encoding="utf-8")
    status = main(["score", str(data), "--scorer", "detect_includes", "-S", "case_sensitive=True"])
    out = capsys.readouterr().out
    assert status == 0
    assert "case_sensitive=True" in out
    assert out.splitlines()[3].split()[3] == "0"  # "paris" no longer includes "Paris"


@pytest.fixture
def number_row(tmp_path: Path) -> str:
    data = tmp_path / "o.jsonl"
    data.write_text('{"output": "it is 123", "label": "123"}\n', encoding="utf-8")
    return str(data)


def test_a_text_option_read_as_a_number_says_to_quote_it(number_row: str, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["score", number_row, "--scorer", "detect_pattern", "-S", "pattern=123"])
    assert status == 2
    assert "pattern=123 is an int; for the text, quote it: -S \"pattern='123'\"" in capsys.readouterr().err


def test_a_quoted_text_option_is_the_text(number_row: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", number_row, "--scorer", "detect_pattern", "-S", "pattern='123'"]) == 0
    assert capsys.readouterr().out.splitlines()[3].split()[3] == "1"


def test_a_bad_option_value_fails_with_the_scorer_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "o.jsonl"
    data.write_text('{"output": "a", "label": "a"}\n', encoding="utf-8")
    status = main(["score", str(data), "--scorer", "exact", "-S", "normalise=maybe"])
    assert status == 2
    assert "exact: normalise must be True or False; got 'maybe'" in capsys.readouterr().err


def test_a_bad_option_value_names_the_scorer_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # it said "scorebridge score: exact: exact: normalise must be ..."
    data = tmp_path / "o.jsonl"
    data.write_text('{"output": "a", "label": "a"}\n', encoding="utf-8")
    main(["score", str(data), "--scorer", "exact", "-S", "normalise=maybe"])
    assert capsys.readouterr().err.startswith("scorebridge score: exact: normalise must be")


def test_an_option_without_equals_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    # Inspect drops such an argument silently; a typo should not pass unnoticed
    with pytest.raises(SystemExit) as exit_:
        main(["score", "x.jsonl", "--scorer", "exact", "-S", "normalise"])
    assert exit_.value.code == 2
    assert "expected key=value" in capsys.readouterr().err


# --- the same -S strings given to both command lines -----------------------------------

SPY = '''\
import json

from scorebridge import scorer


@scorer
def spy(item, output, label, *, flag=None, word=None, ratio=None, items=None, csv=None, empty=None,
        case_sensitive=None):
    """Correct, with what it was given in the explanation."""
    seen = dict(flag=flag, word=word, ratio=ratio, items=items, csv=csv, empty=empty, case_sensitive=case_sensitive)
    return {"correct": True, "outcome": output, "failure_kind": None, "explanation": json.dumps(seen)}
'''
OPTIONS = ["flag=True", "word=yes", "ratio=1.5", "items=[a, b]", "csv=a,b", "empty=", "case-sensitive=off"]


def test_both_command_lines_give_the_scorer_the_same_options(tmp_path: Path) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.log import read_eval_log
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    (tmp_path / "spy.py").write_text(SPY, encoding="utf-8")
    flags = [arg for option in OPTIONS for arg in ("-S", option)]

    data = tmp_path / "rows.jsonl"
    data.write_text('{"output": "Paris", "label": "Paris"}\n', encoding="utf-8")
    scorebridge = Path(sys.executable).parent / "scorebridge"
    command = [str(scorebridge), "score", "rows.jsonl", "--scorer", "spy.py@spy", *flags, "--out", "scored.jsonl"]
    ours = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert ours.returncode == 0, ours.stderr
    [row] = [json.loads(line) for line in (tmp_path / "scored.jsonl").read_text(encoding="utf-8").splitlines()[1:]]

    output = ModelOutput.from_content("mockllm/model", "Paris")
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # offline: no tokenizer download
    [log] = eval(
        Task(dataset=[Sample(input="Capital of France?", target="Paris")], solver=generate(), scorer=match()),
        model="mockllm/model",
        model_args={"custom_outputs": [output]},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    inspect = Path(sys.executable).parent / "inspect"
    command = [str(inspect), "score", "--scorer", "spy.py@spy", *flags]
    command += ["--action", "overwrite", "--output-file", "rescored.eval", log.location]
    theirs = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert theirs.returncode == 0, theirs.stderr
    [sample] = read_eval_log(str(tmp_path / "rescored.eval")).samples or []
    inspect_seen = json.loads((sample.scores or {})["spy"].explanation or "")

    assert json.loads(row["spy.explanation"]) == inspect_seen
    assert inspect_seen == {
        "flag": True,
        "word": True,
        "ratio": 1.5,
        "items": ["a", "b"],
        "csv": ["a", "b"],
        "empty": None,
        "case_sensitive": False,
    }
