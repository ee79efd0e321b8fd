"""On a real two-node Ray cluster (two raylets on this machine, 1 CPU each): where the work lands, your own code on
the workers, a grader's client made on each worker, SIGTERM and --resume, and a node lost midway.

Slow (a cluster starts in 10 to 40 seconds on a shared machine, and each command run starts a driver): marked
`cluster`, run with `pytest -m cluster adapters/ray/tests` (.ci/run has the step). Each command runs as a user
runs it, `python -m scorebridge score ... --engine ray --address HOST:PORT`, in a process of its own.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from two_nodes import TwoNodes

# pytest's 120 s counts the cluster's start (70 s and more on a loaded 2-core machine) in the first test's time: it
# ended the SIGTERM test midway once. Each test bounds its own commands (180 to 300 s).
pytestmark = [pytest.mark.cluster, pytest.mark.timeout(600)]

ROWS = 3000

# A scorer file that imports a helper module beside it (the workers have neither, unless they are shipped), and
# records the node and process each row was scored on.
SCORER = '''
import os
import time

import ray

import scorebridge as sb
from ext_helper import fold


@sb.scorer
def busy(item, output, label, *, folder: str = ""):
    """Exact match after folding, with {pause} s of work held under the GIL; records where it ran. With a folder,
    its first row waits (60 s at most) until another process has started scoring too."""
    mark = os.path.join(folder, str(os.getpid()))
    if folder and not os.path.exists(mark):
        open(mark, "w").close()
        deadline = time.monotonic() + 60
        while len(os.listdir(folder)) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
    end = time.perf_counter() + {pause}
    while time.perf_counter() < end:
        pass
    node = ray.get_runtime_context().get_node_id()
    return {{"correct": fold(output) == fold(label), "outcome": None, "failure_kind": None,
             "metadata": {{"node": node, "pid": os.getpid()}}}}
'''
HELPER = "def fold(text):\n    return str(text).strip().lower()\n"


def write_scorer(folder: Path, pause: float = 0.0002) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ext_helper.py").write_text(HELPER, encoding="utf-8")
    path = folder / "my_scorer.py"
    path.write_text(SCORER.format(pause=pause), encoding="utf-8")
    return path


def write_data(path: Path, rows: int = ROWS) -> Path:
    lines = [{"output": f" A{i % 7} ", "label": f"a{i % 5}", "topic": f"t{i % 3}"} for i in range(rows)]
    path.write_text("".join(json.dumps(row) + "\n" for row in lines), encoding="utf-8")
    return path


def written(out: Path) -> list[dict[str, Any]]:
    """--out's rows, after its header line."""
    return [r for r in (json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()) if "line" in r]


@pytest.fixture(scope="module")
def cluster() -> Iterator[TwoNodes]:
    nodes = TwoNodes()
    try:
        yield nodes.start()
    finally:
        nodes.stop()


def score(cluster: TwoNodes, *args: str, timeout: float = 240, **popen: Any) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "scorebridge", "score", *args, "--engine", "ray", "--address", cluster.address]
    return subprocess.run(command, env=cluster.env, capture_output=True, text=True, timeout=timeout, **popen)


@pytest.fixture(scope="module")
def spread_run(cluster: TwoNodes, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Any]:
    """3,000 rows scored from the CLI by a scorer file importing its sibling: the data, --out, the run."""
    folder = tmp_path_factory.mktemp("spread")
    scorer = write_scorer(folder / "scorers")
    data = write_data(folder / "data.jsonl")
    out = folder / "scored.jsonl"
    marks = folder / "marks"
    marks.mkdir()
    done = score(
        cluster, str(data), "--scorer", f"{scorer}@busy", "-S", f"folder={marks}", "--out", str(out),
        "--format", "json",
    )  # fmt: skip
    return data, out, done


def test_a_scorer_file_importing_its_sibling_module_runs_on_the_cluster(spread_run: tuple[Path, Path, Any]) -> None:
    # the bug: `from ext_helper import fold` failed on the workers with ModuleNotFoundError
    _, _, done = spread_run
    assert done.returncode == 0, done.stderr[-3000:]


