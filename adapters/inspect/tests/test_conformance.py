"""The Inspect AI adapter passes scorebridge's conformance suite (`scorebridge.kit.testing`), in a real Inspect eval."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage
from inspect_ai.scorer import Score, Scorer, Target, includes, match, scorer, value_to_float
from inspect_ai.solver import TaskState, generate

from scorebridge.kit.testing import Adapter, Check, Judge, Row, checks
from scorebridge_inspect import from_inspect, to_inspect

_to_float = value_to_float()


def inspect_scorer(judge: Judge) -> Scorer:
    """An Inspect scorer of Inspect's own kind: `judge` on the completion and the target, as its value."""

    @scorer(metrics=[], name="conformance_judge")
    def judged() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=judge(state.output.completion, list(target.target)))

        return score

    return judged()


def label_free_inspect_scorer(judge: Judge) -> Scorer:
    """An Inspect scorer whose code never reads its target (a format check): from_inspect reads that it needs none."""

    @scorer(metrics=[], name="conformance_free")
    def judged() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=judge(state.output.completion, []))

        return score

    return judged()


def _target(label: Any) -> str | list[str]:
    if isinstance(label, str):
        return label
    return [x for x in label if isinstance(x, str)] if isinstance(label, list) else ""


def _reply(output: Any) -> ModelOutput:
    reply = ModelOutput.from_content(model="mockllm/model", content=output if isinstance(output, str) else "")
    reply.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # offline: no tokenizer
    return reply


def run(harness_scorer: Scorer, rows: list[Row]) -> Sequence[float | None]:
    """Inspect's eval over the rows (mockllm replying each row's output); the value Inspect counts, per row."""
    prompts = {f"{i}. question": row for i, row in enumerate(rows)}

    def reply(messages: Sequence[ChatMessage], *args: Any) -> ModelOutput:
        return _reply(prompts[messages[-1].text][1])

    samples = [Sample(id=i, input=prompt, target=_target(row[2])) for i, (prompt, row) in enumerate(prompts.items())]
    [log] = eval(
        Task(dataset=samples, solver=generate(), scorer=harness_scorer),
        model="mockllm/model",
        model_args={"custom_outputs": reply},
        display="none",
    )
    if log.status != "success":  # Inspect's own report of the error (its traceback shows the exception's notes)
        error = log.error
        raise RuntimeError(f"{error.message}\n{error.traceback}" if error is not None else log.status)
    values: list[float | None] = []
    for sample in sorted(log.samples or [], key=lambda s: int(s.id)):
        [score] = (sample.scores or {}).values()
        number = _to_float(score.value)
        values.append(None if math.isnan(number) else number)
    return values


INSPECT = Adapter(
    "inspect",
    to_harness=to_inspect,
    run=run,
    from_harness=from_inspect,
    native=inspect_scorer,
    native_async=inspect_scorer,  # every Inspect scorer is async: the four ways of calling one agree
    label_free=label_free_inspect_scorer,
    to_recording=functools.partial(to_inspect, on_error="record"),
    variants=lambda: (match(), match(), match(location="begin")),
    carries_objects=False,  # Inspect hands a scorer the completion's text
)


@pytest.mark.parametrize("check", checks(INSPECT), ids=str)
def test_the_inspect_adapter_conforms(check: Check) -> None:
    check()


@pytest.mark.parametrize("made", [match, includes], ids=lambda f: f.__name__)
def test_inspects_own_scorers_answer_a_number_label_of_any_size_at_once(made: Any) -> None:
    # Decimal("1e1000000") as a label was not answered within 2 s by from_inspect(match()): plain digits expanded it
    builtin = Adapter("inspect", from_harness=from_inspect, native=lambda judge: made())
    [check] = [c for c in checks(builtin) if "a number label of any size" in str(c)]
    check()
