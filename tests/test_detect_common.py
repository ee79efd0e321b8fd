"""What the five `detect_*` scorers share: labels, pre-sorting, arguments, the registry."""

from __future__ import annotations

import asyncio
import math
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

import pytest

import scorebridge as sb
from scorebridge.kit import BUILTINS


@dataclass(frozen=True)
class Detector:
    scorer: sb.Scorer
    say: Callable[[str], str]  # an output that gives this answer in the form the scorer reads

    def __str__(self) -> str:
        return self.scorer.name


DETECTORS = [
    Detector(sb.detect_includes(), lambda a: f"I would say {a} is right"),
    Detector(sb.detect_match(), lambda a: f"The answer is {a}"),
    Detector(sb.detect_pattern(r"answer is (.+)$"), lambda a: f"The answer is {a}"),
    Detector(sb.detect_answer(), lambda a: f"Some reasoning.\nANSWER: {a}"),
    Detector(sb.detect_exact(), lambda a: a),
]
each = pytest.mark.parametrize("d", DETECTORS, ids=str)


# --- labels ----------------------------------------------------------------------
# The hr package's protocol: "A label may hold several accepted answers; matching any one is correct."
# An item with no label (None, NaN, "", white space) is recorded unscored.


@each
@pytest.mark.parametrize("label", ["", "   ", None, math.nan, [], ["", " "]])
def test_blank_target_is_unscored_never_a_match(d: Detector, label: object) -> None:
    # inspect_ai#5525: a blank target made includes()/match() score every output C.
    score = d.scorer(None, d.say("Paris"), label)
    assert (score.correct, score.value, score.grade) == (None, None, "N")


@each
def test_blank_entries_of_a_list_label_are_dropped(d: Detector) -> None:
    assert d.scorer(None, d.say("Paris"), ["", "  ", "Lyon"]).grade == "I"


@each
def test_any_accepted_answer_of_a_list_label_matches(d: Detector) -> None:
    assert d.scorer(None, d.say("Paris"), ["Lyon", "Paris"]).grade == "C"


@each
def test_number_label_is_written_in_plain_digits(d: Detector) -> None:
    assert d.scorer(None, d.say("100000"), 1e5).grade == "C"


@each
def test_unreadable_label_is_a_contract_error_naming_the_scorer(d: Detector) -> None:
    with pytest.raises(sb.ScorerContractError, match=f"^{d.scorer.name}: a label must be"):
        d.scorer(None, d.say("Paris"), {"answer": "Paris"})


# --- outputs that are not answers (the core's pre-sorting) ----------------------


@each
@pytest.mark.parametrize("output", [None, math.nan, "", "  \n", b"Paris", ["Paris"], True])
def test_no_text_is_a_parse_failure(d: Detector, output: object) -> None:
    score = d.scorer(None, output, "Paris")
    assert (score.grade, score.failure_kind) == ("I", "parse_failure")


@each
def test_failure_kind_element_is_recorded(d: Detector) -> None:
    score = d.scorer(None, {"failure_kind": "refusal", "text": d.say("Paris")}, "Paris")
    assert (score.grade, score.failure_kind) == ("I", "refusal")


@each
def test_ok_false_is_an_error(d: Detector) -> None:
    score = d.scorer(None, {"ok": False, "error": "rate limited", "text": ""}, "Paris")
    assert (score.failure_kind, score.explanation) == ("error", "the output is an error: rate limited")


@each
def test_not_in_document_is_its_own_failure_kind(d: Detector) -> None:
    assert d.scorer(None, "**NOT_IN_DOCUMENT.**", "Paris").failure_kind == "not_in_document"


WHOLE_OUTPUT = [d for d in DETECTORS if d.scorer.name in ("detect_includes", "detect_match", "detect_exact")]


@pytest.mark.parametrize("d", WHOLE_OUTPUT, ids=str)
def test_not_in_document_is_an_answer_when_the_label_accepts_it(d: Detector) -> None:
    # The bare sentinel is an answer to the scorers that read the whole output.
    assert d.scorer(None, "NOT_IN_DOCUMENT", "NOT_IN_DOCUMENT").grade == "C"


