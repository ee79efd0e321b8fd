"""openevals' exact_match everywhere: its own verdicts from plain Python, benchmark(), Inspect AI and DSPy.

Each harness is real and offline: Inspect AI with mockllm (usage set), DSPy's Evaluate with DummyLM.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from openevals.exact import exact_match

import scorebridge as sb
from scorebridge_langsmith import from_langsmith

QUESTIONS = ["q0", "q1", "q2", "q3", "q4"]
OUTPUTS = {"q0": "Paris", "q1": "paris", "q2": "Lyon", "q3": "Paris, France", "q4": "Rome"}
LABELS = ["Paris", "Paris", "Paris", "Paris", "Rome"]
# openevals' own verdicts: exact_match compares the JSON of each side, so case and every character count
NATIVE = [
    exact_match(outputs=OUTPUTS[q], reference_outputs=label)["score"]
    for q, label in zip(QUESTIONS, LABELS, strict=True)
]
SCORER = from_langsmith(exact_match)


def test_the_verdicts_tell_apart() -> None:
    assert NATIVE == [True, False, False, False, True]


def test_plain_python() -> None:
    assert [SCORER(q, OUTPUTS[q], label).correct for q, label in zip(QUESTIONS, LABELS, strict=True)] == NATIVE


def test_benchmark() -> None:
    result = sb.benchmark({"arm": OUTPUTS.__getitem__}, QUESTIONS, LABELS, scorer=SCORER)
    assert [r["correct"] for r in result.to_records()] == NATIVE


def test_inspect_ai(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
    from inspect_ai.solver import generate

    from scorebridge_inspect import to_inspect

    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path))

    def reply(messages: list[ChatMessage], *args: Any) -> ModelOutput:
        out = ModelOutput.from_content("mockllm/model", OUTPUTS[messages[-1].text])
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # offline: no tokenizer download
        return out

    samples = [Sample(id=i, input=q, target=label) for i, (q, label) in enumerate(zip(QUESTIONS, LABELS, strict=True))]
    task = Task(dataset=samples, solver=generate(), scorer=to_inspect(SCORER))
    [log] = eval(task, model=get_model("mockllm/model", custom_outputs=reply), display="none", log_dir=str(tmp_path))
    assert log.status == "success" and log.samples is not None
    by_id = {sample.id: sample.scores[SCORER.name].value for sample in log.samples if sample.scores}
    assert [by_id[i] == "C" for i in range(len(QUESTIONS))] == NATIVE


def test_dspy_evaluate() -> None:
    pytest.importorskip("dspy")
    import dspy
    from dspy.utils import DummyLM

    from scorebridge_dspy import to_dspy

    lm = DummyLM({q: {"answer": OUTPUTS[q]} for q in QUESTIONS})
    devset = [
        dspy.Example(question=q, answer=label).with_inputs("question")
        for q, label in zip(QUESTIONS, LABELS, strict=True)
    ]
    with dspy.context(lm=lm):
        result = dspy.Evaluate(devset=devset, metric=to_dspy(SCORER), num_threads=1)(dspy.Predict("question -> answer"))
    assert [value == 1.0 for _, _, value in result.results] == NATIVE
