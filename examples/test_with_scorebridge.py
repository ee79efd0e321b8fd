"""Testing an LLM application with scorebridge scorers, in plain pytest.

Copy this file next to your own tests and replace `ask` with a call into your
application. Here `ask` is a stand-in that answers from a table, so the example
runs offline. With pytest-scorebridge installed nothing else is needed:

    pytest examples/test_with_scorebridge.py
    pytest examples/test_with_scorebridge.py --scorebridge-report scores.jsonl
    pytest examples/test_with_scorebridge.py -n 2        # pytest-xdist works too

The run ends with a "scorebridge" section: per scorer, how many outputs were
scored, the accuracy and the counts per failure kind.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import scorebridge as sb
from pytest_scorebridge import Recorder, assert_accuracy, assert_scored

_REPLIES = {
    "What is the capital of France?": "Paris",
    "What is the capital of Japan?": "  tokyo ",
    "Which planet is the largest?": "Planet Jupiter",
    "What is the chemical formula of water?": "H2O",
    "How many primes are there below 20?": "8",
    "How far is the Moon from the Earth, in km?": "384,399",
    "What is the capital of Australia?": "Sydney",
    "Summarise this contract.": "I'm sorry, I can't help with legal documents.",
    "Who wrote the attached memo?": "NOT_IN_DOCUMENT",
}


def ask(question: str) -> str:
    """The application under test (a stand-in: replace with your own call)."""
    return _REPLIES[question]


exact = sb.exact()


def _within_1pct(item: Any, output: Any, label: Any) -> dict[str, Any]:
    # The hr package's own example of a custom scorer: a number within 1% of the label.
    try:
        x = float(str(output).replace(",", ""))
    except ValueError:
        return {"correct": False, "outcome": None, "failure_kind": "parse_failure"}
    return {"correct": abs(x - label) <= 0.01 * abs(label), "outcome": f"{x:g}", "failure_kind": None}


within_1pct = sb.scorer(_within_1pct, name="within_1pct")


def _polite_exact(item: Any, output: Any, label: Any) -> Any:
    # A scorer may hand back another scorer's Score; here a refusal gets its own failure kind.
    if isinstance(output, str) and output.lower().startswith(("i'm sorry", "i can't")):
        return {"correct": False, "outcome": output, "failure_kind": "refusal", "explanation": "the app refused"}
    return exact(item, output, label)


polite_exact = sb.scorer(_polite_exact, name="polite_exact")


async def _judge(item: Any, output: Any, label: Any) -> dict[str, Any]:
    # An async scorer: a stand-in for a model-graded one, or one wrapped from Inspect AI or DSPy.
    await asyncio.sleep(0)
    found = str(label).lower() in str(output).lower()
    return {"correct": found, "outcome": output, "explanation": f"looked for {label!r} in the answer"}


judge = sb.scorer(_judge, name="judge")


def test_one_question() -> None:
    assert_scored(exact, ask("What is the capital of France?"), "Paris")


@pytest.mark.scorebridge_cases("cases/golden.jsonl")
def test_golden_set(case: dict[str, Any]) -> None:
    # One test per row of cases/golden.jsonl, named by its "id" (test_golden_set[france], ...).
    assert_scored(exact, ask(case["question"]), case["answer"], item=case["question"])


def test_a_number_within_one_percent() -> None:
    score = assert_scored(within_1pct, ask("How far is the Moon from the Earth, in km?"), 384400)
    assert score.outcome == "384399"


def test_an_async_scorer() -> None:
    assert_scored(judge, ask("Which planet is the largest?"), "Jupiter")


def test_accuracy_over_a_batch() -> None:
    questions = list(_REPLIES)[:7]
    # A label may list several accepted answers; None marks an item nobody has labelled yet.
    labels = ["Paris", "Tokyo", ["Jupiter", "Planet Jupiter"], "H2O", 8, "384,400", None]
    # 5 of the 6 labelled are right ("384,399" is not "384,400"): 83% passes at_least=0.8.
    # The unlabelled item is unscored: left out of the accuracy, not counted wrong.
    scores = assert_accuracy(exact, [ask(q) for q in questions], labels, items=questions, at_least=0.8)
    assert [s.grade for s in scores] == ["C", "C", "C", "C", "C", "I", "N"]


def test_hard_questions_are_tracked_not_gated(scorebridge_record: Recorder) -> None:
    # Recorded for the summary and the report; a wrong answer does not fail this test.
    refused = scorebridge_record(polite_exact, ask("Summarise this contract."), "a summary")
    absent = scorebridge_record(polite_exact, ask("Who wrote the attached memo?"), "J. Smith")
    wrong = scorebridge_record(polite_exact, ask("What is the capital of Australia?"), "Canberra")
    assert (refused.failure_kind, absent.failure_kind, wrong.failure_kind) == ("refusal", "not_in_document", "wrong")
