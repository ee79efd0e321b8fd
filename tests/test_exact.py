"""`exact()`, the hr package's `hr_scorer_exact`: text extraction, labels, folding and pre-sorting."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

import scorebridge as sb

exact = sb.exact()


# --- the text of an output ---------------------------------------------------
# "The text is output itself when it is one string, or its answer or text element
# when it is a list (a gr_result has text)."


def test_text_of_a_mapping_is_its_answer() -> None:
    assert exact(None, {"answer": "Paris", "text": "ignored"}, "Paris").correct is True


def test_text_of_a_mapping_without_answer_is_its_text() -> None:
    assert exact(None, {"text": "Paris"}, "Paris").correct is True


@dataclass
class Result:
    text: str
    ok: bool = True
    error: str | None = None


def test_text_of_an_object_is_its_text_attribute() -> None:
    assert exact(None, Result("Paris"), "Paris").correct is True


def test_dspy_style_prediction_works_through_its_answer() -> None:
    dspy = pytest.importorskip("dspy")
    assert exact(None, dspy.Prediction(answer="Paris", reasoning="..."), "Paris").correct is True


def test_number_output_is_read_in_plain_digits() -> None:
    assert exact(None, 100000, "100000").correct is True


# --- labels --------------------------------------------------------------------
# "A label may hold several accepted answers; matching any one is correct."


def test_any_accepted_answer_in_a_list_label_is_correct() -> None:
    assert exact(None, "Paris, France", ["Paris", "Paris, France"]).correct is True


def test_no_accepted_answer_in_a_list_label_is_wrong() -> None:
    assert exact(None, "Lyon", ["Paris", "Paris, France"]).failure_kind == "wrong"


def test_a_set_label_holds_accepted_answers() -> None:
    assert exact(None, "b", {"a", "b"}).correct is True


# "A number in a label is compared as written in plain digits, so the label 100000
# accepts "100000" (not "1e+05")."


def test_number_label_accepts_plain_digits() -> None:
    assert exact(None, "100000", 100000).correct is True


def test_number_label_rejects_exponent_form() -> None:
    assert exact(None, "1e+05", 100000).correct is False


def test_whole_float_label_is_written_without_a_point() -> None:
    assert exact(None, "100000", 1e5).correct is True


def test_small_float_label_is_written_in_full() -> None:
    assert exact(None, "0.0000001", 1e-7).correct is True


def test_big_int_label_is_written_in_full() -> None:
    assert exact(None, str(2**70), 2**70).correct is True


def test_numpy_number_label_is_written_in_plain_digits() -> None:
    np = pytest.importorskip("numpy")
    assert exact(None, "42", np.int64(42)).correct is True


def test_none_inside_a_list_label_is_skipped() -> None:
    assert exact(None, "Paris", [None, "Paris"]).correct is True


@pytest.mark.parametrize("label", [b"Paris", {"answer": "Paris"}, [["Paris"]], True], ids=repr)
def test_unreadable_label_is_a_contract_error_naming_exact(label: Any) -> None:
    with pytest.raises(sb.ScorerContractError, match=r"^exact: a label"):
        exact(None, "Paris", label)


# --- normalise -------------------------------------------------------------------
# "With normalise = TRUE both sides are folded first: lower case, white space
# trimmed and runs of it collapsed to one space."


def test_normalise_folds_case() -> None:
    assert exact(None, "PARIS", "paris").correct is True


def test_normalise_collapses_runs_of_white_space() -> None:
    assert exact(None, "New \t  York", "new york").outcome == "new york"


def test_normalise_folds_unicode_white_space() -> None:
    assert exact(None, "New\u00a0\u2003York\u3000", "new york").correct is True


def test_normalise_keeps_punctuation() -> None:
    assert exact(None, "Paris.", "Paris").correct is False


def test_without_normalise_case_matters() -> None:
    assert sb.exact(normalise=False)(None, "paris", "Paris").correct is False


def test_without_normalise_outcome_is_the_text_as_given() -> None:
    assert sb.exact(normalise=False)(None, " Paris ", " Paris ").outcome == " Paris "


def test_normalise_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="exact: normalise must be True or False"):
        sb.exact(normalise="yes")  # type: ignore[arg-type]


def test_repr_shows_the_options() -> None:
    assert repr(sb.exact()) == "<Scorer exact(normalise=True)>"


# --- pre-sorting -------------------------------------------------------------------
# "an output with a failure_kind element from the list above is wrong for that reason"


def test_failure_kind_element_is_the_recorded_kind() -> None:
    assert exact(None, {"answer": "Paris", "failure_kind": "refusal"}, "Paris").failure_kind == "refusal"


def test_failure_kind_attribute_is_the_recorded_kind() -> None:
    @dataclass
    class Arm:
        text: str
        failure_kind: str

    assert exact(None, Arm("x", "budget_stop"), "x").failure_kind == "budget_stop"


def test_unknown_failure_kind_element_is_a_contract_error() -> None:
    with pytest.raises(sb.ScorerContractError, match=r"exact: the output.s failure_kind .oops."):
        exact(None, {"answer": "x", "failure_kind": "oops"}, "x")


# "a gr_result with ok = FALSE is an "error""


def test_result_with_ok_false_is_an_error() -> None:
    assert exact(None, Result("Paris", ok=False), "Paris").failure_kind == "error"


def test_mapping_with_ok_false_is_an_error_explained_by_its_error() -> None:
    score = exact(None, {"ok": False, "error": "rate limited"}, "Paris")
    assert (score.failure_kind, score.explanation) == ("error", "the output is an error: rate limited")


# "no text at all (NULL, NA, an empty string, something with no answer or text) is a "parse_failure""


@pytest.mark.parametrize(
    "output",
    [None, float("nan"), "", "  \n", {"reasoning": "..."}, {"answer": None}, b"Paris", ["Paris"], True],
    ids=repr,
)
def test_output_with_no_text_is_a_parse_failure(output: Any) -> None:
    assert exact(None, output, "Paris").failure_kind == "parse_failure"


def test_pandas_na_output_is_a_parse_failure() -> None:
    pd = pytest.importorskip("pandas")
    assert exact(None, pd.NA, "Paris").failure_kind == "parse_failure"


# "the text NOT_IN_DOCUMENT (in any case) is "not_in_document" unless the label accepts it"


@pytest.mark.parametrize("output", ["NOT_IN_DOCUMENT", "not_in_document", "Not In Document", "**NOT_IN_DOCUMENT.**"])
def test_not_in_document_in_any_case_is_its_own_kind(output: str) -> None:
    assert exact(None, output, "Paris").failure_kind == "not_in_document"


def test_not_in_document_is_correct_when_the_label_accepts_it() -> None:
    assert exact(None, "not_in_document", ["NOT_IN_DOCUMENT"]).correct is True


def test_sentence_mentioning_not_in_document_is_an_answer() -> None:
    assert exact(None, "It is NOT_IN_DOCUMENT, sorry", "Paris").failure_kind == "wrong"


def test_failure_kind_on_an_unlabelled_item_is_kept() -> None:
    score = exact(None, "", None)
    assert (score.correct, score.failure_kind) == (None, "parse_failure")


def test_unlabelled_item_records_what_it_saw() -> None:
    score = exact(None, " Paris ", None)
    assert (score.correct, score.outcome, score.grade) == (None, "paris", "N")


def test_failure_kind_element_of_none_or_nan_means_no_failure() -> None:
    # The hr package's protocol: failure_kind is "NA when the output was correct".
    assert exact(None, {"answer": "Paris", "failure_kind": float("nan")}, "Paris").correct is True


def test_numpy_false_ok_is_an_error() -> None:
    np = pytest.importorskip("numpy")
    assert exact(None, {"answer": "Paris", "ok": np.bool_(False)}, "Paris").failure_kind == "error"


def test_huge_int_label_is_written_in_full() -> None:
    # math.isnan(10**400) overflows; the label once crashed the pre-sorting
    assert exact(None, str(10**400), 10**400).correct is True


def test_signalling_nan_output_is_a_parse_failure() -> None:
    from decimal import Decimal

    assert exact(None, Decimal("sNaN"), "x").failure_kind == "parse_failure"


def test_decorated_not_in_document_is_correct_when_the_label_accepts_it() -> None:
    # the sentinel is recognised, decorations and all, whichever way the label goes
    assert exact(None, "**not in document.**", "NOT_IN_DOCUMENT").correct is True
