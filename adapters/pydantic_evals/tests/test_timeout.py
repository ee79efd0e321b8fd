"""`to_pydantic_evals(..., timeout=)`: pydantic-evals has no limit on an evaluator; a case the scorer hangs on
is recorded as an error (with on_error="record") and the evaluation ends."""

from __future__ import annotations

import time
from typing import Any

from pe_support import evaluate

import scorebridge as sb
from scorebridge_pydantic_evals import to_pydantic_evals


@sb.scorer
def hangs_on_b(item: Any, output: Any, label: Any) -> bool:
    if output == "b":
        time.sleep(60)
    return bool(output == label)


def test_a_case_the_scorer_hangs_on_is_recorded_as_an_error() -> None:
    evaluator = to_pydantic_evals(hangs_on_b, timeout=0.5, on_error="record")
    began = time.monotonic()
    report = evaluate([evaluator], [(None, "a", "a"), (None, "b", "b"), (None, "c", "c")])
    assert time.monotonic() - began < 10
    passed = [case.assertions["hangs_on_b"].value for case in report.cases]
    assert passed == [True, False, True]
    assert "gave no score within 0.5 s" in str(report.cases[1].assertions["hangs_on_b"].reason)
