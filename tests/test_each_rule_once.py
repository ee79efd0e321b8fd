"""Each rule in one place: where two parts of scorebridge read the same thing, they read it alike.

Before, `model_graded_qa` read an item's `question` before its `input`, `from_inspect`
read `input` first and the CLI read `item`, `input`, `question`; the CLI and the pytest
plugin read data files with two readers that worded the same errors differently
("byte 3" and "byte 16") and disagreed on an empty file.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import scorebridge as sb
from scorebridge.kit import item_text, raised_score
from scorebridge.testing import FakeGrader

BOTH = {"question": "Q", "input": "I"}


def test_the_kit_reads_input_before_question() -> None:
    assert item_text(BOTH) == "I"


def test_a_model_graded_scorer_asks_about_the_same_text() -> None:
    grader = FakeGrader("GRADE: C")
    sb.model_graded_qa(grader, template="[{question}] {answer} {criterion}")(BOTH, "Paris", "Paris")
    assert grader.prompts == ["[I] Paris Paris"]


def test_an_inspect_scorer_brought_in_gets_the_same_text_as_its_input() -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai.scorer import Score, Target, scorer
    from inspect_ai.solver import TaskState

    from scorebridge_inspect import from_inspect

    seen: list[str] = []

    @scorer(metrics=[])
    def reads_input() -> Any:
        async def score(state: TaskState, target: Target) -> Score:
            seen.append(state.input_text)
            return Score(value="C")

        return score

    from_inspect(reads_input())(BOTH, "Paris", "Paris")
    assert seen == ["I"]


def test_the_command_line_hands_a_rows_input_to_the_scorer(tmp_path: Path) -> None:
    scorer_file = tmp_path / "items.py"
    scorer_file.write_text(
        "from scorebridge import scorer\n\n@scorer\ndef echo_item(item, output, label):\n"
        "    return {'correct': True, 'outcome': item, 'failure_kind': None}\n",
        encoding="utf-8",
    )
    data = tmp_path / "rows.jsonl"
    data.write_text('{"question": "Q", "input": "I", "output": "o", "label": "l"}\n', encoding="utf-8")
    out = tmp_path / "scored.jsonl"
    command = [sys.executable, "-m", "scorebridge", "score", str(data), "--scorer", f"{scorer_file}@echo_item"]
    done = subprocess.run([*command, "--out", str(out)], capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert '"outcome": "I"' in out.read_text(encoding="utf-8")


# --- one reader of data files: the CLI and the pytest plugin word every problem alike ------------------

BAD_FILES = {
    "bad.jsonl": b'{"output": "a", "label": "a"}\n{"output": "b" "label": "b"}\n',
    "list.jsonl": b'{"output": "a", "label": "a"}\n[1, 2]\n',
    "latin1.jsonl": b'{"output": "a", "label": "a"}\n{"output": "caf\xe9", "label": "a"}\n',
    "empty.jsonl": b"\n\n",
    "fields.csv": b"output,label\na,a\nb,b,b\n",
    "twice.csv": b"output,output\na,a\n",
    "quote.csv": b'output,label\na,a\n"unclosed,b\n',
    "header.csv": b"output,label\n",
    "rows.json": b"[]",
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_the_cli_and_the_pytest_plugin_give_the_same_message_for_a_bad_file(tmp_path: Path, name: str) -> None:
    from pytest_scorebridge._cases import CaseFileError, read_cases

    path = tmp_path / name
    path.write_bytes(BAD_FILES[name])
    command = [sys.executable, "-m", "scorebridge", "score", name, "--scorer", "exact"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 1
    with pytest.raises(CaseFileError) as caught:
        read_cases(path, name)
    assert done.stderr.strip() == str(caught.value)


# A scorer's exception recorded as a Score (on_error="record") was written three times: Inspect AI and Ray
# gave "the scorer raised ValueError('x')" cut at 300 characters, DSPy's evaluate() "ValueError: x" cut at 500,
# and Ray's crashed on an exception whose repr raises. The adapters' tests check each gives this one.


def test_a_raised_exception_is_recorded_as_an_error_naming_it() -> None:
    score = raised_score("judge", ValueError("no Lyon here"), "Paris")
    assert (score.correct, score.failure_kind, score.explanation) == (
        False,
        "error",
        "the scorer raised ValueError('no Lyon here')",
    )


def test_a_raised_exception_on_an_unlabelled_row_is_unscored_with_its_kind() -> None:
    score = raised_score("judge", ValueError("x"), None)
    assert (score.correct, score.value, score.failure_kind) == (None, None, "error")


def test_an_exception_whose_repr_raises_is_named_by_its_type() -> None:
    class Odd(Exception):
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    assert raised_score("judge", Odd(), "Paris").explanation == "the scorer raised <Odd whose repr raised RuntimeError>"


# --- the reverse direction's rules, once (kit.ask, kit.verdict): the harnesses' own built-ins record as exact() --


def _harness_scorers() -> dict[str, Any]:
    pytest.importorskip("inspect_ai")
    pytest.importorskip("dspy")
    import dspy
    from inspect_ai.scorer import match

    from scorebridge_dspy import from_dspy
    from scorebridge_inspect import from_inspect

    return {
        "inspect match()": from_inspect(match()),
        "dspy answer_exact_match": from_dspy(dspy.evaluate.answer_exact_match),
    }


@pytest.mark.parametrize(
    ("output", "label"),
    [
        ("", "Paris"),
        ("NOT_IN_DOCUMENT", "Paris"),
        ("", None),
        ({"failure_kind": "refusal"}, "Paris"),
        ("Lyon", "Paris"),
    ],
)
def test_a_harness_scorer_brought_in_records_the_kind_exact_records(output: Any, label: Any) -> None:
    want = sb.exact()(None, output, label)
    got = {name: made("Capital of France?", output, label) for name, made in _harness_scorers().items()}
    assert {name: (s.correct, s.failure_kind) for name, s in got.items()} == dict.fromkeys(
        got, (want.correct, want.failure_kind)
    )
