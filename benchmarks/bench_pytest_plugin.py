"""What the pytest-scorebridge plugin costs a run that does not use it.

    uv run python benchmarks/bench_pytest_plugin.py

Prints three measurements, each in fresh interpreters:

1. the plugin's load time: `import pytest_scorebridge._plugin` after `import
   pytest` (what pytest pays when it loads the entry point), best and median
   wall time;
2. `pytest --collect-only` of a generated suite that does not use the plugin
   (500 plain tests in 20 files), with the plugin and with `-p no:scorebridge`;
3. a full run of that suite, the same two ways.

Runs 2 and 3 are timed as the CPU time of the pytest process (user + system),
alternating with and without the plugin, medians of 5.

The bar: the plugin loads in under 50 ms, and the unrelated suite's
collection and run cost the same within noise (ratio about 1.00). Both pytest
runs leave out the hypothesis and anyio plugins (slow to load here, and the
same either way) so the difference is easier to see.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

FILES, TESTS = 20, 25
LOAD = "import time, pytest; t = time.perf_counter(); import pytest_scorebridge._plugin; print(time.perf_counter() - t)"
COMMON = ["-q", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:anyio"]


def load_seconds() -> float:
    out = subprocess.run([sys.executable, "-c", LOAD], capture_output=True, text=True, check=True).stdout
    return float(out)


def make_suite(root: Path) -> None:
    (root / "pytest.ini").write_text("[pytest]\n")  # keep the repository's own configuration out
    for f in range(FILES):
        body = "\n".join(f"def test_{t}():\n    assert {t} + {f} == {t + f}\n" for t in range(TESTS))
        (root / f"test_unrelated_{f}.py").write_text(body)


def pytest_seconds(root: Path, *args: str) -> float:
    """The CPU time (user + system) of one pytest process: steadier than wall time on a busy machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "pytest", *COMMON, *args], cwd=root, capture_output=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def paired(with_it: Callable[[], float], without: Callable[[], float], repeat: int) -> tuple[list[float], list[float]]:
    """Alternate the two, so drift in the machine's speed hits both alike."""
    a: list[float] = []
    b: list[float] = []
    for _ in range(repeat):
        a.append(with_it())
        b.append(without())
    return a, b


def row(what: str, with_it: list[float], without: list[float]) -> str:
    w, wo = statistics.median(with_it), statistics.median(without)
    return f"{what:34s} {wo * 1e3:10.1f} {w * 1e3:10.1f} {w / wo:7.3f}x {(w - wo) * 1e3:+9.1f}"


def main() -> None:
    loads = [load_seconds() for _ in range(15)]
    best, median = min(loads) * 1e3, statistics.median(loads) * 1e3
    print(f"plugin load (import after pytest): best {best:.2f} ms, median {median:.2f} ms")
    print("  bar: under 50 ms")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_suite(root)
        pytest_seconds(root, "--collect-only")  # warm the file system cache and the bytecode
        collect = paired(
            lambda: pytest_seconds(root, "--collect-only"),
            lambda: pytest_seconds(root, "--collect-only", "-p", "no:scorebridge"),
            repeat=5,
        )
        run = paired(lambda: pytest_seconds(root), lambda: pytest_seconds(root, "-p", "no:scorebridge"), repeat=5)
    print(f"\nan unrelated suite of {FILES * TESTS} tests, median CPU ms of the pytest process")
    print(f"{'what':34s} {'without':>10s} {'with':>10s} {'ratio':>8s} {'diff ms':>9s}")
    print(row("pytest --collect-only", *collect))
    print(row("pytest (full run)", *run))
    print("  bar: no measurable cost (ratio within noise of 1.00)")


if __name__ == "__main__":
    main()
