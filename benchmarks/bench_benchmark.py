"""How close `benchmark()` comes to ideal concurrency, and what it costs per run.

1. 200 items, one async arm that takes 20 ms, concurrency 32: wall time against
   the ideal ceil(200 / 32) * 20 ms, and against a bare asyncio.gather behind a
   semaphore in the same run (the floor of what any harness can do). Bar: within
   1.3x of the ideal. The same with a sync arm (time.sleep) in the thread pool.
2. The cost per run of the harness itself: a trivial sync arm on 20 000 items
   (the loop-free path), against a plain Python loop that calls the arm and the
   scorer.

Run: uv run python benchmarks/bench_benchmark.py
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable

import scorebridge as sb

ITEMS = 200
DELAY = 0.020
CONCURRENCY = 32
REPEATS = 5


async def arm(item: int) -> str:
    await asyncio.sleep(DELAY)
    return str(item)


def best(fn: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def gather_floor() -> None:
    async def main() -> None:
        gate = asyncio.Semaphore(CONCURRENCY)

        async def one(i: int) -> str:
            async with gate:
                return await arm(i)

        await asyncio.gather(*(one(i) for i in range(ITEMS)))

    asyncio.run(main())


def sync_arm(item: int) -> str:
    time.sleep(DELAY)
    return str(item)


def concurrency() -> float:
    items = list(range(ITEMS))
    labels = [str(i) for i in items]
    ideal = math.ceil(ITEMS / CONCURRENCY) * DELAY
    ours = best(lambda: sb.benchmark({"arm": arm}, items, labels, concurrency=CONCURRENCY, progress=False))
    floor = best(gather_floor)
    threads = best(lambda: sb.benchmark({"arm": sync_arm}, items, labels, concurrency=CONCURRENCY, progress=False))
    print(f"1. {ITEMS} items, a {DELAY * 1000:.0f} ms arm, concurrency {CONCURRENCY} (best of {REPEATS})")
    print(f"   ideal ceil({ITEMS}/{CONCURRENCY}) * {DELAY * 1000:.0f} ms = {ideal * 1000:.0f} ms")
    print(f"   benchmark(), async arm      {ours * 1000:7.1f} ms  = {ours / ideal:.3f}x ideal")
    print(f"   asyncio.gather+Semaphore    {floor * 1000:7.1f} ms  = {floor / ideal:.3f}x ideal")
    print(f"   benchmark() / gather        {ours / floor:.3f}x")
    print(f"   benchmark(), sync arm, pool {threads * 1000:7.1f} ms  = {threads / ideal:.3f}x ideal")
    return ours / ideal


def overhead() -> None:
    n = 20_000
    items = [f"q{i}" for i in range(n)]
    labels = [s.upper() for s in items]
    scorer = sb.exact()

    def upper(item: str) -> str:
        return item.upper()

    def plain() -> None:
        [scorer(item, upper(item), label) for item, label in zip(items, labels, strict=True)]

    loop = best(plain)
    ours = best(lambda: sb.benchmark({"upper": upper}, items, labels, progress=False))
    per_run = (ours - loop) / n
    print(f"2. {n} runs of a trivial sync arm, scored with exact() (best of {REPEATS})")
    print(f"   plain loop   {loop * 1000:7.1f} ms")
    print(f"   benchmark()  {ours * 1000:7.1f} ms  = {ours / loop:.2f}x the loop, {per_run * 1e6:.1f} µs more per run")


if __name__ == "__main__":
    ratio = concurrency()
    overhead()
    print(f"\nconcurrency bar (within 1.3x of ideal): {'PASS' if ratio <= 1.3 else 'FAIL'} ({ratio:.3f}x)")
