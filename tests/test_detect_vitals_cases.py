"""The 25 vitals test cases (V1-V25: the cases of vitals' own detect tests), one row each.

Every row runs our scorer on vitals' inputs. Where we deliberately differ from
vitals, the row says so and gives both results; docs/semantics.md explains why.
V1-V19 come from vitals' tests/testthat/test-scorer-detect.R. V20-V25 are about R
factors, model-graded scorers and Task metrics; each is mapped to what applies to
a detect scorer here.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

import scorebridge as sb

ADDITION = ("2+2=4", "2 + 3 = 5")  # vitals' example_task() results, targets "4" and "5"
LETTERS = ("The answer is C", "The answer is D")
SOLUTION = ("The solution is:\nANSWER: The Industrial Revolution", "ANSWER: C\nExplanation follows...")
SOLUTION_TARGETS = ("The Industrial Revolution", "C")


@dataclass(frozen=True)
class Case:
    scorer: sb.Scorer
    outputs: tuple[str, str]
    targets: tuple[str, str]
    vitals: tuple[str, str]
    ours: tuple[str, str] | None = None  # set only where we deliberately differ from vitals
    why: str = ""


CASES = {
    "V1": Case(sb.detect_includes(), ADDITION, ("4", "5"), ("C", "C")),
    "V2": Case(sb.detect_includes(case_sensitive=False), LETTERS, ("c", "d"), ("C", "C")),
    "V3": Case(sb.detect_includes(case_sensitive=True), LETTERS, ("c", "d"), ("I", "I")),
    "V4": Case(sb.detect_match(), ADDITION, ("4", "5"), ("C", "C")),
    "V5": Case(sb.detect_match(case_sensitive=False), LETTERS, ("c", "d"), ("C", "C")),
    "V6": Case(sb.detect_match(case_sensitive=True), LETTERS, ("c", "d"), ("I", "I")),
    "V7": Case(sb.detect_pattern(r"(\d+)\s*=\s*(\d+)"), ADDITION, ("4", "5"), ("C", "C")),
    "V8": Case(
        sb.detect_pattern(r"contains\s+([A-Za-z])", case_sensitive=False),
        ("The answer contains C", "The answer contains D"),
        ("c", "d"),
        ("C", "C"),
    ),
    "V9": Case(
        sb.detect_pattern(r"contains\s+([A-Za-z])", case_sensitive=True),
        ("The answer contains C", "The answer contains D"),
        ("c", "d"),
        ("I", "I"),
    ),
    "V10": Case(
        sb.detect_pattern(r"colors\s+(\w+)\s+and\s+(\w+)", all=False),
        ("Found colors red and blue", "Found colors green and yellow"),
        ("red", "green"),
        ("C", "C"),
    ),
    "V11": Case(
        sb.detect_pattern(r"colors\s+(\w+)\s+and\s+(\w+)", all=True),
        ("Found colors red and blue", "Found colors green and yellow"),
        ("red", "green"),
        ("I", "I"),
    ),
    "V12": Case(sb.detect_exact(), ("4", "non-matching output"), ("4", "5"), ("C", "I")),
    "V13": Case(
        sb.detect_exact(case_sensitive=False), ("ANSWER: C", "ANSWER: d"), ("ANSWER: c", "ANSWER: d"), ("C", "C")
    ),
    "V14": Case(
        sb.detect_exact(case_sensitive=True), ("ANSWER: C", "ANSWER: d"), ("ANSWER: c", "ANSWER: d"), ("I", "C")
    ),
    "V15": Case(sb.detect_answer(), ("ANSWER: 4", "ANSWER: 5"), ("4", "5"), ("C", "C")),
    "V16": Case(sb.detect_answer(), ("ANSWER:  4", "ANSWER:  5"), ("4", "5"), ("C", "C")),
    "V17": Case(
        sb.detect_answer(format="line"),
        SOLUTION,
        SOLUTION_TARGETS,
        ("C", "I"),
        ours=("C", "C"),
        why="the line after the last ANSWER: is read wherever it is; vitals' `(.+)$` needs it to be the last line",
    ),
    "V18": Case(sb.detect_answer(format="word"), SOLUTION, SOLUTION_TARGETS, ("I", "C")),
    "V19": Case(sb.detect_answer(format="letter"), SOLUTION, SOLUTION_TARGETS, ("I", "C")),
}


@pytest.mark.parametrize("case_id", list(CASES))
def test_vitals_case(case_id: str) -> None:
    case = CASES[case_id]
    grades = tuple(case.scorer(None, o, t).grade for o, t in zip(case.outputs, case.targets, strict=True))
    assert grades == (case.ours or case.vitals), case.why


def test_v19_the_first_letter_of_a_word_is_no_letter() -> None:
    # Same grade as vitals (I), for a reason that is recorded: vitals reads "T" from "The".
    score = sb.detect_answer(format="letter")(None, SOLUTION[0], SOLUTION_TARGETS[0])
    assert score.failure_kind == "parse_failure"


def test_v20_detect_scores_are_only_c_or_i() -> None:
    # vitals: "score is an ordered factor; as.character gives only C/I". Ours: a grade C
    # or I (N only when unscored), value 1.0 or 0.0, never a partial P.
    grades, values = set(), set()
    for case in CASES.values():
        for output, target in zip(case.outputs, case.targets, strict=True):
            score = case.scorer(None, output, target)
            grades.add(score.grade)
            values.add(score.value)
    assert (grades, values) == ({"C", "I"}, {1.0, 0.0})


# V21-V23 test vitals' model_graded_qa()/model_graded_fact() (the model-graded scorers are
# issue 8). What applies to a detect scorer: reading a judge's reply and a target's text.


def test_v21_judge_grade_is_read_with_vitals_grade_pattern() -> None:
    # vitals' default grade_pattern on an example-task judge reply, which ends with "GRADE: C".
    grade_pattern = sb.detect_pattern(r"(?i)GRADE\s*:\s*([CPI])(.*)$")
    assert grade_pattern(None, "The submission says 4, which is right.\nGRADE: C", "C").grade == "C"
    # ... and, as in vitals (D15), a GRADE: line that is not the last line is not read.
    assert grade_pattern(None, "GRADE: C\nbecause it is right", "C").failure_kind == "parse_failure"


def test_v22_fact_targets_ending_with_a_full_stop_match() -> None:
    # model_graded_fact()'s targets "Ross Ihaka and Robert Gentleman." and "2000.": the
    # target's full stop is punctuation around the answer, ignored by detect_match().
    match = sb.detect_match()
    assert (
        match(None, "R was created by Ross Ihaka and Robert Gentleman", "Ross Ihaka and Robert Gentleman.").grade == "C"
    )
    assert match(None, "R 1.0.0 came out in 2000", "2000.").grade == "C"


def test_v23_custom_grade_letters_are_captured_as_text() -> None:
    # vitals: with grade_pattern "(?i)GRADE\\s*:\\s*([AB])(.*)$" the score is the text A/B, not a factor.
    custom = sb.detect_pattern(r"(?i)GRADE\s*:\s*([AB])(.*)$")
    scores = [custom(None, f"Reasoning.\nGRADE: {x}", x) for x in ("A", "B")]
    assert [(s.grade, s.outcome) for s in scores] == [("C", "a"), ("C", "b")]


def test_v24_accuracy_of_two_correct_scores_is_100() -> None:
    # vitals: Task's default metric on scores C, C gives accuracy = 100. Ours: the mean value.
    scores = sb.detect_includes().score_many(None, list(ADDITION), ["4", "5"])
    assert 100 * sum(s.value for s in scores if s.value is not None) / len(scores) == 100


def test_v25_custom_metrics_see_values_they_can_average() -> None:
    # vitals: custom metrics pct_correct = 100 and prop_correct = 1 on the same scores.
    scores = sb.detect_includes().score_many(None, list(ADDITION), ["4", "5"])
    prop_correct = sum(s.grade == "C" for s in scores) / len(scores)
    assert (100 * prop_correct, prop_correct) == (100, 1)
