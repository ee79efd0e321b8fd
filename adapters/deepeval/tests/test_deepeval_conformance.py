"""scorebridge_deepeval passes the conformance suite, through deepeval's own `evaluate`, offline."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from de_offline import ScriptedJudge, run
from deepeval.metrics import BaseMetric, GEval
from deepeval.test_case import LLMTestCase, SingleTurnParams

from scorebridge.kit.testing import Adapter, Check, Judge, checks
from scorebridge_deepeval import from_deepeval, to_deepeval

READ = [SingleTurnParams.INPUT, SingleTurnParams.ACTUAL_OUTPUT, SingleTurnParams.EXPECTED_OUTPUT]


class Judged(BaseMetric):
    """A deepeval metric of its own kind: the actual output's text against the expected output, by `judge`."""

    _required_params: ClassVar[list[SingleTurnParams]] = READ

    def __init__(self, judge: Judge, threshold: float = 1.0, async_mode: bool = False) -> None:
        self.judge, self.threshold, self.async_mode = judge, threshold, async_mode

    def measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        expected = [] if test_case.expected_output is None else [test_case.expected_output]
        self.score = float(self.judge(test_case.actual_output or "", expected))
        self.success = self.is_successful()
        return self.score

    async def a_measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        return self.measure(test_case)

    @property
    def __name__(self) -> str:  # type: ignore[override]
        return "Judged"


class Concise(Judged):
    """A metric that reads no expected output (a format check): it needs no label."""

    _required_params: ClassVar[list[SingleTurnParams]] = [SingleTurnParams.ACTUAL_OUTPUT]


def judged(criteria: str) -> GEval:
    return GEval(name="Correctness", criteria=criteria, evaluation_params=READ[1:], model=ScriptedJudge())


DEEPEVAL = Adapter(
    "deepeval",
    to_harness=to_deepeval,
    run=run,
    from_harness=from_deepeval,
    native=Judged,
    native_async=lambda judge: Judged(judge, async_mode=True),
    to_recording=lambda made: to_deepeval(made, on_error="record"),
    from_recording=lambda metric: from_deepeval(metric, on_error="record"),
    variants=lambda: (judged("Is it right?"), judged("Is it right?"), judged("Is it the same city?")),
    carries_objects=False,  # deepeval's actual_output is text: an LLMTestCase refuses any other
    label_free=Concise,
    one_reference=True,  # deepeval's expected_output is one text
    unit_points=True,  # its points are 0-1: 3 points are a contract error
)


@pytest.mark.parametrize("check", checks(DEEPEVAL), ids=str)
def test_the_deepeval_adapter_conforms(check: Check) -> None:
    check()
