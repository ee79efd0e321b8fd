"""A real two-node Ray cluster on this machine: two raylets started with `ray start`, 1 CPU each, on 127.0.0.1.

The head has the custom resource `head`, the worker node `worker`, so a test can
see where work ran (`ray.get_runtime_context().get_node_id()`) and pin it. Every
process of the cluster has the cluster's own temporary folder in its command
line; the cluster is torn down by killing those processes by their id, never by
name (other Rays may run on the machine), and the folder is removed.

Ray 2.60 turns token authentication on for a cluster when `~/.ray/auth_token`
exists (another local Ray may have made it); the cluster and its drivers run
with RAY_AUTH_MODE=disabled. The head finds a lost node within about 3 seconds
(health checks each 500 ms, 5 missed).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))

BASE_ENV = {
    "RAY_AUTH_MODE": "disabled",
    "RAY_ENABLE_UV_RUN_RUNTIME_ENV": "0",
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_health_check_period_ms": "500",
    "RAY_health_check_timeout_ms": "500",
    "RAY_health_check_failure_threshold": "5",
    "RAY_raylet_start_wait_time_s": "120",  # a shared machine under load starts a raylet slowly
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pids_with(text: str) -> set[int]:
    """The processes whose command line holds `text` (the cluster's folder)."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if text.encode() in f.read():
                    found.add(int(entry))
        except OSError:
            continue
    return found


def _kill(pids: set[int], sig: int = signal.SIGKILL) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


class TwoNodes:
    """The cluster: `address` (HOST:PORT), `env` (what a driver needs: RAY_ADDRESS and the settings above)."""

    def __init__(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="sb2n-")  # short: Ray's socket paths must fit in 107 characters
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.env = {**os.environ, **BASE_ENV, "RAY_ADDRESS": self.address}
        self.worker_pids: set[int] = set()

    def _start(self, *options: str) -> None:
        ports = [_free_port() for _ in range(4)]
        command = [
            RAY,
            "start",
            "--node-ip-address",
            "127.0.0.1",
            "--num-cpus",
            "1",
            "--object-store-memory",
            str(80 * 1024 * 1024),
            "--disable-usage-stats",
            "--dashboard-agent-listen-port",
            str(ports[0]),
            "--dashboard-agent-grpc-port",
            str(ports[1]),
            "--runtime-env-agent-port",
            str(ports[2]),
            "--metrics-export-port",
            str(ports[3]),
            *options,
        ]
        done = subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=180)
        if done.returncode != 0:
            raise RuntimeError(f"ray start failed: {done.stderr[-3000:]}")

    def start(self) -> TwoNodes:
        """The head, then the worker node; a start that fails leaves nothing running (`stop`)."""
        try:
            self._start_both()
        except BaseException:
            self.stop()
            raise
        return self

    def _start_both(self) -> None:
        self._start(
            "--head",
            "--port",
            str(self.port),
            "--include-dashboard",
            "false",
            "--temp-dir",
            self.folder,
            "--resources",
            '{"head": 1}',
        )
        self.start_worker()

    def start_worker(self) -> None:
        """A worker node (1 CPU, the resource `worker`) joined to the head; its processes kept by id."""
        before = _pids_with(self.folder)
        for attempt in range(3):  # a loaded machine may not register the raylet in Ray's 30 s: start it again
            try:
                self._start("--address", self.address, "--resources", '{"worker": 1}')
                break
            except RuntimeError:
                _kill(_pids_with(self.folder) - before)
                if attempt == 2:
                    raise
        self.worker_pids = _pids_with(self.folder) - before
        self.wait_for_nodes(2)

    def alive_nodes(self) -> int:
        code = (
            "import ray; ray.init(logging_level='ERROR', log_to_driver=False); "
            "print(sum(1 for n in ray.nodes() if n['Alive']))"
        )
        done = subprocess.run([sys.executable, "-c", code], env=self.env, capture_output=True, text=True, timeout=120)
        return int(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else -1

    def wait_for_nodes(self, count: int, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while self.alive_nodes() != count:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the cluster did not reach {count} live nodes in {seconds} s")
            time.sleep(1)

    def kill_worker(self) -> None:
        """The worker node lost: its raylet and the node's other processes SIGKILLed, with the actors it ran."""
        raylets = {p for p in self.worker_pids if b"raylet/raylet" in Path(f"/proc/{p}/cmdline").read_bytes()}
        _kill(raylets)
        _kill(self.worker_pids)
        self.worker_pids = set()

    def stop(self) -> None:
        mine = _pids_with(self.folder)
        _kill(mine, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while _pids_with(self.folder) and time.monotonic() < deadline:
            time.sleep(0.2)
        _kill(_pids_with(self.folder))
        shutil.rmtree(self.folder, ignore_errors=True)
