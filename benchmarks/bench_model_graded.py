"""Concurrent model grading: 200 outputs, a grader that takes 20 ms, 32 calls at once.

The bar: scoring with an async grader through `score_many(...,
concurrency=32)` takes within 1.3x of the ideal wall time, ceil(200 / 32) *
20 ms = 140 ms. Printed as ratios to that ideal (lower is better, 1.0 is
perfect), best of 7 rounds (the runs compared take turns; the best, not the
median: through Inspect AI's mockllm both scorers alternate between two wall
times from one run to the next, about 225 and 315 ms on a 2-core machine, and a
median picks opposite phases for the two):

- `score_many` with `FakeGrader(delay=0.02, asynchronous=True)`;
- `benchmark(..., concurrency=32)` with the same grader and an instant arm;
- `score_many` with `inspect_grader` over an Inspect AI mockllm model whose
  reply takes 20 ms, and, in the same run, Inspect AI's own
  `model_graded_qa(model=...)` on the same model, 32 at a time (when
  inspect-ai is installed).

Run: uv run python benchmarks/bench_model_graded.py
"""

from __future__ import annotations

import asyncio
import math
import os
import tempfile
import time
from collections.abc import Callable
from typing import Any

import scorebridge as sb
from scorebridge.testing import FakeGrader

N = 200
DELAY = 0.020
CONCURRENCY = 32
ROUNDS = 7
BAR = 1.3
IDEAL = math.ceil(N / CONCURRENCY) * DELAY

QUESTIONS = [f"What is {i} + {i}?" for i in range(N)]
ANSWERS = [str(2 * i) for i in range(N)]


def best_seconds(*runs: Callable[[], Any]) -> list[float]:
    """The best wall time of each run, the runs taking turns round by round (fair under noise)."""
    for run in runs:
        run()  # warm up: first event loop, imports, Inspect's caches
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(ROUNDS):
        for run, seen in zip(runs, times, strict=True):
            start = time.perf_counter()
            run()
            seen.append(time.perf_counter() - start)
    return [min(seen) for seen in times]


def with_fake_grader() -> list[float]:
    """`score_many` and `benchmark()` with a FakeGrader that takes DELAY seconds."""
    scorer = sb.model_graded_qa(FakeGrader("GRADE: C", delay=DELAY, asynchronous=True))

    def run_score_many() -> None:
        scores = scorer.score_many(QUESTIONS, ANSWERS, ANSWERS, concurrency=CONCURRENCY)
        assert all(s.correct for s in scores)

    async def arm(question: str) -> str:
        return ANSWERS[QUESTIONS.index(question)]

    def run_benchmark() -> None:
        result = sb.benchmark({"arm": arm}, QUESTIONS, ANSWERS, scorer=scorer, concurrency=CONCURRENCY, progress=False)
        assert all(r["correct"] for r in result.to_records())

    return best_seconds(run_score_many, run_benchmark)


def inspect_side_by_side() -> list[float] | None:
    """Ours through `inspect_grader` and Inspect AI's own `model_graded_qa`, on one slow mock model."""
    try:
        from inspect_ai.model import ChatMessageUser, GenerateConfig, ModelName, ModelOutput, ModelUsage, get_model
        from inspect_ai.scorer import Target, model_graded_qa
        from inspect_ai.solver import TaskState

        from scorebridge_inspect._grader import inspect_grader
    except ImportError:
        return None

    async def slow_reply(*_: Any) -> ModelOutput:
        await asyncio.sleep(DELAY)
        output = ModelOutput.from_content(model="mockllm/model", content="Same number.\nGRADE: C")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
        return output

    config = GenerateConfig(max_connections=CONCURRENCY)
    model = get_model("mockllm/model", custom_outputs=slow_reply, config=config, memoize=False)
    ours = sb.model_graded_qa(inspect_grader(model))

    def run_ours() -> None:
        assert all(s.correct for s in ours.score_many(QUESTIONS, ANSWERS, ANSWERS, concurrency=CONCURRENCY))

    theirs = model_graded_qa(model=model)
    states = [
        TaskState(
            model=ModelName("mockllm/model"),
            sample_id=i,
            epoch=1,
            input=q,
            messages=[ChatMessageUser(content=q)],
            output=ModelOutput.from_content(model="mockllm/model", content=a),
        )
        for i, (q, a) in enumerate(zip(QUESTIONS, ANSWERS, strict=True))
    ]

    async def all_theirs() -> list[Any]:
        gate = asyncio.Semaphore(CONCURRENCY)

        async def one(state: TaskState, answer: str) -> Any:
            async with gate:
                return await theirs(state, Target(answer))

        return await asyncio.gather(*(one(s, a) for s, a in zip(states, ANSWERS, strict=True)))

    def run_theirs() -> None:
        assert all(score.value == "C" for score in asyncio.run(all_theirs()))

    return best_seconds(run_ours, run_theirs)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for var in ("INSPECT_LOG_DIR", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
            os.environ[var] = tmp
        print(f"{N} outputs, grader {DELAY * 1000:.0f} ms, concurrency {CONCURRENCY}: ideal {IDEAL * 1000:.0f} ms")
        fake = with_fake_grader()
        rows = [("score_many, FakeGrader", fake[0]), ("benchmark(), FakeGrader", fake[1])]
        inspect_times = inspect_side_by_side()
        if inspect_times is None:
            print("(inspect-ai is not installed: the Inspect AI rows are skipped)")
        else:
            rows.append(("score_many, inspect_grader(mockllm)", inspect_times[0]))
            rows.append(("Inspect AI's own model_graded_qa(mockllm)", inspect_times[1]))
        for name, seconds in rows:
            print(f"  {name:<44} {seconds * 1000:7.1f} ms   {seconds / IDEAL:5.2f}x ideal")
        if inspect_times is not None:
            print(f"  ours / Inspect AI's own (same mock model): {inspect_times[0] / inspect_times[1]:.2f}x")
        ratio = rows[0][1] / IDEAL
        print(f"bar: score_many within {BAR}x of ideal: {ratio:.2f}x -> {'PASS' if ratio <= BAR else 'FAIL'}")


if __name__ == "__main__":
    main()
