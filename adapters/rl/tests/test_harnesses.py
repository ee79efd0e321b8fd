"""A TRL-style reward of one's own, made a scorer by `from_trl`, gives the verdicts it gives inside TRL, in plain
Python, Inspect AI (mockllm), DSPy (DummyLM) and pytest."""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Sequence
from typing import Any

import pytest
from rl_calls import call_as_trl, chat

from scorebridge_rl import from_trl

QUESTIONS = [f"[q{i}] What is {i} + {i}?" for i in range(6)]
LABELS = [str(2 * i) for i in range(6)]
ANSWERS = ["0", "The answer is 2", "five", "#### 6", "", "10"]


def boxed_or_last_number(prompts: list[str], completions: list[str], solution: list[str], **kwargs: Any) -> list[float]:
    """A TRL-style reward of one's own (standard format): the completion's last number is the solution."""
    rewards = []
    for completion, answer in zip(completions, solution, strict=True):
        numbers = re.findall(r"-?\d+", completion)
        rewards.append(1.0 if numbers and numbers[-1] == answer else 0.0)
    return rewards


def think_then_answer(completions: list[list[dict[str, str]]], **kwargs: Any) -> list[float]:
    """A reference-free TRL-style reward (conversational format): reasoning in <think> tags, then an answer."""
    return [1.0 if re.match(r"^<think>.*</think>\s*\S", c[0]["content"], re.DOTALL) else 0.0 for c in completions]


THINKING = ["<think>2+2</think> 4", "4", "<think>x</think>", "<think>a</think>\n0", "", "<think>10"]


def in_trl() -> tuple[list[float], list[float]]:
    rows = [{"prompt": q, "solution": s} for q, s in zip(QUESTIONS, LABELS, strict=True)]
    return call_as_trl(boxed_or_last_number, rows, ANSWERS), call_as_trl(
        think_then_answer, [{"prompt": q} for q in QUESTIONS], [chat(t) for t in THINKING]
    )


def test_in_plain_python() -> None:
    numbers, thinking = in_trl()
    scorer = from_trl(boxed_or_last_number)
    assert [scorer(q, a, s).value for q, a, s in zip(QUESTIONS, ANSWERS, LABELS, strict=True)] == numbers
    assert [s.value for s in scorer.score_many(QUESTIONS, ANSWERS, LABELS)] == numbers
    think = from_trl(think_then_answer, shape="chat")
    assert [think(q, t, None).value for q, t in zip(QUESTIONS, THINKING, strict=True)] == thinking


def test_in_inspect_ai() -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage
    from inspect_ai.scorer import value_to_float
    from inspect_ai.solver import generate

    from scorebridge_inspect import to_inspect

    numbers, thinking = in_trl()

    def replies(answers: list[str]) -> Any:
        by_question = dict(zip(QUESTIONS, answers, strict=True))

        def reply(messages: Sequence[ChatMessage], *args: Any) -> ModelOutput:
            out = ModelOutput.from_content("mockllm/model", by_question[messages[-1].text])
            out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # offline: no tokenizer
            return out

        return reply

    to_float = value_to_float()
    for scorer, answers, labels, want in (
        (from_trl(boxed_or_last_number), ANSWERS, LABELS, numbers),
        (from_trl(think_then_answer, shape="chat"), THINKING, [""] * 6, thinking),
    ):
        task = Task(
            dataset=[Sample(input=q, target=t, id=i) for i, (q, t) in enumerate(zip(QUESTIONS, labels, strict=True))],
            solver=generate(),
            scorer=to_inspect(scorer),
        )
        [log] = eval(task, model="mockllm/model", model_args={"custom_outputs": replies(answers)}, display="none")
        assert log.samples is not None
        got = sorted((s.id, to_float(s.scores[scorer.name].value)) for s in log.samples if s.scores)
        assert [v for _, v in got] == want


def test_in_dspy() -> None:
    dspy = pytest.importorskip("dspy")
    from dspy.utils import DummyLM

    from scorebridge_dspy import to_dspy

    numbers, thinking = in_trl()
    for scorer, answers, labels, want in (
        (from_trl(boxed_or_last_number), ANSWERS, LABELS, numbers),
        (from_trl(think_then_answer, shape="chat"), THINKING, [None] * 6, thinking),
    ):
        devset = [
            dspy.Example(question=q, answer=lab).with_inputs("question")
            for q, lab in zip(QUESTIONS, labels, strict=True)
        ]
        lm = DummyLM({q: {"answer": a} for q, a in zip(QUESTIONS, answers, strict=True)})
        with dspy.context(lm=lm):
            result = dspy.Evaluate(devset=devset, metric=to_dspy(scorer), num_threads=1)(
                dspy.Predict("question -> answer")
            )
        assert [row[2] for row in result.results] == want  # the reference-free one scores unlabelled rows


def test_in_pytest(pytester: pytest.Pytester) -> None:
    numbers, _ = in_trl()
    header = f"""
        import re
        from typing import Any

        import pytest
        from pytest_scorebridge import assert_scored
        from scorebridge_rl import from_trl

        QUESTIONS, ANSWERS, LABELS = {QUESTIONS!r}, {ANSWERS!r}, {LABELS!r}
    """
    tests = f"""
        SCORER = from_trl(boxed_or_last_number)
        WANT = {numbers!r}

        @pytest.mark.parametrize("i", range(6))
        def test_reward(i):
            if WANT[i] == 1.0:
                assert assert_scored(SCORER, ANSWERS[i], LABELS[i], QUESTIONS[i]).value == 1.0
            else:
                with pytest.raises(AssertionError, match="boxed_or_last_number"):
                    assert_scored(SCORER, ANSWERS[i], LABELS[i], QUESTIONS[i])
    """
    source = textwrap.dedent(header) + "\n\n" + inspect.getsource(boxed_or_last_number) + textwrap.dedent(tests)
    (pytester.path / "test_rewards.py").write_text(source, encoding="utf-8")
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "--import-mode=importlib")
    result.assert_outcomes(passed=6)
    accuracy = sum(numbers) / len(numbers)
    result.stdout.re_match_lines([rf".*boxed_or_last_number\s+6\s+6\s+{int(sum(numbers))}\s+{accuracy:.3f}.*"])
