"""`detect_pattern()`: vitals' regex scorer, bounded in time on hostile text."""

from __future__ import annotations

import math

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

import scorebridge as sb
from scorebridge._scorers.deadline import bounded_work, longest_unguarded, searcher

number = sb.detect_pattern(r"(\d+)")

# vitals' documentation: "detect_pattern(): Extract matches of a pattern from the model response and
# determine whether those matches also appear in target." "all: Logical: for multiple
# captures, whether all must match."


def test_group_equal_to_the_target_is_correct() -> None:
    assert number(None, "The answer is 42", "42").grade == "C"


def test_group_differing_from_the_target_is_wrong() -> None:
    score = number(None, "The answer is 42", "99")
    assert (score.grade, score.failure_kind) == ("I", "wrong")


def test_group_containing_the_target_is_not_equal() -> None:
    assert number(None, "The answer is 420", "42").grade == "I"


def test_pattern_without_a_group_compares_the_whole_match() -> None:
    # inspect_ai#4828: a pattern with no capture group always gave I (vitals still does).
    assert sb.detect_pattern(r"\d+")(None, "The answer is 42", "42").grade == "C"


def test_pattern_without_a_group_and_all_is_not_vacuously_true() -> None:
    # vitals: all() of no groups is TRUE, so any match at all was C.
    assert sb.detect_pattern(r"\d+", all=True)(None, "The answer is 99", "42").grade == "I"


def test_no_match_is_a_parse_failure() -> None:
    score = number(None, "no digits here", "42")
    assert (score.failure_kind, score.outcome) == ("parse_failure", None)
    assert score.explanation == "the pattern '(\\\\d+)' does not match the output"


def test_only_the_first_match_is_read() -> None:
    assert sb.detect_pattern(r"(\d)")(None, "1 and 2", "2").grade == "I"


def test_one_group_is_enough_by_default() -> None:
    pattern = sb.detect_pattern(r"colors\s+(\w+)\s+and\s+(\w+)")
    assert pattern(None, "Found colors red and blue", "blue").grade == "C"


def test_every_group_must_match_with_all() -> None:
    pattern = sb.detect_pattern(r"colors\s+(\w+)\s+and\s+(\w+)", all=True)
    assert pattern(None, "Found colors red and blue", "red").grade == "I"
    assert pattern(None, "Found colors red and blue", ["red", "blue"]).grade == "C"


def test_group_that_took_no_part_is_left_out() -> None:
    pattern = sb.detect_pattern(r"(\d+)(?: or (\d+))?", all=True)
    assert pattern(None, "42", "42").grade == "C"


def test_match_capturing_nothing_is_a_parse_failure() -> None:
    # inspect_ai PR #4430: all-None optional groups scored C with an answer never given.
    score = sb.detect_pattern(r"(a+)?(b+)?", all=True)(None, "xyz", "a")
    assert (score.grade, score.failure_kind) == ("I", "parse_failure")


def test_pattern_itself_ignores_case_by_default() -> None:
    assert sb.detect_pattern(r"CONTAINS\s+([a-z])")(None, "The answer contains C", "c").grade == "C"


def test_case_sensitive_pattern_and_comparison() -> None:
    pattern = sb.detect_pattern(r"contains\s+([A-Za-z])", case_sensitive=True)
    assert pattern(None, "The answer contains C", "c").grade == "I"
    assert pattern(None, "The answer contains C", "C").grade == "C"


def test_captured_white_space_is_trimmed() -> None:
    assert sb.detect_pattern(r"ANSWER:(.*)")(None, "ANSWER:  42 ", "42").grade == "C"


def test_list_label_is_a_set_of_accepted_groups() -> None:
    assert number(None, "The answer is 42", ["41", "42"]).grade == "C"


# --- bounded time ----------------------------------------------------------------
# A regex runs on untrusted model output: (a+)+$ on 50 000 "a"s and a "!" would
# backtrack for ever. It is stopped and recorded as an error, never a hang.


def test_catastrophic_backtracking_is_stopped_as_an_error() -> None:
    score = sb.detect_pattern(r"(a+)+$", timeout=0.05)(None, "a" * 50_000 + "!", "a")
    assert (score.correct, score.failure_kind, score.outcome) == (False, "error", None)
    assert dict(score.metadata) == {"error": "regex timed out after 0.05 s"}


