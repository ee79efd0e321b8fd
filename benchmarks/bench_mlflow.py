"""scorebridge_mlflow against MLflow's own @scorer functions, in the same run, as ratios.

1. Per call: `to_mlflow(exact())` against an equivalent native `@scorer` function
   (the same normalised comparison, a Feedback with the same value and failure
   kind), each called as MLflow's harness calls a scorer per row (`Scorer.run`:
   name-based arguments, the per-call timeout thread), and called directly (the
   scorer alone). Target: at most 1.2x through `run`. Also shown: against a
   native function returning a bare bool (no rationale, no failure kind).
2. The wall time of `mlflow.genai.evaluate` on 500 static rows, on a sqlite store,
   with each scorer. Target: at most 1.05x.

Run: `uv run python benchmarks/bench_mlflow.py` (offline; a few minutes on 2 cores).
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("TQDM_DISABLE", "1")
# MLflow's threads (10 predicting, 10 scoring) write every row's trace and assessments to a sqlite store,
# which takes one writer at a time: at MLflow's defaults, hundreds of rows stall on its locks and its pool
# and lose assessments. docs/mlflow.md says to set this on a sqlite store.
os.environ.setdefault("MLFLOW_GENAI_EVAL_MAX_WORKERS", "1")

import mlflow
from mlflow.entities import Feedback
from mlflow.genai.scorers import Scorer, scorer

import scorebridge as sb
from scorebridge_mlflow import to_mlflow

N_CALLS = 1000
ROUNDS = 10
N_ROWS = 500
EVAL_ROUNDS = 2

REPLIES = ["Paris", "The capital is Paris.", "paris", "Lyon", "", "NOT_IN_DOCUMENT", "42", "I think it is 7"]
TARGETS = ["Paris", "Paris", "Paris", "Paris", "Paris", "Paris", "42", "8"]


@scorer(name="native_exact")
def native_exact(outputs, expectations):
    """exact() written as a native MLflow scorer: the same comparison, value and failure kind."""
    expected = expectations.get("expected_response") if expectations else None
    if expected is None:
        return None
    text = outputs if isinstance(outputs, str) else ""
    if not text.strip():
        return Feedback(value=0.0, metadata={"failure_kind": "parse_failure"})
    if text.strip().upper() == "NOT_IN_DOCUMENT":
        return Feedback(value=0.0, metadata={"failure_kind": "not_in_document"})
    ok = " ".join(text.split()).casefold() == " ".join(str(expected).split()).casefold()
    return Feedback(value=1.0 if ok else 0.0, metadata=None if ok else {"failure_kind": "wrong"})


@scorer(name="native_bool")
def native_bool(outputs, expectations) -> bool:
    """The least a native scorer can do: a bare bool."""
    return " ".join(str(outputs).split()).casefold() == " ".join(expectations["expected_response"].split()).casefold()


def rows(n: int) -> list[dict[str, Any]]:
    return [
        {
            "inputs": {"question": f"Question {i}?"},
            "outputs": REPLIES[i % len(REPLIES)],
            "expectations": {"expected_response": TARGETS[i % len(TARGETS)]},
        }
        for i in range(n)
    ]


def race(contenders: dict[str, Callable[[], Any]], rounds: int, per: int) -> dict[str, float]:
    """Best of `rounds` wall times (seconds, divided by `per`), the contenders taking turns each round,
    in the other order every other round (the first to run after another pays for the machine's noise)."""
    times: dict[str, list[float]] = {label: [] for label in contenders}
    for n in range(rounds):
        order = list(contenders.items())
        for label, fn in order if n % 2 == 0 else reversed(order):
            start = time.perf_counter()
            fn()
            times[label].append(time.perf_counter() - start)
    return {label: min(t) / per for label, t in times.items()}


def calls(made: Scorer, data: list[dict[str, Any]], direct: bool) -> Callable[[], None]:
    def all_calls() -> None:
        for row in data:
            if direct:
                made(outputs=row["outputs"], expectations=row["expectations"])
            else:
                made.run(inputs=row["inputs"], outputs=row["outputs"], expectations=row["expectations"])

    return all_calls


def check_equivalent(ours: Scorer, data: list[dict[str, Any]]) -> None:
    for row in data:
        a = ours(outputs=row["outputs"], expectations=row["expectations"])
        b = native_exact(outputs=row["outputs"], expectations=row["expectations"])
        assert a.value == b.value and (a.metadata or {}).get("failure_kind") == (b.metadata or {}).get("failure_kind")


def main() -> None:
    logging.getLogger("mlflow").setLevel(logging.ERROR)
    ours = to_mlflow(sb.exact())
    data = rows(N_CALLS)
    check_equivalent(ours, data[: len(REPLIES)])
    print(f"1. per call, {N_CALLS} calls, best of {ROUNDS}")
    for direct in (False, True):
        how = "called directly" if direct else "Scorer.run, as evaluate calls it"
        t = race(
            {
                "to_mlflow(exact())": calls(ours, data, direct),
                "native @scorer": calls(native_exact, data, direct),
                "native @scorer, bool": calls(native_bool, data, direct),
            },
            ROUNDS,
            N_CALLS,
        )
        ratio = t["to_mlflow(exact())"] / t["native @scorer"]
        print(f"   {how}:")
        for label, seconds in t.items():
            print(f"     {label:24} {seconds * 1e6:8.1f} us")
        print(f"     ratio ours / native      {ratio:8.2f}   (vs a bare bool: {ours_vs(t):.2f})")

    with tempfile.TemporaryDirectory(prefix="bench_mlflow_") as folder:
        os.chdir(folder)
        mlflow.set_tracking_uri(f"sqlite:///{folder}/mlflow.db")
        mlflow.set_experiment("bench")
        table = rows(N_ROWS)
        mlflow.genai.evaluate(data=table[:10], scorers=[ours, native_exact])  # warm: the store, the imports
        t = race(
            {
                "to_mlflow(exact())": lambda: mlflow.genai.evaluate(data=table, scorers=[ours]),
                "native @scorer": lambda: mlflow.genai.evaluate(data=table, scorers=[native_exact]),
            },
            EVAL_ROUNDS,
            1,
        )
        mlflow.set_tracking_uri(None)
    print(f"2. mlflow.genai.evaluate, {N_ROWS} rows, best of {EVAL_ROUNDS}")
    for label, seconds in t.items():
        print(f"     {label:24} {seconds:8.2f} s")
    print(f"     ratio ours / native      {t['to_mlflow(exact())'] / t['native @scorer']:8.2f}")


def ours_vs(t: dict[str, float]) -> float:
    return t["to_mlflow(exact())"] / t["native @scorer, bool"]


if __name__ == "__main__":
    main()
