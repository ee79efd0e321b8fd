"""`_compat`: the private Inspect AI and pydantic names the adapter relies on, each checked, each with a fallback.

A newer Inspect AI that moves one of them must not break the adapter, only slow it
or narrow it: these tests say which names this Inspect AI still has (none falls
back), and that every fallback does the job of the name it replaces.
"""

from __future__ import annotations

from typing import Any

import pytest
from inspect_ai.model import ModelName, ModelOutput
from inspect_ai.scorer import accuracy, f1, match, mean, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import registry_info

from scorebridge_inspect import _compat


def test_no_fallback_is_in_use_with_the_supported_inspect_ai() -> None:
    # a release that renames a private name shows up here first (and in CI's newest-release job)
    assert _compat.FALLBACKS == ()


def _marked(mark: Any, completion: str, several: bool) -> list[bool | None]:
    state = TaskState(
        ModelName("none/none"),
        1,
        1,
        "Which?",
        [],
        choices=["one", "two", "three"],
        output=ModelOutput.from_content("none/none", completion),
    )
    mark(state, several)
    return [c.correct for c in state.choices]


@pytest.mark.parametrize(("completion", "several", "marks"), _compat.MARKING_CASES)
def test_our_marking_marks_choices_as_the_multiple_choice_solver_does(
    completion: str, several: bool, marks: list[bool]
) -> None:
    assert (
        _marked(_compat._our_marking, completion, several)
        == marks
        == _marked(_compat.mark_choices, completion, several)
    )


def test_a_scorers_arguments_are_what_inspect_logs() -> None:
    assert _compat.scorer_params(match(location="any", numeric=True)) == {"location": "any", "numeric": True}


def test_a_plain_function_has_no_arguments() -> None:
    async def plain(state: Any, target: Any) -> None:
        return None

    assert _compat.scorer_params(plain) == {}  # type: ignore[arg-type]


def test_a_scorers_own_metrics_are_read() -> None:
    assert [registry_info(m).name for m in _compat.scorer_metrics(f1())] == ["inspect_ai/mean", "inspect_ai/stderr"]


def test_a_dict_of_metrics_is_read_as_it_is() -> None:
    @scorer(metrics={"helpful": [mean()], "harmless": [accuracy()]})
    def rubric() -> Any:
        async def score(state: Any, target: Any) -> None:
            return None

        return score

    assert set(_compat.scorer_metrics(rubric())) == {"helpful", "harmless"}  # type: ignore[arg-type]


def test_the_active_model_variable_is_what_get_model_reads() -> None:
    from inspect_ai.model import get_model

    model = get_model("mockllm/model")
    assert _compat.ACTIVE_MODEL is not None
    token = _compat.ACTIVE_MODEL.set(model)
    try:
        assert get_model() is model
    finally:
        _compat.ACTIVE_MODEL.reset(token)
