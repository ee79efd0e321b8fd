"""What `scorebridge compare` costs on two runs of 100,000 rows each: wall time and peak memory.

    uv run python benchmarks/bench_compare.py [ROWS]

Writes two scored runs in the shape `scorebridge score --out` writes (JSONL,
and the same rows as Parquet), with 1% of the items flipped each way, then
runs `scorebridge compare BASE NEW --format json` as a process of its own,
best of 3, and reads its peak resident memory from the operating system
(`os.wait4`). Beside it, the peak memory of `scorebridge --version` in the
same run: the interpreter's own share. The bars: under 5 s, and a peak under
twice the two files' size. The CPU time is printed too: on a machine shared
with other work, the wall time is mostly waiting for a core. Parquet holds the
same rows in about a tenth of the bytes, and pyarrow alone takes about 60 MiB,
so its peak is also given against the same rows as JSONL.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def write_runs(folder: Path, rows: int) -> tuple[Path, Path]:
    paths = []
    for side in ("base", "new"):
        path = folder / f"{side}.jsonl"
        with path.open("w", encoding="utf-8") as f:
            for i in range(rows):
                right = i % 7 != 0
                if side == "new" and i % 100 == 1:
                    right = not right
                answer = f"The answer to question {i} is {i * 7 % 1000}."
                row = {
                    "id": f"item-{i:06d}",
                    "question": f"What is the answer to question number {i}? Think it through.",
                    "output": answer if right else f"I believe it is {i % 13}.",
                    "label": answer,
                    "category": ("math", "geography", "history", "science")[i % 4],
                }
                score = {
                    "exact.correct": right,
                    "exact.value": 1.0 if right else 0.0,
                    "exact.grade": "C" if right else "I",
                    "exact.outcome": row["output"],
                    "exact.failure_kind": None if right else "wrong",
                    "exact.explanation": None,
                    "exact.metadata": "{}",
                }
                f.write(json.dumps({"line": i + 1, **row, **score}) + "\n")
        paths.append(path)
    return paths[0], paths[1]


def to_parquet(path: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    target = path.with_suffix(".parquet")
    pq.write_table(pa.Table.from_pylist(rows), target)
    return target


def measure(args: list[str]) -> tuple[float, int, float]:
    """Wall seconds, peak resident bytes and CPU seconds of one process (Linux reports ru_maxrss in KiB)."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 3):
        raise SystemExit(f"{args} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
    scale = 1 if sys.platform == "darwin" else 1024
    return seconds, usage.ru_maxrss * scale, usage.ru_utime + usage.ru_stime


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    command = [sys.executable, "-m", "scorebridge"]
    with tempfile.TemporaryDirectory() as folder:
        base, new = write_runs(Path(folder), rows)
        runs = {"JSONL": (base, new)}
        # In a process of its own: this one stays small, as a child's peak memory counts its parent's before exec
        made = subprocess.run(
            [sys.executable, __file__, "--parquet", str(base), str(new)], capture_output=True, text=True, check=False
        )
        if made.returncode == 0:
            runs["Parquet"] = (base.with_suffix(".parquet"), new.with_suffix(".parquet"))
        else:
            print(f"(Parquet not measured: {made.stderr.strip().splitlines()[-1:]})")
        _, idle, _ = measure([*command, "--version"])
        print(f"{rows:,} rows a run; `scorebridge --version` peaks at {idle / 2**20:.0f} MiB")
        for name, (a, b) in runs.items():
            size = a.stat().st_size + b.stat().st_size
            for extra in ([], ["--group-by", "category"]):
                trials = [measure([*command, "compare", str(a), str(b), "--format", "json", *extra]) for _ in range(3)]
                seconds = min(t for t, _, _ in trials)
                cpu = min(c for _, _, c in trials)
                peak = max(m for _, m, _ in trials)
                shown = " ".join(extra) or "plain"
                as_jsonl = base.stat().st_size + new.stat().st_size
                print(
                    f"{name:8} {shown:20} {seconds:5.2f} s (bar 5 s; CPU {cpu:.2f} s); peak {peak / 2**20:5.0f} MiB = "
                    f"{peak / size:.2f}x the files' {size / 2**20:.0f} MiB (bar 2x); "
                    f"less the interpreter's {(peak - idle) / size:.2f}x"
                    + (f"; {peak / as_jsonl:.2f}x the same rows as JSONL" if name != "JSONL" else "")
                )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--parquet"]:
        for each in sys.argv[2:]:
            to_parquet(Path(each))
    else:
        main()
