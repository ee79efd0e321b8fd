"""The reverse direction's rules in the kit: `ask`, `verdict`, `judge`, `judge_each`, `sync_and_async`.

A harness's scorer wrapped as a scorebridge one records exactly what `exact()` records
wherever the harness is not asked, and the rejection's kind where it says "wrong".
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

import scorebridge as sb
from scorebridge.kit import Ask, ask, judge, judge_each, sync_and_async, verdict

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import tally
from scorebridge_tally import from_tally


def equals(row: dict[str, Any]) -> tally.Verdict:
    """A tally check: the response is one of the expected answers."""
    return tally.Verdict(1.0 if row["response"] in row["expected"] else 0.0)


def _fields(score: sb.Score) -> tuple[Any, ...]:
    return (score.correct, score.outcome, score.failure_kind, score.value)


# --- ask ---------------------------------------------------------------------------------------


def test_ask_records_a_reported_failure_without_asking() -> None:
    score = ask("s", {"failure_kind": "refusal"}, "Paris")
    assert isinstance(score, sb.Score) and (score.correct, score.failure_kind) == (False, "refusal")


def test_ask_records_ok_false_as_an_error_without_asking() -> None:
    score = ask("s", {"ok": False, "error": "boom"}, "Paris")
    assert isinstance(score, sb.Score) and score.failure_kind == "error"


def test_ask_keeps_the_kind_of_an_empty_unlabelled_output() -> None:
    score = ask("s", "", None)
    assert isinstance(score, sb.Score) and (score.correct, score.failure_kind) == (None, "parse_failure")


def test_ask_leaves_an_unlabelled_answer_unscored() -> None:
    score = ask("s", "Paris", None)
    assert isinstance(score, sb.Score) and _fields(score) == (None, "Paris", None, None)


def test_ask_hands_a_label_free_scorer_an_unlabelled_row() -> None:
    assert ask("s", "Paris", None, needs_label=False) == Ask("Paris", (), None, True, "Paris", None)


# The one label rule of every reverse adapter: from_trl and from_mlflow once asked the harness scorer once per
# element of a list label, so a reward needing all of a list said correct where TRL said 0.0.
def test_ask_hands_the_harness_a_list_label_whole() -> None:
    label = ["name", "age"]
    asked = ask("s", "name, age", label)
    assert isinstance(asked, Ask) and asked.label is label and asked.answers == ("name", "age")


def test_ask_hands_the_harness_a_number_label_as_a_number() -> None:
    asked = ask("s", "42", 42, read_label=False)
    assert isinstance(asked, Ask) and asked.label == 42 and type(asked.label) is int


@pytest.mark.parametrize("label", [None, float("nan"), "  ", [], ["", None]])
def test_ask_hands_a_label_free_harness_none_for_every_form_of_no_label(label: Any) -> None:
    asked = ask("s", "Paris", label, needs_label=False)
    assert isinstance(asked, Ask) and asked.label is None and asked.unlabelled


def test_ask_carries_the_output_as_given_beside_its_text() -> None:
    output = {"answer": "Paris", "sources": ["atlas"]}
    asked = ask("s", output, "Paris")
    assert isinstance(asked, Ask) and asked.output is output and asked.text == "Paris"


# from_dspy recorded a DSPy metric's 0.0 on a prediction whose field is a list (DSPy's own entity-extraction
# tests) as a parse failure, "the output is a list, not text": a structured output is an answer as it is.
def test_ask_structured_hands_a_list_output_over_as_an_answer() -> None:
    entities = [{"name": "United States", "type": "location"}]
    asked = ask("s", entities, entities, read_label=False, structured=True)
    assert isinstance(asked, Ask) and asked.output is entities and asked.rejected is None and asked.text == ""
    assert _fields(verdict("s", asked, False)) == (False, None, "wrong", 0.0)


def test_ask_of_text_still_rejects_a_list_output_as_a_parse_failure() -> None:
    asked = ask("s", ["Paris"], "Paris")
    assert isinstance(asked, Ask) and asked.rejected is not None and asked.rejected.failure_kind == "parse_failure"


def test_ask_structured_still_rejects_a_missing_output() -> None:
    asked = ask("s", None, "Paris", structured=True)
    assert isinstance(asked, Ask) and asked.rejected is not None and asked.rejected.failure_kind == "parse_failure"


def test_ask_structured_leaves_an_unlabelled_structured_output_unscored_unasked() -> None:
    score = ask("s", ["Paris"], None, structured=True)
    assert isinstance(score, sb.Score) and _fields(score) == (None, None, None, None)


def test_ask_hands_the_harness_the_sentinel_with_its_rejection() -> None:
    asked = ask("s", "NOT_IN_DOCUMENT", "Paris")
    assert isinstance(asked, Ask) and asked.text == "NOT_IN_DOCUMENT"
    assert asked.rejected is not None and asked.rejected.failure_kind == "not_in_document"


def test_ask_hands_the_harness_an_empty_text_for_no_output() -> None:
    asked = ask("s", None, ["Paris", 3])
    assert isinstance(asked, Ask) and (asked.text, asked.answers) == ("", ("Paris", "3"))


def test_ask_refuses_an_unreadable_label_naming_the_scorer() -> None:
    with pytest.raises(sb.ScorerContractError, match=r"^judge: a label must be"):
        ask("judge", "Paris", {"not": "a label"})


# --- verdict -----------------------------------------------------------------------------------


def test_a_foreign_wrong_on_an_empty_output_is_a_parse_failure() -> None:
    asked = ask("s", "", "Paris")
    assert isinstance(asked, Ask)
    assert _fields(verdict("s", asked, False)) == _fields(sb.exact()(None, "", "Paris"))


def test_a_foreign_wrong_on_not_in_document_records_not_in_document() -> None:
    asked = ask("s", "NOT_IN_DOCUMENT", "Paris")
    assert isinstance(asked, Ask)
    assert _fields(verdict("s", asked, False)) == _fields(sb.exact()(None, "NOT_IN_DOCUMENT", "Paris"))


def test_a_foreign_correct_on_a_rejected_output_is_taken_at_its_word() -> None:
    asked = ask("s", "NOT_IN_DOCUMENT", "Paris")
    assert isinstance(asked, Ask) and verdict("s", asked, True).correct is True


def test_a_harness_failure_kind_wins_over_the_rejection() -> None:
    asked = ask("s", "", "Paris")
    assert isinstance(asked, Ask) and verdict("s", asked, False, failure_kind="refusal").failure_kind == "refusal"


def test_partial_points_are_a_wrong_answer_with_partial_credit() -> None:
    asked = ask("s", "Pari", "Paris")
    assert isinstance(asked, Ask) and _fields(verdict("s", asked, False, value=0.5)) == (False, "Pari", "wrong", 0.5)


# --- judge: one body, sync and async ---------------------------------------------------------------


def test_judge_reads_a_sync_result_at_once() -> None:
    asked = ask("s", "Paris", "Paris")
    assert isinstance(asked, Ask)
    assert judge("s", lambda: 1.0, lambda v: verdict("s", asked, v >= 1)) == verdict("s", asked, True)


def test_judge_gives_an_awaitable_for_an_async_harness() -> None:
    asked = ask("s", "Paris", "Paris")
    assert isinstance(asked, Ask)

    async def points() -> float:
        return 1.0

    pending = judge("s", points, lambda v: verdict("s", asked, v >= 1))
    assert asyncio.run(pending).correct is True  # type: ignore[arg-type]


def test_judge_names_the_scorer_in_the_harness_exception() -> None:
    def broken() -> float:
        raise ValueError("no")

    with pytest.raises(ValueError) as caught:
        judge("judge", broken, lambda v: sb.Score(True))
    assert "raised inside the scorer 'judge'" in getattr(caught.value, "__notes__", [])


def test_judge_each_stops_at_the_first_correct_answer() -> None:
    asked = ask("s", "Rome", ["Paris", "Rome", "Lyon"])
    assert isinstance(asked, Ask)
    seen: list[str | None] = []

    def call(reference: str | None) -> bool:
        seen.append(reference)
        return asked.text == reference

    assert judge_each("s", asked, call, lambda ok: verdict("s", asked, ok)).correct is True  # type: ignore[union-attr]
    assert seen == ["Paris", "Rome"]


def test_judge_each_gives_the_best_partial_credit_when_none_is_correct() -> None:
    asked = ask("s", "Rom", ["Paris", "Rome"])
    assert isinstance(asked, Ask)
    points = {"Paris": 0.0, "Rome": 0.75}
    score = judge_each("s", asked, lambda r: points[r or ""], lambda v: verdict("s", asked, v >= 1, value=v))
    assert isinstance(score, sb.Score) and score.value == 0.75


def test_judge_each_awaits_an_async_harness_answer_by_answer() -> None:
    asked = ask("s", "Rome", ["Paris", "Rome"])
    assert isinstance(asked, Ask)

    async def call(reference: str | None) -> bool:
        return asked.text == reference

    pending = judge_each("s", asked, call, lambda ok: verdict("s", asked, ok))
    assert asyncio.run(pending).correct is True  # type: ignore[arg-type]


def test_sync_and_async_makes_an_async_scorer_of_an_async_body() -> None:
    async def body(item: Any, output: Any, label: Any) -> sb.Score:
        return sb.Score(True)

    made = sb.Scorer("s", sync_and_async(lambda i, o, lab: body(i, o, lab), is_async=True), recorded=True)
    assert made.is_async and made(None, "x", "x").correct is True


# --- the docs' tally adapter, on them ---------------------------------------------------------------


def test_the_tally_adapter_keeps_parse_failure_on_an_unlabelled_empty_output() -> None:
    assert from_tally(equals)(None, "", None).failure_kind == "parse_failure"


def test_the_tally_adapter_records_not_in_document() -> None:
    assert from_tally(equals)(None, "NOT_IN_DOCUMENT", "Paris").failure_kind == "not_in_document"


def test_the_tally_adapter_records_an_empty_output_as_a_parse_failure() -> None:
    assert from_tally(equals)(None, "", "Paris").failure_kind == "parse_failure"


def test_the_tally_adapter_over_an_async_check_is_an_async_scorer() -> None:
    async def later(row: dict[str, Any]) -> tally.Verdict:
        return equals(row)

    made = from_tally(later)
    assert made.is_async and [s.correct for s in made.score_many(None, ["Paris", "Rome"], ["Paris"] * 2)] == [
        True,
        False,
    ]


def test_with_options_on_a_scorer_made_with_options_but_no_factory_names_them() -> None:
    made = sb.Scorer("judge", lambda i, o, lab: True, {"threshold": 1.0})
    with pytest.raises(TypeError, match=r"'judge' was made with threshold=1.0 and has no factory .* threshold changed"):
        made.with_options(threshold=0.5)
