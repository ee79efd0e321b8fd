"""`mlflow.genai.evaluate` over 1,000 rows: `to_mlflow(exact())` against a native `@scorer`, in the same run.

    uv run python benchmarks/bench_mlflow_evaluate.py              # 1,000 rows, each scorer twice (ABBA)
    uv run python benchmarks/bench_mlflow_evaluate.py --rows 200

On a sqlite store, with what docs/mlflow.md says to set there: `MLFLOW_GENAI_EVAL_MAX_WORKERS=1`
(one thread predicting, one scoring: sqlite takes one writer at a time, and MLflow's
10 and 10 threads at its defaults stall on the store's locks and its pool, losing
assessments); the benchmark sets it unless the environment does, and runs at the
pool's defaults. Each evaluation has a new `sqlite:///` store of its own in a temporary folder
(so no run finds a larger store than another), and the scorers run in the order
ours, native, native, ours, so neither has the machine's quieter minutes; an evaluation of 8 rows with each
comes first, untimed (the first call imports litellm and the Databricks SDK).

Each evaluation must finish (a pool timeout, "QueuePool limit of size 5 overflow 10
reached", would raise), with one assessment of the scorer on every row and the mean
of the rows (3 in 8 correct). Printed: the wall and CPU time, the time per row, the
WARNING and ERROR lines MLflow logged (sqlite's "database is locked", a trace or an
assessment it failed to write: counted, not shown), and the ratio of our time to the
native scorer's. The bar: within 1.05x.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("TQDM_DISABLE", "1")
os.environ.setdefault("MLFLOW_GENAI_EVAL_MAX_WORKERS", "1")  # docs/mlflow.md: what a sqlite store needs

import mlflow
from mlflow.entities import Feedback
from mlflow.genai.scorers import Scorer, scorer

import scorebridge as sb
from scorebridge_mlflow import to_mlflow

SETTINGS = (
    "MLFLOW_GENAI_EVAL_MAX_WORKERS",
    "MLFLOW_GENAI_EVAL_MAX_SCORER_WORKERS",
    "MLFLOW_SQLALCHEMYSTORE_POOL_SIZE",
    "MLFLOW_SQLALCHEMYSTORE_MAX_OVERFLOW",
    "MLFLOW_SQLALCHEMYSTORE_POOLCLASS",
)


OUTPUTS = ("Paris", "The capital is Paris.", " paris ", "Lyon", "", "NOT_IN_DOCUMENT", "42", "It is 7")
LABELS = ("Paris", "Paris", "Paris", "Paris", "Paris", "Paris", "42", "8")  # 3 in 8 correct: rows 0, 2 and 6


def rows(n: int) -> list[dict[str, Any]]:
    """n static rows (no predict_fn), each with its label."""
    k = len(OUTPUTS)
    return [
        {"inputs": {"q": f"q{i}"}, "outputs": OUTPUTS[i % k], "expectations": {"expected_response": LABELS[i % k]}}
        for i in range(n)
    ]


@scorer(name="native")
def native(outputs: Any, expectations: dict[str, Any]) -> Feedback | None:
    """What exact() does, as a native scorer: whitespace and case folded, the same value and failure kind."""
    label = (expectations or {}).get("expected_response")
    if label is None:
        return None
    text = outputs.strip() if isinstance(outputs, str) else ""
    kind = "parse_failure" if not text else "not_in_document" if text.upper() == "NOT_IN_DOCUMENT" else None
    if kind is None and " ".join(text.split()).casefold() == " ".join(label.split()).casefold():
        return Feedback(value=1.0)
    return Feedback(value=0.0, metadata={"failure_kind": kind or "wrong"})


class Counted(logging.Handler):
    """Counts MLflow's WARNING and ERROR records instead of printing them (a trace or an assessment it failed
    to write is a warning)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def evaluate(scorer: Scorer, data: list[dict[str, Any]], counted: Counted) -> tuple[float, float]:
    """The wall and CPU seconds of one evaluation on a new sqlite store, its result checked (MLflow's
    "Evaluation completed" lines not shown)."""
    with tempfile.TemporaryDirectory() as folder:
        mlflow.set_tracking_uri(f"sqlite:///{folder}/mlflow.db")
        # made here, outside the time; its files (MLflow writes a trace there when sqlite is busy) in the folder
        artifacts = Path(folder, "artifacts").as_uri()
        mlflow.set_experiment(
            experiment_id=mlflow.create_experiment(f"bench-{scorer.name}", artifact_location=artifacts)
        )
        start, cpu = time.perf_counter(), time.process_time()
        with contextlib.redirect_stdout(io.StringIO()):
            result = mlflow.genai.evaluate(data=data, scorers=[scorer])
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    values = result.result_df[f"{scorer.name}/value"]
    assert len(values) == len(data) and values.notna().all(), f"{scorer.name}: rows without an assessment"
    expected = sum(1 for i in range(len(data)) if i % 8 in (0, 2, 6)) / len(data)
    assert abs(result.metrics[f"{scorer.name}/mean"] - expected) < 1e-9, result.metrics
    return seconds, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1000)
    args = parser.parse_args()
    settings = ", ".join(f"{name}={os.environ[name]}" for name in SETTINGS if name in os.environ)
    counted = Counted()
    mlflow_logger = logging.getLogger("mlflow")
    mlflow_logger.addHandler(counted)
    mlflow_logger.propagate = False
    for handler in list(mlflow_logger.handlers):
        if handler is not counted:
            mlflow_logger.removeHandler(handler)
    data = rows(args.rows)
    ours = to_mlflow(sb.exact())
    times: dict[str, list[float]] = {ours.name: [], native.name: []}
    cpus: dict[str, list[float]] = {ours.name: [], native.name: []}
    print(f"mlflow {mlflow.__version__}, {args.rows} rows, {os.cpu_count()} cores, {settings}")
    for each in (ours, native):  # the first call's imports (litellm, the Databricks SDK), timed by neither
        evaluate(each, rows(8), counted)
    for each in (ours, native, native, ours):
        before, load = counted.count, os.getloadavg()[0]
        seconds, cpu = evaluate(each, data, counted)
        times[each.name].append(seconds)
        cpus[each.name].append(cpu)
        print(
            f"  {each.name:7} {seconds:7.1f} s  {1000 * seconds / args.rows:6.1f} ms a row  {cpu:6.1f} s CPU  "
            f"load {load:5.2f}  MLflow warnings {counted.count - before}"
        )
    mine, theirs = statistics.mean(times[ours.name]), statistics.mean(times[native.name])
    cpu_ratio = statistics.mean(cpus[ours.name]) / statistics.mean(cpus[native.name])
    print(
        f"to_mlflow(exact()) {1000 * mine / args.rows:.1f} ms a row, native @scorer {1000 * theirs / args.rows:.1f} "
        f"ms a row: {mine / theirs:.2f}x wall (bar 1.05x), {cpu_ratio:.2f}x CPU; no pool timeout, every row assessed"
    )


if __name__ == "__main__":
    main()
