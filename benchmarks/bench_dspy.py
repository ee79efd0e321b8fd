"""`to_dspy(exact())` against DSPy's own `answer_exact_match`, in the same run.

    uv run python benchmarks/bench_dspy.py

1. Per call: both metrics on the same 200 (Example, Prediction) pairs, as
   Evaluate calls them (`metric(example, prediction)`), best of several rounds.
2. `dspy.Evaluate` of a `dspy.Predict` program over 200 examples with each
   metric, DummyLM in dict mode, `num_threads=1`: median of interleaved runs.

3. A round trip per call: `to_dspy(from_dspy(answer_exact_match))` (the metric
   itself) and a renamed round trip (the thin wrapper, `from_dspy(name=...)`)
   against `answer_exact_match`, as Evaluate calls them.

Targets: no slower than the native metric per call (ratio <= 1), Evaluate
within 5% (ratio <= 1.05), a round trip at most 1 us more per call. Prints the
times and the ratios, ours / DSPy's. Offline; about ten seconds.
"""

from __future__ import annotations

import gc
import logging
import statistics
import time
from collections.abc import Callable
from typing import Any

import dspy
from dspy.evaluate import answer_exact_match
from dspy.utils import DummyLM

import scorebridge as sb
from scorebridge_dspy import from_dspy, to_dspy

N = 200
CALL_ROUNDS = 8
CALL_LOOPS = 20  # passes over the 200 pairs per round
EVALUATE_RUNS = 10


def dataset() -> tuple[list[Any], list[Any], dict[str, dict[str, str]]]:
    """200 examples; every third answer is wrong, every fifth differs in case and spacing only."""
    examples, predictions, answers = [], [], {}
    for i in range(N):
        question = f"[q{i:03d}] What is {i} plus {i}?"
        label = str(2 * i)
        answer = "wrong" if i % 3 == 0 else (f"  {label} " if i % 5 == 0 else label)
        examples.append(dspy.Example(question=question, answer=label).with_inputs("question"))
        predictions.append(dspy.Prediction(answer=answer))
        answers[question] = {"answer": answer}
    return examples, predictions, answers


def per_call(metrics: dict[str, Callable[..., Any]], examples: list[Any], predictions: list[Any]) -> dict[str, float]:
    """Best seconds per call of each metric; rounds interleaved, in turn first, so drift hits all alike."""
    pairs = list(zip(examples, predictions, strict=True)) * CALL_LOOPS
    best = dict.fromkeys(metrics, float("inf"))
    order = list(metrics.items())
    for round_ in range(CALL_ROUNDS):
        for name, metric in order if round_ % 2 else order[::-1]:
            start = time.perf_counter()
            for example, prediction in pairs:
                metric(example, prediction)
            best[name] = min(best[name], (time.perf_counter() - start) / len(pairs))
    return best


def evaluate_times(metrics: dict[str, Any], examples: list[Any], lm: Any) -> dict[str, float]:
    """Median seconds of one Evaluate per metric; runs interleaved, in turn first, so drift hits all alike."""
    program = dspy.Predict("question -> answer")
    evaluate = dspy.Evaluate(devset=examples, num_threads=1, display_progress=False)
    runs: dict[str, list[float]] = {name: [] for name in metrics}
    scores: dict[str, float] = {}
    order = list(metrics.items())
    with dspy.context(lm=lm):
        for run in range(EVALUATE_RUNS):
            for name, metric in order if run % 2 else order[::-1]:
                gc.collect()
                start = time.perf_counter()
                scores[name] = evaluate(program, metric=metric).score
                runs[name].append(time.perf_counter() - start)
    print("  Evaluate scores: " + ", ".join(f"{name} {score}" for name, score in scores.items()))
    return {name: statistics.median(times) for name, times in runs.items()}


def main() -> None:
    logging.getLogger("dspy").setLevel(logging.WARNING)
    examples, predictions, answers = dataset()
    ours = to_dspy(sb.exact())
    theirs = answer_exact_match

    # Both metrics see the same pairs; they agree here (plain digits, case and spacing folded by both).
    assert [ours(e, p) for e, p in zip(examples, predictions, strict=True)] == [
        float(theirs(e, p)) for e, p in zip(examples, predictions, strict=True)
    ]

    print(f"per call, {N} pairs x {CALL_LOOPS}, best of {CALL_ROUNDS}:")
    calls = per_call({"to_dspy(exact())": ours, "answer_exact_match": theirs}, examples, predictions)
    call_ratio = calls["to_dspy(exact())"] / calls["answer_exact_match"]
    print(f"  to_dspy(exact())     {calls['to_dspy(exact())'] * 1e6:8.2f} us")
    print(f"  answer_exact_match   {calls['answer_exact_match'] * 1e6:8.2f} us")
    print(f"  ratio ours/native    {call_ratio:8.3f}   (target <= 1)")

    print(f"a round trip per call, {N} pairs x {CALL_LOOPS}, best of {CALL_ROUNDS}:")
    trips = per_call(
        {
            "answer_exact_match": theirs,
            "to_dspy(from_dspy(aem))": to_dspy(from_dspy(theirs)),
            "renamed (thin wrapper)": to_dspy(from_dspy(theirs, name="aem")),
        },
        examples,
        predictions,
    )
    base = trips.pop("answer_exact_match")
    print(f"  answer_exact_match        {base * 1e6:8.2f} us")
    for label, t in trips.items():
        print(f"  {label:25} {t * 1e6:8.2f} us   +{(t - base) * 1e6:5.2f} us  (target <= +1 us)")

    print(f"dspy.Evaluate, {N} examples, DummyLM, num_threads=1, median of {EVALUATE_RUNS}:")
    times = evaluate_times({"to_dspy(exact())": ours, "answer_exact_match": theirs}, examples, DummyLM(answers))
    eval_ratio = times["to_dspy(exact())"] / times["answer_exact_match"]
    print(f"  to_dspy(exact())     {times['to_dspy(exact())'] * 1e3:8.2f} ms")
    print(f"  answer_exact_match   {times['answer_exact_match'] * 1e3:8.2f} ms")
    print(f"  ratio ours/native    {eval_ratio:8.3f}   (target <= 1.05)")


if __name__ == "__main__":
    main()
