"""Where the MLflow harness of `scorebridge demo` spends its time: each step alone, in the order it is paid.

    uv run python benchmarks/bench_demo_mlflow.py

In a fresh process (bytecode cached, as in a warm demo), with Inspect AI and DSPy
imported first as the demo does, each step is timed alone, wall and CPU:

1. `import mlflow`;
2. the imports `mlflow.genai.evaluate` makes on its first call: its evaluation
   harness imports litellm (for the LLM judges) and then the Databricks SDK, both
   in the main thread so that its worker threads never import (MLflow's comment:
   an import in many threads at once can deadlock);
3. a tracking store on a new sqlite file (MLflow makes its tables and runs its
   schema migrations), then on the same file again (it only checks the schema);
4. the demo's evaluation (7 rows, 3 scorers through `to_mlflow`) on a new store,
   then on the store of the step before, then once more.

The CPU time is the process's (every thread); on a shared machine the wall time
follows the load, which is printed.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import logging
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from scorebridge._cli import demo

T = TypeVar("T")


def step(label: str, fn: Callable[[], T]) -> T:
    wall, cpu = time.perf_counter(), time.process_time()
    got = fn()
    print(f"  {label:62} {time.perf_counter() - wall:6.2f} s wall  {time.process_time() - cpu:6.2f} s CPU", flush=True)
    return got


def main() -> None:
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    scorers = step("import Inspect AI and DSPy, make the demo's scorers", demo.demo_scorers)
    step("import mlflow", lambda: importlib.import_module("mlflow"))
    step("evaluate's first-call import: litellm", lambda: importlib.import_module("litellm"))
    step(
        "evaluate's first-call import: the rest of its harness",
        lambda: importlib.import_module("mlflow.genai.evaluation.harness"),
    )
    step("evaluate's first-call import: the Databricks SDK", lambda: importlib.import_module("databricks.sdk"))
    import mlflow
    from mlflow.store.tracking.sqlalchemy_store import SqlAlchemyStore

    logging.getLogger("mlflow").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as folder:
        kept, new = Path(folder) / "kept", Path(folder) / "new"
        store = kept / "scorebridge" / "demo" / f"mlflow-{mlflow.__version__}.db"  # where the demo keeps it
        store.parent.mkdir(parents=True)
        new.mkdir()
        uri = f"sqlite:///{store}"
        step("a store on a new sqlite file (tables, schema migrations)", lambda: SqlAlchemyStore(uri, folder))
        step("a store on the same file again (the schema checked)", lambda: SqlAlchemyStore(uri, folder))

        def evaluate(cache: Path) -> object:
            os.environ["XDG_CACHE_HOME"] = str(cache)  # the demo's cache folder
            with contextlib.redirect_stderr(io.StringIO()):
                return demo._by_mlflow(scorers, Path(folder))

        step("the demo's evaluation, first call, on a new store", lambda: evaluate(new))
        step("the demo's evaluation on the kept store", lambda: evaluate(kept))
        step("the demo's evaluation on the kept store, again", lambda: evaluate(kept))


if __name__ == "__main__":
    main()
