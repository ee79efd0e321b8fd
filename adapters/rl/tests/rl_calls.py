"""Calling reward functions the way TRL and verl call them, without either installed.

`call_as_trl` follows TRL 1.16's GRPOTrainer (`trainer/grpo_trainer.py`,
`_calculate_rewards`): every dataset column but prompt/completion/completion_ids
repeated once per generation, passed by keyword beside `prompts`,
`completions`, `completion_ids`, `trainer_state`, `log_extra` and `log_metric`;
an async reward awaited on an event loop running in another thread; None made
NaN; a list of the wrong length an error. `call_as_verl` follows verl's naive
reward manager: one response at a time, by keyword.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import threading
from collections import defaultdict
from collections.abc import Callable
from typing import Any


class TRLLogs:
    """What a reward function logged through `log_extra` and `log_metric`."""

    def __init__(self) -> None:
        self.extra: dict[str, list[Any]] = defaultdict(list)
        self.metrics: dict[str, list[float]] = defaultdict(list)

    def log_extra(self, column: str, values: list[Any]) -> None:
        self.extra[column].extend(values)

    def log_metric(self, name: str, value: float) -> None:
        self.metrics[name].append(value)


class TRLLoop:
    """An event loop running in a thread of its own, as GRPOTrainer keeps one for async rewards."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


def call_as_trl(
    reward: Callable[..., Any],
    rows: list[dict[str, Any]],
    completions: list[Any],
    *,
    num_generations: int = 1,
    logs: TRLLogs | None = None,
    loop: TRLLoop | None = None,
) -> list[float]:
    """The rewards GRPOTrainer gets from `reward` for `completions` (num_generations per row, in row order)."""
    inputs = [row for row in rows for _ in range(num_generations)]
    assert len(inputs) == len(completions)
    prompts = [row["prompt"] for row in inputs]
    keys = [key for key in inputs[0] if key not in ("prompt", "completion", "completion_ids")]
    kwargs: dict[str, Any] = {key: [row[key] for row in inputs] for key in keys}
    logs = logs or TRLLogs()
    kwargs["trainer_state"] = object()
    kwargs["log_extra"] = logs.log_extra
    kwargs["log_metric"] = logs.log_metric
    ids = [[0, 1, 2] for _ in completions]  # token ids: TRL always passes them; these rewards read none
    if inspect.iscoroutinefunction(reward) or inspect.iscoroutinefunction(type(reward).__call__):
        owned = loop is None
        loop = loop or TRLLoop()
        try:
            out = loop.run(reward(prompts=prompts, completions=completions, completion_ids=ids, **kwargs))
        finally:
            if owned:
                loop.close()
    else:
        out = reward(prompts=prompts, completions=completions, completion_ids=ids, **kwargs)
    out = [r if r is not None else math.nan for r in out]
    if len(out) != len(prompts):
        raise ValueError(f"the reward function returned {len(out)} rewards, but {len(prompts)} were expected")
    return [float(r) for r in out]


def chat(text: str) -> list[dict[str, str]]:
    """A completion in TRL's conversational format."""
    return [{"role": "assistant", "content": text}]


def call_as_verl(compute_score: Callable[..., Any], samples: list[dict[str, Any]]) -> list[Any]:
    """What verl's naive reward manager gets from `compute_score`: one call per sample, by keyword."""
    results = []
    for sample in samples:
        extra_info = dict(sample.get("extra_info", {}))
        extra_info["num_turns"] = None
        extra_info["rollout_reward_scores"] = {}
        result = compute_score(
            data_source=sample.get("data_source", "openai/gsm8k"),
            solution_str=sample["response"],
            ground_truth=sample["ground_truth"],
            extra_info=extra_info,
        )
        if inspect.isawaitable(result):
            result = asyncio.run(result)  # type: ignore[arg-type]
        if isinstance(result, dict):
            assert "score" in result
        results.append(result)
    return results


def call_as_verl_batch(compute_score: Callable[..., Any], samples: list[dict[str, Any]]) -> list[Any]:
    """What verl's batch reward manager gets from `compute_score`: one call for the batch, by keyword."""
    extras = [{**sample.get("extra_info", {}), "rollout_reward_scores": {}} for sample in samples]
    results = compute_score(
        data_sources=[sample.get("data_source", "openai/gsm8k") for sample in samples],
        solution_strs=[sample["response"] for sample in samples],
        ground_truths=[sample["ground_truth"] for sample in samples],
        extra_infos=extras,
    )
    assert len(results) == len(samples)
    return list(results)