def test_default_timeout_is_one_second() -> None:
    assert number.options["timeout"] == 1.0


# --- arguments ---------------------------------------------------------------------


def test_invalid_regex_is_a_value_error_naming_the_pattern() -> None:
    with pytest.raises(ValueError, match=r"detect_pattern: the pattern '\(oops' is not a valid regular expression"):
        sb.detect_pattern("(oops")


def test_empty_pattern_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="detect_pattern: the pattern is empty"):
        sb.detect_pattern("")


def test_pattern_must_be_a_string() -> None:
    with pytest.raises(TypeError, match="detect_pattern: pattern must be a string"):
        sb.detect_pattern(42)  # type: ignore[arg-type]


@pytest.mark.parametrize("timeout", [0, -1, math.inf, math.nan, 1e13, 86400.5, 10**400])
def test_timeout_must_be_more_than_zero_and_at_most_a_day(timeout: float) -> None:
    # 1e13 was accepted, then every output, a matching one too, was recorded "error": the regex package
    # turns its timeout into clock ticks, and that count overflowed
    with pytest.raises(ValueError, match=r"detect_pattern: timeout must be more than 0 and at most a day \(86400 s\)"):
        sb.detect_pattern(r"(\d+)", timeout=timeout)


def test_a_day_is_the_longest_timeout() -> None:
    assert sb.detect_pattern(r"(\d+)", timeout=86400)(None, "42", "42").grade == "C"


@pytest.mark.parametrize("timeout", ["1", True, None])
def test_timeout_must_be_a_number(timeout: object) -> None:
    with pytest.raises(TypeError, match="detect_pattern: timeout must be a number of seconds"):
        sb.detect_pattern(r"(\d+)", timeout=timeout)  # type: ignore[arg-type]


@pytest.mark.parametrize("flag", ["case_sensitive", "all"])
def test_flags_must_be_bools(flag: str) -> None:
    with pytest.raises(TypeError, match=f"detect_pattern: {flag} must be True or False"):
        sb.detect_pattern(r"(\d+)", **{flag: 1})  # type: ignore[arg-type]


# --- what is recorded -------------------------------------------------------------


def test_metadata_keeps_the_raw_groups_and_the_match() -> None:
    score = sb.detect_pattern(r"(\d+)\s*=\s*(\d+)")(None, "2 + 3 = 5", "5")
    assert dict(score.metadata) == {"groups": ["3", "5"], "matched": "5"}


def test_outcome_of_a_miss_is_the_first_group() -> None:
    score = sb.detect_pattern(r"colors\s+(\w+)\s+and\s+(\w+)")(None, "Found colors Red and blue", "green")
    assert (score.outcome, score.explanation) == ("red", "captured 'red', which is not 'green'")


def test_outcome_with_all_is_the_group_that_failed() -> None:
    score = sb.detect_pattern(r"colors\s+(\w+)\s+and\s+(\w+)", all=True)(None, "Found colors red and blue", "red")
    assert score.outcome == "blue"


# --- the deadline is wall-clock time spent searching -------------------------------------------
# The regex package's timeout counts the CPU time of the whole process: other busy threads used it up
# (a legitimate 0.51 s search was recorded "error" with a 1 s timeout), and a starved or coarse search
# ran over it by seconds. A search that outlasts a short slice here runs in a child process, killed
# at the deadline. These tests check the verdicts; benchmarks/bench_detect.py measures the wall times
# (under load from busy threads too).

LONG = "word " * 50_000 + "The answer is 42"  # over INLINE_CHARS: searched in a child process


def test_a_long_text_is_searched_to_the_same_verdict() -> None:
    score = number(None, LONG, "42")
    assert (score.grade, score.outcome, dict(score.metadata)) == ("C", "42", {"groups": ["42"], "matched": "42"})


def test_a_long_text_that_does_not_match_is_a_parse_failure() -> None:
    assert number(None, "word " * 50_000, "42").failure_kind == "parse_failure"


def test_a_group_that_took_no_part_survives_the_child_process() -> None:
    either = sb.detect_pattern(r"(yes)|(no)")
    assert dict(either(None, "word " * 50_000 + "no", "no").metadata) == {"groups": [None, "no"], "matched": "no"}


