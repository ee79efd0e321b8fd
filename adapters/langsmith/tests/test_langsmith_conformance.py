"""scorebridge_langsmith passes the conformance suite, through the real `langsmith.evaluate`, offline."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import pytest
from ls_offline import ScriptedJudge, run
from openevals.llm import create_llm_as_judge

from scorebridge.kit.testing import Adapter, Check, Judge, checks
from scorebridge_langsmith import from_langsmith, to_langsmith


def _as_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        with contextlib.suppress(ValueError):  # an int too long to write: no text
            return str(value)
    return None


def _text(held: Any) -> str:
    """The response text, as a LangSmith evaluator reads it: the string, or a mapping's `output`/`answer`."""
    if isinstance(held, Mapping):
        held = held.get("output", held.get("answer"))
    return _as_text(held) or ""


def _references(held: Any) -> list[str]:
    """The reference answers: `{"answer": ...}`'s, a list's each, or the one value."""
    if isinstance(held, Mapping):
        held = held.get("answer")
    found = [_as_text(r) for r in (held if isinstance(held, (list, tuple)) else [held])]
    return [r for r in found if r is not None]


def native(judge: Judge) -> Any:
    """A LangSmith custom evaluator of its own kind: the output's text against the reference outputs."""

    def judged(outputs: Any, reference_outputs: Any) -> float:
        return judge(_text(outputs), _references(reference_outputs))

    return judged


def native_async(judge: Judge) -> Any:
    async def judged(outputs: Any, reference_outputs: Any) -> float:
        return judge(_text(outputs), _references(reference_outputs))

    return judged


def label_free(judge: Judge) -> Any:
    """An evaluator that reads no reference outputs (a format check): it needs no label."""

    def concise(outputs: Any) -> float:
        return judge(_text(outputs), [])

    return concise


PROMPT = "Is {outputs} a right answer, given {reference_outputs}?"

LANGSMITH = Adapter(
    "langsmith",
    to_harness=to_langsmith,
    run=run,
    from_harness=from_langsmith,
    native=native,
    native_async=native_async,
    to_recording=lambda made: to_langsmith(made, on_error="record"),
    from_recording=lambda evaluator: from_langsmith(evaluator, on_error="record"),
    variants=lambda: (
        create_llm_as_judge(prompt=PROMPT, judge=ScriptedJudge(True), model="scripted"),
        create_llm_as_judge(prompt=PROMPT, judge=ScriptedJudge(True), model="scripted"),
        create_llm_as_judge(prompt=PROMPT, judge=ScriptedJudge(True), model="scripted", continuous=True),
    ),
    label_free=label_free,
    unit_points=True,  # its points are 0-1: 3 points are a contract error
)


@pytest.mark.parametrize("check", checks(LANGSMITH), ids=str)
def test_the_langsmith_adapter_conforms(check: Check) -> None:
    check()
