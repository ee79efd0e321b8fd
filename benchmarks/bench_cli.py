"""`scorebridge score`: peak memory flat in the number of rows, and the time per row.

    uv run python benchmarks/bench_cli.py            # 10,000 and 1,000,000 rows
    uv run python benchmarks/bench_cli.py --rows 10000 100000

Writes JSONL files of N rows (an output, a label, an item; 3 in 4 correct) to a
temporary folder, then runs the console script on each, as a user would:

    scorebridge score FILE --scorer exact --out scored.jsonl --format json

in a fresh process under `/usr/bin/time -v`, and reads its peak resident memory
(maximum RSS) and wall time. The bar: the peak for 1,000,000 rows within 2x of
the peak for 10,000 rows (the rows are read, scored and written one at a time,
so the memory is that of the interpreter and the scorer, not of the data). The
summary it prints is checked against the rows written (N rows, 3N/4 correct).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = Path(sys.executable).parent / "scorebridge"


def write_rows(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            label = f"answer {i}"
            output = label.upper() if i % 4 else f"wrong {i}"
            f.write(json.dumps({"item": f"question {i}", "output": output, "label": label}) + "\n")


def measure(data: Path, out: Path) -> tuple[float, float, dict[str, object]]:
    """Peak RSS in MB, wall seconds, and the JSON summary of one run."""
    command = ["/usr/bin/time", "-v", str(SCRIPT), "score", str(data), "--scorer", "exact"]
    command += ["--out", str(out), "--format", "json"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))  # type: ignore[union-attr]
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", done.stderr)
    assert wall is not None
    seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    return peak / 1024, seconds, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=2, help="runs per size; the lowest peak is kept")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as folder:
        for n in args.rows:
            data = Path(folder) / f"rows_{n}.jsonl"
            write_rows(data, n)
            runs = [measure(data, Path(folder) / "scored.jsonl") for _ in range(args.repeat)]
            peak = min(r[0] for r in runs)
            seconds = min(r[1] for r in runs)
            summary = runs[0][2]
            assert (summary["rows"], summary["correct"]) == (n, n - (n + 3) // 4), summary
            written = sum(1 for _ in (Path(folder) / "scored.jsonl").open(encoding="utf-8"))
            assert written == n
            results[n] = peak
            print(
                f"{n:>10,} rows: peak RSS {peak:7.1f} MB, {seconds:6.2f} s wall, "
                f"{seconds / n * 1e6:5.1f} us a row (best of {args.repeat}; input {data.stat().st_size / 1e6:.0f} MB)"
            )
            data.unlink()
    smallest, largest = min(results), max(results)
    ratio = results[largest] / results[smallest]
    print(f"peak at {largest:,} rows / peak at {smallest:,} rows: {ratio:.2f}x (bar: within 2x)")


if __name__ == "__main__":
    main()
