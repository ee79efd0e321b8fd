"""The five `detect_*` scorers per call, against Inspect AI's nearest scorer and a bare Python loop.

    uv run python benchmarks/bench_detect.py

Per call, on the same outputs and labels, in one run:

- ours: `scorer(None, output, label)`, a recorded Score per call (and `await
  scorer.acall(...)` in an event loop, the way an async harness calls it);
- Inspect AI: its own scorer awaited directly in one event loop (`await
  match()(state, target)`), with the TaskStates and Targets built beforehand
  (building them is the harness's cost, not the scorer's);
- bare: the few lines of plain Python that do vitals' comparison, no Score.

Prints nanoseconds per call and the ratios. The bar: ours faster than
Inspect AI's per call. Speed is never asserted in tests; it is measured here.

    uv run python benchmarks/bench_detect.py deadline

measures `detect_pattern`'s deadline instead, in wall-clock seconds (the
hardening bars): catastrophic searches with `timeout=1` alone and with
three busy threads (pure Python ones, and ones hashing without the GIL, which
use CPU time of this process in parallel), a legitimate search of about 0.5 s
under the same load (it must not be recorded "error"), and 32 catastrophic
outputs through `score_many(concurrency=32)` (32 s when searched one at a time).
"""

from __future__ import annotations

import asyncio
import os
import re
import string
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

import scorebridge as sb
from scorebridge._scorers.deadline import bounded_work, longest_unguarded, searcher

OUTPUTS = [
    "The capital of France is Paris.",
    "Paris is the capital of France.",
    "I think the answer is 42",
    "2 + 3 = 5",
    "The answer is 25",
    "After some thought, the result is Lyon",
    "Let me think step by step. First, 6 times 7 is 42.\nANSWER: 42",
    "The options are A, B, C and D. B looks right.\nANSWER: B",
    "Reasoning about it at some length before answering.\nANSWER: **C**",
    "ANSWER: Paris",
]
LABELS = ["Paris", "42", "5", "B", "C", "Lyon"]
PUNCT = re.compile(f"[{re.escape(string.punctuation)}]")
VITALS_LINE = re.compile(r"ANSWER:\s*(.+)$")
NUMBER = re.compile(r"(\d+)")


REASONED = ["Let me work through this one step at a time before I answer. " * 4 + o for o in OUTPUTS]
"""The outputs after about 250 characters of reasoning: longer than a pattern of three repeats searches unguarded."""


def rows(outputs: list[str] = OUTPUTS) -> list[tuple[str, str]]:
    return [(o, lab) for o in outputs for lab in LABELS]


def bare_includes(o: str, t: str) -> bool:
    return t.casefold() in o.casefold()


def bare_match(o: str, t: str) -> bool:
    return o.strip().casefold().endswith(t.strip().casefold())


def bare_pattern(o: str, t: str) -> bool:
    m = NUMBER.search(o)
    return m is not None and m.group(1).casefold() == t.casefold()


def bare_answer(o: str, t: str) -> bool:
    m = VITALS_LINE.search(o)
    return m is not None and m.group(1).strip().casefold() == t.strip().casefold()


def bare_exact(o: str, t: str) -> bool:
    return PUNCT.sub("", o).strip().casefold() == PUNCT.sub("", t).strip().casefold()


async def best_ns(runs: dict[str, Callable[[], object]], calls: int, repeat: int = 7) -> dict[str, float]:
    """Best time per call of each run, the runs taking turns in every pass (a loaded machine slows all alike)."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeat):
        for what, run in runs.items():
            start = time.perf_counter()
            done = run()
            if isinstance(done, Awaitable):
                await done
            best[what] = min(best[what], time.perf_counter() - start)
    return {what: t / calls * 1e9 for what, t in best.items()}


def inspect_pairs() -> list[tuple[str, sb.Scorer, Any, Callable[[str, str], bool]]]:
    from inspect_ai.scorer import answer, exact, includes, match, pattern

    return [
        ("detect_includes()", sb.detect_includes(), includes(), bare_includes),
        ("detect_match()", sb.detect_match(), match(), bare_match),
        ("detect_pattern(r'(\\d+)')", sb.detect_pattern(r"(\d+)"), pattern(r"(\d+)"), bare_pattern),
        ("detect_answer('line')", sb.detect_answer(), answer("line"), bare_answer),
        ("detect_exact()", sb.detect_exact(), exact(), bare_exact),
    ]


def guarded_pairs() -> list[tuple[str, sb.Scorer, Any, Callable[[str, str], bool]]]:
    """A pattern of three repeats, on outputs it searches with the regex package's timeout set (`REASONED`)."""
    from inspect_ai.scorer import pattern

    vitals = r"ANSWER\s*:\s*(.+)$"
    return [(f"detect_pattern(r'{vitals}')", sb.detect_pattern(vitals), pattern(vitals), bare_answer)]


