"""`to_trl(..., timeout=)` and `to_verl(..., timeout=)`: a completion the scorer hangs on is recorded as an
error, not a training step held for as long as it hangs (TRL and verl have no limit of their own)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from rl_calls import TRLLogs

import scorebridge as sb
from scorebridge_rl import to_trl, to_verl


@sb.scorer
def hangs_on_b(item: Any, output: Any, label: Any) -> bool:
    if output == "b":
        time.sleep(60)
    return bool(output == label)


def test_to_trl_with_a_timeout_records_the_completion_that_hangs_as_an_error() -> None:
    logs = TRLLogs()
    reward = to_trl(hangs_on_b, timeout=0.5)
    began = time.monotonic()
    with pytest.warns(RuntimeWarning, match=r"gave no score within 0.5 s .* recorded as failure kind 'error'"):
        values = reward(prompts=None, completions=["a", "b", "c"], solution=["a", "b", "x"], log_extra=logs.log_extra)
    assert time.monotonic() - began < 10
    assert values == [1.0, 0.0, 0.0]
    assert logs.extra["hangs_on_b/failure_kind"] == [None, "error", "wrong"]


def test_to_verl_with_a_timeout_gives_the_response_that_hangs_no_reward() -> None:
    compute_score = to_verl(hangs_on_b, timeout=0.5)
    began = time.monotonic()
    result = compute_score(data_source="d", solution_str="b", ground_truth="b", extra_info=None)
    assert time.monotonic() - began < 10
    assert result["score"] == 0.0 and result["acc"] == 0.0
