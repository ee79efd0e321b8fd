"""scorebridge_pydantic_evals against pydantic-evals' own evaluators, in the same run, as ratios.

1. Per case, inside `Dataset.evaluate`: a dataset of N cases scored by
   `to_pydantic_evals(exact())` against the same dataset scored by the native
   `EqualsExpected()`, the runs interleaved (5 rounds of 2,000 cases), the best of
   each. Target: at most 1.2 (the whole evaluate, task and report included, per case;
   `exact()` is fast, so it runs inline on pydantic-evals' loop, not in a thread).
2. Per call, the evaluator alone: pydantic-evals' `run_evaluators` (what
   `Dataset.evaluate` runs per case) on one prebuilt context, the same two
   evaluators. Shown, not a target: what the difference is made of.
3. Per call, outside pydantic-evals: `from_pydantic_evals(EqualsExpected())`
   through `score_many` against calling `EqualsExpected().evaluate` on contexts
   a caller with plain values has to build. Shown.
4. A blocking scorer: `to_pydantic_evals` of a sync scorer that sleeps 0.2 s, over
   32 cases at `max_concurrency=32`, against the ideal 0.2 s. Target: under 1.5x
   (a scorer run inline on pydantic-evals' loop would take 32x).

Run: `uv run python benchmarks/bench_pydantic_evals.py` (offline; about half a minute).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from pydantic_evals import Case, Dataset
from pydantic_evals.evaluators import EqualsExpected, Evaluator, EvaluatorContext
from pydantic_evals.online import run_evaluators
from pydantic_evals.otel import SpanTreeRecordingError

import scorebridge as sb
from scorebridge_pydantic_evals import from_pydantic_evals, to_pydantic_evals

N_CASES = 2000
ROUNDS = 5
N_CALLS = 2000

REPLIES = ["Paris", "paris", "Lyon", "", "42", "I think it is 7"]
LABELS = ["Paris", "Paris", "Paris", "Paris", "42", "8"]


def dataset(evaluator: Evaluator[Any, Any, Any]) -> Dataset[Any, Any, Any]:
    cases = [Case(name=f"case {i}", inputs=i, expected_output=LABELS[i % len(LABELS)]) for i in range(N_CASES)]
    return Dataset(name="bench", cases=cases, evaluators=[evaluator])


async def answer(i: int) -> str:
    return REPLIES[i % len(REPLIES)]


async def evaluate_once(ds: Dataset[Any, Any, Any]) -> float:
    start = time.perf_counter()
    await ds.evaluate(answer, progress=False)
    return time.perf_counter() - start


def context(i: int) -> EvaluatorContext[Any, Any, Any]:
    return EvaluatorContext(
        name=None,
        inputs=i,
        metadata=None,
        expected_output=LABELS[i % len(LABELS)],
        output=REPLIES[i % len(REPLIES)],
        duration=0.0,
        _span_tree=SpanTreeRecordingError("no spans"),
        attributes={},
        metrics={},
    )


async def run_evaluators_per_call(evaluator: Evaluator[Any, Any, Any]) -> float:
    contexts = [context(i) for i in range(N_CALLS)]
    start = time.perf_counter()
    for ctx in contexts:
        await run_evaluators([evaluator], ctx)
    return (time.perf_counter() - start) / N_CALLS


async def main() -> None:
    ours, native = to_pydantic_evals(sb.exact()), EqualsExpected()
    first, second = dataset(ours), dataset(native)
    await evaluate_once(first), await evaluate_once(second)  # warm up
    times: dict[str, list[float]] = {"ours": [], "native": []}
    for _ in range(ROUNDS):
        times["ours"].append(await evaluate_once(first))
        times["native"].append(await evaluate_once(second))
    per_case = {arm: min(t) / N_CASES * 1e6 for arm, t in times.items()}
    ratio = per_case["ours"] / per_case["native"]
    print(f"1. Dataset.evaluate, {N_CASES} cases, best of {ROUNDS}, per case:")
    print(f"   to_pydantic_evals(exact())  {per_case['ours']:8.1f} us")
    print(f"   EqualsExpected()            {per_case['native']:8.1f} us")
    print(f"   ratio {ratio:.3f} (target <= 1.2): {'ok' if ratio <= 1.2 else 'OVER'}")

    calls = {"ours": [], "native": []}
    for _ in range(3):
        calls["ours"].append(await run_evaluators_per_call(ours))
        calls["native"].append(await run_evaluators_per_call(native))
    best = {arm: min(t) * 1e6 for arm, t in calls.items()}
    print(f"2. run_evaluators on one prebuilt context, per call (best of 3 x {N_CALLS}):")
    print(f"   to_pydantic_evals(exact())  {best['ours']:8.1f} us")
    print(f"   EqualsExpected()            {best['native']:8.1f} us   ratio {best['ours'] / best['native']:.2f}")

    scorer = from_pydantic_evals(EqualsExpected())
    outputs = [REPLIES[i % len(REPLIES)] for i in range(N_CALLS)]
    labels = [LABELS[i % len(LABELS)] for i in range(N_CALLS)]
    plain = EqualsExpected()
    wrapped_times, plain_times = [], []
    for _ in range(3):
        start = time.perf_counter()
        scorer.score_many(None, outputs, labels)
        wrapped_times.append((time.perf_counter() - start) / N_CALLS)
        start = time.perf_counter()
        for i in range(N_CALLS):
            plain.evaluate(context(i))
        plain_times.append((time.perf_counter() - start) / N_CALLS)
    wrapped, direct = min(wrapped_times) * 1e6, min(plain_times) * 1e6
    print(f"3. outside pydantic-evals, per call (best of 3 x {N_CALLS}):")
    print(f"   from_pydantic_evals(EqualsExpected()).score_many  {wrapped:6.2f} us")
    print(f"   EqualsExpected().evaluate on a context built here {direct:6.2f} us   ratio {wrapped / direct:.2f}")

    @sb.scorer
    def sleeps(item: Any, output: Any, label: Any) -> bool:
        time.sleep(0.2)
        return True

    blocking = Dataset(
        name="blocking",
        cases=[Case(name=f"case {i}", inputs=i, expected_output="x") for i in range(32)],
        evaluators=[to_pydantic_evals(sleeps)],
    )

    async def echo(i: int) -> str:
        return "x"

    walls = []
    for _ in range(3):
        start = time.perf_counter()
        await blocking.evaluate(echo, max_concurrency=32, progress=False)
        walls.append(time.perf_counter() - start)
    stall = min(walls) / 0.2
    print("4. a sync scorer sleeping 0.2 s, 32 cases at max_concurrency=32 (best of 3):")
    print(f"   {min(walls):.3f} s = {stall:.2f}x the ideal 0.2 s (target < 1.5): {'ok' if stall < 1.5 else 'OVER'}")


if __name__ == "__main__":
    asyncio.run(main())
