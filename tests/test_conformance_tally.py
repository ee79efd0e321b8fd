"""The docs' tally adapter (examples/scorebridge_tally.py), run as written, passes the conformance suite."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from scorebridge.kit.testing import Adapter, Check, Judge, Row, checks

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import tally
from scorebridge_tally import from_tally, to_tally


def check_of(judge: Judge) -> tally.Check:
    def judged(row: dict[str, Any]) -> tally.Verdict:
        return tally.Verdict(judge(row["response"], row["expected"]))

    return judged


def async_check_of(judge: Judge) -> Any:
    async def judged(row: dict[str, Any]) -> tally.Verdict:
        return tally.Verdict(judge(row["response"], row["expected"]))

    return judged


def run(check: tally.Check, rows: list[Row]) -> Sequence[float | None]:
    verdicts = [check({"prompt": item, "response": output, "expected": label}) for item, output, label in rows]
    return [None if v.skipped else v.points for v in verdicts]


TALLY = Adapter(
    "tally",
    to_harness=to_tally,
    run=run,
    from_harness=from_tally,
    native=check_of,
    native_async=async_check_of,
    unit_points=True,  # tally's points are 0-1
)


@pytest.mark.parametrize("check", checks(TALLY), ids=str)
def test_the_tally_adapter_conforms(check: Check) -> None:
    check()
