"""`Score`, `FAILURE_KINDS` and the derived grade."""

from __future__ import annotations

import pickle
import typing
from types import MappingProxyType

import pytest

import scorebridge as sb


def test_failure_kinds_are_the_six_of_seed_000() -> None:
    assert sb.FAILURE_KINDS == ("parse_failure", "refusal", "not_in_document", "wrong", "budget_stop", "error")


def test_failure_kind_type_lists_the_same_six() -> None:
    assert typing.get_args(sb.FailureKind) == sb.FAILURE_KINDS


def test_score_is_immutable() -> None:
    score = sb.Score(True, "x")
    with pytest.raises(AttributeError, match="immutable"):
        score.correct = False  # type: ignore[misc]


def test_score_metadata_is_read_only() -> None:
    score = sb.Score(True, "x", metadata={"k": 1})
    with pytest.raises(TypeError):
        score.metadata["k"] = 2  # type: ignore[index]


def test_score_keeps_its_metadata_when_the_callers_dict_changes() -> None:
    held = {"k": 1}
    score = sb.Score(True, "x", metadata=held)
    held["k"] = 2
    assert dict(score.metadata) == {"k": 1}


def test_score_keeps_its_metadata_when_a_read_only_view_given_to_it_changes() -> None:
    held = {"k": 1}
    score = sb.Score(True, "x", metadata=MappingProxyType(held))
    held["k"] = 2
    assert dict(score.metadata) == {"k": 1}


def test_value_defaults_from_correct() -> None:
    assert (sb.Score(True).value, sb.Score(False).value, sb.Score(None).value) == (1.0, 0.0, None)


@pytest.mark.parametrize(
    ("score", "grade"),
    [
        (sb.Score(True), "C"),
        (sb.Score(False, failure_kind="wrong"), "I"),
        (sb.Score(False, failure_kind="wrong", value=0.5), "P"),
        (sb.Score(True, value=0.7), "P"),
        (sb.Score(None), "N"),
    ],
    ids=["correct", "incorrect", "partial-wrong", "partial-correct", "unscored"],
)
def test_grade_is_derived(score: sb.Score, grade: str) -> None:
    assert score.grade == grade


def test_as_dict_holds_every_field_and_the_grade() -> None:
    d = sb.Score(False, "Lyon", "wrong", explanation="no", metadata={"k": 1}).as_dict()
    assert d == {
        "correct": False,
        "outcome": "Lyon",
        "failure_kind": "wrong",
        "value": 0.0,
        "explanation": "no",
        "metadata": {"k": 1},
        "grade": "I",
    }


def test_scores_with_equal_fields_are_equal() -> None:
    assert sb.Score(True, "x", metadata={"a": 1}) == sb.Score(True, "x", metadata={"a": 1})


def test_score_survives_pickling() -> None:
    score = sb.Score(False, "x", "refusal", explanation="no", metadata={"a": 1})
    assert pickle.loads(pickle.dumps(score)) == score


def test_repr_leaves_out_empty_fields() -> None:
    assert repr(sb.Score(True, "paris")) == "Score(correct=True, outcome='paris', value=1.0)"
