"""Optimise a DSPy program against a scorebridge scorer: BootstrapFewShot, then GEPA. Offline.

    uv run python examples/dspy_optimize.py

The program answers "What is the capital of X?" with `dspy.Predict`. The scorer
is written once, for scorebridge: `exact()`, with a refusal recorded as the
failure kind "refusal". `to_dspy` makes it a DSPy metric, and the same metric
object drives `dspy.Evaluate`, `BootstrapFewShot` (which gets a strict bool per
trace) and `GEPA` (which gets a score with feedback naming the failure kind).

No model is called. The student LM is DSPy's DummyLM engine behind a small
switch: until its instructions say "city name only" it refuses some questions
and answers others in a sentence; after, it answers with the city. GEPA's
reflection LM is a DummyLM that proposes that instruction (through
`dspy.JSONAdapter`, the format GEPA's instruction proposer reads).

Exits with status 1, saying why, when an optimiser does not do what the
scorer says it should.
"""

from __future__ import annotations

import logging
import re
import sys
from typing import Any

import dspy
from dspy.clients.engines.dummy_engine import DummyEngine
from dspy.utils import DummyLM

import scorebridge as sb
from scorebridge_dspy import to_dspy

CAPITALS = {
    "France": "Paris",
    "Italy": "Rome",
    "Spain": "Madrid",
    "Peru": "Lima",
    "Japan": "Tokyo",
    "Kenya": "Nairobi",
    "Canada": "Ottawa",
    "Egypt": "Cairo",
    "Norway": "Oslo",
    "Chile": "Santiago",
    "Ghana": "Accra",
    "Nepal": "Kathmandu",
}
CUE = "city name only"  # the instruction the student LM needs
NEW_INSTRUCTION = "Answer with the city name only, as it is spelled in English. Never refuse: every country has one."


def question(country: str) -> str:
    return f"What is the capital of {country}?"


def untaught_answer(i: int, country: str, city: str) -> str:
    # Before the instruction: a third answered right, a third in a sentence, a third refused.
    return (city, f"The capital of {country} is {city}.", "I cannot answer questions about politics.")[i % 3]


EXAMPLES = [
    dspy.Example(question=question(country), answer=city).with_inputs("question") for country, city in CAPITALS.items()
]
TRAIN, VAL = EXAMPLES[:6], EXAMPLES[6:]

EXACT = sb.exact()


def capital(item: Any, output: Any, label: Any) -> Any:
    """exact(), with a refusal recorded as one: the scorer written once, for every harness."""
    if isinstance(output, str) and output.lower().startswith(("i cannot", "i can't", "i won't")):
        return {"correct": False, "outcome": output, "failure_kind": "refusal", "explanation": "the answer refused"}
    return EXACT(item, output, label)


SCORER = sb.scorer(capital)
METRIC = to_dspy(SCORER)


class InstructedEngine:
    """DummyLM's engine behind a switch: `taught` answers once the instructions hold `cue`, else `untaught`."""

    def __init__(self, untaught: dict[str, dict[str, str]], taught: dict[str, dict[str, str]], cue: str) -> None:
        self.untaught = DummyEngine(DummyLM(untaught))
        self.taught = DummyEngine(DummyLM(taught))
        self.cue = cue

    def complete(self, request: Any) -> Any:
        system = request.system if isinstance(request.system, str) else "".join(p.text for p in request.system or ())
        return (self.taught if self.cue in system else self.untaught).complete(request)


def student_lm() -> Any:
    untaught = {
        question(country): {"answer": untaught_answer(i, country, city)}
        for i, (country, city) in enumerate(CAPITALS.items())
    }
    taught = {question(country): {"answer": city} for country, city in CAPITALS.items()}
    return dspy.LM("dummy/instructed", engine=InstructedEngine(untaught, taught, CUE), cache=False)


def evaluate(program: Any, devset: list[Any]) -> float:
    return float(dspy.Evaluate(devset=devset, metric=METRIC, num_threads=2)(program).score)


def fail(message: str) -> None:
    print(f"FAILED: {message}", file=sys.stderr)
    raise SystemExit(1)


def bootstrap() -> None:
    """BootstrapFewShot keeps exactly the traces the scorer calls correct, as demos."""
    optimizer = dspy.BootstrapFewShot(metric=METRIC, max_bootstrapped_demos=len(TRAIN), max_labeled_demos=0)
    compiled = optimizer.compile(dspy.Predict("question -> answer"), trainset=TRAIN)
    demos = {demo.question: demo.answer for demo in compiled.predictors()[0].demos}
    correct = {
        ex.question: ex.answer
        for i, (ex, (country, city)) in enumerate(zip(TRAIN, CAPITALS.items(), strict=False))
        if SCORER(ex.inputs().toDict(), untaught_answer(i, country, city), ex.answer).correct
    }
    print(f"BootstrapFewShot: {len(demos)} demos of {len(TRAIN)} traces, the ones the scorer calls correct:")
    for q, a in demos.items():
        print(f"  {q} -> {a}")
    if demos != correct:
        fail(f"BootstrapFewShot kept {demos}; the scorer calls correct {correct}")


def gepa() -> None:
    """GEPA reads the scorer's feedback, proposes the instruction, and the program gets every answer right."""
    program = dspy.Predict("question -> answer")
    before = evaluate(program, VAL)
    reflection_lm = DummyLM({"": {"new_instruction": NEW_INSTRUCTION}}, adapter=dspy.JSONAdapter())
    optimizer = dspy.GEPA(
        metric=METRIC,
        max_metric_calls=60,
        reflection_lm=reflection_lm,
        reflection_minibatch_size=3,
        num_threads=2,
        seed=0,
    )
    optimized = optimizer.compile(program, trainset=TRAIN, valset=VAL)
    after = evaluate(optimized, VAL)
    instruction = optimized.predictors()[0].signature.instructions
    prompts = "\n".join(str(m.get("content")) for call in reflection_lm.history for m in call["messages"])
    feedback = sorted(set(re.findall(r'"Feedback": "((?:[^"\\]|\\.)*)"', prompts)))
    print(f"GEPA: validation score {before:.1f} -> {after:.1f}; instruction: {instruction!r}")
    print("  feedback the reflection LM read:")
    for line in feedback:
        print(f"    {line}")
    kinds = {line.split(":")[0] for line in feedback}
    if not {"refusal", "wrong"} <= kinds:
        fail(f"the reflection LM was not shown feedback naming both failure kinds; it read {feedback}")
    if not after > before or after != 100.0:
        fail(f"GEPA did not reach 100 on the validation set: {before} -> {after}")


def main() -> None:
    logging.getLogger("dspy").setLevel(logging.WARNING)
    with dspy.context(lm=student_lm()):
        bootstrap()
        gepa()
    print("ok")


if __name__ == "__main__":
    main()