async def measure(
    pairs: list[tuple[str, sb.Scorer, Any, Callable[[str, str], bool]]], outputs: list[str] = OUTPUTS
) -> list[tuple[str, float, float, float, float]]:
    from inspect_ai.model import ModelName, ModelOutput
    from inspect_ai.scorer import Target
    from inspect_ai.solver import TaskState

    data = rows(outputs)
    n = len(data)
    states = {
        o: TaskState(
            model=ModelName("mockllm/model"),
            sample_id=1,
            epoch=1,
            input="",
            messages=[],
            output=ModelOutput.from_content(model="mockllm/model", content=o),
        )
        for o in outputs
    }
    targets = {lab: Target(lab) for lab in LABELS}
    inspect_rows = [(states[o], targets[lab]) for o, lab in data]
    results = []
    for what, ours, theirs, bare in pairs:

        def sync_ours(ours: sb.Scorer = ours) -> None:
            for o, lab in data:
                ours(None, o, lab)

        async def async_ours(ours: sb.Scorer = ours) -> None:
            for o, lab in data:
                await ours.acall(None, o, lab)

        async def inspect_loop(theirs: Any = theirs) -> None:
            for state, target in inspect_rows:
                await theirs(state, target)

        def bare_loop(bare: Callable[[str, str], bool] = bare) -> None:
            for o, lab in data:
                bare(o, lab)

        runs: dict[str, Callable[[], object]] = {
            "ours": sync_ours,
            "async": async_ours,
            "inspect": inspect_loop,
            "bare": bare_loop,
        }
        t = await best_ns(runs, n)
        t_ours, t_async, t_inspect, t_bare = t["ours"], t["async"], t["inspect"], t["bare"]
        results.append((what, t_ours, t_async, t_inspect, t_bare))
    return results


