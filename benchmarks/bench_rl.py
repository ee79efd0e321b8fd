"""Reward batches through `to_trl`, against a native TRL-style reward and against the ideal, in one run.

    uv run python benchmarks/bench_rl.py

A GRPO reward batch is B x G completions; 1,024 is common. Each reward is
called as GRPOTrainer calls it (by keyword, with `trainer_state`, `log_extra`
and `log_metric`), and an async one awaited on an event loop in another thread,
as the trainer does. Printed as ratios (lower is better):

1. `to_trl(exact())` over 1,024 completions against a native reward doing the
   same comparison (both sides folded: white space collapsed, case folded),
   in TRL's standard format (strings) and its conversational one (messages),
   best of 50 rounds each, the two taking turns. The bar: at most 2x, although
   `to_trl` also reads every label, pre-sorts the outputs exact() pre-sorts
   and logs the failure kinds.
2. `to_trl(model_graded_qa(grader))` with an async grader that takes 20 ms, over
   1,024 completions at concurrency 64, against the ideal wall time,
   ceil(1024 / 64) x 20 ms = 320 ms; best of 5 rounds. The bar: at most 1.3x.
"""

from __future__ import annotations

import asyncio
import math
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import scorebridge as sb
from scorebridge.testing import FakeGrader
from scorebridge_rl import to_trl

N = 1024
DELAY = 0.020
CONCURRENCY = 64
IDEAL = math.ceil(N / CONCURRENCY) * DELAY
EXACT_BAR, GRADED_BAR = 2.0, 1.3

WORDS = ["Paris", "  paris ", "Lyon", "New  York", "new york", "42", "The answer is 42.", "Berlin\n"]


def native(prompts: list[Any], completions: list[str], solution: list[str], **kwargs: Any) -> list[float]:
    """What a user writes for TRL's standard format: both sides folded, then compared."""
    return [
        1.0 if " ".join(c.split()).casefold() == " ".join(s.split()).casefold() else 0.0
        for c, s in zip(completions, solution, strict=True)
    ]


def native_chat(prompts: list[Any], completions: list[Any], solution: list[str], **kwargs: Any) -> list[float]:
    """The same for TRL's conversational format, reading the completion's one message as TRL's built-ins do."""
    return [
        1.0 if " ".join(c[0]["content"].split()).casefold() == " ".join(s.split()).casefold() else 0.0
        for c, s in zip(completions, solution, strict=True)
    ]


def trainer_keywords() -> dict[str, Any]:
    extra: dict[str, list[Any]] = {}
    metrics: dict[str, list[float]] = {}
    return {
        "trainer_state": None,
        "log_extra": lambda column, values: extra.setdefault(column, []).extend(values),
        "log_metric": lambda name, value: metrics.setdefault(name, []).append(value),
    }


def best_of(rounds: int, *runs: Callable[[], Any]) -> list[float]:
    """The best wall time of each run, the runs taking turns round by round (fair under noise)."""
    for run in runs:
        run()
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(rounds):
        for run, seen in zip(runs, times, strict=True):
            start = time.perf_counter()
            run()
            seen.append(time.perf_counter() - start)
    return [min(seen) for seen in times]


def exact_against_native() -> list[tuple[str, float, float]]:
    rng = random.Random(0)
    completions = [rng.choice(WORDS) for _ in range(N)]
    solutions = [rng.choice(["Paris", "new york", "42", "Berlin"]) for _ in range(N // 8) for _ in range(8)]
    prompts = [f"question {i // 8}" for i in range(N)]
    chat = [[{"role": "assistant", "content": c}] for c in completions]
    ours = to_trl(sb.exact())

    def as_trl_calls(reward: Callable[..., list[Any]], given: list[Any]) -> Callable[[], list[Any]]:
        kw = trainer_keywords()
        return lambda: reward(prompts=prompts, completions=given, completion_ids=None, solution=solutions, **kw)

    results = []
    for shape, given, theirs in (("standard (strings)", completions, native), ("conversational", chat, native_chat)):
        assert as_trl_calls(ours, given)() == as_trl_calls(theirs, given)()
        t_ours, t_theirs = best_of(50, as_trl_calls(ours, given), as_trl_calls(theirs, given))
        results.append((shape, t_ours, t_theirs))
    return results


def graded_against_ideal() -> float:
    grader = FakeGrader("Same number.\nGRADE: C", delay=DELAY, asynchronous=True)
    reward = to_trl(sb.model_graded_qa(grader), concurrency=CONCURRENCY)
    prompts = [f"What is {i} + {i}?" for i in range(N)]
    answers = [str(2 * i) for i in range(N)]
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    def run() -> None:
        call = reward(prompts=prompts, completions=answers, completion_ids=None, solution=answers, **trainer_keywords())
        rewards = asyncio.run_coroutine_threadsafe(call, loop).result()
        assert rewards == [1.0] * N

    try:
        [seconds] = best_of(5, run)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
    assert grader.max_in_flight == CONCURRENCY
    return seconds


def main() -> None:
    print(f"1. to_trl(exact()) against a native reward, {N} completions (best of 50)")
    print(f"   {'format':22s} {'to_trl':>10s} {'native':>10s} {'ratio':>7s}")
    for shape, ours, theirs in exact_against_native():
        verdict = "ok" if ours / theirs <= EXACT_BAR else f"OVER the {EXACT_BAR}x bar"
        print(f"   {shape:22s} {ours * 1e6:8.0f}us {theirs * 1e6:8.0f}us {ours / theirs:6.2f}x  {verdict}")
    seconds = graded_against_ideal()
    ratio = seconds / IDEAL
    verdict = "ok" if ratio <= GRADED_BAR else f"OVER the {GRADED_BAR}x bar"
    print(f"2. to_trl(model_graded_qa), a 20 ms async grader, {N} completions at concurrency {CONCURRENCY} (best of 5)")
    print(f"   {seconds * 1e3:.0f} ms against the ideal {IDEAL * 1e3:.0f} ms: {ratio:.2f}x  {verdict}")


if __name__ == "__main__":
    main()
