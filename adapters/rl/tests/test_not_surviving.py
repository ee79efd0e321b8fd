"""What does not survive the trip between scorebridge and the RL trainers (docs/rl.md's last table), one test each."""

from __future__ import annotations

import math
from typing import Any

import pytest
from rl_calls import TRLLogs, call_as_trl

import scorebridge as sb
from scorebridge_rl import from_trl, to_trl


def test_a_truncated_completion_is_judged_as_it_is() -> None:
    # TRL hands a reward no stop reason: a completion cut at max_completion_length is wrong, never budget_stop
    logs = TRLLogs()
    call_as_trl(
        to_trl(sb.exact()), [{"prompt": "q", "solution": "Paris is the capital"}] * 2, ["Paris is", ""], logs=logs
    )
    assert logs.extra["exact/failure_kind"] == ["wrong", "parse_failure"]
    assert logs.metrics["rewards/exact/budget_stop"] == [0.0]


def test_only_the_failure_kind_reaches_the_completions_table() -> None:
    @sb.scorer
    def explains(item: Any, output: str, label: str) -> dict[str, Any]:
        return {"correct": False, "outcome": output, "failure_kind": None, "explanation": "too short"}

    logs = TRLLogs()
    call_as_trl(to_trl(explains), [{"prompt": "q", "solution": "a"}], ["b"], logs=logs)
    assert dict(logs.extra) == {"explains/failure_kind": ["wrong"]}


def test_a_reward_that_reads_token_ids_cannot_be_scored_outside_a_trainer() -> None:
    def overlong(completion_ids: list[list[int]], **kwargs: Any) -> list[float]:
        return [-0.1 * max(0, len(ids) - 4) for ids in completion_ids]

    with pytest.raises(TypeError) as raised:
        from_trl(overlong)("q", "a long completion", None)
    assert "raised inside the scorer 'overlong'" in raised.value.__notes__


def test_a_nan_reward_is_unscored() -> None:
    def nan(completions: list[str], **kwargs: Any) -> list[float]:
        return [math.nan]

    score = from_trl(nan)("q", "a", "a")
    assert (score.correct, score.value) == (None, None)