def main() -> None:
    scratch = tempfile.mkdtemp(prefix="bench_detect_")
    for var in ("INSPECT_LOG_DIR", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        os.environ[var] = scratch
    results = asyncio.run(measure(inspect_pairs()))
    guarded = asyncio.run(measure(guarded_pairs(), REASONED))
    python = sys.version.split()[0]
    print(f"{len(rows())} (output, label) pairs per pass, best of 7 interleaved passes, Python {python}")
    columns = ("ours", "ours(a)", "Inspect", "bare", "Inspect/ours", "ours/bare")
    print(f"{'scorer':26s}" + "".join(f"{c:>13s}" for c in columns))
    print(f"{'':26s}" + "".join(f"{'ns/call':>13s}" for _ in columns[:4]))
    slower = []
    for what, t_ours, t_async, t_inspect, t_bare in results:
        times = "".join(f"{t:13.0f}" for t in (t_ours, t_async, t_inspect, t_bare))
        print(f"{what:26s}{times}{t_inspect / t_ours:12.2f}x{t_ours / t_bare:12.2f}x")
        if max(t_ours, t_async) >= t_inspect:
            slower.append(what)
    print("ours(a) = `await scorer.acall(...)` in the same event loop as Inspect's scorer.")
    print("bar: ours faster than Inspect AI per call:", "MET" if not slower else f"NOT MET for {', '.join(slower)}")
    print()
    work = bounded_work(guarded_pairs()[0][1].options["pattern"])
    assert work is not None
    print("the price of the deadline: on a text longer than a pattern's worst case allows, a search sets the")
    print("regex package's timeout (two reads of the process's CPU clock, about 1 µs). Here the longest text")
    print(f"searched without it is {longest_unguarded(work, 1.0)} characters; each output has")
    print(f"{len(REASONED[0]) - len(OUTPUTS[0])} characters of reasoning before it")
    for what, t_ours, t_async, t_inspect, t_bare in guarded:
        times = "".join(f"{t:13.0f}" for t in (t_ours, t_async, t_inspect, t_bare))
        print(f"{what:26s}{times}{t_inspect / t_ours:12.2f}x{t_ours / t_bare:12.2f}x")


# --- the regex deadline, in wall-clock time -------------------------------------------------


def _load(kind: str) -> tuple[Callable[[], None], Callable[[], None]]:
    """Start three busy threads of `kind` ("python": holding the GIL in turns; "hashing": without it)."""
    import hashlib
    import threading

    stop = threading.Event()
    data = b"x" * 1_000_000

    def python() -> None:
        n = 0
        while not stop.is_set():
            n += 1

    def hashing() -> None:
        while not stop.is_set():
            hashlib.sha256(data).digest()

    threads = [threading.Thread(target=python if kind == "python" else hashing, daemon=True) for _ in range(3)]

    def start() -> None:
        for t in threads:
            t.start()

    def end() -> None:
        stop.set()
        for t in threads:
            t.join()

    return start, end


def _timed(scorer: sb.Scorer, output: str) -> tuple[float, str]:
    start = time.perf_counter()
    score = scorer(None, output, "x")
    return time.perf_counter() - start, str(score.failure_kind)


def _legitimate_length() -> int:
    """The n for which `(a+)+$` on n "a"s and a "!" runs about 0.5 s here (it doubles with each "a")."""
    import regex

    compiled = regex.compile(r"(a+)+$")
    n = 16
    while True:
        start = time.process_time()
        compiled.search("a" * n + "!")
        took = time.process_time() - start
        if took >= 0.3:
            return n if took <= 0.75 else n - 1
        n += 1


def deadline_wall_times() -> None:
    catastrophic = sb.detect_pattern(r"(a+)+$", timeout=1.0)
    coarse = sb.detect_pattern(r"(\w+)\s+(\w+)", timeout=1.0)
    hostile, huge = "a" * 50_000 + "!", "a" * 10_000_000 + "!"
    legit = "a" * _legitimate_length() + "!"
    alone, _ = _timed(sb.detect_pattern(r"(a+)+$", timeout=30.0), legit)
    print(f"detect_pattern deadline, wall-clock seconds (timeout=1; a legitimate search takes {alone:.2f} s alone)")
    print(f"{'search':44s}{'alone':>14s}{'3 Python threads':>20s}{'3 hashing threads':>20s}")
    cases = [
        ("(a+)+$ on 50 000 a's and '!'", catastrophic, hostile),
        ("(\\w+)\\s+(\\w+) on 10 MB", coarse, huge),
        (f"legitimate: (a+)+$ on {len(legit) - 1} a's and '!'", catastrophic, legit),
    ]
    for what, scorer, text in cases:
        cells = []
        for kind in ("none", "python", "hashing"):
            start_load, end_load = _load(kind) if kind != "none" else (lambda: None, lambda: None)
            start_load()
            try:
                took, verdict = _timed(scorer, text)
            finally:
                end_load()
            cells.append(f"{took:6.2f} {verdict[:7]:>7s}")
        print(f"{what:44s}" + "".join(f"{c:>20s}" if i else f"{c:>14s}" for i, c in enumerate(cells)))
    import regex

    print("the worst searches without the package's timeout, on the longest text each is given (bound 100 ms):")
    for worst in ("a.*x", "a*a*x", "a*a*a*x", "(a|a)" * 8 + "x"):
        work = bounded_work(worst)
        assert work is not None
        longest = longest_unguarded(work, 1.0)
        search = searcher(regex.compile(worst), 1.0)
        start = time.perf_counter()
        search("a" * longest)
        took = time.perf_counter() - start
        print(f"  {worst:44s} on {longest:6d} a's: {took * 1000:6.1f} ms")
    start = time.perf_counter()
    scores = catastrophic.score_many(None, [hostile] * 32, ["x"] * 32, concurrency=32)
    took = time.perf_counter() - start
    errors = sum(s.failure_kind == "error" for s in scores)
    print(f"32 catastrophic outputs, score_many(concurrency=32): {took:.2f} s ({errors} recorded 'error')")


if __name__ == "__main__":
    if sys.argv[1:] == ["deadline"]:
        deadline_wall_times()
    else:
        main()
