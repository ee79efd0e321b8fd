"""Bad input to `exact()` gives a recorded Score or a `ScorerContractError`, never another exception."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorebridge as sb

exact = sb.exact()

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),
    st.binary(max_size=20),
    st.just("NOT_IN_DOCUMENT"),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.tuples(inner),
        st.frozensets(st.one_of(st.text(max_size=5), st.integers()), max_size=3),
        st.dictionaries(st.sampled_from(["answer", "text", "ok", "failure_kind", "error", "x"]), inner, max_size=3),
    ),
    max_leaves=8,
)


def _score_or_contract_error(output: Any, label: Any) -> sb.Score | None:
    try:
        return exact("item", output, label)
    except sb.ScorerContractError as exc:
        assert str(exc).startswith("exact: ")
        return None


@settings(max_examples=300, deadline=None)
@given(output=values, label=values)
def test_any_input_gives_a_score_or_a_contract_error(output: Any, label: Any) -> None:
    score = _score_or_contract_error(output, label)
    if score is not None:
        assert score.correct in (True, False, None)
        assert score.failure_kind in (*sb.FAILURE_KINDS, None)


@settings(max_examples=100, deadline=None)
@given(text=st.text())
def test_any_text_against_itself_is_correct_or_not_an_answer(text: str) -> None:
    score = exact(None, text, text)
    assert score.correct is True or score.correct is None or score.failure_kind == "parse_failure"


@pytest.mark.parametrize(
    ("output", "kind"),
    [
        (b"Paris", "parse_failure"),
        (math.nan, "parse_failure"),
        ([["Paris"]], "parse_failure"),
        ({"answer": ["Paris"]}, "parse_failure"),
    ],
    ids=["bytes", "nan", "nested-list", "list-answer"],
)
def test_bad_outputs_are_recorded_parse_failures(output: Any, kind: str) -> None:
    assert exact(None, output, "Paris").failure_kind == kind


def test_number_outputs_are_compared_as_plain_digits() -> None:
    assert exact(None, 1e5, "100000").correct is True


def test_ten_megabyte_output_is_scored() -> None:
    big = "word " * 2_000_000
    score = exact(None, big, "word")
    assert score.failure_kind == "wrong"


def test_set_of_labels_is_a_set_of_accepted_answers() -> None:
    assert exact(None, "42", {41, 42}).correct is True
