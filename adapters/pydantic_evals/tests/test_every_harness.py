"""pydantic-evals' evaluators everywhere: the same verdicts in plain Python, benchmark(), Inspect AI, DSPy, pytest
and MLflow as inside pydantic-evals' own Dataset.evaluate.

The evaluators: EqualsExpected(), Contains(value="Paris"), and LLMJudge with
pydantic-ai's TestModel (a fixed verdict) and FunctionModel (a judge that passes an
output naming Paris) as the judge, all offline. Each harness is real: Inspect AI with
mockllm (usage set), DSPy's Evaluate with DummyLM, pytest through its plugin's report,
MLflow's genai.evaluate on a sqlite store (skipped where the MLflow spoke is not merged).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pe_support import evaluate, judge_model
from pydantic_ai.models.test import TestModel
from pydantic_evals.evaluators import Contains, EqualsExpected, Evaluator, LLMJudge

import scorebridge as sb
from scorebridge_pydantic_evals import from_pydantic_evals

QUESTIONS = ["q0", "q1", "q2", "q3", "q4"]
OUTPUTS = {"q0": "Paris", "q1": "paris", "q2": "The capital is Paris.", "q3": "Lyon", "q4": "Paris, France"}
LABELS = ["Paris", "Paris", "Paris", "Paris", "Paris, France"]


def _evaluators() -> dict[str, Evaluator[Any, Any, Any]]:
    return {
        "equals_expected": EqualsExpected(),
        "contains": Contains(value="Paris"),
        "judge_test_model": LLMJudge(
            rubric="names the capital", model=TestModel(custom_output_args={"reason": "ok", "pass": True, "score": 1})
        ),
        "judge_function_model": LLMJudge(rubric="names the capital of France", model=judge_model()),
    }


EVALUATORS = _evaluators()


def inside_pydantic_evals(x: Evaluator[Any, Any, Any]) -> list[bool]:
    rows = [(q, OUTPUTS[q], label) for q, label in zip(QUESTIONS, LABELS, strict=True)]
    name = x.get_default_evaluation_name()
    return [case.assertions[name].value for case in evaluate([x], rows).cases]


@pytest.fixture(scope="module", params=sorted(EVALUATORS))
def pair(request: pytest.FixtureRequest) -> tuple[sb.Scorer, list[bool]]:
    """The scorer from one evaluator, and the evaluator's verdicts inside pydantic-evals."""
    x = EVALUATORS[request.param]
    native = inside_pydantic_evals(x)
    assert len(set(native)) == (1 if request.param == "judge_test_model" else 2)  # verdicts that tell apart
    return from_pydantic_evals(x), native


def test_plain_python(pair: tuple[sb.Scorer, list[bool]]) -> None:
    scorer, native = pair
    assert [scorer(q, OUTPUTS[q], label).correct for q, label in zip(QUESTIONS, LABELS, strict=True)] == native


def test_benchmark(pair: tuple[sb.Scorer, list[bool]]) -> None:
    scorer, native = pair
    result = sb.benchmark({"arm": OUTPUTS.__getitem__}, QUESTIONS, LABELS, scorer=scorer)
    assert [r["correct"] for r in result.to_records()] == native


def test_inspect_ai(pair: tuple[sb.Scorer, list[bool]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
    from inspect_ai.solver import generate

    from scorebridge_inspect import to_inspect

    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path))
    scorer, native = pair

    def reply(messages: list[ChatMessage], *args: Any) -> ModelOutput:
        out = ModelOutput.from_content("mockllm/model", OUTPUTS[messages[-1].text])
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # offline: no tokenizer download
        return out

    samples = [Sample(id=i, input=q, target=label) for i, (q, label) in enumerate(zip(QUESTIONS, LABELS, strict=True))]
    task = Task(dataset=samples, solver=generate(), scorer=to_inspect(scorer))
    [log] = eval(task, model=get_model("mockllm/model", custom_outputs=reply), display="none", log_dir=str(tmp_path))
    assert log.status == "success" and log.samples is not None
    by_id = {sample.id: sample.scores[scorer.name].value for sample in log.samples if sample.scores}
    assert [by_id[i] == "C" for i in range(len(QUESTIONS))] == native


