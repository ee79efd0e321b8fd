"""`exact()` per call against the bare comparison loop it replaces, in one run.

    uv run python benchmarks/bench_exact.py

Prints nanoseconds per call and the ratios. The bar: calling `exact()`
costs at most 5x the bare loop, although it does more (text extraction, label
lists, pre-sorting, a recorded Score). Two bare loops are timed: the honest
equivalent folds both sides as `exact()` does; the minimal one folds only the
output against a label folded in advance.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import scorebridge as sb

WORDS = ["Paris", "  paris ", "Lyon", "New  York", "new york", "42", "The answer is 42.", "Berlin\n"]


def pairs(n: int = 2000, seed: int = 0) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    return [(rng.choice(WORDS), rng.choice(["Paris", "new york", "42", "Berlin"])) for _ in range(n)]


def best_ns_per_call(loop: Callable[[], object], calls: int, repeat: int = 7) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        loop()
        best = min(best, time.perf_counter() - start)
    return best / calls * 1e9


def main() -> None:
    data = pairs()
    folded = [(o, " ".join(lab.split()).lower()) for o, lab in data]
    exact = sb.exact()

    def ours() -> None:
        for o, lab in data:
            exact(None, o, lab)

    def bare_both() -> None:
        for o, lab in data:
            _ = " ".join(o.split()).lower() == " ".join(lab.split()).lower()

    def bare_output_only() -> None:
        for o, lab in folded:
            _ = " ".join(o.split()).lower() == lab

    n = len(data)
    t_ours = best_ns_per_call(ours, n)
    t_both = best_ns_per_call(bare_both, n)
    t_one = best_ns_per_call(bare_output_only, n)
    print(f"{'what':44s} {'ns/call':>9s} {'ratio':>7s}")
    print(f"{'exact() (a recorded Score per call)':44s} {t_ours:9.0f} {'':>7s}")
    print(f"{'bare loop, both sides folded (same work)':44s} {t_both:9.0f} {t_ours / t_both:6.2f}x")
    print(f"{'bare loop, output folded, label pre-folded':44s} {t_one:9.0f} {t_ours / t_one:6.2f}x")


if __name__ == "__main__":
    main()
