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
    # set_experiment also keeps the id in a global of MLflow's: a later test on its own store (docs/mlflow.md's,
    # in the same worker) then looked for experiment 1 there ("No Experiment with id=1 exists")
    monkeypatch.setattr("mlflow.tracking.fluent._active_experiment_id", None)
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


# --- pydantic-evals -----------------------------------------------------------------------------------


def _pydantic_evals_report(graded: sb.Scorer, *others: Any) -> Any:
    pytest.importorskip("pydantic_evals")
    from pydantic_evals import Case, Dataset

    from scorebridge_pydantic_evals import to_pydantic_evals

    cases = [Case(name=item, inputs=item, expected_output=label) for item, (_, label) in zip(ITEMS, ROWS, strict=True)]
    dataset = Dataset[str, str, Any](name="one number", cases=cases, evaluators=[to_pydantic_evals(graded), *others])
    return dataset.evaluate_sync(OUTPUTS.__getitem__, progress=False)


def test_pydantic_evals(graded: sb.Scorer) -> None:
    report = _pydantic_evals_report(graded)
    averages = report.averages()
    assessed = [case for case in report.cases if "graded" in case.assertions]  # the unlabelled two are skipped
    failed = [case for case in assessed if not case.assertions["graded"].value]
    kinds = {kind: round(share * len(failed)) for kind, share in averages.labels["graded_failure_kind"].items()}
    expected_kinds = {kind: n for kind, n in EXPECTED["failure_kinds"].items() if n}
    assert _counts(len(assessed), averages.scores["graded_value"], kinds) == {
        **EXPECTED,
        "failure_kinds": expected_kinds,
    }
    # The assertion pass rate counts HALF as failed (its assertion is False): 2 of 9, not the accuracy's 2.5 / 9.
    assert averages.assertions == pytest.approx(2 / 9)


def test_pydantic_evals_pools_assertions_over_evaluators(graded: sb.Scorer) -> None:
    # pydantic-evals' one assertion average is over every evaluator's assertions: beside EqualsExpected (2 of
    # the 9 labelled cases are "Paris"; it skips the unlabelled two as graded does) it is (2 + 2) / 18, a
    # number of neither; graded's own figure is its NAME_value mean, unchanged.
    pytest.importorskip("pydantic_evals")
    from pydantic_evals.evaluators import EqualsExpected

    averages = _pydantic_evals_report(graded, EqualsExpected()).averages()
    assert averages.assertions == pytest.approx((2 + 2) / 18)
    assert averages.scores["graded_value"] == pytest.approx(2.5 / 9)


# --- The README's within_1pct, written the natural way, and one error policy ---------------------------------
#
# The README's scorer declares `label: float` and checks only `label is None`. Inspect's targets and CSV
# cells are text and DSPy's blank labels are "", so before labels were read as declared it raised a
# TypeError on every Inspect sample and CSV row. Now every harness gives the same scored, correct,
# accuracy, failure kinds and unscored counts. A scorer raising on one row of three gives 0.333 over 3 with
# on_error="record" in every entry point; a label-free scorer (needs_label=False) scores unlabelled rows
# alike everywhere, and a reference-based one still leaves them unscored.

README_PATH = Path(__file__).resolve().parents[1] / "README.md"

NEAR_ROWS: list[tuple[str, Any]] = [  # (output, label); the item is "n<index>"
    ("45.3", 45.2),  # correct
    ("50", 45.2),  # wrong
    ("n/a", 10),  # parse_failure
    ("10.05", "10"),  # correct: a text label, as Inspect and CSV give it
    ("3", None),  # unscored
    ("3", ""),  # unscored: a blank label (a CSV cell, a DSPy example)
]
NEAR_ITEMS = [f"n{i}" for i in range(len(NEAR_ROWS))]
NEAR_OUTPUTS = dict(zip(NEAR_ITEMS, (o for o, _ in NEAR_ROWS), strict=True))
NEAR_EXPECTED = {
    "scored": 4,
    "correct": 2,
    "accuracy": pytest.approx(0.5),
    "failure_kinds": {"parse_failure": 1, "wrong": 1},
    "unscored": 2,
}


def _five(scored: int, correct: int, accuracy: float | None, kinds: dict[str, Any], unscored: int) -> dict[str, Any]:
    """The five numbers every harness must agree on (failure kinds that occur only)."""
    present = {k: int(v) for k, v in kinds.items() if int(v)}
    return {"scored": scored, "correct": correct, "accuracy": accuracy, "failure_kinds": present, "unscored": unscored}