def test_dspy_evaluate(pair: tuple[sb.Scorer, list[bool]]) -> None:
    pytest.importorskip("dspy")
    import dspy
    from dspy.utils import DummyLM

    from scorebridge_dspy import to_dspy

    scorer, native = pair
    lm = DummyLM({q: {"answer": OUTPUTS[q]} for q in QUESTIONS})
    devset = [
        dspy.Example(question=q, answer=label).with_inputs("question")
        for q, label in zip(QUESTIONS, LABELS, strict=True)
    ]
    with dspy.context(lm=lm):
        result = dspy.Evaluate(devset=devset, metric=to_dspy(scorer), num_threads=1)(dspy.Predict("question -> answer"))
    assert [value == 1.0 for _, _, value in result.results] == native


def test_pytest(pair: tuple[sb.Scorer, list[bool]], pytester: pytest.Pytester, request: pytest.FixtureRequest) -> None:
    _, native = pair
    name = request.node.callspec.params["pair"]
    pytester.makepyfile(
        f"""
        import pytest
        from scorebridge_pydantic_evals import from_pydantic_evals

        import test_every_harness

        SCORER = from_pydantic_evals(test_every_harness._evaluators()[{name!r}])
        ROWS = {list(zip((OUTPUTS[q] for q in QUESTIONS), LABELS, strict=True))!r}

        @pytest.mark.parametrize("output, label", ROWS)
        def test_row(scorebridge_record, output, label):
            scorebridge_record(SCORER, output, label)
        """
    )
    pytester.syspathinsert(Path(__file__).parent)
    report = pytester.path / "scores.jsonl"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--scorebridge-report={report}")
    result.assert_outcomes(passed=len(QUESTIONS))
    rows = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    assert [row["correct"] for row in rows] == native


def test_mlflow(pair: tuple[sb.Scorer, list[bool]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mlflow")
    import scorebridge_mlflow

    if not hasattr(scorebridge_mlflow, "to_mlflow"):
        pytest.skip("the MLflow spoke (scorebridge_mlflow.to_mlflow) is not in this checkout")
    import logging
    import uuid

    import mlflow

    for variable in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(variable, str(tmp_path / variable.lower()))
    monkeypatch.setenv("MLFLOW_DISABLE_TELEMETRY", "true")
    monkeypatch.setenv("TQDM_DISABLE", "1")
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    # set_experiment sets the process's active experiment (and MLFLOW_EXPERIMENT_ID): a later test on
    # another store (the docs' MLflow page) was refused with "No Experiment with id=1 exists"
    monkeypatch.setenv("MLFLOW_EXPERIMENT_ID", "")
    monkeypatch.delenv("MLFLOW_EXPERIMENT_ID")
    monkeypatch.setattr(mlflow.tracking.fluent, "_active_experiment_id", None)
    scorer, native = pair
    mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
    try:
        experiment = mlflow.create_experiment(f"pyevals-{uuid.uuid4().hex[:8]}", (tmp_path / "artifacts").as_uri())
        mlflow.set_experiment(experiment_id=experiment)
        logging.getLogger("mlflow").setLevel(logging.WARNING)
        data = [
            {"inputs": {"question": q}, "outputs": OUTPUTS[q], "expectations": {"expected_response": label}}
            for q, label in zip(QUESTIONS, LABELS, strict=True)
        ]
        result = mlflow.genai.evaluate(data=data, scorers=[scorebridge_mlflow.to_mlflow(scorer)])
        assert [bool(v) for v in result.result_df[f"{scorer.name}/value"]] == native
    finally:
        mlflow.set_tracking_uri(None)
