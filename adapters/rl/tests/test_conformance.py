"""The RL spoke passes scorebridge's conformance suite, both ways, for TRL and for verl.

The harness side is driven as the trainers drive it: a TRL reward is called on
a batch by keyword (rl_calls.call_as_trl), a verl compute_score one response at
a time (rl_calls.call_as_verl); the harness's own scorers are TRL-style and
verl-style functions of a judgement, reading the completion and the label
column as TRL and verl hand them.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from rl_calls import call_as_trl, call_as_verl

import scorebridge as sb
from scorebridge.kit.testing import Adapter, Check, Judge, Row, checks
from scorebridge_rl import from_trl, from_verl, to_trl, to_verl


def references(label: Any) -> list[Any]:
    """The references a TRL reward or a verl compute_score reads from its label column: a list is the list."""
    return [] if label is None else list(label) if isinstance(label, (list, tuple)) else [label]


def trl_reward_of(judge: Judge) -> Callable[..., list[float]]:
    def judged(prompts: list[Any], completions: list[str], solution: list[Any], **kwargs: Any) -> list[float]:
        return [judge(c, references(s)) for c, s in zip(completions, solution, strict=True)]

    return judged


def async_trl_reward_of(judge: Judge) -> Callable[..., Any]:
    async def judged(prompts: list[Any], completions: list[str], solution: list[Any], **kwargs: Any) -> list[float]:
        await asyncio.sleep(0)
        return [judge(c, references(s)) for c, s in zip(completions, solution, strict=True)]

    return judged


def label_free_trl_reward_of(judge: Judge) -> Callable[..., list[float]]:
    """A reference-free TRL reward (a format check): it has no label parameter, so from_trl needs no label."""

    def judged(prompts: list[Any], completions: list[str], **kwargs: Any) -> list[float]:
        return [judge(c, []) for c in completions]

    return judged


def run_trl(reward: Callable[..., Any], rows: list[Row]) -> Sequence[float | None]:
    """GRPOTrainer's rewards for rows of (item, output, label): the item the prompt, the label its column."""
    dataset = [{"prompt": item, "solution": label} for item, _, label in rows]
    rewards = call_as_trl(reward, dataset, [output for _, output, _ in rows])
    return [None if math.isnan(r) else r for r in rewards]


def verl_score_of(judge: Judge) -> Callable[..., float]:
    def compute_score(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None) -> float:
        return judge(solution_str, references(ground_truth))

    return compute_score


def async_verl_score_of(judge: Judge) -> Callable[..., Any]:
    async def compute_score(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None) -> float:
        await asyncio.sleep(0)
        return judge(solution_str, references(ground_truth))

    return compute_score


def run_verl(compute_score: Callable[..., Any], rows: list[Row]) -> Sequence[float | None]:
    """verl's rewards for rows: the output the response, the label the ground truth, the item the extra_info.
    verl has no way to leave a response out: an unscored one is left out here as its "scored" key says."""
    samples = [{"response": o, "ground_truth": lab, "extra_info": {"item": i}} for i, o, lab in rows]
    return [r["score"] if r["scored"] else None for r in call_as_verl(compute_score, samples)]


# to_trl and to_verl record a scorer's exception by default (a training run goes on); the suite checks the
# "raise" policy through to_harness and the "record" one through to_recording.
TRL = Adapter(
    "trl",
    to_harness=lambda scorer: to_trl(scorer, on_error="raise"),
    run=run_trl,
    from_harness=from_trl,
    native=trl_reward_of,
    native_async=async_trl_reward_of,
    to_recording=lambda scorer: to_trl(scorer, on_error="record"),
    label_free=label_free_trl_reward_of,
)
VERL = Adapter(
    "verl",
    to_harness=lambda scorer: to_verl(scorer, on_error="raise"),
    run=run_verl,
    from_harness=from_verl,
    native=verl_score_of,
    native_async=async_verl_score_of,
    to_recording=lambda scorer: to_verl(scorer, on_error="record"),
    carries_objects=False,
)


@pytest.mark.filterwarnings("ignore:to_trl:RuntimeWarning")
@pytest.mark.parametrize("check", checks(TRL), ids=str)
def test_the_trl_reward_conforms(check: Check) -> None:
    check()


@pytest.mark.parametrize("check", checks(VERL), ids=str)
def test_the_verl_reward_conforms(check: Check) -> None:
    check()


def test_the_suite_checks_something() -> None:
    assert len(checks(TRL)) >= 10 and len(checks(VERL)) >= 10
    assert sb.exact()("q", "Paris", "Paris").correct is True
