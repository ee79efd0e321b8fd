"""The bar for docs/adapters.md: an adapter for a sixth harness (rubric, made up, unlike tally: one reference,
async graders, graders with arguments), written from the docs alone with the kit's helpers, is under 100 lines
and passes the conformance suite."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
import rubric
from scorebridge_rubric import from_rubric, to_rubric

from scorebridge.kit.testing import Adapter, Check, Judge, Row, checks


@dataclasses.dataclass(frozen=True)
class Judged:
    """A rubric grader of rubric's own kind, deciding with the suite's judgement."""

    judge: Callable[..., float]

    def grade(self, response: str, reference: Any) -> rubric.Result:
        return rubric.Result(self.judge(response, [reference] if isinstance(reference, str) else []))


@dataclasses.dataclass(frozen=True)
class JudgedLater:
    judge: Callable[..., float]

    async def grade(self, response: str, reference: Any) -> rubric.Result:
        return rubric.Result(self.judge(response, [reference] if isinstance(reference, str) else []))


def run(grader: Any, rows: list[Row]) -> Sequence[float | None]:
    return rubric.evaluate(grader, [{"response": output, "reference": label} for _, output, label in rows])


def native(judge: Judge) -> Judged:
    return Judged(judge)


def native_async(judge: Judge) -> JudgedLater:
    return JudgedLater(judge)


RUBRIC = Adapter(
    "rubric",
    to_harness=to_rubric,
    run=run,
    from_harness=from_rubric,
    native=native,
    native_async=native_async,
    variants=lambda: (rubric.StartsWith(), rubric.StartsWith(), rubric.StartsWith(ignore_case=False)),
    one_reference=True,  # a rubric check takes one reference: asked once per accepted answer
    unit_points=True,  # a rubric's scores are 0-1
)


@pytest.mark.parametrize("check", checks(RUBRIC), ids=str)
def test_the_rubric_adapter_conforms(check: Check) -> None:
    check()


def test_the_rubric_adapter_is_under_100_lines() -> None:
    lines = (Path(__file__).parent / "scorebridge_rubric.py").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 100


def test_a_one_reference_grader_is_asked_once_per_answer_until_one_is_correct() -> None:
    asked: list[Any] = []

    @dataclasses.dataclass(frozen=True)
    class Recording:
        def grade(self, response: str, reference: Any) -> rubric.Result:
            asked.append(reference)
            return rubric.StartsWith().grade(response, reference)

    assert from_rubric(Recording())(None, "Rome, Italy", ["Paris", "Rome", "Milan"]).correct is True
    assert asked == ["Paris", "Rome"]


def test_a_graders_arguments_are_its_options() -> None:
    assert from_rubric(rubric.StartsWith(ignore_case=False)).options == {"ignore_case": False}
