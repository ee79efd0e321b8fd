"""from_deepeval: deepeval's metrics as scorebridge scorers give deepeval's own verdicts in every harness."""

from __future__ import annotations

import asyncio
import inspect
import json
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any, ClassVar

import pytest
from de_offline import CONNECTIONS, ScriptedJudge
from deepeval.metrics import BaseMetric, ExactMatchMetric, GEval
from deepeval.test_case import LLMTestCase, SingleTurnParams

import scorebridge as sb
from scorebridge_deepeval import as_test_case, from_deepeval

QUESTIONS = [f"q{n}" for n in range(6)]
OUTPUTS = ["Paris", "paris", " Paris ", "Lyon", "Rome", "Paris, France"]
LABELS = ["Paris", "Paris", "Paris", "Paris", "Rome", "Paris"]
ROWS = list(zip(QUESTIONS, OUTPUTS, LABELS, strict=True))


def geval() -> GEval:
    return GEval(
        name="Correctness", criteria="Is the actual output the expected output?", model=ScriptedJudge(),
        evaluation_params=[SingleTurnParams.ACTUAL_OUTPUT, SingleTurnParams.EXPECTED_OUTPUT],
    )  # fmt: skip


METRICS = {"exact_match": ExactMatchMetric, "geval": geval}


def measured(make: Any) -> list[bool]:
    """deepeval's own verdicts: a fresh metric's `measure` on each row's test case, as deepeval calls it."""
    verdicts = []
    for row in ROWS:
        metric = make()
        metric.measure(as_test_case(*row), _show_indicator=False)
        verdicts.append(bool(metric.success))
    return verdicts


@pytest.fixture(scope="module", params=sorted(METRICS))
def pair(request: pytest.FixtureRequest) -> tuple[sb.Scorer, list[bool]]:
    make = METRICS[request.param]
    native = measured(make)
    assert len(set(native)) == 2  # verdicts that tell the rows apart
    return from_deepeval(make()), native


def test_plain_python(pair: tuple[sb.Scorer, list[bool]]) -> None:
    scorer, native = pair
    assert [scorer(*row).correct for row in ROWS] == native


def test_inspect_ai(pair: tuple[sb.Scorer, list[bool]], tmp_path: Path) -> None:
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
    from inspect_ai.solver import generate

    from scorebridge_inspect import to_inspect

    scorer, native = pair
    answers = dict(zip(QUESTIONS, OUTPUTS, strict=True))

    def reply(messages: list[ChatMessage], *args: Any) -> ModelOutput:
        out = ModelOutput.from_content("mockllm/model", answers[messages[-1].text])
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # offline: no tokenizer download
        return out

    samples = [Sample(id=n, input=q, target=label) for n, (q, _, label) in enumerate(ROWS)]
    task = Task(dataset=samples, solver=generate(), scorer=to_inspect(scorer))
    [log] = eval(task, model=get_model("mockllm/model", custom_outputs=reply), display="none", log_dir=str(tmp_path))
    assert log.status == "success" and log.samples is not None
    by_id = {s.id: s.scores[scorer.name].value for s in log.samples if s.scores}
    assert [by_id[n] == "C" for n in range(len(ROWS))] == native


def test_dspy_evaluate(pair: tuple[sb.Scorer, list[bool]]) -> None:
    import dspy
    from dspy.utils import DummyLM

    from scorebridge_dspy import to_dspy

    scorer, native = pair
    lm = DummyLM({q: {"answer": out} for q, out, _ in ROWS})
    devset = [dspy.Example(question=q, answer=label).with_inputs("question") for q, _, label in ROWS]
    with dspy.context(lm=lm):
        result = dspy.Evaluate(devset=devset, metric=to_dspy(scorer), num_threads=1)(dspy.Predict("question -> answer"))
    assert [value == 1.0 for _, _, value in result.results] == native


def test_trl_reward(pair: tuple[sb.Scorer, list[bool]]) -> None:
    from scorebridge_rl import to_trl

    scorer, native = pair
    rewards = to_trl(scorer)(prompts=QUESTIONS, completions=OUTPUTS, solution=LABELS)
    if inspect.isawaitable(rewards):  # an async metric's reward is async, which TRL awaits
        rewards = asyncio.run(rewards)
    assert [r == 1.0 for r in rewards] == native