@each
def test_failure_kind_of_na_means_no_failure(d: Detector) -> None:
    # Found by the hypothesis test: pandas' NA as a failure_kind element crashed the pre-sorting.
    # The hr package's protocol: failure_kind is "NA when the output was correct".
    pd = pytest.importorskip("pandas")
    assert d.scorer(None, {"failure_kind": pd.NA, "text": d.say("Paris")}, "Paris").grade == "C"


class Hostile(str):
    """A string whose own methods raise."""

    def isspace(self) -> bool:
        raise RuntimeError("hostile")


@each
def test_output_that_cannot_be_read_is_a_contract_error_naming_the_scorer(d: Detector) -> None:
    with pytest.raises(sb.ScorerContractError, match=f"^{d.scorer.name}: cannot read the output or the label"):
        d.scorer(None, Hostile(d.say("Paris")), "Paris")


@each
def test_unlabelled_item_keeps_its_failure_kind(d: Detector) -> None:
    score = d.scorer(None, None, None)
    assert (score.grade, score.failure_kind) == ("N", "parse_failure")


@each
def test_text_of_a_mapping_is_read(d: Detector) -> None:
    assert d.scorer(None, {"text": d.say("Paris")}, "Paris").grade == "C"


@each
def test_dspy_prediction_is_read_through_its_answer(d: Detector) -> None:
    dspy = pytest.importorskip("dspy")
    assert d.scorer(None, dspy.Prediction(answer=d.say("Paris"), reasoning="..."), "Paris").grade == "C"


@each
def test_str_subclass_output_is_read_like_a_str(d: Detector) -> None:
    class Text(str):
        pass

    assert d.scorer(None, Text(d.say("Paris")), "Paris") == d.scorer(None, d.say("Paris"), "Paris")


# --- calling ------------------------------------------------------------------------


@each
def test_async_call_agrees_with_plain_call(d: Detector) -> None:
    assert asyncio.run(d.scorer.acall(None, d.say("Paris"), "Paris")) == d.scorer(None, d.say("Paris"), "Paris")


@each
def test_score_many_scores_a_batch_in_order(d: Detector) -> None:
    scores = d.scorer.score_many(None, [d.say("Paris"), d.say("Lyon")], ["Paris", "Paris"])
    assert [s.grade for s in scores] == ["C", "I"]


# --- arguments, repr and the registry ----------------------------------------------


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (sb.detect_includes, "detect_includes"),
        (sb.detect_match, "detect_match"),
        (sb.detect_exact, "detect_exact"),
        (lambda case_sensitive: sb.detect_pattern("x", case_sensitive=case_sensitive), "detect_pattern"),
    ],
)
def test_case_sensitive_must_be_a_bool_naming_the_scorer(make: Callable[..., sb.Scorer], name: str) -> None:
    with pytest.raises(TypeError, match=f"^{name}: case_sensitive must be True or False; got 'no'"):
        make(case_sensitive="no")


@pytest.mark.parametrize(
    ("scorer", "shown"),
    [
        (sb.detect_includes(), "<Scorer detect_includes(case_sensitive=False)>"),
        (sb.detect_match(), "<Scorer detect_match(location='end', case_sensitive=False)>"),
        (
            sb.detect_pattern(r"(\d+)", all=True),
            r"<Scorer detect_pattern(pattern='(\\d+)', case_sensitive=False, all=True, timeout=1.0)>",
        ),
        (sb.detect_answer("letter"), "<Scorer detect_answer(format='letter')>"),
        (sb.detect_exact(case_sensitive=True), "<Scorer detect_exact(case_sensitive=True)>"),
    ],
)
def test_repr_shows_the_options(scorer: sb.Scorer, shown: str) -> None:
    assert repr(scorer) == shown


@each
def test_builtins_rebuild_the_scorer_from_its_options(d: Detector) -> None:
    rebuilt = BUILTINS[d.scorer.name](**d.scorer.options)
    assert repr(rebuilt) == repr(d.scorer)


def test_the_five_factories_are_public() -> None:
    names = {"detect_includes", "detect_match", "detect_pattern", "detect_answer", "detect_exact"}
    assert names <= set(sb.__all__)


def test_importing_scorebridge_does_not_import_regex() -> None:
    # The regex package costs 20-50 ms to import; only detect_pattern() needs it.
    code = "import sys, scorebridge; print('regex' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
