"""scorebridge_langsmith against LangSmith's and openevals' own evaluators, in the same run, as ratios.

1. Reverse, per call: `from_langsmith(exact_match)` scoring a row against openevals' `exact_match` called
   directly, as plain Python calls it (the same verdict). The bridge adds the protocol's reading of the
   output and label and the Score's recording rules.
2. Forward, per call: `to_langsmith(exact())` against a native LangSmith evaluator doing the same normalised
   comparison (`{key, score, comment}`), each called as LangSmith calls an evaluator by name.
3. The wall time of an offline `langsmith.evaluate` (`upload_results=False`, a client that reaches nothing
   but 127.0.0.1) over 200 rows with each evaluator, the best of 4 runs each, interleaved. Target: at most 1.05x.

Run: `uv run python benchmarks/bench_langsmith.py` (offline; under a minute on 2 cores).
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable
from typing import Any

os.environ["LANGSMITH_TRACING"] = "false"
os.environ.setdefault("TQDM_DISABLE", "1")

import langsmith
from langsmith.schemas import Example
from openevals.exact import exact_match

import scorebridge as sb
from scorebridge_langsmith import from_langsmith, to_langsmith

N_CALLS = 2000
ROUNDS = 5
N_ROWS = 200
EVAL_ROUNDS = 4

REPLIES = ["Paris", "The capital is Paris.", "paris", "Lyon", "", "NOT_IN_DOCUMENT", "42", "I think it is 7"]
TARGETS = ["Paris", "Paris", "Paris", "Paris", "Paris", "Paris", "42", "8"]


def native_exact(outputs: dict[str, Any], reference_outputs: dict[str, Any]) -> dict[str, Any]:
    """exact() written as a native LangSmith evaluator: the same normalised comparison and failure kind."""
    text, expected = outputs.get("output"), reference_outputs.get("answer")
    if expected is None:
        return {"key": "native_exact", "score": None}
    if not isinstance(text, str) or not text.strip():
        return {"key": "native_exact", "score": 0.0, "comment": "the output is empty"}
    ok = " ".join(text.split()).casefold() == " ".join(str(expected).split()).casefold()
    return {"key": "native_exact", "score": 1.0 if ok else 0.0, "comment": None}


def best(work: Callable[[], None], rounds: int = ROUNDS) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def per_call() -> None:
    pairs = [(REPLIES[i % 8], TARGETS[i % 8]) for i in range(N_CALLS)]
    bridged = from_langsmith(exact_match)
    ours = best(lambda: [bridged("q", o, t) for o, t in pairs] and None)
    theirs = best(lambda: [exact_match(outputs=o, reference_outputs=t) for o, t in pairs] and None)
    print(f"reverse, per call: from_langsmith(exact_match) {ours / N_CALLS * 1e6:.1f} us, exact_match "
          f"{theirs / N_CALLS * 1e6:.1f} us: {ours / theirs:.2f}x")  # fmt: skip
    forward = to_langsmith(sb.exact())
    held = [({"output": o}, {"answer": t}) for o, t in pairs]
    ours = best(lambda: [forward(outputs=o, reference_outputs=t) for o, t in held] and None)
    theirs = best(lambda: [native_exact(outputs=o, reference_outputs=t) for o, t in held] and None)
    print(f"forward, per call: to_langsmith(exact()) {ours / N_CALLS * 1e6:.1f} us, a native evaluator "
          f"{theirs / N_CALLS * 1e6:.1f} us: {ours / theirs:.2f}x")  # fmt: skip


def in_evaluate() -> None:
    data = [
        Example(id=uuid.uuid4(), inputs={"question": f"q{i}", "row": i}, outputs={"answer": TARGETS[i % 8]})
        for i in range(N_ROWS)
    ]
    client = langsmith.Client(api_url="http://127.0.0.1:9", api_key="offline", auto_batch_tracing=False)

    def run(evaluator: Any) -> Callable[[], None]:
        def work() -> None:
            langsmith.evaluate(
                lambda inputs: REPLIES[inputs["row"] % 8], data=data, evaluators=[evaluator], client=client,
                upload_results=False,
            )  # fmt: skip

        return work

    ours_run, theirs_run = run(to_langsmith(sb.exact())), run(native_exact)
    theirs_run()  # LangSmith's first run sets itself up: left out of both
    times: dict[str, list[float]] = {"ours": [], "theirs": []}
    for _ in range(EVAL_ROUNDS):  # interleaved, so both meet the same load on a shared machine
        for which, work in (("ours", ours_run), ("theirs", theirs_run)):
            times[which].append(best(work, 1))
    ours, theirs = min(times["ours"]), min(times["theirs"])
    print(f"langsmith.evaluate, {N_ROWS} rows: to_langsmith(exact()) {ours:.2f} s, a native evaluator "
          f"{theirs:.2f} s: {ours / theirs:.2f}x (target at most 1.05x)")  # fmt: skip


if __name__ == "__main__":
    per_call()
    in_evaluate()