def test_the_cli(pair: tuple[sb.Scorer, list[bool]], tmp_path: Path, request: pytest.FixtureRequest) -> None:
    _, native = pair
    name = request.node.callspec.params["pair"]
    (tmp_path / "de_scorers.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from scorebridge_deepeval import from_deepeval\n"
        "import test_from_deepeval\n"
        f"metric = from_deepeval(test_from_deepeval.METRICS[{name!r}]())\n",
        encoding="utf-8",
    )
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps({"input": q, "output": o, "label": la}) + "\n" for q, o, la in ROWS))
    out = tmp_path / "scored.jsonl"
    command = [sys.executable, "-m", "scorebridge", "score", str(data), "--scorer", "de_scorers.py@metric"]
    done = subprocess.run([*command, "--out", str(out)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    name = from_deepeval(METRICS[name]()).name
    assert [row[f"{name}.correct"] for row in rows if f"{name}.correct" in row] == native


def test_one_metric_object_scored_concurrently_gives_the_serial_verdicts() -> None:
    # a deepeval metric holds its last result (score, success, reason): shared by 32 rows at once it would mix them
    scorer = from_deepeval(geval())
    rows = ROWS * 6
    rows = rows[:32]
    serial = [scorer(*row).correct for row in rows]
    together = asyncio.run(scorer.ascore_many(*zip(*rows, strict=True), concurrency=32))
    assert [s.correct for s in together] == serial
    threaded = scorer.score_many(*zip(*rows, strict=True), concurrency=32)
    assert [s.correct for s in threaded] == serial


def test_a_metric_that_reads_no_expected_output_scores_unlabelled_rows() -> None:
    concise = GEval(name="Concise", criteria="Is it short?", model=ScriptedJudge(),
                    evaluation_params=[SingleTurnParams.INPUT, SingleTurnParams.ACTUAL_OUTPUT])  # fmt: skip
    scorer = from_deepeval(concise)
    assert scorer.needs_label is False
    assert scorer("q", "Paris", None).correct is True
    assert scorer("q", "Paris is a city in the north of France", None).correct is False


def test_a_metric_that_needs_an_expected_output_leaves_unlabelled_rows_unscored() -> None:
    judge = ScriptedJudge()
    scorer = from_deepeval(GEval(name="C", criteria="Right?", model=judge, evaluation_params=[
        SingleTurnParams.ACTUAL_OUTPUT, SingleTurnParams.EXPECTED_OUTPUT]))  # fmt: skip
    assert scorer("q", "Paris", None).correct is None and judge.asked == 0


def test_the_deprecated_parameter_name_works() -> None:
    import deepeval.test_case as cases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = cases.LLMTestCaseParams
    metric = GEval(name="C", criteria="Right?", model=ScriptedJudge(),
                   evaluation_params=[old.ACTUAL_OUTPUT, old.EXPECTED_OUTPUT])  # fmt: skip
    scorer = from_deepeval(metric)
    assert (scorer.needs_label, scorer("q", "Paris", "paris").correct) == (True, True)


class Broken(BaseMetric):
    """A metric whose measure raises, or gives a score off deepeval's 0-1 scale."""

    _required_params: ClassVar[list[SingleTurnParams]] = [SingleTurnParams.ACTUAL_OUTPUT]

    def __init__(self, score: float | None = None, threshold: float = 0.5) -> None:
        self.score_given, self.threshold, self.async_mode = score, threshold, False

    def measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        if self.score_given is None:
            raise RuntimeError("the judge is down")
        self.score = self.score_given
        return self.score

    async def a_measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        return self.measure(test_case)


def test_a_raising_metric_is_an_error_under_record_never_a_zero_verdict_of_its_own() -> None:
    score = from_deepeval(Broken(), on_error="record", options={"metric": "broken"})("q", "Paris", "Paris")
    assert (score.correct, score.failure_kind) == (False, "error") and "the judge is down" in score.explanation


def test_a_score_off_deepevals_scale_is_a_contract_error_naming_the_scorer() -> None:
    with pytest.raises(sb.ScorerContractError, match="off_scale"):
        from_deepeval(Broken(score=3.0), name="off_scale", options={"metric": "broken"})("q", "Paris", "Paris")


def test_context_comes_from_the_items_fields() -> None:
    seen: list[Any] = []

    class Grounded(Broken):
        _required_params: ClassVar[list[SingleTurnParams]] = [SingleTurnParams.RETRIEVAL_CONTEXT]

        def measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
            seen.append((test_case.input, test_case.context, test_case.retrieval_context))
            self.score = 1.0
            self.success = True
            return 1.0

    scorer = from_deepeval(Grounded(), options={"metric": "grounded"})
    scorer({"input": "q", "docs": ["a", "b"], "context": "c"}, "Paris", None)
    scorer = from_deepeval(Grounded(), options={"metric": "grounded"}, retrieval_context_field="docs")
    scorer({"input": "q", "docs": ["a", "b"], "context": "c"}, "Paris", None)
    assert seen == [("q", ["c"], None), ("q", ["c"], ["a", "b"])]


def test_a_round_trip_is_the_identity() -> None:
    from scorebridge_deepeval import to_deepeval

    metric, scorer = ExactMatchMetric(), sb.exact()
    assert to_deepeval(from_deepeval(metric)) is metric
    assert from_deepeval(to_deepeval(scorer)) is scorer


def test_no_request_leaves_the_machine() -> None:
    scorer = from_deepeval(geval())
    scorer.score_many(*zip(*ROWS, strict=True))
    assert CONNECTIONS == []
