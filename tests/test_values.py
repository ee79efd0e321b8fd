"""The value readers every scorer shares: numbers too long to write, nested labels, hostile objects.

Each guards a case the hardening issue found: `Decimal("1e1000000")` took 22.6 s
before it was refused (its conversion to an int is quadratic), a label nested
5,000 deep raised RecursionError before a user scorer's function ran, and a
Decimal past 28 digits was rounded by `normalize`.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

import scorebridge as sb
from scorebridge.kit import label_is_missing, plain_digits

# --- numbers too long to write out -----------------------------------------------------------------------

TOO_LONG = [10**5000, -(10**5000), Decimal("1e1000000"), Decimal("1e2000000"), Decimal("-1e4300"), Decimal("1e-5000")]


@pytest.mark.parametrize(
    "number", TOO_LONG, ids=["int", "negative-int", "1e1000000", "1e2000000", "-1e4300", "1e-5000"]
)
def test_a_number_too_long_to_write_is_refused_before_it_is_converted(number: Any) -> None:
    # Decimal("1e1000000") took 22.6 s in int() before the 4300-digit limit refused its text
    with pytest.raises(ValueError, match="more than 4300 digits"):
        plain_digits(number)


def test_the_longest_number_written_has_4300_digits() -> None:
    assert len(plain_digits(Decimal("1e4299"))) == 4300


def test_a_decimal_is_written_exactly_past_the_contexts_28_digits() -> None:
    # Decimal.normalize() rounds to the context's precision: 0.1234...34 once read as 28 digits
    assert plain_digits(Decimal("0.1234567890123456789012345678901234")) == "0.1234567890123456789012345678901234"


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (Decimal("2.50"), "2.5"),
        (Decimal("-0.0"), "0"),
        (Decimal("0E+5"), "0"),
        (Decimal("1E+2"), "100"),
        (Decimal("1E-7"), "0.0000001"),
        (Decimal("-12.5"), "-12.5"),
        (Decimal("1." + "0" * 10_000), "1"),
        (Decimal("sNaN"), "nan"),
        (1e5, "100000"),
        (Fraction(1, 4), "0.25"),
    ],
)
def test_numbers_are_written_in_plain_digits(number: Any, text: str) -> None:
    assert plain_digits(number) == text


def test_a_label_number_too_long_to_write_is_a_contract_error_naming_the_scorer() -> None:
    with pytest.raises(sb.ScorerContractError, match=r"^exact: a label's number cannot be read: .*4300 digits"):
        sb.exact()(None, "1", Decimal("1e1000000"))


def test_an_output_number_too_long_to_write_is_a_parse_failure() -> None:
    score = sb.exact()(None, 10**5000, "1")
    assert (score.failure_kind, score.explanation) == (
        "parse_failure",
        "the output is a number of more than 4300 digits",
    )


def test_an_outcome_number_too_long_to_write_is_a_contract_error_naming_the_scorer() -> None:
    huge = sb.scorer(lambda item, output, label: {"correct": True, "outcome": Decimal("1e1000000")}, name="huge")
    with pytest.raises(sb.ScorerContractError, match=r"^huge: the outcome number cannot be read"):
        huge(None, "x", "x")


def test_model_graded_item_too_long_to_write_is_a_contract_error_naming_the_scorer() -> None:
    from scorebridge.testing import FakeGrader

    graded = sb.model_graded_qa(FakeGrader("GRADE: C"))
    with pytest.raises(sb.ScorerContractError, match=r"^model_graded_qa: cannot read the item, output or label"):
        graded(10**5000, "Paris", "Paris")


# --- labels that hold nothing, at any depth ----------------------------------------------------------------


def nested(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


def test_a_label_nested_5000_deep_reaches_the_user_scorers_function() -> None:
    # it raised RecursionError in label_is_missing, before the function ran
    seen: list[Any] = []

    @sb.scorer
    def deep(item: Any, output: Any, label: Any) -> bool:
        seen.append(label)
        return True

    label = nested(5_000, "Paris")
    assert deep(None, "Paris", label).correct is True
    assert seen == [label]


@pytest.mark.parametrize(
    ("label", "missing"),
    [(nested(100_000, None), True), (nested(100_000, " "), True), (nested(100_000, "Paris"), False)],
    ids=["none", "blank", "answer"],
)
def test_a_nested_label_is_missing_when_it_holds_nothing_at_any_depth(label: Any, missing: bool) -> None:
    assert label_is_missing(label) is missing


def test_a_label_that_holds_itself_is_read_once() -> None:
    label: list[Any] = [None]
    label.append(label)
    assert label_is_missing(label) is True
    label.append("Paris")
    assert label_is_missing(label) is False


def test_a_label_whose_iteration_raises_is_not_missing_and_reaches_the_function() -> None:
    class Broken(list[Any]):
        def __iter__(self) -> Any:
            raise RuntimeError("broken")

    assert label_is_missing(Broken()) is False
    assert sb.scorer(lambda item, output, label: True, name="any")(None, "x", Broken()).correct is True


def test_a_float_whose_comparison_raises_is_not_missing() -> None:
    class Odd(float):
        def __ne__(self, other: object) -> bool:
            raise RuntimeError("odd")

    assert label_is_missing(Odd(1.0)) is False
