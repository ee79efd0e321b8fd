"""The recording rules of the hr package's protocol, one test each.

"A wrong output whose failure_kind is NA is recorded as "wrong". An output with a
failure_kind is counted wrong, so a correct of NA beside one is recorded as FALSE,
and TRUE beside one is an error in the scorer. The exception is an item with no
label: every run on it is recorded NA, with its failure_kind kept."
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

import scorebridge as sb


def returning(result: Any, name: str = "fixed") -> sb.Scorer:
    """A scorer whose fn returns `result` whatever it is given."""
    return sb.scorer(lambda item, output, label: result, name=name)


def test_wrong_without_failure_kind_is_recorded_wrong() -> None:
    score = returning({"correct": False, "outcome": "Lyon", "failure_kind": None})(None, "Lyon", "Paris")
    assert score.failure_kind == "wrong"


def test_failure_kind_makes_none_correct_false() -> None:
    score = returning({"correct": None, "outcome": None, "failure_kind": "refusal"})(None, "no", "Paris")
    assert (score.correct, score.failure_kind) == (False, "refusal")


def test_true_beside_failure_kind_is_a_contract_error_naming_the_scorer() -> None:
    broken = returning({"correct": True, "outcome": "x", "failure_kind": "refusal"}, name="broken")
    with pytest.raises(sb.ScorerContractError, match=r"^broken: correct is True beside failure_kind 'refusal'"):
        broken(None, "x", "x")


def test_unlabelled_item_is_recorded_none_whatever_the_output() -> None:
    score = returning({"correct": True, "outcome": "Paris", "failure_kind": None})(None, "Paris", None)
    assert (score.correct, score.value, score.grade) == (None, None, "N")


def test_unlabelled_item_keeps_its_failure_kind() -> None:
    score = returning({"correct": False, "outcome": None, "failure_kind": "budget_stop"})(None, "", None)
    assert (score.correct, score.failure_kind) == (None, "budget_stop")


def test_unlabelled_wrong_output_gets_no_invented_kind() -> None:
    score = returning({"correct": False, "outcome": "x", "failure_kind": None})(None, "x", None)
    assert score.failure_kind is None


@pytest.mark.parametrize("label", [None, float("nan"), "", "   ", [], [None, ""]], ids=repr)
def test_missing_or_blank_label_means_no_label(label: Any) -> None:
    score = returning({"correct": True, "outcome": "x", "failure_kind": None})(None, "x", label)
    assert score.correct is None


def test_unknown_failure_kind_is_a_contract_error() -> None:
    with pytest.raises(sb.ScorerContractError, match="'timeout' is not one of"):
        returning({"correct": False, "outcome": None, "failure_kind": "timeout"})(None, "x", "y")


def test_mapping_without_correct_is_a_contract_error() -> None:
    with pytest.raises(sb.ScorerContractError, match="no 'correct' key"):
        returning({"outcome": "x"})(None, "x", "y")


def test_mapping_with_a_misspelt_key_is_a_contract_error() -> None:
    with pytest.raises(sb.ScorerContractError, match=r"unknown keys \['failure kind'\]"):
        returning({"correct": False, "failure kind": "wrong"})(None, "x", "y")


@pytest.mark.parametrize("result", [None, ["C"], ("C",), object()], ids=["none", "list", "tuple", "object"])
def test_return_value_of_the_wrong_shape_is_a_contract_error(result: Any) -> None:
    with pytest.raises(sb.ScorerContractError, match=r"^fixed: the scorer returned"):
        returning(result)(None, "x", "y")


def test_non_bool_correct_is_a_contract_error() -> None:
    with pytest.raises(sb.ScorerContractError, match="correct must be True, False or None"):
        returning({"correct": 1, "outcome": None, "failure_kind": None})(None, "x", "y")


def test_numpy_bool_correct_is_read_as_bool() -> None:
    np = pytest.importorskip("numpy")
    score = returning({"correct": np.bool_(True), "outcome": None, "failure_kind": None})(None, "x", "y")
    assert score.correct is True


def test_non_numeric_value_is_a_contract_error() -> None:
    with pytest.raises(sb.ScorerContractError, match="value must be a finite number"):
        returning({"correct": False, "outcome": None, "failure_kind": None, "value": "half"})(None, "x", "y")


def test_partial_credit_value_is_kept_and_graded_p() -> None:
    score = returning({"correct": False, "outcome": "x", "failure_kind": None, "value": 0.5})(None, "x", "y")
    assert (score.value, score.grade, score.failure_kind) == (0.5, "P", "wrong")


def test_explanation_and_metadata_are_kept() -> None:
    raw = {"correct": True, "outcome": "x", "failure_kind": None, "explanation": "why", "metadata": {"k": 1}}
    score = returning(raw)(None, "x", "x")
    assert (score.explanation, dict(score.metadata)) == ("why", {"k": 1})


def test_metadata_view_of_the_scorers_own_dict_is_copied() -> None:
    held = {"k": 1}
    score = returning({"correct": True, "metadata": MappingProxyType(held)})(None, "x", "x")
    held["k"] = 2
    assert dict(score.metadata) == {"k": 1}


def test_numeric_outcome_is_written_in_plain_digits() -> None:
    score = returning({"correct": True, "outcome": 1e5, "failure_kind": None})(None, "x", "x")
    assert score.outcome == "100000"


@pytest.mark.parametrize(
    ("grade", "value", "correct"),
    [
        (True, 1.0, True),
        ("C", 1.0, True),
        ("I", 0.0, False),
        ("partial", 0.5, False),
        (0.25, 0.25, False),
        (1, 1.0, True),
    ],
)
def test_bare_grade_is_read_by_grade_value(grade: Any, value: float, correct: bool) -> None:
    score = returning(grade)(None, "x", "y")
    assert (score.value, score.correct) == (value, correct)


def test_unrecognised_bare_grade_is_unscored_with_a_warning() -> None:
    with pytest.warns(UserWarning, match="unrecognised grade 'maybe'"):
        score = returning("maybe")(None, "x", "y")
    assert score.correct is None


def test_returned_score_goes_through_the_rules_too() -> None:
    score = returning(sb.Score(False, "x"))(None, "x", "y")
    assert score.failure_kind == "wrong"


@pytest.mark.parametrize("value", [float("inf"), float("nan"), 10**400], ids=["inf", "nan", "huge-int"])
def test_value_that_is_not_a_finite_number_is_a_contract_error(value: Any) -> None:
    with pytest.raises(sb.ScorerContractError, match="value must be a finite number"):
        returning({"correct": True, "outcome": None, "failure_kind": None, "value": value})(None, "x", "x")


def test_huge_int_label_is_a_label() -> None:
    # math.isnan(10**400) overflows: a big int once crashed the "is it missing?" check
    score = returning({"correct": True, "outcome": None, "failure_kind": None})(None, "x", 10**400)
    assert score.correct is True
