"""One number everywhere: one dataset, one scorer of one's own, five harnesses, the same summary.

The dataset has every failure kind, partial credit and two unlabelled rows (one
with a failure kind of its own). Through `benchmark()`, the `scorebridge score`
command, the pytest plugin, an Inspect AI eval (`to_inspect`, its
`failure_kinds()` metric) and DSPy (`scorebridge_dspy.evaluate`), the scored
count, the accuracy and the count of each failure kind must be the same. Before,
on one small dataset with one unlabelled row, they were 0.5, 0.5, "2 of 4" and
DSPy's 40.0.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import scorebridge as sb

SCORER = '''
from scorebridge import scorer

KINDS = {"REFUSE": "refusal", "CUT": "budget_stop", "BOOM": "error"}


@scorer
def graded(item, output, label):
    """Paris is right; HALF is worth half; some outputs report a failure kind."""
    text = str(output).strip()
    if not text:
        return {"correct": False, "outcome": None, "failure_kind": "parse_failure"}
    if text in KINDS:
        return {"correct": False, "outcome": text, "failure_kind": KINDS[text]}
    if text == "NOT_IN_DOCUMENT":
        return {"correct": False, "outcome": text, "failure_kind": "not_in_document"}
    if text == "HALF":
        return {"correct": False, "outcome": text, "failure_kind": None, "value": 0.5}
    return {"correct": text == label, "outcome": text, "failure_kind": None}
'''

ROWS: list[tuple[str, str | None]] = [  # (output, label); the item is "q<index>"
    ("Paris", "Paris"),
    ("Paris", "Paris"),
    ("Lyon", "Paris"),
    ("", "Paris"),
    ("REFUSE", "Paris"),
    ("NOT_IN_DOCUMENT", "Paris"),
    ("CUT", "Paris"),
    ("BOOM", "Paris"),
    ("HALF", "Paris"),
    ("Paris", None),  # unlabelled: unscored
    ("REFUSE", None),  # unlabelled, with a failure kind of its own: unscored, counted once
]
ITEMS = [f"q{i}" for i in range(len(ROWS))]
OUTPUTS = dict(zip(ITEMS, (output for output, _ in ROWS), strict=True))

# What every harness must give: 9 scored (2 correct, one half), accuracy 2.5 / 9.
EXPECTED = {
    "scored": 9,
    "accuracy": pytest.approx(2.5 / 9),
    "failure_kinds": {
        "parse_failure": 1,
        "refusal": 1,
        "not_in_document": 1,
        "wrong": 2,  # Lyon, and HALF (partial credit is recorded wrong, with its value)
        "budget_stop": 1,
        "error": 1,
    },
}


def _counts(scored: int, accuracy: float | None, kinds: dict[str, Any]) -> dict[str, Any]:
    return {"scored": scored, "accuracy": accuracy, "failure_kinds": {k: int(v) for k, v in kinds.items()}}


@pytest.fixture(scope="module")
def scorer_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("one_number") / "graded_scorer.py"
    path.write_text(SCORER, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def graded(scorer_file: Path) -> sb.Scorer:
    spec = importlib.util.spec_from_file_location("graded_scorer", scorer_file)
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made: sb.Scorer = module.graded
    return made


def test_benchmark(graded: sb.Scorer) -> None:
    result = sb.benchmark({"arm": OUTPUTS.__getitem__}, ITEMS, [label for _, label in ROWS], scorer=graded)
    s = result.summary()["arm"]
    assert _counts(s.scored, s.accuracy, dict(s.failure_kinds)) == EXPECTED


def test_the_command_line(scorer_file: Path, tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(
        "".join(
            json.dumps({"input": i, "output": o, "label": lab}) + "\n" for i, (o, lab) in zip(ITEMS, ROWS, strict=True)
        ),
        encoding="utf-8",
    )
    run = subprocess.run(
        [sys.executable, "-m", "scorebridge", "score", str(data), "--scorer", f"{scorer_file}@graded",
         "--format", "json"],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    s = json.loads(run.stdout)
    assert _counts(s["scored"], s["accuracy"], s["failure_kinds"]) == EXPECTED


def test_the_pytest_plugin(scorer_file: Path, pytester: pytest.Pytester) -> None:
    pytester.syspathinsert(scorer_file.parent)
    pytester.makepyfile(
        f"""
        import pytest
        from graded_scorer import graded

        ROWS = {ROWS!r}

        @pytest.mark.parametrize("output, label", ROWS)
        def test_row(scorebridge_record, output, label):
            scorebridge_record(graded, output, label)
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=len(ROWS))
    header = next(line for line in result.outlines if line.startswith("scorer "))
    row = next(line for line in result.outlines if line.startswith("graded "))
    table = dict(zip(header.replace("95% CI", "95%_CI").split(), row.replace(", ", ",").split(), strict=True))
    kinds = {kind: table.get(kind, "0") for kind in sb.FAILURE_KINDS}
    assert _counts(int(table["scored"]), float(table["accuracy"]), kinds) == {
        **EXPECTED,
        "accuracy": pytest.approx(2.5 / 9, abs=5e-4),  # printed with 3 decimals
    }


