"""`scorebridge demo`: its wall time warm, as a newcomer runs it; the figure README.md gives.

    uv run python benchmarks/bench_demo.py            # a warm-up run, then 3 timed runs: each, and the median
    uv run python benchmarks/bench_demo.py --runs 5
    uv run python benchmarks/bench_demo.py --record   # and write benchmarks/bench_demo.json

Runs the console script `scorebridge demo` in a fresh process each time, as a user
would, and times it from outside (Python's start-up included). Warm means a second
run: Python's bytecode cached (the runs do not inherit PYTHONDONTWRITEBYTECODE, which
would make every run compile what it imports) and the demo's MLflow store made (in
the cache folder, `scorebridge._cli.demo.cache_folder()`). The warm-up run is shown
too, not counted. Each run's CPU time (user + system, its processes together) and the
load average before it are printed: on a shared machine the wall time follows the
load; the CPU time much less.

Each run must exit 0 (every harness agreeing). `--record` writes the runs, the median,
the load and the machine's core count to benchmarks/bench_demo.json, the file
tests/test_demo.py holds README.md's and docs/cli.md's figures to (within 20%). It
then prints README's figure beside the median, so a figure gone stale is seen.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "benchmarks" / "bench_demo.json"
SCRIPT = Path(sys.executable).parent / "scorebridge"
README_FIGURE = re.compile(r"uv run scorebridge demo .*\((\d+(?:\.\d+)?) s warm")


def readme_figure(text: str) -> float:
    """The demo's warm seconds README.md gives, on the line of its `uv run scorebridge demo` command."""
    found = README_FIGURE.search(text)
    if found is None:
        raise ValueError("README.md's `uv run scorebridge demo` line gives no '(N s warm' figure")
    return float(found.group(1))


def one_run() -> tuple[float, float, float, str]:
    """The wall and CPU seconds of one `scorebridge demo`, the 1-minute load before it, and its last line."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    env.setdefault("HF_HUB_OFFLINE", "1")
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([str(SCRIPT), "demo"], capture_output=True, text=True, env=env, timeout=900)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"scorebridge demo exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return wall, cpu, load, done.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="timed runs after the warm-up (default 3)")
    parser.add_argument("--record", action="store_true", help=f"write the figures to {RECORD.relative_to(ROOT)}")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, Python {platform.python_version()}")
    wall, cpu, load, last = one_run()
    print(f"warm-up  {wall:6.1f} s wall  {cpu:6.1f} s CPU  load {load:5.2f}  ({last})")
    runs = []
    for i in range(args.runs):
        wall, cpu, load, last = one_run()
        runs.append({"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "load": round(load, 2)})
        print(f"run {i + 1}    {wall:6.1f} s wall  {cpu:6.1f} s CPU  load {load:5.2f}  ({last})")
    median = statistics.median(r["wall_s"] for r in runs)
    print(f"median   {median:6.1f} s wall  {statistics.median(r['cpu_s'] for r in runs):6.1f} s CPU")
    readme = readme_figure((ROOT / "README.md").read_text(encoding="utf-8"))
    off = abs(readme - median) / median
    print(f"README.md says {readme:g} s warm: {off:.0%} from this median ({'within' if off <= 0.2 else 'beyond'} 20%)")
    if args.record:
        record = {
            "command": "uv run python benchmarks/bench_demo.py --record",
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "runs": runs,
            "median_wall_s": median,
        }
        RECORD.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {RECORD.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
