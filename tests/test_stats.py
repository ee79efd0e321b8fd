"""The statistics of a summary: the 95% Wilson interval and the exact McNemar test, against known values."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorebridge._runner.stats import mcnemar_exact, wilson_interval


def test_wilson_interval_of_8_of_10_is_the_textbook_value() -> None:
    # Wilson (1927); 8/10 at 95% is (0.4902, 0.9433) in every reference table.
    assert wilson_interval(8, 10) == pytest.approx((0.4902, 0.9433), abs=5e-5)


def test_wilson_interval_of_none_right_is_not_a_point() -> None:
    # The Wald interval of 0/10 is [0, 0]; Wilson's upper bound is 0.2775.
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=5e-5)


def test_wilson_interval_of_all_right_reaches_one() -> None:
    assert wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=5e-5)


def test_wilson_interval_of_one_trial() -> None:
    assert wilson_interval(1, 1) == pytest.approx((0.2065, 1.0), abs=5e-5)


def test_wilson_interval_needs_a_trial() -> None:
    with pytest.raises(ValueError, match="at least one trial"):
        wilson_interval(0, 0)


def test_wilson_interval_refuses_more_successes_than_trials() -> None:
    with pytest.raises(ValueError, match="between 0 and 3"):
        wilson_interval(4, 3)


@given(st.integers(1, 10_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_holds_the_proportion_inside_zero_one(case: tuple[int, int]) -> None:
    k, n = case
    low, high = wilson_interval(k, n)
    assert 0.0 <= low <= k / n <= high <= 1.0


@given(st.integers(1, 10_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_is_symmetric_in_right_and_wrong(case: tuple[int, int]) -> None:
    k, n = case
    low, high = wilson_interval(k, n)
    low2, high2 = wilson_interval(n - k, n)
    assert (low, high) == pytest.approx((1 - high2, 1 - low2), abs=1e-12)


def test_mcnemar_exact_of_1_and_9_discordant_pairs() -> None:
    # Two-sided binomial on 10 discordant pairs: 2 * (C(10,0) + C(10,1)) / 2**10.
    assert mcnemar_exact(1, 9) == 0.021484375


def test_mcnemar_exact_of_0_and_5_discordant_pairs() -> None:
    assert mcnemar_exact(0, 5) == 0.0625


def test_mcnemar_exact_of_2_and_8_discordant_pairs() -> None:
    assert mcnemar_exact(2, 8) == 0.109375


def test_mcnemar_exact_with_no_discordant_pair_is_one() -> None:
    assert mcnemar_exact(0, 0) == 1.0


def test_mcnemar_exact_of_equal_counts_is_capped_at_one() -> None:
    assert mcnemar_exact(5, 5) == 1.0


def test_mcnemar_exact_of_large_counts_stays_a_probability() -> None:
    # 2**n would overflow a float for n > 1023; the exact integer arithmetic does not.
    assert 0.0 < mcnemar_exact(900, 1100) < 1e-5


def test_mcnemar_exact_refuses_negative_counts() -> None:
    with pytest.raises(ValueError, match="must not be negative"):
        mcnemar_exact(-1, 3)


@given(st.integers(0, 300), st.integers(0, 300))
def test_mcnemar_exact_is_symmetric_and_a_probability(b: int, c: int) -> None:
    p = mcnemar_exact(b, c)
    assert p == mcnemar_exact(c, b)
    assert 0.0 < p <= 1.0