def test_both_nodes_score_blocks(spread_run: tuple[Path, Path, Any]) -> None:
    # the bug: a small input was one block, scored by one actor on one node while the other sat idle
    _, out, done = spread_run
    assert done.returncode == 0, done.stderr[-3000:]
    nodes = {json.loads(row["busy.metadata"])["node"] for row in written(out)}
    assert len(nodes) == 2


def test_each_row_is_written_once_in_the_inputs_order(spread_run: tuple[Path, Path, Any]) -> None:
    _, out, done = spread_run
    assert done.returncode == 0, done.stderr[-3000:]
    assert [row["line"] for row in written(out)] == list(range(1, ROWS + 1))


def test_the_summary_is_the_local_engines(spread_run: tuple[Path, Path, Any]) -> None:
    data, _, done = spread_run
    assert done.returncode == 0, done.stderr[-3000:]
    local = subprocess.run(
        [sys.executable, "-m", "scorebridge", "score", str(data), "--scorer", "exact", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    # busy folds case and spaces as exact(normalise=True) does here: the same verdicts
    on_ray, here = json.loads(done.stdout), json.loads(local.stdout)
    assert {k: v for k, v in on_ray.items() if k != "name"} == {k: v for k, v in here.items() if k != "name"}


def test_rays_logs_stay_off_stdout(spread_run: tuple[Path, Path, Any]) -> None:
    # the bug: Ray's own log lines landed on stdout, mixed with the summary
    _, _, done = spread_run
    assert [json.loads(line)["name"] for line in done.stdout.splitlines()] == ["busy"]


def test_score_dataset_with_a_runtime_env_imports_the_sibling_module(cluster: TwoNodes, tmp_path: Path) -> None:
    # the bug: Ray refused a local working_dir in ray_options ("only supported at the job level")
    scorer = write_scorer(tmp_path / "scorers")
    driver = tmp_path / "driver"  # a folder of its own: Ray puts the script's folder on the workers' path
    driver.mkdir()
    script = driver / "run.py"
    script.write_text(
        textwrap.dedent(f"""
        import importlib.util, json
        import ray, ray.data
        from scorebridge_ray import score_dataset, summarize

        spec = importlib.util.spec_from_file_location("my_scorer", {str(scorer)!r})
        module = importlib.util.module_from_spec(spec)
        import sys; sys.path.insert(0, {str(scorer.parent)!r}); spec.loader.exec_module(module); sys.path.pop(0)
        ray.init(logging_level="ERROR", log_to_driver=False)
        ds = ray.data.from_items([{{"output": " A ", "label": "a"}}, {{"output": "b", "label": "c"}}] * 200)
        scored = score_dataset(ds, module.busy, runtime_env={{"working_dir": {str(scorer.parent)!r}}})
        s = summarize(scored.materialize(), "busy")
        print(json.dumps([s.rows, s.correct]))
        """),
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(script)], env=cluster.env, capture_output=True, text=True, timeout=240, cwd=driver
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == [400, 200]


class _Grader(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat completions endpoint: "GRADE: C" when the answer is Paris, else "GRADE: I"."""

    served = 0

    def do_POST(self) -> None:  # the name http.server calls
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][-1]["content"]
        verdict = "GRADE: C" if "<answer>\nParis\n" in prompt else "GRADE: I"
        reply = {"choices": [{"index": 0, "message": {"role": "assistant", "content": verdict}}]}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        type(self).served += 1

    def log_message(self, *args: Any) -> None:
        pass


GRADED = '''
import httpx

import scorebridge as sb


def make_scorer(base_url: str = ""):
    """model_graded_qa over a bare httpx client (which cannot be pickled): made on each worker."""
    client = httpx.Client(base_url=base_url, timeout=10)

    def grader(prompt):
        reply = client.post("/v1/chat/completions", json={"model": "stub", "messages": [{"role": "user",
                            "content": prompt}]})
        reply.raise_for_status()
        return reply.json()["choices"][0]["message"]["content"]

    return sb.model_graded_qa(grader)
'''


def test_a_factory_with_an_httpx_grader_runs_on_the_cluster_from_the_cli(cluster: TwoNodes, tmp_path: Path) -> None:
    # the bug: file.py@make_scorer was refused, and module:factory was called on the driver, so the client
    # could not be pickled (an uncaught TypeError)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Grader)  # 127.0.0.1 only, stopped below
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        (tmp_path / "graded.py").write_text(GRADED, encoding="utf-8")
        rows = [{"question": "Capital of France?", "output": a, "label": "Paris"} for a in ["Paris", "Lyon"] * 50]
        data = tmp_path / "data.jsonl"
        data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        url = f"http://127.0.0.1:{server.server_address[1]}"
        done = score(
            cluster, str(data), "--scorer", f"{tmp_path / 'graded.py'}@make_scorer", "-S", f"base_url={url}",
            "--format", "json",
        )  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert (summary["rows"], summary["scored"], summary["correct"]) == (100, 100, 50)
    assert _Grader.served == 100


def test_sigterm_keeps_the_finished_blocks_and_resume_completes_each_row_once(
    cluster: TwoNodes, tmp_path: Path
) -> None:
    scorer = write_scorer(tmp_path / "scorers", pause=0.004)  # 3,000 rows at 4 ms: 6 s on 2 actors
    data = write_data(tmp_path / "data.jsonl")
    out = tmp_path / "scored.jsonl"
    command = [sys.executable, "-m", "scorebridge", "score", str(data), "--scorer", f"{scorer}@busy", "--out", str(out)]
    command += ["--engine", "ray", "--address", cluster.address, "--batch-size", "100"]
    run = subprocess.Popen(command, env=cluster.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180
    while (not out.exists() or len(written(out)) < 300) and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.2)
    run.send_signal(signal.SIGTERM)
    _, stderr = run.communicate(timeout=60)
    kept = written(out)
    # 143, as SIGTERM ends a local run: it was 15, Ray's core worker having put its own SIGTERM handler in place of
    # the run's at ray.init (it ended the process at once, without the summary or the "interrupted" line)
    assert run.returncode == 143, stderr[-3000:]
    assert "interrupted by SIGTERM" in stderr, stderr[-3000:]
    assert 300 <= len(kept) < ROWS, stderr[-3000:]
    assert [row["line"] for row in kept] == list(range(1, len(kept) + 1))
    again = score(cluster, str(data), "--scorer", f"{scorer}@busy", "--out", str(out), "--resume", "--format", "json")
    assert again.returncode == 0, again.stderr[-3000:]
    assert sorted(row["line"] for row in written(out)) == list(range(1, ROWS + 1))
    assert json.loads(again.stdout)["rows"] == ROWS


def test_a_lost_worker_node_never_hangs_the_cli(cluster: TwoNodes, tmp_path: Path) -> None:
    # the bug: with the worker node killed, `scorebridge score --engine ray` hung in 2 runs of 3 (420 s, 240 s)
    scorer = write_scorer(tmp_path / "scorers", pause=0.004)
    data = write_data(tmp_path / "data.jsonl")
    out = tmp_path / "scored.jsonl"
    command = [sys.executable, "-m", "scorebridge", "score", str(data), "--scorer", f"{scorer}@busy", "--out", str(out)]
    command += ["--engine", "ray", "--address", cluster.address, "--batch-size", "100", "--stall-timeout", "40"]
    started = time.monotonic()
    run = subprocess.Popen(command, env=cluster.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 180
        while (not out.exists() or len(written(out)) < 200) and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.2)
        cluster.kill_worker()
        _, stderr = run.communicate(timeout=180)  # 40 s without progress at most, and the driver's exit
    finally:
        if run.poll() is None:
            run.kill()
    # the module's last test: it leaves the cluster with the head alone
    took = time.monotonic() - started
    if run.returncode == 0:  # finished on the head: every row once
        assert sorted(row["line"] for row in written(out)) == list(range(1, ROWS + 1))
    else:  # or a clear error, naming what Ray reports
        assert run.returncode == 1 and "no block was scored in 40 s" in stderr, stderr[-3000:]
    assert "Ray lost the node" in stderr, stderr[-3000:]
    assert took < 300, stderr[-3000:]