def _of(s: sb.Summary) -> dict[str, Any]:
    return _five(s.scored, s.correct, s.accuracy, dict(s.failure_kinds), s.unscored)


@pytest.fixture(scope="module")
def readme_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's scorer block, as a module `readme_scorer` (its `near` is `sb.scorer(within_1pct)`)."""
    import re

    blocks = re.findall(r"```python\n(.*?)```", README_PATH.read_text(encoding="utf-8"), re.DOTALL)
    block = next(b for b in blocks if "def within_1pct" in b)
    code = "\n".join(line for line in block.splitlines() if not line.startswith("near(None"))
    path = tmp_path_factory.mktemp("readme") / "readme_scorer.py"
    path.write_text(code + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def near(readme_file: Path) -> sb.Scorer:
    spec = importlib.util.spec_from_file_location("readme_scorer", readme_file)
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made: sb.Scorer = module.near
    return made


def test_the_readmes_within_1pct_declares_a_float_label_and_checks_only_label_is_none(near: sb.Scorer) -> None:
    import inspect

    source = inspect.getsource(near.fn)
    assert near.label_type is float
    assert "label is None" in source and "float(label)" not in source and "isnan(label" not in source


def test_within_1pct_in_plain_python(near: sb.Scorer) -> None:
    scores = [near(i, o, lab) for i, (o, lab) in zip(NEAR_ITEMS, NEAR_ROWS, strict=True)]
    assert _of(sb.Summary.of("within_1pct", scores)) == NEAR_EXPECTED


def test_within_1pct_in_benchmark(near: sb.Scorer) -> None:
    result = sb.benchmark({"arm": NEAR_OUTPUTS.__getitem__}, NEAR_ITEMS, [lab for _, lab in NEAR_ROWS], scorer=near)
    assert _of(result.summary()["arm"]) == NEAR_EXPECTED


def _csv_cell(label: Any) -> str:
    return "" if label is None else str(label)


@pytest.mark.parametrize("form", ["jsonl", "csv", "parquet"])
def test_within_1pct_in_the_command_line(form: str, readme_file: Path, tmp_path: Path) -> None:
    rows = [{"input": i, "output": o, "label": lab} for i, (o, lab) in zip(NEAR_ITEMS, NEAR_ROWS, strict=True)]
    data = tmp_path / f"data.{form}"
    if form == "jsonl":
        data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif form == "csv":  # every label text, the unlabelled ones blank cells
        lines = ["input,output,label", *(f"{r['input']},{r['output']},{_csv_cell(r['label'])}" for r in rows)]
        data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        pa = pytest.importorskip("pyarrow")
        import pyarrow.parquet as pq

        labels = [None if r["label"] in (None, "") else float(r["label"]) for r in rows]
        pq.write_table(pa.table({"output": [r["output"] for r in rows], "label": labels}), data)
    command = ["score", str(data), "--scorer", f"{readme_file}@near", "--format", "json"]
    run = subprocess.run(
        [sys.executable, "-m", "scorebridge", *command], capture_output=True, text=True, check=False, timeout=120
    )
    assert run.returncode == 0, run.stderr
    s = json.loads(run.stdout)
    assert _five(s["scored"], s["correct"], s["accuracy"], s["failure_kinds"], s["unscored"]) == NEAR_EXPECTED


@pytest.mark.timeout(300)
def test_within_1pct_with_the_ray_engine_on_csv_with_blank_cells(readme_file: Path, tmp_path: Path) -> None:
    pytest.importorskip("ray")
    data = tmp_path / "data.csv"
    lines = [
        "input,output,label",
        *(f"{i},{o},{_csv_cell(lab)}" for i, (o, lab) in zip(NEAR_ITEMS, NEAR_ROWS, strict=True)),
    ]
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    command = ["score", str(data), "--scorer", f"{readme_file}@near", "--engine", "ray", "--format", "json"]
    run = subprocess.run(
        [sys.executable, "-m", "scorebridge", *command], capture_output=True, text=True, check=False, timeout=280
    )
    assert run.returncode == 0, run.stderr
    s = json.loads(run.stdout.strip().splitlines()[-1])
    assert _five(s["scored"], s["correct"], s["accuracy"], s["failure_kinds"], s["unscored"]) == NEAR_EXPECTED


def _five_of_log(path: str, name: str) -> dict[str, Any]:
    """The five numbers of the scorer `name` in an Inspect AI log."""
    from inspect_ai.log import read_eval_log

    log = read_eval_log(path)
    assert log.results is not None
    [s] = [score for score in log.results.scores if score.name == name]
    metrics = {key: m.value for key, m in s.metrics.items()}
    scored = s.scored_samples or 0
    kinds = {kind: metrics[kind] for kind in sb.FAILURE_KINDS}
    return _five(scored, round(metrics["accuracy"] * scored), metrics["accuracy"], kinds, s.unscored_samples or 0)


@pytest.mark.timeout(300)
def test_within_1pct_in_inspect_score_on_a_log_whose_targets_are_text(tmp_path: Path) -> None:
    # The README's scorer, decorated in examples/my_scorers.py, rescoring a real log by `file.py@name`.
    pytest.importorskip("inspect_ai")
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    def reply(messages: list[ChatMessage], *args: Any) -> ModelOutput:
        out = ModelOutput.from_content("mockllm/model", NEAR_OUTPUTS[messages[-1].text])
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # offline: no tokenizer download
        return out

    samples = [
        Sample(id=i, input=item, target=_csv_cell(lab))
        for i, (item, (_, lab)) in enumerate(zip(NEAR_ITEMS, NEAR_ROWS, strict=True))
    ]
    task = Task(dataset=samples, solver=generate(), scorer=match())
    [log] = eval(task, model=get_model("mockllm/model", custom_outputs=reply), log_dir=str(tmp_path), display="none")
    assert log.status == "success"
    scorers = Path(__file__).resolve().parents[1] / "examples" / "my_scorers.py"
    rescored = tmp_path / "rescored.eval"
    inspect_cli = Path(sys.executable).parent / "inspect"
    command = [str(inspect_cli), "score", "--scorer", f"{scorers}@within_1pct", "--action", "overwrite"]
    done = subprocess.run(
        [*command, "--output-file", str(rescored), log.location], capture_output=True, text=True, timeout=280
    )
    assert done.returncode == 0, done.stderr
    assert _five_of_log(str(rescored), "within_1pct") == NEAR_EXPECTED


def _inspect_five(inspect_scorer: Any, items: list[str], outputs: dict[str, str], targets: list[str]) -> dict[str, Any]:
    """An Inspect eval() of `inspect_scorer` over the samples (mockllm replying `outputs`): its five numbers."""
    pytest.importorskip("inspect_ai")
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
    from inspect_ai.solver import generate

    def reply(messages: list[ChatMessage], *args: Any) -> ModelOutput:
        out = ModelOutput.from_content("mockllm/model", outputs[messages[-1].text])
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # offline: no tokenizer download
        return out

    samples = [Sample(id=i, input=item, target=t) for i, (item, t) in enumerate(zip(items, targets, strict=True))]
    task = Task(dataset=samples, solver=generate(), scorer=inspect_scorer)
    [log] = eval(task, model=get_model("mockllm/model", custom_outputs=reply), display="none")
    assert log.status == "success" and log.results is not None
    [s] = log.results.scores
    metrics = {name: m.value for name, m in s.metrics.items()}
    scored = s.scored_samples or 0
    kinds = {kind: metrics[kind] for kind in sb.FAILURE_KINDS}
    if not scored:  # Inspect's accuracy over no sample is NaN: none
        return _five(0, 0, None, kinds, s.unscored_samples or 0)
    return _five(scored, round(metrics["accuracy"] * scored), metrics["accuracy"], kinds, s.unscored_samples or 0)


def test_within_1pct_in_an_inspect_eval_whose_targets_are_text(near: sb.Scorer) -> None:
    pytest.importorskip("inspect_ai")
    from scorebridge_inspect import to_inspect

    targets = [_csv_cell(lab) for _, lab in NEAR_ROWS]  # Inspect's targets are text; "" is no target
    assert _inspect_five(to_inspect(near), NEAR_ITEMS, NEAR_OUTPUTS, targets) == NEAR_EXPECTED


def _devset(items: list[str], labels: list[Any] | None) -> list[Any]:
    import dspy

    if labels is None:  # no label field at all
        return [dspy.Example(question=i).with_inputs("question") for i in items]
    return [dspy.Example(question=i, answer=lab).with_inputs("question") for i, lab in zip(items, labels, strict=True)]


def _dummy_lm(outputs: dict[str, str]) -> Any:
    from dspy.utils import DummyLM

    return DummyLM({item: {"answer": output} for item, output in outputs.items()})


def test_within_1pct_in_scorebridge_dspy_evaluate(near: sb.Scorer) -> None:
    pytest.importorskip("dspy")
    import dspy

    from scorebridge_dspy import evaluate

    devset = _devset(NEAR_ITEMS, [lab for _, lab in NEAR_ROWS])
    with dspy.context(lm=_dummy_lm(NEAR_OUTPUTS)):
        evaluation = evaluate(dspy.Predict("question -> answer"), devset, near, num_threads=1)
    assert _of(evaluation.summary) == NEAR_EXPECTED


def test_within_1pct_in_dspys_own_evaluate_on_the_labelled_rows(near: sb.Scorer) -> None:
    pytest.importorskip("dspy")
    import dspy

    from scorebridge_dspy import to_dspy

    labelled = [(i, lab) for i, (_, lab) in zip(NEAR_ITEMS, NEAR_ROWS, strict=True) if lab not in (None, "")]
    devset = _devset([i for i, _ in labelled], [lab for _, lab in labelled])
    with dspy.context(lm=_dummy_lm(NEAR_OUTPUTS)):
        result = dspy.Evaluate(devset=devset, metric=to_dspy(near), num_threads=1)(dspy.Predict("question -> answer"))
    assert result.score == 50.0  # DSPy's percentage: 2 of the 4 labelled, the accuracy everywhere else


def _plugin_five(pytester: pytest.Pytester, scorer_file: Path, scorer: str, cases: str, marker: str = "") -> Any:
    """A pytest run of one case test recording `scorer` on each case of `cases.csv`: its summary's five numbers."""
    pytester.syspathinsert(scorer_file.parent)
    pytester.makefile(".csv", cases=cases)
    pytester.makepyfile(
        f"""
        import pytest
        from {scorer_file.stem} import {scorer} as scorer

        @pytest.mark.scorebridge_cases("cases.csv"{marker})
        def test_case(case, scorebridge_record):
            scorebridge_record(scorer, case["output"], case.get("label"))
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    header = next(line for line in result.outlines if line.startswith("scorer "))
    row = next(line for line in result.outlines if line.startswith(("within_1pct ", "boom_on_b ", "short ", "exact ")))
    table = dict(zip(header.replace("95% CI", "95%_CI").split(), row.replace(", ", ",").split(), strict=True))
    kinds = {kind: table.get(kind, "0") for kind in sb.FAILURE_KINDS}
    accuracy = None if table["accuracy"] == "-" else float(table["accuracy"])
    five = _five(int(table["scored"]), int(table["correct"]), accuracy, kinds, int(table["unscored"]))
    return result, five


def test_within_1pct_in_the_pytest_plugin_on_a_csv_case_file(readme_file: Path, pytester: pytest.Pytester) -> None:
    cases = "output,label\n" + "".join(f"{o},{_csv_cell(lab)}\n" for o, lab in NEAR_ROWS)  # blank cells included
    result, five = _plugin_five(pytester, readme_file, "near", cases)
    result.assert_outcomes(passed=len(NEAR_ROWS))
    assert five == {**NEAR_EXPECTED, "accuracy": pytest.approx(0.5, abs=5e-4)}


# A scorer that raises on one row of three: a right, b raises, c wrong.

BOOM_SCORER = """
from scorebridge import scorer


@scorer
def boom_on_b(item, output, label):
    if output == "b":
        raise ValueError("no b")
    return output == label
"""
BOOM_ITEMS = ["qa", "qb", "qc"]
BOOM_OUTPUTS = {"qa": "a", "qb": "b", "qc": "c"}
BOOM_LABELS = ["a", "b", "x"]
BOOM_EXPECTED = {
    "scored": 3,
    "correct": 1,
    "accuracy": pytest.approx(1 / 3),
    "failure_kinds": {"wrong": 1, "error": 1},
    "unscored": 0,
}


@pytest.fixture(scope="module")
def boom_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("boom") / "boom_scorer.py"
    path.write_text(BOOM_SCORER, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def boom(boom_file: Path) -> sb.Scorer:
    spec = importlib.util.spec_from_file_location("boom_scorer", boom_file)
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made: sb.Scorer = module.boom_on_b
    return made


def test_a_raising_row_recorded_in_score_many(boom: sb.Scorer) -> None:
    scores = boom.score_many(BOOM_ITEMS, list(BOOM_OUTPUTS.values()), BOOM_LABELS, on_error="record")
    assert _of(sb.Summary.of("boom_on_b", scores)) == BOOM_EXPECTED


def test_a_raising_row_recorded_in_benchmark(boom: sb.Scorer) -> None:
    result = sb.benchmark({"arm": BOOM_OUTPUTS.__getitem__}, BOOM_ITEMS, BOOM_LABELS, scorer=boom, on_error="record")
    assert _of(result.summary()["arm"]) == BOOM_EXPECTED


def test_a_raising_row_recorded_in_an_inspect_eval(boom: sb.Scorer) -> None:
    pytest.importorskip("inspect_ai")
    from scorebridge_inspect import to_inspect

    assert _inspect_five(to_inspect(boom, on_error="record"), BOOM_ITEMS, BOOM_OUTPUTS, BOOM_LABELS) == BOOM_EXPECTED


def test_a_raising_row_recorded_in_scorebridge_dspy_evaluate(boom: sb.Scorer) -> None:
    pytest.importorskip("dspy")
    import dspy

    from scorebridge_dspy import evaluate

    with dspy.context(lm=_dummy_lm(BOOM_OUTPUTS)):
        evaluation = evaluate(
            dspy.Predict("question -> answer"), _devset(BOOM_ITEMS, BOOM_LABELS), boom, num_threads=1, on_error="record"
        )
    assert _of(evaluation.summary) == BOOM_EXPECTED
    assert evaluation.dspy_score == pytest.approx(33.33, abs=0.01)


def test_a_raising_row_recorded_in_dspys_own_evaluate(boom: sb.Scorer) -> None:
    pytest.importorskip("dspy")
    import dspy

    from scorebridge_dspy import to_dspy

    with dspy.context(lm=_dummy_lm(BOOM_OUTPUTS)):
        evaluate = dspy.Evaluate(devset=_devset(BOOM_ITEMS, BOOM_LABELS), metric=to_dspy(boom, on_error="record"))
        result = evaluate(dspy.Predict("question -> answer"), num_threads=1)
    assert result.score == pytest.approx(33.33, abs=0.01)


def test_dspys_own_evaluate_goes_on_past_a_raising_row_with_on_error_raise(
    boom: sb.Scorer, caplog: pytest.LogCaptureFixture
) -> None:
    # Where DSPy cannot follow "raise": Evaluate catches the metric's exception, logs it, and counts the example 0
    pytest.importorskip("dspy")
    import dspy

    from scorebridge_dspy import to_dspy

    with dspy.context(lm=_dummy_lm(BOOM_OUTPUTS)):
        evaluate = dspy.Evaluate(devset=_devset(BOOM_ITEMS, BOOM_LABELS), metric=to_dspy(boom))
        result = evaluate(dspy.Predict("question -> answer"), num_threads=1)
    assert result.score == pytest.approx(33.33, abs=0.01)
    assert "no b" in caplog.text


def test_a_raising_row_recorded_in_the_pytest_plugin(boom_file: Path, pytester: pytest.Pytester) -> None:
    cases = "output,label\n" + "".join(
        f"{o},{lab}\n" for o, lab in zip(BOOM_OUTPUTS.values(), BOOM_LABELS, strict=True)
    )
    result, five = _plugin_five(pytester, boom_file, "boom_on_b", cases, ', on_error="record"')
    result.assert_outcomes(passed=3)
    assert five == {**BOOM_EXPECTED, "accuracy": pytest.approx(1 / 3, abs=5e-4)}


# A label-free scorer: the output is at most 5 characters. No row has a label.

SHORT_SCORER = '''
from scorebridge import exact, scorer


@scorer(needs_label=False)
def short(item, output, label):
    """A length limit: it judges the output alone."""
    return len(output) <= 5


reference = exact()  # a reference-based scorer: it needs a label
'''
SHORT_ITEMS = ["s1", "s2", "s3"]
SHORT_OUTPUTS = {"s1": "Paris", "s2": "Paris, France", "s3": "Rome"}
SHORT_EXPECTED = {
    "scored": 3,
    "correct": 2,
    "accuracy": pytest.approx(2 / 3),
    "failure_kinds": {"wrong": 1},
    "unscored": 0,
}
REFERENCE_EXPECTED = {"scored": 0, "correct": 0, "accuracy": None, "failure_kinds": {}, "unscored": 3}


@pytest.fixture(scope="module")
def short_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("short") / "short_scorer.py"
    path.write_text(SHORT_SCORER, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def short(short_file: Path) -> sb.Scorer:
    spec = importlib.util.spec_from_file_location("short_scorer", short_file)
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made: sb.Scorer = module.short
    return made


def test_a_label_free_scorer_in_plain_python(short: sb.Scorer) -> None:
    scores = [short(i, SHORT_OUTPUTS[i], None) for i in SHORT_ITEMS]
    assert _of(sb.Summary.of("short", scores)) == SHORT_EXPECTED


def test_a_reference_based_scorer_in_plain_python_leaves_unlabelled_rows_unscored() -> None:
    scores = [sb.exact()(i, SHORT_OUTPUTS[i], None) for i in SHORT_ITEMS]
    assert _of(sb.Summary.of("exact", scores)) == REFERENCE_EXPECTED


@pytest.mark.parametrize("reference_based", [False, True])
def test_a_label_free_scorer_in_benchmark(short: sb.Scorer, reference_based: bool) -> None:
    scorer = sb.exact() if reference_based else short
    result = sb.benchmark({"arm": SHORT_OUTPUTS.__getitem__}, SHORT_ITEMS, [None] * 3, scorer=scorer)
    assert _of(result.summary()["arm"]) == (REFERENCE_EXPECTED if reference_based else SHORT_EXPECTED)


@pytest.mark.parametrize("reference_based", [False, True])
def test_a_label_free_scorer_in_an_inspect_eval_with_empty_targets(short: sb.Scorer, reference_based: bool) -> None:
    pytest.importorskip("inspect_ai")
    from scorebridge_inspect import to_inspect

    scorer = to_inspect(sb.exact() if reference_based else short)
    five = _inspect_five(scorer, SHORT_ITEMS, SHORT_OUTPUTS, [""] * 3)
    assert five == (REFERENCE_EXPECTED if reference_based else SHORT_EXPECTED)


@pytest.mark.parametrize("reference_based", [False, True])
def test_a_label_free_scorer_in_dspy_without_a_label_field(short: sb.Scorer, reference_based: bool) -> None:
    pytest.importorskip("dspy")
    import dspy

    from scorebridge_dspy import evaluate

    scorer = sb.exact() if reference_based else short
    with dspy.context(lm=_dummy_lm(SHORT_OUTPUTS)):
        evaluation = evaluate(dspy.Predict("question -> answer"), _devset(SHORT_ITEMS, None), scorer, num_threads=1)
    assert _of(evaluation.summary) == (REFERENCE_EXPECTED if reference_based else SHORT_EXPECTED)


@pytest.mark.parametrize("reference_based", [False, True])
def test_a_label_free_scorer_in_the_pytest_plugin(
    short_file: Path, pytester: pytest.Pytester, reference_based: bool
) -> None:
    cases = "output\n" + "".join(f'"{o}"\n' for o in SHORT_OUTPUTS.values())  # no label column at all
    result, five = _plugin_five(pytester, short_file, "reference" if reference_based else "short", cases)
    result.assert_outcomes(passed=3)
    assert five == (
        REFERENCE_EXPECTED if reference_based else {**SHORT_EXPECTED, "accuracy": pytest.approx(2 / 3, abs=5e-4)}
    )


# --- the RL reward (scorebridge_rl) -----------------------------------------------------------------


def test_the_rl_reward(graded: sb.Scorer) -> None:
    # to_trl(graded) called as GRPOTrainer calls it: TRL's mean is over the rewards that are not None, and the
    # failure kinds reach its logs as shares of the scored completions (log_metric)
    from scorebridge_rl import to_trl

    metrics: dict[str, float] = {}
    rewards = to_trl(graded)(
        prompts=ITEMS,
        completions=[output for output, _ in ROWS],
        completion_ids=[[] for _ in ROWS],
        solution=[label for _, label in ROWS],
        trainer_state=None,
        log_extra=lambda column, values: None,
        log_metric=metrics.__setitem__,
    )
    scored = [r for r in rewards if r is not None]
    kinds = {kind: round(metrics[f"rewards/graded/{kind}"] * len(scored)) for kind in sb.FAILURE_KINDS}
    assert _counts(len(scored), sum(scored) / len(scored), kinds) == EXPECTED
    assert metrics["rewards/graded/unscored"] == pytest.approx(2 / 11)
