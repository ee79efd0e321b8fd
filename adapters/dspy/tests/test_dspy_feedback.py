"""`feedback_text`: the line GEPA's reflection model reads, written from the Score and the label."""

from __future__ import annotations

from typing import Any

import dspy

import scorebridge as sb
from scorebridge import Score
from scorebridge_dspy import feedback_text, to_dspy


def test_a_correct_output_is_just_correct() -> None:
    assert feedback_text(Score(True, "paris"), "Paris") == "correct"


def test_a_wrong_output_shows_what_was_answered_and_expected() -> None:
    assert feedback_text(Score(False, "lyon", "wrong"), "Paris") == "wrong: answered 'lyon'; expected 'Paris'"


def test_a_refusal_names_its_kind_and_the_explanation() -> None:
    # An example of feedback a reflection model can act on.
    score = Score(False, None, "refusal", explanation="the answer refused")
    assert feedback_text(score, "Paris") == "refusal: the answer refused; expected 'Paris'"


def test_the_explanation_comes_before_the_answer() -> None:
    score = Score(False, "NOT_IN_DOCUMENT", "not_in_document", explanation="the output says it is not there")
    assert feedback_text(score, "Paris") == (
        "not_in_document: the output says it is not there; answered 'NOT_IN_DOCUMENT'; expected 'Paris'"
    )


def test_a_correct_output_keeps_its_explanation() -> None:
    assert feedback_text(Score(True, "4", explanation="4 = 2 + 2"), "4") == "correct: 4 = 2 + 2"


def test_several_accepted_answers_are_listed() -> None:
    assert feedback_text(Score(False, "x", "wrong"), ["Paris", "paris city"]) == (
        "wrong: answered 'x'; expected one of 'Paris', 'paris city'"
    )


def test_one_accepted_answer_in_a_list_is_shown_alone() -> None:
    assert feedback_text(Score(False, "x", "wrong"), ["Paris"]) == "wrong: answered 'x'; expected 'Paris'"


def test_many_accepted_answers_are_counted_past_five() -> None:
    text = feedback_text(Score(False, "x", "wrong"), [str(i) for i in range(8)])
    assert text == "wrong: answered 'x'; expected one of '0', '1', '2', '3', '4' and 3 more"


def test_a_number_label_is_written_in_plain_digits() -> None:
    assert feedback_text(Score(False, "1e+05", "wrong"), 100000.0) == "wrong: answered '1e+05'; expected 100000"


def test_partial_credit_shows_the_score() -> None:
    assert feedback_text(Score(False, "paris france", "wrong", 0.5), "Paris") == (
        "wrong: answered 'paris france'; expected 'Paris'; score 0.5"
    )
    assert feedback_text(Score(True, "paris", None, 0.75), "Paris") == "correct: score 0.75"


def test_a_huge_output_is_cut_in_the_feedback() -> None:
    text = feedback_text(Score(False, "ab" * 5000, "wrong"), "Paris")
    assert text == f"wrong: answered {'ab' * 100!r} (cut; 10000 characters in all); expected 'Paris'"


def test_a_label_that_is_not_text_is_written_as_python_writes_it() -> None:
    assert feedback_text(Score(False, "x", "wrong"), {"city": "Paris"}) == (
        "wrong: answered 'x'; expected {'city': 'Paris'}"
    )


def test_an_unscored_score_says_so_with_its_kind() -> None:
    assert feedback_text(Score(None), None) == "unscored"
    assert feedback_text(Score(None, None, "refusal"), None) == "unscored: failure kind refusal"


# A parse failure has no outcome: the feedback shows what the model answered instead


def _number(item: Any, output: Any, label: Any) -> dict[str, Any]:
    """A scorer of one's own that reads a number: text that is none is a parse failure with no outcome."""
    try:
        value = float(output)
    except ValueError:
        return {"correct": False, "failure_kind": "parse_failure"}
    return {"correct": value == float(label), "outcome": str(value)}


def test_a_parse_failure_shows_what_the_model_answered() -> None:
    # Once GEPA's reflection model read only "parse_failure: expected 7": the outcome is None there.
    assert feedback_text(Score(False, None, "parse_failure"), 7, "about seven") == (
        "parse_failure: answered 'about seven'; expected 7"
    )


def test_a_parse_failure_cuts_a_long_answer() -> None:
    text = feedback_text(Score(False, None, "parse_failure"), 7, "x" * 1000)
    assert text == f"parse_failure: answered {'x' * 200!r} (cut; 1000 characters in all); expected 7"


def test_a_parse_failure_of_an_empty_output_says_nothing_was_answered() -> None:
    assert feedback_text(Score(False, None, "parse_failure"), 7, "  ") == "parse_failure: answered nothing; expected 7"


def test_gepas_feedback_call_shows_the_answer_of_a_parse_failure() -> None:
    metric = to_dspy(sb.scorer(_number, name="number"))
    gold = dspy.Example(question="How many days in a week?", answer="7").with_inputs("question")
    result = metric(gold, dspy.Prediction(answer="about seven"), None, "predict", None)
    assert (result.score, result.feedback) == (0.0, "parse_failure: answered 'about seven'; expected '7'")