def test_catastrophic_backtracking_on_a_long_text_is_stopped_as_an_error() -> None:
    # (\w+)\s+(\w+) scans all of a 10 MB text in one step of the regex engine: 256 steps between two of
    # its own timeout checks took 7.5 s for a 1 s timeout. The child process is killed at the deadline.
    score = sb.detect_pattern(r"(\w+)\s+(\w+)", timeout=0.2)(None, "a" * 2_000_000 + "!", "a")
    assert (score.failure_kind, dict(score.metadata)) == ("error", {"error": "regex timed out after 0.2 s"})


def test_with_no_python_to_start_the_package_timeout_is_the_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    # a frozen application has no Python to start a child with
    monkeypatch.setattr("sys.frozen", True, raising=False)
    assert number(None, LONG, "42").grade == "C"
    score = sb.detect_pattern(r"(a+)+$", timeout=0.05)(None, "a" * 50_000 + "!", "a")
    assert score.failure_kind == "error"


# --- a pattern whose worst case is polynomial searches short texts without the package's timeout -------
# Setting the regex package's timeout reads the process's CPU clock twice (system calls, about 1 µs), more
# than searching a short answer: detect_pattern(r"(\d+)") was slower per call than Inspect AI's pattern().
# Only a pattern whose worst case is polynomial skips it, on a text short enough for that worst case to be
# a tenth of the deadline; a pattern that may backtrack exponentially keeps the deadline on every text.


@pytest.mark.parametrize(
    "pattern",
    [
        r"(\d+)",
        r"ANSWER: ([A-D])",
        r"(yes|no)",
        r"(?P<n>\d+)",
        r"answer:? ([A-D])",
        r"[^]]*x",
        r"\d{1,3}%",
        r"ANSWER\s*:\s*(.*)",
        r"(\w+)\s+(\w+)",
        r"(yes|no)\d+",
    ],
)
def test_a_pattern_whose_repeats_are_each_of_one_character_is_bounded(pattern: str) -> None:
    assert bounded_work(pattern) is not None


@pytest.mark.parametrize(
    "pattern",
    [
        r"(a+)+$",  # a repeated group: exponential
        r"(a|a)*$",  # a repeated alternation: exponential
        r"(a?){30}a{30}",  # bounded repeats of a group, still exponential
        r"(?:the )?answer",  # a repeated group, even one of fixed width
        r"(a)\1",  # a back-reference
        r"(?=a)a+",  # lookaround
        r"(?i)a+",  # inline flags
        r"(?:ab){e<=1}",  # fuzzy matching
        r"\p{L}+",
        r"a{x}",
        "(a|b)" * 9,  # 2**9 branches
        "\\",
    ],
)
def test_a_pattern_that_may_backtrack_exponentially_is_not_bounded(pattern: str) -> None:
    assert bounded_work(pattern) is None


def test_each_repeat_shortens_the_text_searched_without_a_timeout() -> None:
    one, three = bounded_work(r"(\d+)"), bounded_work(r"(\w+)\s+(\w+)")
    assert one is not None and three is not None
    assert longest_unguarded(one, 1.0) > longest_unguarded(three, 1.0) > 0


def test_a_longer_deadline_lets_a_longer_text_go_unguarded() -> None:
    work = bounded_work(r"(\d+)")
    assert work is not None
    assert longest_unguarded(work, 10.0) > longest_unguarded(work, 1.0)


def test_a_bounded_pattern_searches_a_short_text_without_a_timeout() -> None:
    search = searcher(regex.compile(r"(\d+)"), 1.0)
    assert search("the answer is 42") == ("42", ("42",))


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="0123456789 ax]\n", max_size=3000))
def test_a_bounded_pattern_finds_what_the_package_finds_on_any_text(text: str) -> None:
    # texts up to 3000 characters: both sides of the longest text searched without a timeout (1414 for (\d+))
    for pattern in (r"(\d+)", r"[^]]*x", r"(a|x)(\d)", r"(\d+)\s*(a*)x"):
        compiled = regex.compile(pattern, regex.IGNORECASE)
        found = compiled.search(text)
        expected = None if found is None else (found.group(0), found.groups())
        assert searcher(compiled, 1.0)(text) == expected


def test_catastrophic_backtracking_on_a_short_text_is_still_stopped() -> None:
    # (a|a)*$ on 29 characters runs for minutes unstopped (the package cuts (a+)+$ short by itself)
    score = sb.detect_pattern(r"(a|a)*$", timeout=0.05)(None, "a" * 40 + "!", "a")
    assert score.failure_kind == "error"
