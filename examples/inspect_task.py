"""An Inspect AI task scored three ways, side by side, offline.

- `to_inspect(sb.exact())`: a scorebridge built-in, as an Inspect scorer;
- `to_inspect(sb.scorer(...))`: a DSPy-style plain metric `(gold, pred) -> float`,
  wrapped once and run in Inspect like any scorer;
- Inspect's own `match()`.

Then the other direction: Inspect's `match()` as a plain scorebridge scorer,
called from ordinary Python on the same answers.

Run: `uv run python examples/inspect_task.py` (no network: the model is
Inspect's `mockllm/model` with canned replies). Exits non-zero if a score is
not what it should be.
"""

from __future__ import annotations

import re
import sys
import tempfile
from typing import Any

from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage
from inspect_ai.scorer import match
from inspect_ai.solver import generate

import scorebridge as sb
from scorebridge_inspect import from_inspect, to_inspect

# question, target, the model's canned reply
QUESTIONS = [
    ("What is the capital of France?", "Paris", "Paris"),
    ("What is 6 x 7?", "42", "The answer is 42."),
    ("What is the capital of Italy?", "Rome", "rome"),
    ("How many legs has a spider?", "8", "Eight, I think: 8"),
    ("What is the capital of Spain?", "Madrid", "Barcelona"),
    ("What is 10 / 4?", "2.5", "2.50"),
    ("Who wrote Hamlet?", "Shakespeare", ""),
    ("What is in the attached file?", "a list", "NOT_IN_DOCUMENT"),
]


def numeric_match(gold: str, pred: str, trace: Any = None) -> float:
    """A DSPy-style metric: 1.0 when the last number in the prediction equals the gold number.

    0.0 when the prediction holds no number, and when the gold is not a number
    ("Paris"): a reply such as "Paris, since 508" then scores 0, not an error.
    """
    try:
        expected = float(gold)
    except (TypeError, ValueError):
        return 0.0
    numbers = re.findall(r"-?\d+(?:\.\d+)?", pred)
    return float(bool(numbers) and float(numbers[-1]) == expected)


# the plain metric, wrapped once: scorebridge hands it (item, output, label)
numeric = sb.scorer(lambda item, output, label: numeric_match(label, output), name="numeric_match")


@task
def quiz() -> Task:
    return Task(
        dataset=[Sample(input=q, target=t) for q, t, _ in QUESTIONS],
        solver=generate(),
        scorer=[to_inspect(sb.exact()), to_inspect(numeric), match()],
    )


def canned_reply(messages: list[ChatMessage], *args: Any) -> ModelOutput:
    """mockllm's reply to a question; `usage` is set so mockllm needs no tokenizer download."""
    reply = next(r for q, _, r in QUESTIONS if q == messages[-1].text)
    output = ModelOutput.from_content(model="mockllm/model", content=reply)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def main() -> int:
    with tempfile.TemporaryDirectory() as log_dir:  # the samples are read from the log, lazily: stay inside
        [log] = eval(
            quiz(),
            model="mockllm/model",
            model_args={"custom_outputs": canned_reply},
            log_dir=log_dir,
            display="none",
        )
        return report(log)


def report(log: EvalLog) -> int:
    """Print the scores side by side; 1 if any is not what it should be."""
    if log.status != "success" or log.results is None or log.samples is None:
        print(f"eval failed: {log.error}", file=sys.stderr)
        return 1

    accuracy = {s.name: s.metrics["accuracy"].value for s in log.results.scores}
    print(f"{'question':34} {'exact':>6} {'numeric':>8} {'match':>6}  failure kind (exact)")
    for sample in log.samples:
        scores = sample.scores or {}
        kind = scores["exact"].metadata["failure_kind"] if scores["exact"].metadata else None
        values = [str(scores[k].value) for k in ("exact", "numeric_match", "match")]
        print(f"{str(sample.input)[:34]:34} {values[0]:>6} {values[1]:>8} {values[2]:>6}  {kind or ''}")
    print("accuracy:", {k: round(v, 3) for k, v in accuracy.items()})

    # the other way round: Inspect's match() called from plain Python, one loop for the batch
    plain_match = from_inspect(match())
    again = plain_match.score_many(
        [q for q, _, _ in QUESTIONS], [r for _, _, r in QUESTIONS], [t for _, t, _ in QUESTIONS]
    )
    print("from_inspect(match()) grades:", "".join(s.grade for s in again))

    expected = {"exact": 2 / 8, "numeric_match": 3 / 8, "match": 4 / 8}
    problems = [f"{k}: {accuracy.get(k)} != {v}" for k, v in expected.items() if accuracy.get(k) != v]
    in_eval = [(sample.scores or {})["match"].value for sample in log.samples]
    if [s.grade for s in again] != in_eval:
        problems.append(f"from_inspect(match()) {[s.grade for s in again]} != match() in the eval {in_eval}")
    for problem in problems:
        print("unexpected:", problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
