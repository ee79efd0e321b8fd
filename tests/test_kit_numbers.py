"""The conformance suite's check that a number label of any size or precision is answered at once, in both
directions: it fails an adapter that hangs on one or raises anything but a ScorerContractError, and passes the
core's own scorers.

It guards the hang of `Decimal("1e1000000")` as a label: written in plain digits it is a million characters, and
`exact()`, `detect_match()`, `model_graded_qa` and `from_inspect(match())` did not answer it within 2 s."""

from __future__ import annotations

import time
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import pytest

import scorebridge as sb
from scorebridge.kit import Scorer, plain_digits, recorded
from scorebridge.kit import testing as suite
from scorebridge.kit.testing import Adapter, ConformanceError, Judge, Row, checks, huge_numbers
from scorebridge.testing import FakeGrader


def _numbers_check(adapter: Adapter, direction: str) -> suite.Check:
    [found] = [c for c in checks(adapter) if f"{direction}: a number label of any size" in str(c)]
    return found


def _slow(item: Any, output: Any, label: Any) -> sb.Score:
    if isinstance(label, (Decimal, int)):
        time.sleep(0.05)
    return recorded("slow", output == label, output, None)


def _expanding(item: Any, output: Any, label: Any) -> sb.Score:
    return recorded("expanding", output == plain_digits(label), output, None)  # refuses a number too long: ValueError


def _reverse(fn: Any) -> Adapter:
    return Adapter("made-up", from_harness=lambda native: Scorer(native.__name__, native, recorded=True),
                   native=lambda judge: fn)  # fmt: skip


def _run(check: Scorer, rows: list[Row]) -> Sequence[float | None]:
    return [check(*row).value for row in rows]


def test_a_huge_number_label_is_decimal_1e1000000_among_others() -> None:
    assert Decimal("1e1000000") in huge_numbers() and any(isinstance(n, int) for n in huge_numbers())


def test_the_suite_fails_a_reverse_adapter_that_is_slow_on_a_huge_label(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(suite, "ANSWERED_WITHIN", 0.01)  # the bound, made small: 0.05 s is then too long
    with pytest.raises(ConformanceError, match=r"made-up: from_harness: the label Decimal\('1E\+1000000'\) took"):
        _numbers_check(_reverse(_slow), "from_harness")()


def test_the_suite_fails_a_reverse_adapter_that_raises_on_a_huge_label() -> None:
    with pytest.raises(ConformanceError, match=r"is a ScorerContractError naming the scorer; .* raised ValueError"):
        _numbers_check(_reverse(_expanding), "from_harness")()


def test_the_suite_fails_a_forward_adapter_that_is_slow_on_a_huge_label(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(suite, "ANSWERED_WITHIN", 0.01)
    adapter = Adapter("made-up", to_harness=lambda scorer: Scorer("slow", _slow, recorded=True), run=_run)
    with pytest.raises(ConformanceError, match=r"made-up: to_harness: the label .* took"):
        _numbers_check(adapter, "to_harness")()


@pytest.mark.parametrize(
    "scorer",
    [sb.exact(), sb.detect_match(), sb.model_graded_qa(FakeGrader("Reasoning.\nGRADE: C"))],
    ids=lambda s: s.name,
)
def test_the_core_scorers_pass_the_check_in_both_directions(scorer: Scorer) -> None:
    def native(judge: Judge) -> Scorer:
        return scorer

    adapter = Adapter("core", to_harness=lambda s: s, run=_run, from_harness=lambda s: s, native=native)
    for direction in ("from_harness", "to_harness"):
        _numbers_check(adapter, direction)()
