"""`inspect_grader()`, and `model_graded_qa()` inside a real, offline Inspect AI eval."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate

import scorebridge as sb
from scorebridge.testing import FakeGrader
from scorebridge_inspect import inspect_grader, to_inspect


@pytest.fixture(autouse=True)
def offline_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # Inspect AI writes logs, traces and caches under these; keep them in the test's tmp dir.
    for var in ("INSPECT_LOG_DIR", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(var, str(tmp_path))
    yield


def reply(content: str) -> ModelOutput:
    output = ModelOutput.from_content(model="mockllm/model", content=content)
    # mockllm counts tokens with a tokenizer it downloads unless usage is set.
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def mock(*contents: str) -> Model:
    return get_model("mockllm/model", custom_outputs=[reply(c) for c in contents], memoize=False)


# --- the bridge --------------------------------------------------------------------------


def test_inspect_grader_gives_the_model_reply_text() -> None:
    grader = inspect_grader(mock("Both say Paris.\nGRADE: C"))
    assert asyncio.run(grader("Grade this.")) == "Both say Paris.\nGRADE: C"


def test_inspect_grader_is_async_so_the_scorer_is_async() -> None:
    assert sb.model_graded_qa(inspect_grader(mock("GRADE: C"))).is_async


def test_inspect_grader_scores_through_model_graded_qa() -> None:
    scorer = sb.model_graded_qa(inspect_grader(mock("GRADE: C", "GRADE: I")))
    scores = scorer.score_many(["Capital of France?"] * 2, ["Paris", "Lyon"], ["Paris"] * 2, concurrency=1)
    assert [s.grade for s in scores] == ["C", "I"]


def test_inspect_grader_sends_the_prompt_to_the_model() -> None:
    seen: list[str] = []

    def answer(messages: list[ChatMessage], *_: Any) -> ModelOutput:
        seen.append(messages[-1].text)
        return reply("GRADE: C")

    grader = inspect_grader(get_model("mockllm/model", custom_outputs=answer, memoize=False))
    sb.model_graded_fact(grader)("Capital of France?", "Paris", "Paris is the capital")
    assert len(seen) == 1 and "<fact>\nParis is the capital\n</fact>" in seen[0]


def test_model_that_fails_is_recorded_as_the_grader_failure() -> None:
    # custom_outputs runs out after one reply: the second call raises inside Inspect AI.
    scorer = sb.model_graded_qa(inspect_grader(mock("GRADE: C")))
    scores = scorer.score_many(None, ["Paris", "Paris"], ["Paris", "Paris"], concurrency=1)
    assert [s.grade for s in scores] == ["C", "N"]
    assert "ran out of values" in scores[1].metadata["grader_failed"]


def test_inspect_grader_passes_its_config() -> None:
    configs: list[GenerateConfig] = []

    def answer(messages: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        configs.append(config)
        return reply("GRADE: C")

    model = get_model("mockllm/model", custom_outputs=answer, memoize=False)
    asyncio.run(inspect_grader(model, config=GenerateConfig(temperature=0.0))("prompt"))
    assert configs[0].temperature == 0.0


def test_inspect_grader_repr_names_the_model() -> None:
    assert repr(inspect_grader(mock("GRADE: C"))) == "inspect_grader('mockllm/model')"


@pytest.mark.parametrize(("model", "error"), [("", ValueError), (42, TypeError)])
def test_inspect_grader_refuses_what_is_not_a_model(model: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="inspect_grader: model must"):
        inspect_grader(model)


def test_inspect_grader_refuses_a_config_that_is_not_a_generate_config() -> None:
    with pytest.raises(TypeError, match="config must be a GenerateConfig"):
        inspect_grader(mock("GRADE: C"), config={"temperature": 0})  # type: ignore[arg-type]


# --- round trip: model_graded_qa in an offline eval, through to_inspect ----------------------


QUESTIONS = ["Capital of France?", "Capital of Italy?", "Capital of Spain?", "Capital of Peru?"]
TARGETS = ["Paris", "Rome", "Madrid", ""]  # the last sample has no label: unscored, grader not asked
ANSWERS = ["It is Paris.", "Milan", "Madrid, of course.", "Lima"]


def run_eval(scorer: sb.Scorer, log_dir: Path) -> Any:
    task = Task(
        dataset=[Sample(input=q, target=t) for q, t in zip(QUESTIONS, TARGETS, strict=True)],
        solver=generate(),
        scorer=to_inspect(scorer),
    )
    by_question = {q: a for q, a in zip(QUESTIONS, ANSWERS, strict=True)}

    def solve(messages: list[ChatMessage], *_: Any) -> ModelOutput:
        return reply(by_question[messages[-1].text])

    (log,) = eval(
        task,
        model=get_model("mockllm/model", custom_outputs=solve, memoize=False),
        log_dir=str(log_dir),
        display="none",
    )
    return log


def grade_by_answer(prompt: str) -> str:
    right = any(f"<answer>\n{a}\n</answer>" in prompt for a in ("It is Paris.", "Madrid, of course."))
    return "Looks right.\nGRADE: C" if right else "Wrong city.\nGRADE: I"


def test_model_graded_qa_runs_in_an_offline_eval(tmp_path: Path) -> None:
    grader = FakeGrader(grade_by_answer, delay=0.01, asynchronous=True)
    log = run_eval(sb.model_graded_qa(grader), tmp_path)
    assert log.status == "success"
    scores = [sample.scores["model_graded_qa"] for sample in log.samples]
    assert [s.value for s in scores[:3]] == ["C", "I", "C"]
    assert scores[0].explanation == "Looks right.\nGRADE: C"
    assert scores[0].answer == "It is Paris."
    (result,) = log.results.scores
    assert (result.scored_samples, result.unscored_samples) == (3, 1)
    assert result.metrics["accuracy"].value == pytest.approx(2 / 3)
    assert grader.calls == 3  # the unlabelled sample was not graded


def test_eval_gives_the_same_scores_as_a_direct_call(tmp_path: Path) -> None:
    scorer = sb.model_graded_qa(FakeGrader(grade_by_answer, asynchronous=True))
    log = run_eval(scorer, tmp_path)
    direct = scorer.score_many(QUESTIONS, ANSWERS, TARGETS)
    assert [s.scores["model_graded_qa"].metadata["failure_kind"] for s in log.samples] == [
        s.failure_kind for s in direct
    ]
    assert [s.scores["model_graded_qa"].explanation for s in log.samples] == [s.explanation for s in direct]


def test_grader_failure_is_unscored_in_the_eval_not_a_sample_error(tmp_path: Path) -> None:
    grader = FakeGrader({"<answer>\nMilan": RuntimeError("grader down"), "": "GRADE: C"}, asynchronous=True)
    log = run_eval(sb.model_graded_qa(grader), tmp_path)
    assert log.status == "success"
    failed = log.samples[1]
    assert failed.error is None
    assert failed.scores["model_graded_qa"].metadata["grader_failed"] == "RuntimeError: grader down"
    (result,) = log.results.scores
    assert (result.scored_samples, result.unscored_samples) == (2, 2)


def test_inspect_grader_grades_inside_an_eval(tmp_path: Path) -> None:
    def grade(messages: list[ChatMessage], *_: Any) -> ModelOutput:
        return reply(grade_by_answer(messages[-1].text))

    grader = inspect_grader(get_model("mockllm/model", custom_outputs=grade, memoize=False))
    log = run_eval(sb.model_graded_fact(grader), tmp_path)
    assert log.status == "success"
    assert [s.scores["model_graded_fact"].value for s in log.samples[:3]] == ["C", "I", "C"]
