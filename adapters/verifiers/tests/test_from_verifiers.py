"""`from_verifiers`: a Hub environment's rubric function gives legacy verifiers' verdicts from plain Python,
Inspect AI (mockllm) and DSPy (DummyLM); v1 rewards and keyed scores read as verifiers records them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import verifiers.v1 as vf
from vf_offline import Item, legacy_call, run, score_rows, task_with, trace_of

import scorebridge as sb
from scorebridge_verifiers import from_verifiers, to_verifiers


def correct_answer(completion: Any, answer: Any, **kwargs: Any) -> float:
    """A Hub-style rubric function: the last message's content, stripped and folded, against the answer."""
    return 1.0 if completion[-1]["content"].strip().lower() == str(answer).strip().lower() else 0.0


ROWS = [("Capital of France?", "Paris", "Paris"), ("Capital of Italy?", "Milan", "Rome"),
        ("Capital of Spain?", " madrid ", "Madrid"), ("Capital of Peru?", "Lima.", "Lima")]  # fmt: skip
QUESTIONS = [q for q, _, _ in ROWS]
LEGACY_VERDICTS = [legacy_call(correct_answer, *row) == 1.0 for row in ROWS]  # what a Rubric scored


def test_the_verdicts_are_legacy_verifiers_own_in_plain_python() -> None:
    assert (
        [from_verifiers(correct_answer)(*row).correct for row in ROWS] == LEGACY_VERDICTS == [True, False, True, False]
    )


def test_inspect_ai_gives_the_same_verdicts(tmp_path: Path) -> None:
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
    from inspect_ai.solver import generate

    from scorebridge_inspect import to_inspect

    answers = {q: out for q, out, _ in ROWS}

    def reply(messages: list[ChatMessage], *args: Any) -> ModelOutput:
        out = ModelOutput.from_content("mockllm/model", answers[messages[-1].text])
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # offline: no tokenizer download
        return out

    scorer = from_verifiers(correct_answer)
    samples = [Sample(id=n, input=q, target=label) for n, (q, _, label) in enumerate(ROWS)]
    task = Task(dataset=samples, solver=generate(), scorer=to_inspect(scorer))
    [log] = eval(task, model=get_model("mockllm/model", custom_outputs=reply), display="none", log_dir=str(tmp_path))
    assert log.status == "success" and log.samples is not None
    by_id = {s.id: s.scores[scorer.name].value for s in log.samples if s.scores}
    assert [by_id[n] == "C" for n in range(len(ROWS))] == LEGACY_VERDICTS


def test_dspy_evaluate_gives_the_same_verdicts() -> None:
    import dspy
    from dspy.utils import DummyLM

    from scorebridge_dspy import to_dspy

    lm = DummyLM({q: {"answer": out} for q, out, _ in ROWS})
    devset = [dspy.Example(question=q, answer=label).with_inputs("question") for q, _, label in ROWS]
    with dspy.context(lm=lm):
        metric = to_dspy(from_verifiers(correct_answer))
        result = dspy.Evaluate(devset=devset, metric=metric, num_threads=1)(dspy.Predict("question -> answer"))
    assert [value == 1.0 for _, _, value in result.results] == LEGACY_VERDICTS


def test_a_raising_legacy_function_is_an_error_not_a_zero() -> None:
    # legacy verifiers' Rubric logged a raising reward function and scored it 0.0: wrong, not broken.
    def broken(completion: Any, answer: Any) -> float:
        raise KeyError("parser")

    score = from_verifiers(broken, on_error="record")("q", "Paris", "Paris")
    assert (score.correct, score.failure_kind) == (False, "error") and "parser" in str(score.explanation)
    with pytest.raises(KeyError):
        from_verifiers(broken)("q", "Paris", "Paris")


def test_keyed_scores_are_summed_as_the_trace_reward_counts_them() -> None:
    def parts(completion: Any, answer: Any) -> dict[str, float]:
        return {"format": 0.25, "answer": float(completion[-1]["content"] == answer) * 0.75}

    score = from_verifiers(parts)("q", "Paris", "Paris")
    assert score.value == 1.0 and score.metadata == {"rewards": {"format": 0.25, "answer": 0.75}}
    assert from_verifiers(parts, threshold=0.5)("q", "Lyon", "Paris").correct is False


def test_a_v1_task_reward_reads_the_rows_own_task_data() -> None:
    class QA(vf.Task[Item]):
        @vf.reward
        async def exact_reply(self, trace: vf.Trace) -> float:
            return float(trace.last_reply == self.data.answer)

    scorer = from_verifiers(QA(Item(answer="never this")).exact_reply)
    assert [scorer(*row).correct for row in ROWS[:2]] == [True, False]
    assert scorer("q", "Paris", None).correct is None  # a Task's reward reads the label: unscored without one


def test_a_v1_reward_of_the_trace_alone_scores_unlabelled_rows() -> None:
    async def short(trace: vf.Trace) -> float:
        return float(len(trace.last_reply) <= 5)

    assert from_verifiers(short)("q", "Paris", None).correct is True


def test_a_reward_returning_none_is_unscored() -> None:
    assert from_verifiers(lambda completion, answer: None, name="abstains")("q", "Paris", "Paris").correct is None


def test_round_trips_are_identities() -> None:
    scorer = sb.exact()
    assert from_verifiers(to_verifiers(scorer)) is scorer
    assert from_verifiers(to_verifiers(scorer, legacy=True)) is scorer
    assert to_verifiers(from_verifiers(correct_answer), legacy=True) is correct_answer


def test_the_same_function_gives_equal_options_and_another_differs() -> None:
    def other(completion: Any, answer: Any) -> float:
        return 0.0

    assert from_verifiers(correct_answer).options == from_verifiers(correct_answer).options
    assert from_verifiers(correct_answer).options != from_verifiers(other).options


def test_a_scorer_through_verifiers_and_back_scores_as_it_did() -> None:
    made = from_verifiers(correct_answer)
    task = task_with(again=to_verifiers(made, name="again"))
    assert [t.rewards["again"].score == 1.0 for t in score_rows(task, ROWS)] == LEGACY_VERDICTS
    assert run(to_verifiers(made), ROWS) == [made(*row).value for row in ROWS]


PLUGGED = to_verifiers(sb.exact())
"""A reward a TOML taskset plugs by import path: `[env.taskset.task.rewards] exact_match = {fn = ..., weight = 2.0}`."""


def test_a_plugged_reward_takes_the_configs_weight_and_keeps_none_for_unscored() -> None:
    config = vf.TaskConfig(rewards={"exact_match": vf.RewardFunctionConfig(fn=f"{__name__}:PLUGGED", weight=2.0)})
    traces = [trace_of(*row) for row in [("q", "Paris", "Paris"), ("q", "Paris", None)]]
    for trace in traces:
        asyncio.run(vf.Task(trace.task.data, config).score(trace))
    assert traces[0].rewards == {"exact": vf.Reward(score=1.0, weight=2.0)} and traces[0].reward == 2.0
    assert traces[1].rewards == {"exact": None}


def test_a_reward_that_needs_a_runtime_is_refused_naming_it() -> None:
    # verifiers skips such a reward offline; a scorer of it could only ever fail on every row
    async def tests_pass(trace: vf.Trace, runtime: vf.Runtime) -> float:
        return 1.0

    with pytest.raises(TypeError, match=r"from_verifiers\(tests_pass\): the reward needs a runtime"):
        from_verifiers(tests_pass)