def test_inspect_ai(graded: sb.Scorer) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
    from inspect_ai.solver import generate

    from scorebridge_inspect import to_inspect

    def reply(messages: list[ChatMessage], *args: Any) -> ModelOutput:
        out = ModelOutput.from_content("mockllm/model", OUTPUTS[messages[-1].text])
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # offline: no tokenizer download
        return out

    samples = [
        Sample(id=i, input=item, target=label or "")
        for i, (item, (_, label)) in enumerate(zip(ITEMS, ROWS, strict=True))
    ]
    task = Task(dataset=samples, solver=generate(), scorer=to_inspect(graded))
    [log] = eval(task, model=get_model("mockllm/model", custom_outputs=reply), display="none")
    assert log.status == "success" and log.results is not None
    [s] = log.results.scores
    metrics = {name: m.value for name, m in s.metrics.items()}
    kinds = {kind: metrics[kind] for kind in sb.FAILURE_KINDS}
    assert _counts(s.scored_samples or 0, metrics["accuracy"], kinds) == EXPECTED
    assert s.unscored_samples == 2


def test_dspy(graded: sb.Scorer) -> None:
    pytest.importorskip("dspy")
    import dspy
    from dspy.utils import DummyLM

    from scorebridge_dspy import evaluate

    lm = DummyLM({item: {"answer": output} for item, output in OUTPUTS.items()})
    devset = [
        dspy.Example(question=i, answer=lab).with_inputs("question") for i, (_, lab) in zip(ITEMS, ROWS, strict=True)
    ]
    with dspy.context(lm=lm):
        evaluation = evaluate(dspy.Predict("question -> answer"), devset, graded, num_threads=1)
    s = evaluation.summary
    assert _counts(s.scored, s.accuracy, dict(s.failure_kinds)) == EXPECTED
    # DSPy's own number divides by every example, the two unlabelled ones counted 0: 2.5 / 11.
    assert evaluation.dspy_score == pytest.approx(round(100 * 2.5 / 11, 2))


# MLflow GenAI (scorebridge_mlflow): the scorer in mlflow.genai.evaluate on a sqlite store; MLflow's own
# `graded/mean`, and the failure kinds of its result table (read back by scorebridge_mlflow.summarize).
def test_mlflow(graded: sb.Scorer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mlflow")
    import mlflow

    from scorebridge_mlflow import summarize, to_mlflow

    monkeypatch.setenv("MLFLOW_DISABLE_TELEMETRY", "true")
    monkeypatch.setenv("MLFLOW_EXPERIMENT_ID", "")  # mlflow.set_experiment sets it: gone again after the test
    monkeypatch.delenv("MLFLOW_EXPERIMENT_ID")
    monkeypatch.chdir(tmp_path)
    mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
    mlflow.set_experiment("one-number")  # of this store (another test's active experiment is not in it)
    data = [
        {"inputs": {"input": i}, "outputs": o, "expectations": {} if lab is None else {"expected_response": lab}}
        for i, (o, lab) in zip(ITEMS, ROWS, strict=True)
    ]
    try:
        result = mlflow.genai.evaluate(data=data, scorers=[to_mlflow(graded)])
    finally:
        mlflow.set_tracking_uri(None)
    s = summarize(result, "graded")
    assert _counts(s.scored, result.metrics["graded/mean"], dict(s.failure_kinds)) == EXPECTED
    assert s.unscored == 2
