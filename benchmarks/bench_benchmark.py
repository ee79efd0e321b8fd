"""How close `benchmark()` comes to ideal concurrency, and what it costs per run.

1. 200 items, one async arm that takes 20 ms, concurrency 32: wall time against
   the ideal ceil(200 / 32) * 20 ms, and against a bare asyncio.gather behind a
   semaphore in the same run (the floor of what any harness can do). Bar: within
   1.3x of the ideal. The same with a sync arm (time.sleep) in the thread pool.
2. The cost per run of the harness itself: a trivial sync arm on 20 000 items
   (the loop-free path), against a plain Python loop that calls the arm and the
   scorer.
3. A slow sync scorer (a 0.25 s grader, FakeGrader(delay=0.25)) over 64 outputs
   at concurrency 64: it runs in the thread pool, off the event loop. Bar: within
   1.5x of the ideal 0.25 s (it took 16 s when it ran on the loop).
4. One writer per file: a second process started on the `out` file of a running
   benchmark, TRIALS times. Bar: every time, the second fails at once with a clear
   message and the first finishes with every record, none twice.

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


def slow_scorer() -> float:
    from scorebridge.testing import FakeGrader

    n, delay = 64, 0.25
    scorer = sb.model_graded_qa(FakeGrader("GRADE: C", delay=delay))
    items = [f"q{i}" for i in range(n)]
    wall = best(lambda: sb.benchmark({"a": str.upper}, items, items, scorer=scorer, concurrency=n, progress=False))
    print(f"3. {n} outputs, a sync grader of {delay} s, concurrency {n} (best of {REPEATS})")
    print(f"   benchmark()  {wall * 1000:7.1f} ms  = {wall / delay:.3f}x ideal")
    return wall / delay


WRITER = """
import sys, time
import scorebridge as sb

def arm(item):
    time.sleep(0.005)
    return item.upper()

items = [f"q{i}" for i in range(300)]
try:
    sb.benchmark({"a": arm, "b": arm}, items, [i.upper() for i in items], concurrency=4, out=sys.argv[1])
except RuntimeError as exc:
    print(exc, file=sys.stderr)
    sys.exit(3)
"""


def one_writer(trials: int = 20) -> bool:
    import json
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    good = 0
    refused_in = []
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "writer.py"
        script.write_text(WRITER, encoding="utf-8")
        for trial in range(trials):
            out = Path(folder) / f"runs{trial}.jsonl"
            first = subprocess.Popen([sys.executable, str(script), str(out)], stderr=subprocess.PIPE, text=True)
            while not out.exists() or out.stat().st_size < 200:
                time.sleep(0.002)
            start = time.perf_counter()
            second = subprocess.run([sys.executable, str(script), str(out)], capture_output=True, text=True)
            refused_in.append(time.perf_counter() - start)
            first.wait()
            rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()[1:]]
            keys = [(r["arm"], r["item_id"]) for r in rows]
            clear = second.returncode == 3 and "is being written by another process" in second.stderr
            good += clear and first.returncode == 0 and len(keys) == len(set(keys)) == 600
    print(f"4. a second writer on a running benchmark's out file, {trials} trials")
    print(f"   refused with a clear message, first complete, no duplicate: {good} of {trials}")
    print(f"   the second process ended in {min(refused_in):.2f}-{max(refused_in):.2f} s (its whole start-up)")
    return good == trials


if __name__ == "__main__":
    ratio = concurrency()
    overhead()
    slow = slow_scorer()
    writers = one_writer()
    print(f"\nconcurrency bar (within 1.3x of ideal): {'PASS' if ratio <= 1.3 else 'FAIL'} ({ratio:.3f}x)")
    print(f"slow sync scorer bar (within 1.5x of ideal): {'PASS' if slow <= 1.5 else 'FAIL'} ({slow:.3f}x)")
    print(f"one writer per file bar: {'PASS' if writers else 'FAIL'}")
