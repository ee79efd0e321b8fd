"""scorebridge_inspect against Inspect AI's own scorers, in the same run, as ratios.

1. Per call, inside Inspect: `to_inspect(exact())` and `to_inspect(detect_includes())`
   awaited directly on prebuilt TaskStates, against Inspect's `includes()`.
   Target: no slower than native (ratio <= 1.0).
2. Per call, outside Inspect: `from_inspect(match())` through `score_many` on
   plain strings, against awaiting `match()` in one loop on the TaskStates
   a caller with strings has to build (the same minimal state). Target: at
   most 1.5x. Also shown: match() on states built in advance (scoring alone).
3. A round trip per call, inside Inspect: `to_inspect(from_inspect(x))` against `x`
   itself, for `match()` (the round trip is `x`) and through the thin wrapper a
   round trip with options gives (`metrics=`). Target: at most 1 us more per call.
4. The wall time of a 200-sample offline eval (mockllm) with each scorer.
5. The wall time of an eval of 32 samples whose output makes `detect_pattern`'s
   regex backtrack catastrophically, `max_samples=32`, a 1 s timeout: the regexes run
   in worker threads, never one after another on Inspect's loop. Target: at most 3 s.

Run: `uv run python benchmarks/bench_inspect.py` (offline; about a minute).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import Callable
from typing import Any

N_CALLS = 2000
ROUNDS = 5
N_SAMPLES = 200
EVAL_ROUNDS = 3

_home = tempfile.mkdtemp(prefix="bench_inspect_")
for _variable in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "INSPECT_LOG_DIR"):
    os.environ[_variable] = _home  # keep Inspect's logs and traces out of the home directory

from inspect_ai import Task, eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.model import ModelName, ModelOutput, ModelUsage  # noqa: E402
from inspect_ai.scorer import Scorer, Target, includes, match, mean  # noqa: E402
from inspect_ai.solver import TaskState, generate  # noqa: E402

import scorebridge as sb  # noqa: E402
from scorebridge.kit import BUILTINS  # noqa: E402
from scorebridge_inspect import from_inspect, to_inspect  # noqa: E402

REPLIES = ["Paris", "The capital is Paris.", "paris", "Lyon", "", "NOT_IN_DOCUMENT", "42", "I think it is 7"]
TARGETS = ["Paris", "Paris", "Paris", "Paris", "Paris", "Paris", "42", "8"]


def rows(n: int) -> tuple[list[str], list[str], list[str]]:
    questions = [f"Question {i}?" for i in range(n)]
    outputs = [REPLIES[i % len(REPLIES)] for i in range(n)]
    labels = [TARGETS[i % len(TARGETS)] for i in range(n)]
    return questions, outputs, labels


def state(question: str, completion: str, n: int) -> TaskState:
    """The minimal TaskState a caller with strings builds to call an Inspect scorer."""
    output = ModelOutput.from_content(model="none/none", content=completion)
    return TaskState(ModelName("none/none"), n, 1, question, [], output=output, sample_uuid=str(n))


def race(contenders: dict[str, Callable[[], Any]]) -> dict[str, float]:
    """Best of ROUNDS wall times per call (seconds), the contenders taking turns each round."""
    times: dict[str, list[float]] = {label: [] for label in contenders}
    for _ in range(ROUNDS):
        for label, fn in contenders.items():
            start = time.perf_counter()
            fn()
            times[label].append(time.perf_counter() - start)
    return {label: min(t) / N_CALLS for label, t in times.items()}


def awaiting(
    loop: asyncio.AbstractEventLoop, scorer: Scorer, states: list[TaskState], targets: list[Target]
) -> Callable[[], Any]:
    async def all_calls() -> None:
        for s, t in zip(states, targets, strict=True):
            await scorer(s, t)

    return lambda: loop.run_until_complete(all_calls())


def building_states(
    loop: asyncio.AbstractEventLoop, scorer: Scorer, data: tuple[list[str], list[str], list[str]]
) -> Callable[[], Any]:
    async def all_calls() -> None:
        for n, (q, o, label) in enumerate(zip(*data, strict=True)):
            await scorer(state(q, o, n), Target(label))

    return lambda: loop.run_until_complete(all_calls())


def us(seconds: float) -> str:
    return f"{seconds * 1e6:7.1f} us"


def in_inspect() -> None:
    print(f"1. per call inside Inspect ({N_CALLS} calls, best of {ROUNDS})")
    questions, outputs, labels = rows(N_CALLS)
    states = [state(q, o, n) for n, (q, o) in enumerate(zip(questions, outputs, strict=True))]
    targets = [Target(label) for label in labels]
    loop = asyncio.new_event_loop()
    ours = {"to_inspect(exact())": to_inspect(sb.exact())}
    if "detect_includes" in BUILTINS:
        ours["to_inspect(detect_includes())"] = to_inspect(BUILTINS["detect_includes"]())
    contenders = {"includes() (Inspect)": awaiting(loop, includes(), states, targets)}
    contenders.update({label: awaiting(loop, scorer, states, targets) for label, scorer in ours.items()})
    times = race(contenders)
    loop.close()
    native = times.pop("includes() (Inspect)")
    print(f"   includes() (Inspect)            {us(native)}")
    for label, t in times.items():
        print(f"   {label:31} {us(t)}   ratio {t / native:.2f}  (target <= 1.0)")


def outside_inspect() -> None:
    print(f"2. per call from plain Python ({N_CALLS} calls, best of {ROUNDS})")
    data = rows(N_CALLS)
    loop = asyncio.new_event_loop()
    states = [state(q, o, n) for n, (q, o) in enumerate(zip(data[0], data[1], strict=True))]
    wrapped = from_inspect(match())
    times = race(
        {
            "native": building_states(loop, match(), data),
            "scoring only": awaiting(loop, match(), states, [Target(label) for label in data[2]]),
            "ours": lambda: wrapped.score_many(*data),
        }
    )
    loop.close()
    print(f"   match() + building the state     {us(times['native'])}")
    print(f"   match() on prebuilt states       {us(times['scoring only'])}")
    ratio = times["ours"] / times["native"]
    print(f"   from_inspect(match()).score_many {us(times['ours'])}   ratio {ratio:.2f}  (target <= 1.5)")


def round_trip() -> None:
    print(f"3. a round trip per call inside Inspect ({N_CALLS} calls, best of {ROUNDS})")
    questions, outputs, labels = rows(N_CALLS)
    states = [state(q, o, n) for n, (q, o) in enumerate(zip(questions, outputs, strict=True))]
    targets = [Target(label) for label in labels]
    loop = asyncio.new_event_loop()
    native = match()
    contenders = {
        "match() (Inspect)": awaiting(loop, native, states, targets),
        "to_inspect(from_inspect(match()))": awaiting(loop, to_inspect(from_inspect(native)), states, targets),
        "... with metrics= (thin wrapper)": awaiting(
            loop, to_inspect(from_inspect(match()), metrics=[mean()]), states, targets
        ),
    }
    times = race(contenders)
    loop.close()
    base = times.pop("match() (Inspect)")
    print(f"   match() (Inspect)                   {us(base)}")
    for label, t in times.items():
        print(f"   {label:35} {us(t)}   +{(t - base) * 1e6:5.2f} us  (target <= +1 us)")


def catastrophic_regexes() -> None:
    n, timeout = 32, 1.0
    print(f"5. an eval of {n} catastrophic-regex samples, max_samples={n}, timeout {timeout} s")
    text = "a" * 30_000 + "!"  # (a+)+$ backtracks on it until stopped

    def reply(messages: Any, *args: Any) -> ModelOutput:
        output = ModelOutput.from_content(model="mockllm/model", content=text)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    scorer = to_inspect(BUILTINS["detect_pattern"](r"(a+)+$", timeout=timeout))
    samples = [Sample(input=f"q{i}", target="a") for i in range(n)]
    start = time.perf_counter()
    [log] = eval(Task(dataset=samples, solver=generate(), scorer=scorer), model="mockllm/model",
                 model_args={"custom_outputs": reply}, max_samples=n, display="none")  # fmt: skip
    wall = time.perf_counter() - start
    assert log.status == "success", log.error
    kinds = {(s.scores or {})["detect_pattern"].metadata.get("failure_kind") for s in log.samples or []}
    print(f"   wall time {wall:5.2f} s (target <= 3 s); failure kinds {sorted(map(str, kinds))}")


def eval_wall_times() -> None:
    print(f"4. wall time of a {N_SAMPLES}-sample offline eval (mockllm), best of {EVAL_ROUNDS}")
    questions, outputs, labels = rows(N_SAMPLES)
    replies = dict(zip(questions, outputs, strict=True))

    def reply(messages: Any, *args: Any) -> ModelOutput:
        output = ModelOutput.from_content(model="mockllm/model", content=replies[messages[-1].text])
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    def run(scorer: Scorer) -> float:
        samples = [Sample(input=q, target=t) for q, t in zip(questions, labels, strict=True)]
        start = time.perf_counter()
        [log] = eval(Task(dataset=samples, solver=generate(), scorer=scorer), model="mockllm/model",
                     model_args={"custom_outputs": reply}, display="none")  # fmt: skip
        assert log.status == "success", log.error
        return time.perf_counter() - start

    run(match())  # the first eval in a process pays a one-off set-up
    scorers: dict[str, Callable[[], Scorer]] = {
        "includes() (Inspect)": includes,
        "match() (Inspect)": match,
        "to_inspect(exact())": lambda: to_inspect(sb.exact()),
    }
    if "detect_includes" in BUILTINS:
        scorers["to_inspect(detect_includes())"] = lambda: to_inspect(BUILTINS["detect_includes"]())
    walls: dict[str, list[float]] = {label: [] for label in scorers}
    for _ in range(EVAL_ROUNDS):  # round robin, so a busy moment hits every scorer alike
        for label, make in scorers.items():
            walls[label].append(run(make()))
    for label, times in walls.items():
        print(f"   {label:31} {min(times):6.2f} s")


def main() -> None:
    in_inspect()
    outside_inspect()
    round_trip()
    eval_wall_times()
    catastrophic_regexes()


if __name__ == "__main__":
    main()
