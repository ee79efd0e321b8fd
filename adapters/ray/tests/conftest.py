"""A real local Ray for the Ray adapter's tests: started once per test session (per xdist worker), never mocked.

Each pytest process (each xdist worker) starts its own Ray (`address="local"`,
so never a cluster that happens to run on the machine) with 2 CPUs, no
dashboard, a small object store and a temporary folder of its own, so two
workers never share or fight over one; it is shut down and its folder removed
when the session ends. Ray's `uv run` integration is turned off before Ray is
imported: it would copy the working directory for the workers and have each
build a uv environment there (a gigabyte, and seconds per start).
"""

from __future__ import annotations

import os

os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")

import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import ray
import ray.data

# two_nodes.py (the two-node cluster) is imported by name by test_cluster.py, under importlib mode
if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "cluster: on a two-node Ray cluster of its own (slow); run with -m cluster")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The `cluster` tests run only when asked for (`-m cluster`): they take minutes (.ci/run runs them)."""
    if "cluster" in (config.getoption("-m") or ""):
        return
    later = pytest.mark.skip(reason="a two-node cluster: run with -m cluster (.ci/run does)")
    for item in items:
        if "cluster" in item.keywords:
            item.add_marker(later)


@pytest.fixture(scope="session", autouse=True)
def local_ray(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """A local Ray with 2 CPUs for the whole session; Ray Data quiet (no progress bars). None for a run of the
    `cluster` tests alone, which start a cluster of their own and drive it from other processes."""
    if "cluster" in (request.config.getoption("-m") or "") and "not" not in request.config.getoption("-m"):
        yield {}
        return
    folder = tempfile.mkdtemp(prefix="sbray-")  # short: Ray's socket paths must fit in 107 characters
    if ray.is_initialized():  # started in this process by something run before (a docs example): not ours
        ray.shutdown()
    context = ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        object_store_memory=300 * 1024 * 1024,
        _temp_dir=folder,
        logging_level="ERROR",
        log_to_driver=False,
    )
    data = ray.data.DataContext.get_current()
    data.enable_progress_bars = False
    data.print_on_execution_start = False
    try:
        yield context.address_info
    finally:
        ray.shutdown()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def ordered() -> Iterator[None]:
    """Ray Data keeps the rows in the dataset's order for this test (it does not by default)."""
    options = ray.data.DataContext.get_current().execution_options
    before = options.preserve_order
    options.preserve_order = True
    try:
        yield
    finally:
        options.preserve_order = before


def _bounded(command: Sequence[str], seconds: float, **popen: Any) -> subprocess.CompletedProcess[str]:
    """`command` run to its end within `seconds` (its output captured as text), or the test failed with what it
    printed so far; the command and every process it started (a Ray of its own) killed then, by their group."""
    run = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, **popen
    )
    try:
        out, err = run.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        out, err = run.communicate()
        pytest.fail(
            f"{' '.join(command[-12:])} did not end in {seconds:g} s; its stderr:\n{err[-3000:]}\n{out[-1000:]}"
        )
    return subprocess.CompletedProcess(command, run.returncode, out, err)


@pytest.fixture
def bounded() -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run a command in a process of its own within a time, `bounded(command, seconds, env=...)`: its result, or
    the test failed with the command's stderr so far (pytest-timeout would end the test without it: the cause of
    a slow or hung command was never seen)."""
    return _bounded
