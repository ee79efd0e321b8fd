"""Round trips are identities, LangSmith's own objects travel with a call, and options are the whole identity."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langsmith.schemas import Example, Run
from ls_offline import ScriptedJudge, evaluated
from openevals.exact import exact_match
from openevals.llm import create_llm_as_judge

import scorebridge as sb
from scorebridge_langsmith import from_langsmith, to_langsmith

PROMPT = "Is {outputs} right, given {reference_outputs}?"


def test_a_scorer_comes_back_as_itself() -> None:
    scorer = sb.exact()
    assert from_langsmith(to_langsmith(scorer)) is scorer


def test_an_evaluator_comes_back_as_itself() -> None:
    assert to_langsmith(from_langsmith(exact_match)) is exact_match


def test_an_evaluator_whose_scorer_records_errors_keeps_recording_them_in_langsmith() -> None:
    # given back as it was, the evaluator's exception would be LangSmith's to catch, and its row left out
    def broken(outputs: Any, reference_outputs: Any) -> bool:
        raise KeyError("answer")

    evaluator = to_langsmith(from_langsmith(broken, on_error="record"))
    assert evaluator is not broken
    assert evaluated([evaluator], [("q", "Paris", "Paris")]) == [{"broken": 0.0}]


def test_options_that_ask_for_something_else_wrap() -> None:
    scorer = sb.exact()
    assert from_langsmith(to_langsmith(scorer), name="renamed") is not scorer
    assert to_langsmith(from_langsmith(exact_match), key="same") is not exact_match


def test_langsmiths_own_run_and_example_reach_a_wrapped_evaluator() -> None:
    # a scorer of one's own calling a from_langsmith scorer with what it was given, inside LangSmith
    seen: list[Any] = []

    def correct(run: Run, example: Example) -> bool:
        seen.append((type(run).__name__, run.outputs, example.outputs))
        return run.outputs["output"] == example.outputs["answer"]

    wrapped = from_langsmith(correct)

    def mine(item: Any, output: Any, label: Any) -> sb.Score:
        return wrapped(item, output, label)

    assert evaluated([to_langsmith(sb.scorer(mine))], [("q", "Paris", "Paris")]) == [{"mine": 1.0}]
    assert seen == [("RunTree", {"output": "Paris"}, {"answer": "Paris"})]  # LangSmith's own run, not one made up


def _judge(verdict: bool, prompt: str = PROMPT) -> sb.Scorer:
    """An LLM judge made by openevals' factory (a closure), with a scripted model."""
    return from_langsmith(create_llm_as_judge(prompt=prompt, judge=ScriptedJudge(verdict), model="m"), name="judge")


def test_a_closure_made_judge_resumes_only_under_the_same_arguments(tmp_path: Path) -> None:
    out = str(tmp_path / "run.jsonl")
    arms = {"m": lambda item: "Paris"}
    sb.benchmark(arms, ["Capital of France?"], ["Paris"], scorer=_judge(True), out=out)
    sb.benchmark(arms, ["Capital of France?", "Capital of Italy?"], ["Paris", "Rome"], scorer=_judge(True), out=out)
    for other in (_judge(False), _judge(True, prompt="Is {outputs} {reference_outputs}?")):
        with pytest.raises(ValueError, match="judge"):
            sb.benchmark(arms, ["Capital of France?"], ["Paris"], scorer=other, out=out)
