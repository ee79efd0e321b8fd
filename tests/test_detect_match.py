"""`detect_match()`: vitals' begin/end/any/exact scorer, white space, case and punctuation ignored."""

from __future__ import annotations

import pytest

import scorebridge as sb

match = sb.detect_match()


def grade(output: str, label: object, location: str = "end", case_sensitive: bool = False) -> str:
    return sb.detect_match(location, case_sensitive)(None, output, label).grade


# vitals' documentation: "detect_match(): Determine whether the target from the sample appears at
# the beginning or end of model output (defaults to looking at the end). Has options
# for ignoring case, white-space, and punctuation (all are ignored by default)."


def test_default_location_is_the_end() -> None:
    assert match.options["location"] == "end"
    assert grade("The capital is Paris", "Paris") == "C"


def test_answer_at_the_start_does_not_end_the_output() -> None:
    assert grade("Paris is the capital", "Paris") == "I"


def test_begin_location_reads_the_start() -> None:
    assert grade("Paris is the capital", "Paris", "begin") == "C"


def test_any_location_reads_anywhere() -> None:
    assert grade("I think Paris is it", "Paris", "any") == "C"


def test_punctuation_at_the_end_is_ignored() -> None:
    # vitals' documentation ignores punctuation; vitals' code only trims white space and says I here.
    assert grade("The capital is Paris.", "paris") == "C"


def test_emphasis_around_the_answer_is_ignored() -> None:
    assert grade("The answer is **Paris**", "Paris") == "C"


def test_quotes_around_the_target_are_ignored() -> None:
    assert grade("The answer is Paris", '"Paris"') == "C"


def test_unicode_quotes_are_punctuation_too() -> None:
    assert grade("The answer is “Paris”", "Paris") == "C"


def test_white_space_runs_count_as_one_space() -> None:
    assert grade("New  York", "new york", "exact") == "C"


def test_case_is_ignored_by_default() -> None:
    assert grade("The answer is C", "c") == "C"


def test_case_sensitive_tells_case_apart() -> None:
    assert grade("The answer is C", "c", case_sensitive=True) == "I"


def test_exact_location_ignores_punctuation_around_the_answer() -> None:
    assert grade(" Paris. ", "paris", "exact") == "C"


def test_exact_location_is_the_whole_output() -> None:
    assert grade("Paris, France", "paris", "exact") == "I"


def test_punctuation_inside_the_output_is_kept() -> None:
    assert grade("Paris, France", "paris france", "exact") == "I"


# --- numbers never match inside longer numbers ------------------------------------
# inspect_ai PR #3916: digit suffix (25 vs 5), negatives (-5 vs 5), decimals (33.14 vs 3.14).


def test_number_does_not_end_inside_a_longer_number() -> None:
    assert grade("The answer is 25", "5") == "I"


def test_aime_answer_711_does_not_end_with_11() -> None:
    assert grade("ANSWER: 711", "11") == "I"  # aisa-group/PostTrainBench#44


def test_negative_number_does_not_end_with_the_positive_one() -> None:
    assert grade("The answer is -5", "5") == "I"


def test_negative_target_at_the_end_matches() -> None:
    assert grade("The answer is -5.", "-5") == "C"


def test_exact_location_keeps_the_minus_sign() -> None:
    # Inspect AI strips punctuation at both ends, "-" included, so "-5" is "5" there.
    assert grade("-5", "5", "exact") == "I"


def test_decimal_does_not_end_with_a_shorter_decimal() -> None:
    assert grade("33.14", "3.14") == "I"


def test_number_does_not_begin_a_longer_number() -> None:
    assert grade("25 apples", "2", "begin") == "I"


def test_number_before_a_full_stop_begins_the_output() -> None:
    assert grade("5. Because five is prime", "5", "begin") == "C"


def test_any_location_keeps_numbers_whole() -> None:
    assert grade("between 15 and 25", "5", "any") == "I"


def test_letters_have_no_word_boundary_at_the_end() -> None:
    # Like vitals and Inspect AI: only numbers are kept whole.
    assert grade("I would climb", "b") == "C"


# --- targets of nothing but punctuation ------------------------------------------


def test_punctuation_only_target_keeps_its_punctuation() -> None:
    assert grade("Really?", "?") == "C"


def test_punctuation_only_target_never_matches_everything() -> None:
    # Inspect AI strips the target "." to "" and every output ends with "".
    assert grade("Paris", ".") == "I"


# --- arguments and what is recorded ----------------------------------------------


def test_unknown_location_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="detect_match: location must be one of 'end', 'begin', 'any', 'exact'"):
        sb.detect_match("middle")


def test_location_is_not_matched_partially() -> None:
    with pytest.raises(ValueError, match="got 'beg'"):
        sb.detect_match("beg")


def test_case_sensitive_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="detect_match: case_sensitive must be True or False"):
        sb.detect_match(case_sensitive="yes")  # type: ignore[arg-type]


def test_outcome_is_the_output_as_compared() -> None:
    assert match(None, "The capital is  Paris.", "paris").outcome == "the capital is paris"


def test_metadata_says_where_and_what_matched() -> None:
    assert dict(match(None, "The capital is Paris", "Paris").metadata) == {"location": "end", "matched": "paris"}


def test_explanation_of_a_miss_names_the_place_and_the_target() -> None:
    assert match(None, "Paris is the capital", "Paris").explanation == "the output does not end with 'paris'"


def test_explanation_lists_several_targets() -> None:
    explanation = match(None, "Rome", ["Paris", "Lyon"]).explanation
    assert explanation == "the output does not end with 'paris' or 'lyon'"
