"""verifiers rewards through `to_verifiers`, against a native verifiers reward of the same check, in one run.

    uv run python benchmarks/bench_verifiers.py

Printed as ratios (lower is better), best of 20 rounds each, the two sides taking turns:

1. v1: a Task whose one reward is `to_verifiers(exact())`, against a Task whose
   one `@vf.reward` method does the same comparison (both sides folded: white
   space collapsed, case folded), each scoring 1,024 rollouts' traces with
   verifiers' own `Task.score`, concurrently as an evaluation does. The bar: at
   most 2x, although `to_verifiers` also reads the label, pre-sorts the reply and
   records the Score in `trace.info` and its failure kind as a metric.
2. legacy: `to_verifiers(exact(), legacy=True)` against a Hub-style rubric
   function of the same check, 1,024 calls as a Rubric makes them (by name,
   chat messages).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from typing import Any

import verifiers.v1 as vf
from verifiers.v1.graph import MessageNode

import scorebridge as sb
from scorebridge_verifiers import to_verifiers

N, ROUNDS, BAR = 1024, 20, 2.0
WORDS = ["Paris", "  paris ", "Lyon", "New  York", "new york", "42", "The answer is 42.", "Berlin\n"]


def folded(text: str) -> str:
    return " ".join(text.split()).casefold()


class Item(vf.TaskData):
    answer: str | None = None


class Native(vf.Task[Item]):
    @vf.reward
    async def exact(self, trace: vf.Trace) -> float:
        return 1.0 if folded(trace.last_reply) == folded(self.data.answer or "") else 0.0


class Bridged(vf.Task[Item]):
    exact = to_verifiers(sb.exact())


def native_legacy(completion: Any, answer: Any, **kwargs: Any) -> float:
    return 1.0 if folded(completion[-1]["content"]) == folded(answer) else 0.0


def rows(rng: random.Random) -> list[tuple[Item, str]]:
    return [(Item(prompt="q", answer=rng.choice(WORDS)), rng.choice(WORDS)) for _ in range(N)]


def traces(made: list[tuple[Item, str]]) -> list[tuple[Item, vf.Trace]]:
    out = []
    for data, reply in made:
        trace = vf.Trace(task=vf.TraceTask(type="T", data=data), agent=vf.AgentInfo(config=vf.AgentConfig()))
        trace.nodes = [MessageNode(message=vf.UserMessage(content="q")),
                       MessageNode(parent=0, message=vf.AssistantMessage(content=reply), sampled=True)]  # fmt: skip
        out.append((data, trace))
    return out


def scoring(task_type: type[vf.Task[Item]], made: list[tuple[Item, vf.Trace]]) -> Callable[[], float]:
    tasks = [(task_type(data), trace) for data, trace in made]

    async def all_of() -> None:
        await asyncio.gather(*(task.score(trace) for task, trace in tasks))

    def once() -> float:
        start = time.perf_counter()
        asyncio.run(all_of())
        return time.perf_counter() - start

    return once


def calling(reward: Callable[..., Any], made: list[tuple[Item, str]]) -> Callable[[], float]:
    calls = [({"completion": [{"role": "assistant", "content": r}], "answer": d.answer, "prompt": "q",
               "state": {}, "task": "default", "info": {}}) for d, r in made]  # fmt: skip

    def once() -> float:
        start = time.perf_counter()
        for kwargs in calls:
            reward(**kwargs)
        return time.perf_counter() - start

    return once


def best_of(a: Callable[[], float], b: Callable[[], float]) -> tuple[float, float]:
    ta, tb = [], []
    for _ in range(ROUNDS):
        ta.append(a())
        tb.append(b())
    return min(ta), min(tb)


def main() -> None:
    made = rows(random.Random(0))
    native_traces, bridged_traces = traces(made), traces(made)
    nat, ours = best_of(scoring(Native, native_traces), scoring(Bridged, bridged_traces))
    same = [t.rewards["exact"].score for _, t in native_traces] == [t.rewards["exact"].score for _, t in bridged_traces]
    print(f"v1 Task.score, {N} traces: native {nat * 1e3:.1f} ms, to_verifiers(exact()) {ours * 1e3:.1f} ms, "
          f"ratio {ours / nat:.2f}x (bar {BAR}x); same rewards: {same}")  # fmt: skip
    nat_l, ours_l = best_of(calling(native_legacy, made), calling(to_verifiers(sb.exact(), legacy=True), made))
    print(f"legacy calls, {N} completions: native {nat_l * 1e3:.2f} ms, to_verifiers(exact(), legacy=True) "
          f"{ours_l * 1e3:.2f} ms, ratio {ours_l / nat_l:.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
