"""`grade_value`, dsprrr's grade mapping: "numbers are kept, TRUE/FALSE become 1/0, and "C"/"correct"/"pass",
"I"/"incorrect"/"fail" and "P"/"partial" become 1, 0 and 0.5. Anything else gives NA with a warning."
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

import scorebridge as sb
from scorebridge import grade_value


@pytest.mark.parametrize(
    ("x", "value"), [(0.4, 0.4), (0.123456789, 0.123456789), (3, 3.0), (Decimal("0.25"), 0.25), (Fraction(1, 4), 0.25)]
)
def test_numbers_are_kept(x: Any, value: float) -> None:
    assert grade_value(x) == value


@pytest.mark.parametrize(("x", "value"), [(True, 1.0), (False, 0.0)])
def test_bools_become_one_and_zero(x: bool, value: float) -> None:
    assert grade_value(x) == value


@pytest.mark.parametrize("word", ["C", "c", "correct", "CORRECT", "pass", "Pass"])
def test_correct_words_are_one(word: str) -> None:
    assert grade_value(word) == 1.0


@pytest.mark.parametrize("word", ["I", "i", "incorrect", "fail", "FAIL"])
def test_incorrect_words_are_zero(word: str) -> None:
    assert grade_value(word) == 0.0


@pytest.mark.parametrize("word", ["P", "p", "partial", "PARTIAL"])
def test_partial_words_are_one_half(word: str) -> None:
    assert grade_value(word) == 0.5


def test_numeric_string_is_its_number() -> None:
    assert grade_value("0.75") == 0.75


def test_surrounding_white_space_is_ignored() -> None:
    assert grade_value(" C\n") == 1.0


@pytest.mark.parametrize("x", ["unknown_value", "", "inf", "nan", None, [1], {"score": 1}], ids=repr)
def test_anything_else_is_none_with_a_warning(x: Any) -> None:
    with pytest.warns(UserWarning, match="unrecognised grade"):
        assert grade_value(x) is None


def test_nan_is_unscored_without_a_warning(recwarn: pytest.WarningsRecorder) -> None:
    assert grade_value(float("nan")) is None
    assert not recwarn.list


def test_numpy_numbers_are_kept() -> None:
    np = pytest.importorskip("numpy")
    assert (grade_value(np.float32(0.5)), grade_value(np.int64(2)), grade_value(np.bool_(True))) == (0.5, 2.0, 1.0)


def test_signalling_nan_is_unscored() -> None:
    assert grade_value(Decimal("sNaN")) is None


def test_int_too_big_for_a_float_is_none_with_a_warning() -> None:
    with pytest.warns(UserWarning, match="unrecognised grade"):
        assert grade_value(10**400) is None


def test_an_unreadable_grade_a_scorer_returns_is_warned_with_the_scorers_name() -> None:
    # The warning once said only "unrecognised grade 'maybe'": with several scorers in a run, nobody could
    # tell which one returned it.
    hedge = sb.scorer(lambda item, output, label: "maybe", name="hedge")
    with pytest.warns(
        UserWarning, match=r"unrecognised grade 'maybe'; treating it as not scored \(returned by the scorer 'hedge'\)"
    ):
        assert hedge(None, "x", "x").correct is None
