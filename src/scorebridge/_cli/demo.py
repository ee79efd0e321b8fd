"""`scorebridge demo`: one set of outputs, three scorers, eight harnesses, the same verdicts.

The scorers: scorebridge's `detect_match()`, DSPy's `answer_exact_match` brought
in with `from_dspy`, and Inspect AI's `match()` brought in with `from_inspect`.
The harnesses, each run for real and offline:

- python: the scorer called directly;
- benchmark: `scorebridge.benchmark()`, with an arm that returns the output;
- inspect: an Inspect AI `eval()` of a task whose model is `mockllm/model`
  answering with the outputs, the scorers wrapped with `to_inspect`, in a process
  of its own started before the other harnesses on Linux, without the OpenAI and
  Anthropic SDKs (Inspect imports them for those providers);
- dspy: `dspy.Evaluate` of a `dspy.Predict` program on a `DummyLM` answering with
  the outputs, the scorers wrapped with `to_dspy` (the value is what Evaluate
  sums, `correct` the bool BootstrapFewShot would get, the failure kind the one
  named in the feedback GEPA would get);
- pytest: a generated test file run by pytest (in this process, with
  `pytest.main`), one `assert_scored` per case (`correct` is whether the test
  passed; the value and the failure kind come from the plugin's
  `--scorebridge-report`);
- mlflow: `mlflow.genai.evaluate` on a sqlite store kept in the cache folder
  (`cache_folder()`, made on the first run), the scorers wrapped with `to_mlflow`
  (MLflow's own `{name}/mean`, the failure kinds of its result table), in a
  process of its own started before the other harnesses on Linux, without litellm
  and the Databricks SDK (MLflow imports them for its LLM judges and Databricks);
  left out when MLflow is not installed;
- pydantic_evals: a pydantic-evals `Dataset.evaluate`, the scorers wrapped with
  `to_pydantic_evals` (the report's assertions, `NAME_value` scores and failure
  kind labels); left out when pydantic-evals is not installed;
- trl: one GRPO reward batch called as TRL's trainer calls it, the scorers
  wrapped with `to_trl` (the rewards, and the failure kinds it logs).

A line is printed as each harness finishes, then the table of verdicts, then
each scorer's summary as each harness counts it (scored, accuracy, failure kinds,
unscored: `scorebridge.Summary` in plain Python, `benchmark()` and pytest; the
`failure_kinds()` metric and Inspect's own counts in Inspect AI;
`scorebridge_dspy.evaluate` in DSPy, beside DSPy's own score, which counts the
unlabelled case 0). The demo exits 1 when two harnesses disagree on any verdict
or any summary: it is a check, not a show.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import logging
import os
import pickle
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, NamedTuple, cast

from .._protocol.grade import grade_value
from .._protocol.score import FAILURE_KINDS, Score
from .._protocol.scorer import Scorer
from .._protocol.values import shown
from .._runner.summary import Summary, number_cell, text_table

__all__ = ["CASES", "DEMO_SCORERS", "HARNESSES", "HARNESS_TABLE", "Case", "Harness", "demo_scorers", "main", "run"]


class Case(NamedTuple):
    """One output to score: the question, what the system answered, the reference answer."""

    item: str
    output: str
    label: str | None


CASES: tuple[Case, ...] = (
    Case("What is the capital of France?", "The capital of France is Paris.", "Paris"),
    Case("Which planet is the largest?", "jupiter", "Jupiter"),
    Case("Which river flows through Vienna?", "The Danube flows through it, not the Rhine.", "Danube"),
    Case("What is 2 + 3?", "The answer is 25", "5"),
    Case("Who wrote Hamlet?", "", "William Shakespeare"),
    Case("In which year did the merger close?", "NOT_IN_DOCUMENT", "2019"),
    Case("Which ocean is the largest?", "The Pacific.", None),  # no label: unscored, out of the accuracy
)


class Harness(NamedTuple):
    """A harness the demo runs: its name, how (as its progress line says), and the module it needs.

    Its run is the module's `_by_<name>(scorers, scratch)`, giving the verdicts (by
    scorer, then case) and the summaries (by scorer); `scratch` is a folder for its
    files. Adding a harness is a row here and that one function. A harness whose
    module is not installed (its extra left out) is left out of the demo. A harness
    `apart` runs in a process of its own, started before the others and read in its
    turn, where the demo can fork (`_can_fork`): its run is the slowest. `without`
    names the optional libraries the harness imports up front for what the demo does not
    use (a provider's SDK, LLM judges): its run goes without those not imported yet
    (`_without`), as where they are not installed.
    """

    name: str
    how: str
    needs: str | None = None
    apart: bool = False
    without: tuple[str, ...] = ()


HARNESS_TABLE: Final = (
    Harness("python", "each scorer called directly"),
    Harness("benchmark", "scorebridge.benchmark()"),
    # Inspect imports the OpenAI and Anthropic SDKs at each sample's start, for those providers' state (2.2 s
    # of CPU); the demo's model is mockllm
    Harness(
        "inspect",
        "an Inspect AI eval on mockllm, scorers through to_inspect",
        apart=True,
        without=("anthropic", "openai"),
    ),
    Harness("dspy", "dspy.Evaluate on a DummyLM, scorers through to_dspy"),
    Harness("pytest", "pytest.main on a test file of assert_scored calls"),
    # MLflow's evaluation imports litellm (its LLM judges) and the Databricks SDK on its first call (3.9 s of
    # CPU); the demo's scorers call no model and its store is a sqlite file
    Harness(
        "mlflow",
        "mlflow.genai.evaluate on a sqlite store, scorers through to_mlflow",
        "mlflow",
        apart=True,
        without=("litellm", "databricks.sdk"),
    ),
    Harness("pydantic_evals", "a pydantic-evals Dataset.evaluate, scorers through to_pydantic_evals", "pydantic_evals"),
    Harness("trl", "a GRPO reward batch as TRL calls it, scorers through to_trl (no torch)"),
)

HARNESSES: tuple[str, ...] = tuple(
    h.name for h in HARNESS_TABLE if h.needs is None or importlib.util.find_spec(h.needs) is not None
)

Verdict = dict[str, Any]  # {"correct": bool | None, "value": float | None, "failure_kind": str | None}
Verdicts = dict[str, list[Verdict]]  # scorer name -> one verdict per case


class Counted(NamedTuple):
    """A scorer's summary as one harness counts it; `native` is a harness's own other number, if any."""

    scored: int
    accuracy: float | None
    failure_kinds: dict[str, int]
    unscored: int
    native: str | None = None

    @classmethod
    def of(cls, summary: Summary, native: str | None = None) -> Counted:
        kinds = {str(kind): n for kind, n in summary.failure_kinds.items()}
        return cls(summary.scored, summary.accuracy, kinds, summary.unscored, native)

    def numbers(self) -> tuple[int, float | None, dict[str, int], int]:
        """What must agree between harnesses (the accuracy to 9 places: Inspect's mean is numpy's)."""
        accuracy = None if self.accuracy is None else round(self.accuracy, 9)
        return self.scored, accuracy, self.failure_kinds, self.unscored


Summaries = dict[str, Counted]  # scorer name -> its summary in one harness
Result = tuple[Verdicts, Summaries]


def _label(case: Case) -> str:
    return "" if case.label is None else case.label


DEMO_SCORERS: Final = ("detect_match", "dspy_answer_exact_match", "inspect_match")
"""The names of `demo_scorers()`, known without importing Inspect AI and DSPy."""


def demo_scorers() -> dict[str, Scorer]:
    """The three scorers of the demo, by name (imports Inspect AI and DSPy)."""
    import dspy
    from inspect_ai.scorer import match

    from scorebridge_dspy import from_dspy
    from scorebridge_inspect import from_inspect

    from .._scorers.detect import detect_match

    return {
        "detect_match": detect_match(),
        "dspy_answer_exact_match": from_dspy(dspy.evaluate.answer_exact_match, name="dspy_answer_exact_match"),
        "inspect_match": from_inspect(match(), name="inspect_match"),
    }


def _as_ones_own(s: Scorer) -> Scorer:
    """`s` as a scorer of one's own, calling it: what the demo hands Inspect AI and DSPy.

    A round trip gives a harness its own scorer back (`to_inspect(from_inspect(match()))`
    is `match()`), with the harness's own verdicts; the demo shows scorebridge's verdicts
    in every harness. Called from inside, `s` still sees the harness's own objects.
    """
    return Scorer(s.name, s, recorded=True)


def _verdict(score: Score) -> Verdict:
    return {"correct": score.correct, "value": score.value, "failure_kind": score.failure_kind}


def _by_python(scorers: Mapping[str, Scorer], scratch: Path) -> Result:
    verdicts: Verdicts = {}
    summaries: Summaries = {}
    for name, s in scorers.items():
        scores = [s(c.item, c.output, c.label) for c in CASES]
        verdicts[name] = [_verdict(score) for score in scores]
        summaries[name] = Counted.of(Summary.of(name, scores))
    return verdicts, summaries


def _by_benchmark(scorers: Mapping[str, Scorer], scratch: Path) -> Result:
    from .._runner.run import benchmark

    answers = {c.item: c.output for c in CASES}
    verdicts: Verdicts = {}
    summaries: Summaries = {}
    for name, s in scorers.items():
        result = benchmark({"demo": answers.__getitem__}, [c.item for c in CASES], [c.label for c in CASES], scorer=s)
        verdicts[name] = [
            {"correct": r.correct, "value": r.value, "failure_kind": r.failure_kind} for r in result.records
        ]
        summaries[name] = Counted.of(result.summary()["demo"])
    return verdicts, summaries


def _by_inspect(scorers: Mapping[str, Scorer], scratch: Path) -> Result:
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
    from inspect_ai.solver import generate

    from scorebridge_inspect import to_inspect

    def reply(messages: list[ChatMessage], *args: Any) -> ModelOutput:
        asked = messages[-1].text
        out = ModelOutput.from_content("mockllm/model", next(c.output for c in CASES if c.item == asked))
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # else mockllm downloads a tokenizer
        return out

    task = Task(
        dataset=[Sample(id=i, input=c.item, target=_label(c)) for i, c in enumerate(CASES)],
        solver=generate(),
        scorer=[to_inspect(_as_ones_own(s), name=name) for name, s in scorers.items()],
    )
    model = get_model("mockllm/model", custom_outputs=reply)
    # No control server: an eval of seven samples that nothing will steer needs no HTTP app (a second of
    # importing and binding)
    log = eval(task, model=model, log_dir=str(scratch / "logs"), display="none", ctl_server=False)[0]
    if log.status != "success" or log.samples is None or log.results is None:
        raise RuntimeError(f"the Inspect AI eval failed: {log.error}")
    samples = sorted(log.samples, key=lambda sample: int(sample.id))
    verdicts: Verdicts = {}
    for name in scorers:
        verdicts[name] = []
        for sample in samples:
            got = (sample.scores or {})[name]
            value = grade_value(got.value)
            kind = (got.metadata or {}).get("failure_kind")  # to_inspect writes it always, None when correct
            correct = None if value is None else kind is None
            verdicts[name].append({"correct": correct, "value": value, "failure_kind": kind})
    summaries: Summaries = {}
    for result in log.results.scores:  # Inspect's own counts, and the failure_kinds() metric of to_inspect
        metrics = {key: metric.value for key, metric in result.metrics.items()}
        summaries[result.name] = Counted(
            result.scored_samples or 0,
            metrics["accuracy"] if result.scored_samples else None,
            {kind: int(metrics.get(kind, 0)) for kind in FAILURE_KINDS},
            result.unscored_samples or 0,
        )
    return verdicts, summaries


def _kind_in(feedback: str) -> str | None:
    """The failure kind a `to_dspy` feedback text starts with ("refusal: ..."), None for "correct: ..."."""
    head = feedback.partition(":")[0]
    return head if head in FAILURE_KINDS else None


def _by_dspy(scorers: Mapping[str, Scorer], scratch: Path) -> Result:
    import dspy
    from dspy.utils import DummyLM

    from scorebridge_dspy import evaluate, to_dspy

    logging.getLogger("dspy.evaluate.evaluate").setLevel(logging.WARNING)  # its "Average Metric" lines
    lm = DummyLM({c.item: {"answer": c.output} for c in CASES})
    devset = [dspy.Example(question=c.item, answer=c.label).with_inputs("question") for c in CASES]
    program = dspy.Predict("question -> answer")
    verdicts: Verdicts = {}
    summaries: Summaries = {}
    with dspy.context(lm=lm):
        for name, s in scorers.items():
            mine = _as_ones_own(s)
            metric = to_dspy(mine)
            evaluation = evaluate(program, devset, mine, num_threads=1, display_progress=False)
            verdicts[name] = [
                {
                    "correct": metric(example, pred, []),  # as BootstrapFewShot calls it
                    "value": value,  # what Evaluate sums
                    "failure_kind": _kind_in(metric(example, pred, None, "answer", None).feedback),  # GEPA's call
                }
                if score.correct is not None
                else _verdict(score)  # unscored: a DSPy metric must give a number, so it raises; evaluate() says N
                for (example, pred, value), score in zip(evaluation.result.results, evaluation.scores, strict=True)
            ]
            native = f"DSPy's own Evaluate score: {evaluation.dspy_score:g} (percent of all {len(CASES)} cases)"
            summaries[name] = Counted.of(evaluation.summary, native)
    return verdicts, summaries


_PYTEST_FILE = """\
import pytest
from pytest_scorebridge import assert_scored
from scorebridge._cli.demo import CASES, demo_scorers

SCORERS = demo_scorers()


@pytest.mark.parametrize("index", range(len(CASES)))
@pytest.mark.parametrize("name", list(SCORERS))
def test_case(name, index):
    case = CASES[index]
    assert_scored(SCORERS[name], case.output, case.label, item=case.item)
"""


_PYTEST_PLUGINS: Final = (
    "-p",
    "pytest_scorebridge._plugin",  # the plugin the test file uses, and only it: no other installed plugin is loaded
    "-p",
    "no:cacheprovider",
    "-p",
    "no:unraisableexception",  # its collections at the end walk every object Inspect AI and DSPy made (a second)
)


@contextlib.contextmanager
def _no_plugin_autoload() -> Iterator[None]:
    """pytest loads no plugin it finds installed (hypothesis's alone took seconds to import, for nothing)."""
    before = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        yield
    finally:
        if before is None:
            del os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = before


class _Outcomes:
    """A pytest plugin object: whether each test passed, by node id."""

    def __init__(self) -> None:
        self.passed: dict[str, bool] = {}

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.when == "call" or report.failed:  # a failed set-up or teardown fails the test too
            self.passed[report.nodeid] = self.passed.get(report.nodeid, True) and bool(report.passed)


def _by_pytest(scorers: Mapping[str, Scorer], scratch: Path) -> Result:
    import pytest

    folder = scratch / "pytest"
    folder.mkdir()
    (folder / "test_demo_cases.py").write_text(_PYTEST_FILE, encoding="utf-8")
    (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")  # not the settings of a project around
    report = folder / "scores.jsonl"
    outcomes = _Outcomes()
    command = [
        str(folder),
        "-q",
        "--import-mode=importlib",
        f"--scorebridge-report={report}",
        *_PYTEST_PLUGINS,
    ]
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown), _no_plugin_autoload():
        status = pytest.main(command, plugins=[outcomes])
    if status not in (0, 1) or not report.exists():
        raise RuntimeError(f"pytest did not run the demo's tests (exit status {status}):\n{shown.getvalue()}")
    rows = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    verdicts: Verdicts = {name: [] for name in scorers}
    for name in scorers:
        for index in range(len(CASES)):
            test = f"::test_case[{name}-{index}]"
            row = next(r for r in rows if r["nodeid"].endswith(test))
            ok = next(passed for nodeid, passed in outcomes.passed.items() if nodeid.endswith(test))
            verdicts[name].append(
                {
                    "correct": ok if row["correct"] is not None else None,
                    "value": row["value"],
                    "failure_kind": row["failure_kind"],
                }
            )
    summaries = {  # the plugin's summary counts the report's rows
        name: Counted.of(Summary.of(name, [_Row(r) for r in rows if r["scorer"] == name])) for name in scorers
    }
    return verdicts, summaries


def _counted(verdicts: Sequence[Verdict], accuracy: float | None) -> Counted:
    """A harness's summary from its own verdicts (the failure kinds among the scored) and its own mean."""
    scored = [v for v in verdicts if v["correct"] is not None]
    kinds = {str(k): sum(v["failure_kind"] == k for v in scored) for k in FAILURE_KINDS}
    return Counted(len(scored), accuracy, kinds, len(verdicts) - len(scored))


def cache_folder() -> Path:
    """Where scorebridge keeps what it can make again: `$XDG_CACHE_HOME/scorebridge` (by default
    `~/.cache/scorebridge`); on macOS `~/Library/Caches/scorebridge`, on Windows
    `%LOCALAPPDATA%\\scorebridge\\Cache`. Deleting it loses nothing but time."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "scorebridge" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "scorebridge"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "scorebridge"


@contextlib.contextmanager
def _demo_store(scratch: Path, mlflow_version: str) -> Iterator[Path]:
    """The sqlite file the MLflow harness evaluates on: `demo/mlflow-<version>.db` in `cache_folder()`.

    MLflow makes its tables on the first run (a second of its schema migrations) and only
    checks them after; a file per MLflow version, as another version would refuse the
    schema. Each run adds its run and traces (a few kB). While a demo holds the file (a
    lock, where the platform has `fcntl`), a second demo at the same time, or a cache
    folder that cannot be written, evaluates on a new file in `scratch` instead.
    """
    folder = cache_folder() / "demo"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = (folder / "mlflow.lock").open("a")
    except OSError:
        yield scratch / "mlflow.db"
        return
    with lock:
        try:
            import fcntl
        except ImportError:  # Windows: no lock
            yield folder / f"mlflow-{mlflow_version}.db"
            return
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # another demo is evaluating on it
            yield scratch / "mlflow.db"
            return
        yield folder / f"mlflow-{mlflow_version}.db"  # the lock goes with the file's closing


_DEMO_EXPERIMENT: Final = "scorebridge demo"


def _by_mlflow(scorers: Mapping[str, Scorer], scratch: Path) -> Result:
    import mlflow

    from scorebridge_mlflow import to_mlflow

    data = [
        {
            "inputs": {"input": c.item},
            "outputs": c.output,
            "expectations": {} if c.label is None else {"expected_response": c.label},
        }
        for c in CASES
    ]
    logging.getLogger("mlflow").setLevel(logging.ERROR)  # its progress and "Testing ..." lines
    os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
    before = mlflow.get_tracking_uri()
    with _demo_store(scratch, mlflow.__version__) as store:
        mlflow.set_tracking_uri(f"sqlite:///{store}")
        try:
            client = mlflow.MlflowClient()
            known = client.get_experiment_by_name(_DEMO_EXPERIMENT)
            # its files beside the store (MLflow writes a trace there when sqlite is too busy), not in the
            # folder the demo is run from
            experiment = (
                known.experiment_id
                if known
                else client.create_experiment(_DEMO_EXPERIMENT, artifact_location=(store.parent / "artifacts").as_uri())
            )
            shown = io.StringIO()
            scored_by = [to_mlflow(_as_ones_own(s), name=name) for name, s in scorers.items()]
            with (
                contextlib.redirect_stdout(shown),
                contextlib.redirect_stderr(shown),
                mlflow.start_run(experiment_id=experiment),
            ):
                result = mlflow.genai.evaluate(data=data, scorers=scored_by)
        finally:
            mlflow.set_tracking_uri(before)
    if result.result_df is None:
        raise RuntimeError(f"mlflow.genai.evaluate gave no result table:\n{shown.getvalue()}")
    verdicts: Verdicts = {name: [] for name in scorers}
    for assessments in result.result_df["assessments"]:  # one row per case, in the data's order
        found = {a.get("assessment_name"): a for a in (assessments or ()) if isinstance(a, Mapping)}
        for name in scorers:
            got = found.get(name)
            value = None if got is None else (got.get("feedback") or {}).get("value")
            kind = None if got is None else (got.get("metadata") or {}).get("failure_kind")
            correct = None if value is None else kind is None
            verdicts[name].append({"correct": correct, "value": value, "failure_kind": kind})
    summaries: Summaries = {}
    for name in scorers:  # MLflow's own mean; the counts from its result table
        mean = result.metrics.get(f"{name}/mean")
        summaries[name] = _counted(verdicts[name], None if mean is None else float(mean))
    return verdicts, summaries


def _by_pydantic_evals(scorers: Mapping[str, Scorer], scratch: Path) -> Result:
    from pydantic_evals import Case as EvalCase
    from pydantic_evals import Dataset

    from scorebridge_pydantic_evals import to_pydantic_evals

    answers = {c.item: c.output for c in CASES}
    dataset = Dataset(
        name="scorebridge demo",
        cases=[EvalCase(name=str(i), inputs=c.item, expected_output=c.label) for i, c in enumerate(CASES)],
        evaluators=[to_pydantic_evals(_as_ones_own(s)) for s in scorers.values()],
    )
    report = dataset.evaluate_sync(answers.__getitem__, progress=False)
    by_case = {case.name: case for case in report.cases}
    verdicts: Verdicts = {name: [] for name in scorers}
    for i in range(len(CASES)):
        case = by_case[str(i)]
        for name in scorers:
            asserted = case.assertions.get(name)  # no assertion: skipped, unscored
            value = case.scores.get(f"{name}_value")
            kind = case.labels.get(f"{name}_failure_kind")
            verdicts[name].append(
                {
                    "correct": None if asserted is None else bool(asserted.value),
                    "value": None if value is None else value.value,
                    "failure_kind": None if kind is None else kind.value,
                }
            )
    averages = report.averages()
    summaries: Summaries = {}
    for name in scorers:  # the report's own mean of the value; the failure kinds are its label counts
        summaries[name] = _counted(verdicts[name], None if averages is None else averages.scores.get(f"{name}_value"))
    return verdicts, summaries


def _by_trl(scorers: Mapping[str, Scorer], scratch: Path) -> Result:
    from scorebridge_rl import to_trl

    verdicts: Verdicts = {}
    summaries: Summaries = {}
    for name, s in scorers.items():
        logged: dict[str, Any] = {}
        rewards = to_trl(_as_ones_own(s), name=name)(
            prompts=[c.item for c in CASES],
            completions=[c.output for c in CASES],
            completion_ids=None,
            solution=[c.label for c in CASES],
            trainer_state=None,
            log_extra=logged.__setitem__,  # as TRL's trainer calls them: a column, and a metric
            log_metric=logged.__setitem__,
        )
        kinds_column = logged[f"{name}/failure_kind"]
        verdicts[name] = [
            {"correct": None if r is None else kind is None, "value": r, "failure_kind": kind}
            for r, kind in zip(rewards, kinds_column, strict=True)
        ]
        scored = [r for r in rewards if r is not None]
        summaries[name] = _counted(verdicts[name], sum(scored) / len(scored) if scored else None)  # TRL's mean
    return verdicts, summaries


class _Row:
    """A row of the pytest plugin's report, read as a Score is read by `Summary.of`."""

    __slots__ = ("correct", "failure_kind", "value")

    def __init__(self, row: Mapping[str, Any]) -> None:
        self.correct, self.value, self.failure_kind = row["correct"], row["value"], row["failure_kind"]


Run = Callable[[Mapping[str, Scorer], Path], Result]


@contextlib.contextmanager
def _without(modules: Sequence[str]) -> Iterator[None]:
    """Inside, `import m` raises ImportError for each of `modules` not imported yet (a library importing
    it as optional goes on as where it is not installed); after, it imports as before. Process-wide while
    it lasts: the demo runs nothing else then."""
    kept_out = [m for m in modules if m not in sys.modules]
    for m in kept_out:
        sys.modules[m] = None  # type: ignore[assignment]  # Python's own mark for "not importable"
    try:
        yield
    finally:
        for m in kept_out:
            if sys.modules.get(m, ...) is None:
                del sys.modules[m]


def _can_fork() -> bool:
    """Whether a harness can run in a forked process: on Linux (macOS's system libraries are not safe to
    use after a fork, Windows has none), from a process running no other thread (a fork copies no
    thread, so a lock another thread holds would stay held in the child for ever)."""
    return sys.platform == "linux" and threading.active_count() == 1


def _started_apart(
    harness: str, run_in: Run, scorers: Mapping[str, Scorer], scratch: Path
) -> Callable[[], tuple[Result, float]]:
    """`run_in(scorers, scratch)` started now in a forked process; calling the function returned waits
    for its result and the seconds it took there. An exception in the child is raised as a RuntimeError
    naming the harness, with the child's traceback."""
    read, write = os.pipe()
    sys.stdout.flush()  # else the child would write out what the parent has not written yet
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: the result or the traceback into the pipe, then out without clean-up
        os.close(read)
        outcome: tuple[bool, object, float]
        start = time.perf_counter()
        try:
            outcome = (True, run_in(scorers, scratch), time.perf_counter() - start)
        except BaseException:
            outcome = (False, traceback.format_exc(), 0.0)
        with os.fdopen(write, "wb") as pipe:
            pickle.dump(outcome, pipe)
        os._exit(0)
    os.close(write)

    def result() -> tuple[Result, float]:
        try:
            with os.fdopen(read, "rb") as pipe:
                ok, got, seconds = pickle.load(pipe)
        except EOFError:
            ok, got, seconds = False, "its process ended without a result", 0.0
        finally:
            os.waitpid(pid, 0)
        if not ok:
            raise RuntimeError(f"the {harness} harness failed in its process:\n{got}")
        return cast("Result", got), seconds

    return result


def _run_of(harness: Harness) -> Run:
    """The harness's `_by_<name>`, run `_without` the libraries it goes without."""
    by = globals()[f"_by_{harness.name}"]

    def run_in(scorers: Mapping[str, Scorer], scratch: Path) -> Result:
        with _without(harness.without):
            return cast("Result", by(scorers, scratch))

    return run_in


def run_harnesses(
    scorers: Mapping[str, Scorer], done: Callable[[str, Verdicts, float], None] = lambda *_: None
) -> dict[str, Result]:
    """Every harness's verdicts (by scorer, then case) and summaries (by scorer), by harness;
    `done(harness, verdicts, seconds)` is called as each harness finishes, in the table's order.

    A harness `apart` is started first in a process of its own when `_can_fork()` (its
    `seconds` are those it took there); the others run here, one after another, not
    waiting for it: a harness after it in the table is reported once it is.
    """
    runs: dict[str, Run] = {h.name: _run_of(h) for h in HARNESS_TABLE if h.name in HARNESSES}
    with tempfile.TemporaryDirectory(prefix="scorebridge-demo-") as folder:
        scratch = Path(folder)
        started: dict[str, Callable[[], tuple[Result, float]]] = {}
        if _can_fork():
            for h in HARNESS_TABLE:
                if h.apart and h.name in runs:
                    started[h.name] = _started_apart(h.name, runs[h.name], scorers, scratch)
        results: dict[str, tuple[Result, float]] = {}
        to_report = list(runs)

        def report_done() -> None:
            while to_report and to_report[0] in results:
                harness = to_report.pop(0)
                done(harness, results[harness][0][0], results[harness][1])

        try:
            for harness, run_in in runs.items():
                if harness not in started:
                    start = time.perf_counter()
                    results[harness] = run_in(scorers, scratch), time.perf_counter() - start
                    report_done()
            for harness in to_report[:]:
                if harness in started:
                    results[harness] = started.pop(harness)()
                report_done()
        finally:
            for result in started.values():  # a harness here failed: the processes of the others end first
                with contextlib.suppress(RuntimeError):
                    result()
        return {harness: results[harness][0] for harness in runs}


def _cell(v: Verdict) -> str:
    if v["correct"] is None:
        return "N"
    grade = "C" if v["correct"] else "I"
    value = v["value"]
    partial = f" {value:g}" if value is not None and 0 < value < 1 else ""
    return grade + partial + (f" {v['failure_kind']}" if v["failure_kind"] else "")


def report(results: Mapping[str, Result], scorers: Mapping[str, Scorer]) -> tuple[list[dict[str, Any]], list[str]]:
    """The cases as the JSON the demo prints, and a line for every disagreement between harnesses."""
    cases, disagreements = [], []
    for name in scorers:
        reference_summary = results["python"][1][name]
        for harness in HARNESSES:
            summary = results[harness][1][name]
            counts, reference_counts = summary.numbers(), reference_summary.numbers()
            if counts != reference_counts:
                disagreements.append(f"{name}, summary: {harness} counts {counts}, python counts {reference_counts}")
        for index, case in enumerate(CASES):
            verdicts = {h: results[h][0][name][index] for h in HARNESSES}
            reference = verdicts["python"]
            for harness, verdict in verdicts.items():
                if verdict != reference:
                    disagreements.append(f"{name}, case {index + 1}: {harness} says {verdict}, python says {reference}")
            cases.append(
                {
                    "scorer": name,
                    "item": case.item,
                    "output": case.output,
                    "label": case.label,
                    "failure_kind": reference["failure_kind"],
                    "verdicts": verdicts,
                }
            )
    return cases, disagreements


def _table(
    cases: Sequence[Mapping[str, Any]],
    results: Mapping[str, Result],
    scorers: Mapping[str, Scorer],
    write: Callable[[str], None],
) -> None:
    head = f"  {'#':>2}  {'output':34}  {'label':21}" + "".join(f"  {h:17}" for h in HARNESSES)
    for name, s in scorers.items():
        write(f"\n{name}  {s!r}")
        write(head)
        rows = [c for c in cases if c["scorer"] == name]
        for index, case in enumerate(rows, 1):
            cells = "".join(f"  {_cell(case['verdicts'][h]):17}" for h in HARNESSES)
            write(f"  {index:>2}  {shown(case['output'], 34):34}  {shown(case['label'], 21):21}{cells}")
        summaries = {h: results[h][1][name] for h in HARNESSES}
        kinds = [k for k in FAILURE_KINDS if any(c.failure_kinds[k] for c in summaries.values())]
        table = [["summary", "scored", "accuracy", *kinds, "unscored"]]
        for harness, c in summaries.items():
            table.append(
                [
                    harness,
                    str(c.scored),
                    number_cell(c.accuracy),
                    *(str(c.failure_kinds[k]) for k in kinds),
                    str(c.unscored),
                ]
            )
        write("")
        for line in text_table(table, right=range(1, len(table[0]))):
            write(f"  {line}")
        for c in summaries.values():
            if c.native:
                write(f"  {c.native}")


_HOW: Final = {h.name: h.how for h in HARNESS_TABLE}


def _progress(write: Callable[[str], None]) -> Callable[[str, Verdicts, float], None]:
    """The line printed as a harness finishes: its verdicts, its time, and whether it agrees so far."""
    first: dict[str, Verdicts] = {}

    def done(harness: str, verdicts: Verdicts, seconds: float) -> None:
        reference = first.setdefault("python", verdicts)
        count = sum(len(v) for v in verdicts.values())
        differ = sum(a != b for name in verdicts for a, b in zip(verdicts[name], reference[name], strict=True))
        agreement = "agree with python" if not differ else f"{differ} differ from python"
        write(f"  {harness:9}  {count} verdicts, {agreement}  {seconds:5.2f} s  ({_HOW[harness]})")

    return done


def main(
    as_json: bool = False, write: Callable[[str], None] = print, progress: Callable[[str], None] | None = None
) -> int:
    """Run the demo: a line per harness as it finishes (to `progress`; default `write`, or stderr with JSON),
    then the side-by-side table (or the JSON); 0 when every harness agrees, else 1; 2 without the adapters."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # DSPy's LiteLLM would fetch a price list
    if progress is None:
        progress = (lambda line: print(line, file=sys.stderr, flush=True)) if as_json else write
    progress(f"scorebridge demo: {len(CASES)} outputs, {len(DEMO_SCORERS)} scorers, {len(HARNESSES)} harnesses")
    start = time.perf_counter()
    try:
        scorers = demo_scorers()
    except ImportError as exc:
        write(f'scorebridge demo needs the adapters ({exc}): pip install "scorebridge[all]"')
        return 2
    progress(f"  Inspect AI and DSPy imported  {time.perf_counter() - start:5.2f} s")
    results = run_harnesses(scorers, _progress(progress))
    cases, disagreements = report(results, scorers)
    if as_json:
        summaries = {name: {h: results[h][1][name]._asdict() for h in HARNESSES} for name in scorers}
        write(json.dumps({"harnesses": list(HARNESSES), "cases": cases, "summaries": summaries}, indent=2))
    else:
        write("\nC correct, I incorrect (with its failure kind), N not scored")
        _table(cases, results, scorers, write)
        verdict_count = len(cases) * len(HARNESSES)
        if disagreements:
            write(f"\n{len(disagreements)} disagreements:")
            for line in disagreements:
                write(f"  {line}")
        else:
            write(
                f"\nall {len(HARNESSES)} harnesses agree on all {verdict_count} verdicts and {len(scorers)} summaries"
            )
    progress(f"the demo took {time.perf_counter() - start:.1f} s (wall), after the command's start-up")
    return 1 if disagreements else 0


def run(args: argparse.Namespace) -> int:
    """`scorebridge demo [--json]`."""
    return main(as_json=args.json, write=lambda line: print(line, flush=True))
