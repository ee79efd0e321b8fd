"""`detect_answer()`: vitals' "ANSWER:" scorer, reading the last one."""

from __future__ import annotations

import pytest

import scorebridge as sb

line = sb.detect_answer()
word = sb.detect_answer("word")
letter = sb.detect_answer("letter")

# vitals' documentation: "detect_answer(): Scorer for model output that precedes answers with
# "ANSWER: ". Can extract letters, words, or the remainder of the line." "format:
# What to extract after "ANSWER:": "letter", "word", or "line". Defaults to "line"."


def test_default_format_is_line() -> None:
    assert line.options == {"format": "line"}


def test_line_reads_the_rest_of_the_line() -> None:
    assert line(None, "Let me think.\nANSWER: The Industrial Revolution", "The Industrial Revolution").grade == "C"


def test_the_last_answer_is_read() -> None:
    # A model that corrects itself is read at its final answer (inspect_ai PR #3024); vitals reads the first.
    assert letter(None, "ANSWER: A\n... actually, ANSWER: C", "C").grade == "C"


def test_answer_line_need_not_be_the_last_line() -> None:
    # vitals and Inspect AI anchor "line" to the end of the text and miss this answer (vitals V17).
    assert line(None, "ANSWER: C\nExplanation follows...", "C").grade == "C"


def test_marker_in_any_case() -> None:
    assert letter(None, "Answer: b", "B").grade == "C"


@pytest.mark.parametrize("output", ["**Answer**: B", "**ANSWER:** B", "ANSWER : B", "Final ANSWER: B"])
def test_marker_with_emphasis_or_spacing(output: str) -> None:
    assert letter(None, output, "B").grade == "C"


def test_marker_must_be_a_word() -> None:
    assert letter(None, "NOANSWER: B", "B").failure_kind == "parse_failure"


def test_newline_after_the_marker_is_skipped() -> None:
    assert line(None, "ANSWER:\nParis", "Paris").grade == "C"


# --- letter --------------------------------------------------------------------------
# inspect_ai#5145: "ANSWER: $B$" and "**B**" parsed as no answer understated GPQA accuracy.


@pytest.mark.parametrize("answer", ["B", "**B**", "(B)", "$B$", "B.", "\\boxed{B}", "$\\textbf{B}$", "B) Paris", "[B]"])
def test_letter_decorations_are_allowed(answer: str) -> None:
    assert letter(None, f"ANSWER: {answer}", "B").grade == "C"


@pytest.mark.parametrize("answer", ["Carrot", "The", "B2", "3", "**"])
def test_letter_must_stand_alone(answer: str) -> None:
    # vitals reads "ANSWER: Carrot" as the letter C.
    score = letter(None, f"ANSWER: {answer}", "C")
    assert (score.grade, score.failure_kind) == ("I", "parse_failure")
    assert score.explanation == "no single letter follows the last 'ANSWER:'"


# --- word ---------------------------------------------------------------------------


def test_word_is_the_first_word() -> None:
    # Inspect AI wants the word to end its line and calls this a format error.
    assert word(None, "ANSWER: yes because reasons", "yes").grade == "C"


def test_word_without_its_punctuation() -> None:
    assert word(None, "ANSWER: **Yes**, because", "yes").grade == "C"


def test_word_keeps_inner_punctuation() -> None:
    assert word(None, "ANSWER: don't", "don't").grade == "C"


# --- line ---------------------------------------------------------------------------


def test_line_ignores_punctuation_around_the_answer() -> None:
    assert line(None, "ANSWER: Paris.", "Paris").grade == "C"


def test_line_trailing_white_space_is_ignored() -> None:
    assert line(None, "ANSWER: paris, france  ", "Paris, France").grade == "C"


def test_line_comparison_ignores_case() -> None:
    assert line(None, "ANSWER: PARIS", "paris").grade == "C"


# --- failures -----------------------------------------------------------------------


def test_no_marker_is_a_parse_failure() -> None:
    score = line(None, "I think it is Paris", "Paris")
    assert (score.failure_kind, score.explanation) == ("parse_failure", "no 'ANSWER:' line found")


def test_nothing_after_the_marker_is_a_parse_failure() -> None:
    score = line(None, "The answer will follow. ANSWER:   ", "Paris")
    assert (score.failure_kind, score.explanation) == ("parse_failure", "nothing follows the last 'ANSWER:'")


def test_other_answer_is_wrong() -> None:
    score = line(None, "ANSWER: Lyon", "Paris")
    assert (score.failure_kind, score.explanation) == ("wrong", "the answer 'lyon' is not 'paris'")


def test_unknown_format_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="detect_answer: format must be one of 'line', 'word', 'letter'; got 'para'"):
        sb.detect_answer("para")


# --- what is recorded ---------------------------------------------------------------


def test_outcome_is_the_answer_as_compared() -> None:
    assert letter(None, "ANSWER: **B**", "B").outcome == "b"


def test_metadata_has_the_format_the_raw_answer_and_the_match() -> None:
    metadata = dict(line(None, "ANSWER: Paris.", "Paris").metadata)
    assert metadata == {"format": "line", "answer": "Paris.", "matched": "paris"}
