"""Model-graded scoring against a rate-limited, flaky grader API: every row graded, the same number, in time.

The grader API is tests/grader_server.py on 127.0.0.1 with the full profile:
150 ms a reply, 40 requests/s with a burst of 10 (beyond that a 429 with
`Retry-After: 1`), 3% of requests answered 500 and 0.5% held for 60 s. Over
1,000 rows (100 without a label) the 900 graded rows need 900 calls at 40 a
second at best: the ideal is 22.5 s, the bar 1.5x that.

Each path runs `model_graded_qa` with `timeout=5` (a reply takes 150 ms; the
default 30 s would let each held call cost 30 s) and scorebridge's default
retries, 32 rows at a time:

- `score_many`, the grader `scorebridge.openai_grader` over an `openai.OpenAI`
  at its defaults (the grader turns its 2 retries off: scorebridge retries);
- `score_many`, the grader `dspy_grader(dspy.LM(api_base=...))` at DSPy's
  defaults but its disk cache (the grader turns DSPy's 3 retries off);
- `benchmark(..., concurrency=32)` with the openai SDK grader and an instant arm;
- `scorebridge score --concurrency 32` (the command of this environment, in
  a process of its own) over a JSONL file of the rows, its scorer file
  building the same scorer with `scorebridge.openai_grader` over an
  `openai.OpenAI` at its defaults; its summary read from `--format json`,
  its wall time the whole command's (the process's start included, about
  2 s). It also prints the longest stretch between two rows written to
  `--out` (the file polled every 20 ms) against the bar: no stretch longer
  than 2x the per-call timeout (10 s) without a reply written;
- `to_trl` reward batches of 64 completions, one after another, as a trainer
  calls them, with either grader;
- `to_trl` and `score_many` again with `rate=38` (just under the server's limit: few 429s to wait out);
- `to_trl` with a user's own function over an `openai.OpenAI` at its
  defaults: the SDK's own retries wait out 429s that scorebridge never sees,
  so its pacing learns nothing from them (a measured limit: hand the client
  to `openai_grader`, or give `rate=`);
- a rerun of `score_many` with `cache=`: no request, the same summary;
- the anchor: Inspect AI's own `model_graded_qa` in an `eval()` of the 900
  labelled rows, 32 samples at a time, its grader Inspect's OpenAI provider
  with the server's base URL (chat completions), Inspect's own retries and
  defaults. Its template is its own, so its correct count is its own too; a
  sample it left without a grade counts as lost. Inspect 0.3.285's OpenAI
  provider needs openai>=3.4, which the project's environment holds below 3
  on Python 3.11+ (verifiers asks for openai<3): there the path says so and is
  skipped; run it where openai>=3.4 is installed with inspect-ai.

It prints, per path: the wall time and its ratio to the ideal, the rows
graded, the rows lost to the grader (`Summary.grader_failed`), the server's
429s and 500s, and whether the figures (scored, correct, accuracy, lost) are
the first path's (a TRL reward is a number per completion, without the
failure kinds, so those are left out of the comparison).

Run: uv run python benchmarks/bench_grader_api.py [--rows N] [--path TEXT ...] (only the paths whose
name holds TEXT: `--path to_trl` runs the reward-batch paths, `--path scorebridge` the CLI's, about 30 s).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
# DSPy (3.4) fetches LiteLLM's model price list from GitHub on an LM's first call unless told to use its own copy:
# with it, no request leaves for anywhere but the grader server
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from grader_server import HOSTS_FILE, RECORD_HOSTS, GraderServer, connections

import scorebridge as sb
from scorebridge.kit import GRADER_FAILED

PROFILE = {"delay": 0.15, "rate": 40.0, "burst": 10, "retry_after": 1.0, "errors": 0.03, "hangs": 0.005, "hang": 60.0}
CONCURRENCY = 32
TIMEOUT = 5.0
BAR = 1.5
RERUN = "rerun with cache=, openai SDK"
INSPECT = "Inspect AI's own model_graded_qa"
CLI = "scorebridge score --concurrency 32, openai SDK"
WIDTH = len(CLI)  # the path column
NOTES: list[str] = []  # lines a path has to say below its row of the table
HOSTS: list[str] = []  # the hosts the CLI's processes connected to (this process's are seen by `connections`)


def openai_grader(url: str) -> Callable[[str], str]:
    """`scorebridge.openai_grader` over an `openai.OpenAI` at its defaults (it turns the SDK's 2 retries off)."""
    import openai

    return sb.openai_grader(openai.OpenAI(base_url=url, api_key="bench-key"), model="grader")


def own_openai_grader(url: str) -> Callable[[str], str]:
    """A user's own function over an `openai.OpenAI` at its defaults: the SDK retries each 429 and 500 twice
    itself, unseen by scorebridge's pacing."""
    import openai

    client = openai.OpenAI(base_url=url, api_key="bench-key")

    def ask(prompt: str) -> str:
        reply = client.chat.completions.create(model="grader", messages=[{"role": "user", "content": prompt}])
        return reply.choices[0].message.content or ""

    ask.grader_identity = f"openai grader at {url}"  # type: ignore[attr-defined]
    return ask


def dspy_grader_of(url: str) -> Callable[[str], str]:
    import dspy

    from scorebridge_dspy import dspy_grader

    return dspy_grader(dspy.LM("openai/grader", api_base=url, api_key="bench-key", cache=False))


CLI_SCORERS = (
    RECORD_HOSTS
    + """
import os

import openai

import scorebridge as sb

graded = sb.model_graded_qa(
    sb.openai_grader(openai.OpenAI(base_url=os.environ["BENCH_GRADER_URL"], api_key="bench-key"), model="grader"),
    timeout=float(os.environ["BENCH_TIMEOUT"]),
)
"""
)


def cli_url(url: str) -> str:
    """The CLI's grader is made in its own process: it is given the server's URL."""
    return url


def scorebridge_command() -> list[str]:
    """The `scorebridge` command of this environment (beside its Python), else `python -m scorebridge`."""
    script = Path(sys.executable).parent / "scorebridge"
    return [str(script)] if script.exists() else [sys.executable, "-m", "scorebridge"]


def by_cli(url: str, items: list[str], outputs: list[str], labels: list[Any]) -> sb.Summary:
    """`scorebridge score --concurrency 32` over the rows as a JSONL file; its `--format json` summary. Notes
    the longest stretch between two rows written to `--out` (polled every 20 ms) against 2x the timeout."""
    folder = Path(tempfile.mkdtemp(prefix="bench-cli-"))
    with open(folder / "data.jsonl", "w", encoding="utf-8") as data:
        for item, output, label in zip(items, outputs, labels, strict=True):
            data.write(json.dumps({"input": item, "output": output, "label": label}) + "\n")
    (folder / "bench_graders.py").write_text(CLI_SCORERS, encoding="utf-8")
    env = {**os.environ, "BENCH_GRADER_URL": url, "BENCH_TIMEOUT": str(TIMEOUT), HOSTS_FILE: str(folder / "hosts")}
    argv = ["score", "data.jsonl", "--scorer", "bench_graders.py@graded", "--concurrency", str(CONCURRENCY)]
    argv += ["--out", "scored.jsonl", "--format", "json"]
    out, said = folder / "scored.jsonl", folder / "stderr.txt"
    with open(folder / "stdout.txt", "w+", encoding="utf-8") as stdout, open(said, "w", encoding="utf-8") as stderr:
        scoring = subprocess.Popen(scorebridge_command() + argv, cwd=folder, env=env, stdout=stdout, stderr=stderr)
        grew: list[float] = []  # when a row was written
        seen = 0
        deadline = time.perf_counter() + 600  # the server's lifetime
        while scoring.poll() is None:
            if time.perf_counter() > deadline:
                scoring.kill()
            lines = out.read_bytes().count(b"\n") if out.exists() else 0
            if lines > max(seen, 1):  # a row written (the header is the first line)
                grew.append(time.perf_counter())
            seen = lines
            time.sleep(0.02)
        stdout.seek(0)
        summary = stdout.read()
    if scoring.returncode != 0:
        raise RuntimeError(f"scorebridge score exited {scoring.returncode}: {said.read_text()[-2000:]}")
    if (folder / "hosts").exists():
        HOSTS.extend((folder / "hosts").read_text(encoding="utf-8").split())
    longest = max((b - a for a, b in itertools.pairwise(grew)), default=0.0)
    bar = 2 * TIMEOUT
    NOTES.append(
        f"{'':<{WIDTH}} longest stretch without a row written to --out: {longest:.1f} s "
        f"(bar {bar:g} s, 2x the per-call timeout): {'met' if longest <= bar else 'MISSED'}"
    )
    data = json.loads(summary)
    interval = data["interval"]
    fields = {k: v for k, v in data.items() if k in sb.Summary._fields}
    return sb.Summary(**{**fields, "interval": None if interval is None else tuple(interval)})


class Skipped(Exception):
    """A path that cannot run here: why."""


def inspect_model(url: str) -> Any:
    """Inspect AI's own OpenAI provider, its base URL the server's, on the chat completions API the server
    serves (not the Responses API); Inspect retries and paces it itself."""
    try:
        from inspect_ai.model import get_model

        return get_model("openai/grader", base_url=url, api_key="bench-key", responses_api=False)
    except Exception as exc:  # not installed, or its OpenAI provider refuses the installed openai SDK
        raise Skipped(str(exc).strip().splitlines()[0]) from None


def data(rows: int) -> tuple[list[str], list[str], list[str | None]]:
    items = [f"What is item {i}?" for i in range(rows)]
    outputs = [f"answer {i}" for i in range(rows)]
    labels = [None if i % 10 == 0 else f"answer {i}" for i in range(rows)]
    return items, outputs, labels


def by_score_many(grader: Any, items: list[str], outputs: list[str], labels: list[Any], **options: Any) -> sb.Summary:
    scorer = sb.model_graded_qa(grader, timeout=TIMEOUT, **options)
    return sb.Summary.of("model_graded_qa", scorer.score_many(items, outputs, labels, concurrency=CONCURRENCY))


def by_benchmark(grader: Any, items: list[str], outputs: list[str], labels: list[Any], **options: Any) -> sb.Summary:
    answers = dict(zip(items, outputs, strict=True))
    scorer = sb.model_graded_qa(grader, timeout=TIMEOUT, **options)
    result = sb.benchmark({"model": answers.__getitem__}, items, labels, scorer, concurrency=CONCURRENCY)
    return result.summary()["model"]._replace(name="model_graded_qa")


def by_trl(grader: Any, items: list[str], outputs: list[str], labels: list[Any], **options: Any) -> sb.Summary:
    from scorebridge_rl import to_trl

    reward = to_trl(sb.model_graded_qa(grader, timeout=TIMEOUT, **options), concurrency=CONCURRENCY)
    scores: list[sb.Score] = []
    for start in range(0, len(items), 64):
        batch = slice(start, start + 64)
        values = reward(prompts=items[batch], completions=outputs[batch], solution=labels[batch])
        scores += [sb.Score(None) if v is None else sb.Score(v == 1.0, value=v) for v in values]
    return sb.Summary.of("model_graded_qa", scores)


def by_inspect_own(model: Any, items: list[str], outputs: list[str], labels: list[Any]) -> sb.Summary:
    """Inspect AI's own `model_graded_qa` in an `eval()` of the labelled rows (an unlabelled row would be graded
    against an empty target), 32 samples at a time; a sample left without a C or I counts as lost."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import model_graded_qa
    from inspect_ai.solver import Generate, TaskState, solver

    @solver
    def answered() -> Any:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            state.output = ModelOutput.from_content("bench", state.metadata["output"])
            return state

        return solve

    samples = [
        Sample(input=items[i], target=label, id=i, metadata={"output": outputs[i]})
        for i, label in enumerate(labels)
        if label is not None
    ]
    task = Task(dataset=samples, solver=answered(), scorer=model_graded_qa(model=model))
    logs = tempfile.mkdtemp(prefix="bench-inspect-")
    [log] = eval(task, model="mockllm/model", max_samples=CONCURRENCY, display="none", log_dir=logs)
    graded: dict[int, sb.Score] = {}
    for sample in log.samples or []:
        score = (sample.scores or {}).get("model_graded_qa")
        if score is not None and score.value in ("C", "I"):
            graded[int(sample.id)] = sb.Score(score.value == "C")
    lost = sb.Score(None, metadata={GRADER_FAILED: "Inspect gave the sample no grade"})
    scores = [sb.Score(None) if label is None else graded.get(i, lost) for i, label in enumerate(labels)]
    return sb.Summary.of("model_graded_qa", scores)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument(
        "--path", action="append", default=[], help="run only the paths whose name holds this text (repeatable)"
    )
    args = parser.parse_args()
    rows = args.rows
    items, outputs, labels = data(rows)
    graded = sum(label is not None for label in labels)
    ideal = graded / PROFILE["rate"]
    print(f"{rows} rows, {graded} graded; ideal {ideal:.1f} s at {PROFILE['rate']:g} requests/s; bar {BAR}x")
    cache = os.path.join(tempfile.mkdtemp(prefix="bench-grader-"), "grades.sqlite")
    paths: list[tuple[str, Callable[[str], Any], Callable[..., sb.Summary], dict[str, Any]]] = [
        ("score_many, openai SDK", openai_grader, by_score_many, {}),
        ("score_many, dspy_grader", dspy_grader_of, by_score_many, {}),
        ("benchmark(), openai SDK", openai_grader, by_benchmark, {}),
        (CLI, cli_url, by_cli, {}),
        ("to_trl batches of 64, openai SDK", openai_grader, by_trl, {}),
        ("to_trl batches of 64, dspy_grader", dspy_grader_of, by_trl, {}),
        ("to_trl batches of 64, rate=38", openai_grader, by_trl, {"rate": 38}),
        ("to_trl batches of 64, own openai fn", own_openai_grader, by_trl, {}),
        ("score_many, openai SDK, rate=38", openai_grader, by_score_many, {"rate": 38}),
        (INSPECT, inspect_model, by_inspect_own, {}),
    ]
    if args.path:
        paths = [path for path in paths if any(part in path[0] for part in args.path)]
    first: tuple[Any, ...] | None = None
    header = f"{'path':<{WIDTH}} {'seconds':>8} {'x ideal':>8} {'graded':>7} {'lost':>5} {'429s':>5} {'500s':>5}  same"
    print(header)
    with connections() as hosts:
        for name, make, run, options in paths:
            with GraderServer(**PROFILE, lifetime=600, seed=len(name)) as server:  # type: ignore[arg-type]
                try:
                    grader = make(server.url)  # its client made (and imported) before the clock starts
                except Skipped as why:
                    print(f"{name:<{WIDTH}} skipped: {why}")
                    continue
                start = time.perf_counter()
                summary = run(grader, items, outputs, labels, **options)
                seconds = time.perf_counter() - start
                statuses = dict(server.statuses)
            figures = (summary.scored, summary.correct, summary.accuracy, summary.grader_failed)
            first = first or figures
            print(
                f"{name:<{WIDTH}} {seconds:8.1f} {seconds / ideal:8.2f} {summary.scored:7d} {summary.grader_failed:5d} "
                f"{statuses.get(429, 0):5d} {statuses.get(500, 0):5d}  {figures == first}"
            )
            for note in NOTES:
                print(note)
            NOTES.clear()
        if not args.path or any(part in RERUN for part in args.path):
            with GraderServer(**PROFILE, lifetime=600) as server:  # type: ignore[arg-type]
                grader = openai_grader(server.url)
                filled = by_score_many(grader, items, outputs, labels, cache=cache)
                first = first or (filled.scored, filled.correct, filled.accuracy, filled.grader_failed)
                asked = server.requests
                start = time.perf_counter()
                again = by_score_many(grader, items, outputs, labels, cache=cache)
                seconds = time.perf_counter() - start
                print(
                    f"{RERUN:<{WIDTH}} {seconds:8.1f} {seconds / ideal:8.2f} {again.scored:7d} "
                    f"{again.grader_failed:5d} requests sent: {server.requests - asked} (first run {asked})  "
                    f"{(again.scored, again.correct, again.accuracy, again.grader_failed) == first}"
                )
    print(f"hosts connected to: {sorted(set(hosts) | set(HOSTS))}")


if __name__ == "__main__":
    main()
