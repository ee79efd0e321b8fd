"""Helpful errors where a scorer meets a harness: the decorator with a name, a lambda, a Scorer handed to a
harness without its adapter; and options made again by name (what both command lines rely on)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

import scorebridge as sb


def test_the_decorator_takes_a_name_as_inspects_does() -> None:
    # The bug: @sb.scorer(name="x") failed with "missing 'fn'".
    @sb.scorer(name="same_text")
    def same(item: Any, output: Any, label: Any) -> bool:
        return bool(output == label)

    assert (same.name, same(None, "a", "a").correct) == ("same_text", True)


def test_the_bare_decorator_names_the_scorer_after_its_function() -> None:
    @sb.scorer
    def same(item: Any, output: Any, label: Any) -> bool:
        return bool(output == label)

    assert same.name == "same"


def test_a_lambda_without_a_name_is_told_to_pass_one() -> None:
    with pytest.raises(ValueError, match="a lambda has none: pass name="):
        sb.scorer(lambda item, output, label: True)


def test_keyword_only_parameters_are_options_made_again_by_with_options() -> None:
    @sb.scorer
    def near(item: Any, output: Any, label: Any, *, tolerance: float = 0.01) -> bool:
        return abs(float(output) - float(label)) <= tolerance * abs(float(label))

    loose = near.with_options(tolerance=0.05)
    assert (near.options, loose.options) == ({"tolerance": 0.01}, {"tolerance": 0.05})
    assert (near(None, "103", "100").correct, loose(None, "103", "100").correct) == (False, True)
    assert loose.factory is not None and loose.factory(tolerance=0.01).options == near.options


def test_a_scorer_called_with_two_arguments_says_to_wrap_it() -> None:
    with pytest.raises(TypeError, match=r"takes \(item, output, label\); got 2 argument.*to_dspy or .*to_inspect"):
        sb.exact()("Paris", "Paris")  # type: ignore[call-arg]


def test_dspy_evaluate_with_an_unwrapped_scorer_logs_the_hint(caplog: pytest.LogCaptureFixture) -> None:
    # The bug: dspy.Evaluate(metric=sb.exact()) logged "missing 1 required positional argument: 'label'" and
    # scored 0.0 with no hint. DSPy still scores the row 0 (its own choice); its log now says what to do.
    dspy = pytest.importorskip("dspy")
    from dspy.utils import DummyLM

    devset = [dspy.Example(question="Capital of France?", answer="Paris").with_inputs("question")]
    dspy_log = logging.getLogger("dspy")  # DSPy logs through its own handler, not to the root logger
    dspy_log.addHandler(caplog.handler)
    try:
        with dspy.context(lm=DummyLM({"Capital of France?": {"answer": "Paris"}})):
            evaluate = dspy.Evaluate(devset=devset, metric=sb.exact(), num_threads=1, display_progress=False)
            result = evaluate(dspy.Predict("question -> answer"))
    finally:
        dspy_log.removeHandler(caplog.handler)
    assert result.score == 0.0
    assert "scorer 'exact' was called with two arguments, as a DSPy metric is" in caplog.text
    assert "wrap it with scorebridge_dspy.to_dspy(scorer)" in caplog.text


def test_an_inspect_scorer_call_with_a_task_state_says_to_wrap_it() -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai.model import ModelName
    from inspect_ai.scorer import Target
    from inspect_ai.solver import TaskState

    state = TaskState(model=ModelName("mockllm/model"), sample_id=1, epoch=1, input="q", messages=[])
    with pytest.raises(TypeError, match=r"as an Inspect AI scorer is.*wrap it with scorebridge_inspect\.to_inspect"):
        sb.exact()(state, Target("Paris"))  # type: ignore[call-arg]


def test_an_inspect_task_refuses_an_unwrapped_scorer_when_it_is_made() -> None:
    # Inspect checks its scorers in Task(): the error is Inspect's, before any sample runs (docs/inspect.md).
    pytest.importorskip("inspect_ai")
    from inspect_ai import Task
    from inspect_ai.dataset import Sample

    with pytest.raises(TypeError, match=r"Unexpected scorer type: .*Scorer"):
        Task(dataset=[Sample(input="q", target="Paris")], scorer=sb.exact())
