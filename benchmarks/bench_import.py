"""What `import scorebridge` costs, and that it imports no harness; the same for the command's start.

    uv run python benchmarks/bench_import.py

Runs `python -X importtime -c "import scorebridge"` several times in fresh
interpreters (bytecode cached by a first run) and prints the best cumulative
time of the `scorebridge` package, with the heaviest modules it pulls in. The
bar: under 30 ms, and none of inspect_ai, dspy, pytest or pydantic. Then the
wall time of `scorebridge --version` and `scorebridge list` (a whole process,
best of 7), beside `python -c pass` in the same run, and whether either
imports asyncio or a harness (they must not).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

HARNESSES = ("inspect_ai", "dspy", "pytest", "pydantic")


def importtime() -> list[tuple[int, int, str]]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import scorebridge"],
        capture_output=True, text=True, check=True, env=env,
    ).stderr  # fmt: skip
    rows = []
    for line in err.splitlines():
        if line.startswith("import time:") and "|" in line and "self [us]" not in line:
            own, total, name = line[len("import time:") :].split("|")
            rows.append((int(own), int(total), name.rstrip()))
    return rows


def main() -> None:
    importtime()  # writes the bytecode caches
    runs = [importtime() for _ in range(7)]
    best = min(runs, key=lambda rows: next(t for _, t, n in rows if n.strip() == "scorebridge"))
    total = next(t for _, t, n in best if n.strip() == "scorebridge")
    names = {n.strip() for _, _, n in best}
    print(f"import scorebridge: {total / 1000:.1f} ms (best of {len(runs)}; bar: under 30 ms)")
    print("harnesses imported:", sorted(h for h in HARNESSES if h in names) or "none")
    print("heaviest modules (cumulative ms):")
    for _, t, n in sorted(best, key=lambda row: -row[1])[1:9]:
        print(f"  {t / 1000:6.1f}  {n.strip()}")


def wall(args: list[str], env: dict[str, str]) -> float:
    best = float("inf")
    for _ in range(7):
        start = time.perf_counter()
        subprocess.run(args, capture_output=True, check=True, env=env)
        best = min(best, time.perf_counter() - start)
    return best


def command_start() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    heavy = ("asyncio", *HARNESSES, "yaml", "tqdm")
    bare = wall([sys.executable, "-c", "pass"], env)
    print(f"python -c pass: {bare * 1000:.0f} ms")
    for argv in (["--version"], ["list"]):
        code = (
            "import sys\nfrom scorebridge._cli.main import main\n"
            f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
            f"print(sorted(m for m in {heavy!r} if m in sys.modules), file=sys.stderr)"
        )
        imported = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env).stderr
        seconds = wall([sys.executable, "-c", code], env)
        print(f"scorebridge {' '.join(argv)}: {seconds * 1000:.0f} ms; imports {imported.strip()}")


if __name__ == "__main__":
    main()
    command_start()
