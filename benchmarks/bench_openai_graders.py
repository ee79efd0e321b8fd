"""What running an OpenAI grader spec through `from_openai_grader` costs beside calling its library directly.

OpenAI's own graders ran on its servers, which no longer answer; so the floor here
is the metric's library called in a plain loop (rapidfuzz, sacrebleu, rouge-score),
and, for `string_check`, the comparison written inline. Each line prints
scorebridge's time per row, the floor's, and the ratio, over ROWS rows, the best
of REPEATS runs. A `python` grader starts an interpreter per row: its line shows
that against calling `grade` in this process (which scorebridge never does).

Run: uv run python benchmarks/bench_openai_graders.py
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import sacrebleu
from rapidfuzz import fuzz, utils
from rouge_score import rouge_scorer

from scorebridge_openai_graders import from_openai_grader

ROWS = 2000
REPEATS = 3
OUTPUTS = [f"the capital is city number {i} of the land" for i in range(ROWS)]
LABELS = [f"the capital is city {i}" for i in range(ROWS)]
PAIRS = list(zip(OUTPUTS, LABELS, strict=True))


def best(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def spec(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "name": kind, "input": "{{sample.output_text}}", "reference": "{{item.reference}}", **fields}


def line(name: str, ours: float, floor: float, rows: int = ROWS) -> None:
    print(f"{name:<26} {ours / rows * 1e6:9.1f} us/row  floor {floor / rows * 1e6:8.1f} us/row  {ours / floor:6.1f}x")


def main() -> None:
    rouge = rouge_scorer.RougeScorer(["rougeL"])
    cases: list[tuple[str, dict[str, Any], Callable[[str, str], object]]] = [
        ("string_check ilike", spec("string_check", operation="ilike"), lambda a, b: b.casefold() in a.casefold()),
        (
            "fuzzy_match",
            spec("text_similarity", evaluation_metric="fuzzy_match"),
            lambda a, b: fuzz.WRatio(a, b, processor=utils.default_process) / 100,
        ),
        ("bleu", spec("text_similarity", evaluation_metric="bleu"), lambda a, b: sacrebleu.sentence_bleu(a, [b])),
        ("rouge_l", spec("text_similarity", evaluation_metric="rouge_l"), lambda a, b: rouge.score(b, a)),
    ]
    for name, grader_spec, direct in cases:
        scorer = from_openai_grader(grader_spec)
        ours = best(lambda s=scorer: [s(None, o, label) for o, label in PAIRS])  # type: ignore[misc]
        floor = best(lambda d=direct: [d(o, label) for o, label in PAIRS])  # type: ignore[misc]
        line(name, ours, floor)
    source = "def grade(sample, item):\n    return float(sample['output_text'] == item['reference'])\n"
    python = from_openai_grader({"type": "python", "name": "python", "source": source})
    namespace: dict[str, Any] = {}
    exec(source, namespace)  # the floor only: scorebridge runs a grader's source in a child interpreter
    few = 20
    ours = best(lambda: [python(None, o, label) for o, label in PAIRS[:few]], 1)
    floor = best(lambda: [namespace["grade"]({"output_text": o}, {"reference": r}) for o, r in PAIRS])
    line("python (a process a row)", ours, floor * few / ROWS, few)


if __name__ == "__main__":
    main()
