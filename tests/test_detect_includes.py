"""`detect_includes()`: vitals' substring scorer, with numbers kept whole."""

from __future__ import annotations

import pytest

import scorebridge as sb

includes = sb.detect_includes()


def grade(output: str, label: object, scorer: sb.Scorer = includes) -> str:
    return scorer(None, output, label).grade


# vitals' documentation: "detect_includes(): Determine whether the target from the sample appears
# anywhere inside the model output. Can be case sensitive or insensitive (defaults
# to the latter)."


def test_target_anywhere_in_the_output_is_correct() -> None:
    assert grade("I believe Paris is the capital", "Paris") == "C"


def test_target_missing_from_the_output_is_wrong() -> None:
    score = includes(None, "I believe Lyon is the capital", "Paris")
    assert (score.correct, score.failure_kind) == (False, "wrong")


def test_case_is_ignored_by_default() -> None:
    assert grade("The answer is C", "c") == "C"


def test_case_sensitive_tells_case_apart() -> None:
    assert grade("The answer is C", "c", sb.detect_includes(case_sensitive=True)) == "I"


def test_case_folding_is_unicode() -> None:
    # casefold, as Inspect AI does; vitals' tolower leaves "ß" and misses this.
    assert grade("STRASSE", "straße") == "C"


def test_target_is_trimmed_of_white_space() -> None:
    # A label " Paris " from a sloppy CSV still finds "Paris," (vitals looks for " paris ").
    assert grade("Paris, France", " Paris ") == "C"


# --- numbers never match inside longer numbers ------------------------------------
# inspect_ai PR #3916 and aisa-group/PostTrainBench#44: "25" ends with "5" as a
# string, but 25 is not 5.


def test_number_does_not_match_inside_a_longer_number() -> None:
    assert grade("The answer is 25", "5") == "I"


def test_number_matches_where_it_stands_alone() -> None:
    assert grade("25 or 5", "5") == "C"


def test_negative_number_does_not_hold_the_positive_one() -> None:
    assert grade("-5", "5") == "I"


def test_minus_after_a_digit_is_a_range_not_a_sign() -> None:
    assert grade("pages 3-5", "5") == "C"


def test_decimal_does_not_hold_its_integer_part() -> None:
    assert grade("3.14", "3") == "I"


def test_decimal_does_not_hold_its_fraction_digits() -> None:
    assert grade("3.14", "14") == "I"


def test_thousands_group_does_not_hold_its_last_digits() -> None:
    assert grade("1,500", "500") == "I"


def test_comma_list_holds_its_numbers() -> None:
    assert grade("1,2,3", "3") == "C"


def test_number_before_a_full_stop_matches() -> None:
    assert grade("The answer is 5.", "5") == "C"


def test_negative_target_does_not_match_inside_a_subtraction() -> None:
    assert grade("10-5", "-5") == "I"


def test_negative_target_standing_alone_matches() -> None:
    assert grade("It is -5 degrees", "-5") == "C"


def test_unicode_digits_are_digits_too() -> None:
    assert grade("٢٥", "٥") == "I"  # Arabic-Indic 25 does not hold 5


def test_degenerate_run_of_digits_does_not_hold_a_digit() -> None:
    assert grade("5" * 100_000, "5") == "I"


def test_letters_have_no_word_boundary() -> None:
    # Like vitals and Inspect AI: only numbers are kept whole.
    assert grade("a catalogue", "cat") == "C"


# --- what is recorded ---------------------------------------------------------


def test_outcome_is_the_output_as_compared() -> None:
    assert includes(None, "The capital is Paris", "paris").outcome == "the capital is paris"


def test_metadata_names_the_target_matched() -> None:
    assert dict(includes(None, "The capital is Paris", ["Lyon", "Paris"]).metadata) == {"matched": "paris"}


def test_explanation_of_a_miss_names_the_target() -> None:
    assert includes(None, "Lyon", "Paris").explanation == "the output does not contain 'paris'"


def test_explanation_says_when_a_number_sits_inside_a_longer_one() -> None:
    assert (
        includes(None, "The answer is 25", "5").explanation == "the output contains '5' only as part of a longer number"
    )


@pytest.mark.parametrize("flag", ["no", 0, None])
def test_case_sensitive_must_be_a_bool(flag: object) -> None:
    with pytest.raises(TypeError, match="detect_includes: case_sensitive must be True or False"):
        sb.detect_includes(case_sensitive=flag)  # type: ignore[arg-type]
