"""`scorebridge.kit.scale`: the one reading of a harness's score (a bool, a grade word, points on 0-1 or on a range
of its own, mapped onto 0-1 and correct on the harness's scale); and the conformance suite's checks of it, which
fail for an adapter that takes points as they come."""

from __future__ import annotations

import math
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest

from scorebridge import Score, ScorerContractError
from scorebridge.kit import Scale, Scorer, ask, judge, scale, sync_and_async, verdict
from scorebridge.kit.testing import Adapter, ConformanceError, Judge, checks

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import tally
from scorebridge_tally import from_tally


def test_points_on_a_declared_range_map_onto_0_1_and_are_correct_at_the_top() -> None:
    # GEval's 1 to 5 taken as values: every score correct at 1.0, and an accuracy of 3.000 over 1, 3 and 5
    on = scale("geval", (1, 5))
    assert [on.read("geval", p) for p in (1, 3, 5)] == [(False, 0.0), (False, 0.5), (True, 1.0)]


def test_the_threshold_is_on_the_harness_scale() -> None:
    on = scale("geval", (1, 5), threshold=4)
    assert [on.read("geval", p)[0] for p in (3, 4, 5)] == [False, True, True]


def test_with_no_declared_range_points_are_the_value_and_full_marks_are_correct() -> None:
    on = scale("f1")
    assert on.read("f1", 0.75) == (False, 0.75)
    assert scale("f1", threshold=0.7).read("f1", 0.75) == (True, 0.75)


def test_points_above_1_with_no_declared_range_are_a_contract_error_naming_the_scorer() -> None:
    with pytest.raises(ScorerContractError, match=r"^length: .*3.0 points, outside 0-1.*score_range=\(low, high\)"):
        scale("length").read("length", 3)


@pytest.mark.parametrize("points", [0.5, 6, math.inf])
def test_points_outside_a_declared_range_are_a_contract_error(points: float) -> None:
    with pytest.raises(
        ScorerContractError, match=r"^geval: a score must be a number from 1 to 5.*outside its range 1-5"
    ):
        scale("geval", (1, 5)).read("geval", points)


def test_bools_numbers_and_grade_words_are_read_on_0_1() -> None:
    on = scale("s")
    got = [on.read("s", x) for x in (True, False, 0.25, 1, "C", "pass", "P", "0.5")]
    assert got == [(True, 1.0), (False, 0.0), (False, 0.25), (True, 1.0), (True, 1.0), (True, 1.0), (False, 0.5),
                   (False, 0.5)]  # fmt: skip


def test_a_bool_or_a_grade_word_is_on_0_1_whatever_the_declared_range() -> None:
    # a bool is a verdict, not points: True read as 1 point on 1-5 would be the worst score
    on = scale("geval", (1, 5))
    assert [on.read("geval", x) for x in (True, "pass", "fail")] == [(True, 1.0), (True, 1.0), (False, 0.0)]


def test_a_number_written_as_text_is_read_on_the_declared_range() -> None:
    assert scale("geval", (1, 5)).read("geval", " 4 ") == (False, 0.75)


@pytest.mark.parametrize("x", [None, math.nan], ids=repr)
def test_none_and_nan_are_no_verdict(x: Any) -> None:
    assert scale("s").read("s", x) == (None, None) and scale("geval", (1, 5)).read("geval", x) == (None, None)


@pytest.mark.parametrize("x", [4, -0.1, math.inf, "maybe", [1], 10**400], ids=repr)
def test_a_score_of_unknown_range_is_refused_naming_the_scorer(x: Any) -> None:
    # a 1-5 rating read as points counted 4.0 where every other harness counts 0-1
    with pytest.raises(ScorerContractError, match=r"^stars: a score must be a number from 0 to 1"):
        scale("stars").read("stars", x)


@pytest.mark.parametrize(
    ("score_range", "threshold", "message"),
    [
        ((5, 1), None, "low < high"),
        ((1, 1), None, "low < high"),
        ((1, math.inf), None, "finite"),
        ("15", None, r"\(low, high\)"),
        ((1, 2, 3), None, r"\(low, high\)"),
        ((1, 5), 0.8, "outside the scorer's range 1-5"),
        (None, 2, "outside the scorer's range 0-1"),
        (None, True, "must be a number"),
        (None, math.nan, "finite"),
    ],
)
def test_a_bad_range_or_threshold_is_refused_naming_the_scorer(score_range: Any, threshold: Any, message: str) -> None:
    with pytest.raises((TypeError, ValueError), match=rf"^judge: .*{message}"):
        scale("judge", score_range, threshold)


def test_a_scale_is_immutable_comparable_and_pickles() -> None:
    on = scale("geval", (1, 5), 4)
    assert pickle.loads(pickle.dumps(on)) == on and hash(on) == hash(scale("geval", (1, 5), 4))
    assert on.options() == {"score_range": [1.0, 5.0], "threshold": 4.0}
    assert scale("f1").options() == {"threshold": 1.0}
    with pytest.raises(AttributeError):
        on.low = 0  # type: ignore[misc]
    assert isinstance(on, Scale) and "1-5" in repr(on)


def _check_of(judge: Judge) -> tally.Check:
    def judged(row: dict[str, Any]) -> tally.Verdict:
        return tally.Verdict(judge(row["response"], row["expected"]))

    return judged


def _on_scale(judge: Judge, score_range: tuple[float, float]) -> tally.Check:
    low, high = score_range

    def judged(row: dict[str, Any]) -> tally.Verdict:
        return tally.Verdict(low + judge(row["response"], row["expected"]) * (high - low))

    return judged


def _as_they_come(check: tally.Check) -> Scorer:
    """A tally adapter that takes a check's points as they come, with no `kit.scale` (the docs' adapter once did)."""
    name = "as_they_come"

    def body(item: Any, output: Any, label: Any) -> Any:
        asked = ask(name, output, label)
        if isinstance(asked, Score):
            return asked
        row = {"prompt": item, "response": asked.text, "expected": list(asked.answers)}
        return judge(
            name, lambda: check(row), lambda found: verdict(name, asked, found.points >= 1.0, value=found.points)
        )

    return Scorer(name, sync_and_async(body, is_async=False), recorded=True)


def test_the_suite_fails_an_adapter_that_takes_points_on_a_range_as_values() -> None:
    # an adapter that reads points as they come: its checks of ranges must fail, not pass by default
    adapter = Adapter("tally", from_harness=_as_they_come, native=_check_of, ranged=_on_scale)
    scale_checks = [c for c in checks(adapter) if "range" in str(c)]
    assert len(scale_checks) == 2
    for check in scale_checks:
        with pytest.raises(ConformanceError):
            check()


def test_unit_points_checks_the_refusal_for_an_adapter_whose_harness_declares_no_range() -> None:
    # LangSmith, deepeval and promptfoo declare no range: without unit_points the suite never asked them about 3 points
    adapter = Adapter("tally", from_harness=_as_they_come, native=_check_of, unit_points=True)
    [check] = [c for c in checks(adapter) if "range" in str(c)]
    assert "points above 1 on no declared range are refused" in str(check)
    with pytest.raises(ConformanceError, match="gave 3 points; expected a ScorerContractError"):
        check()


def test_the_docs_tally_adapter_refuses_3_points_naming_the_scorer() -> None:
    # the docs' adapter took a check's points as they came: 3 points were the value 3.0, correct
    with pytest.raises(ScorerContractError, match=r"^three: a score must be a number from 0 to 1"):
        from_tally(_check_of(lambda text, references: 3.0), name="three")("q", "Paris", "Paris")
