"""Shared set-up of the Inspect AI adapter's tests: an isolated Inspect home, and builders.

Inspect AI writes logs, traces and sample buffers under the user's data and
cache directories; every test here points them (and `INSPECT_LOG_DIR`) at one
temporary directory per test session (per xdist worker), so no test touches
the home directory and a subprocess `inspect` inherits the same place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import ChatMessageUser, ModelName, ModelOutput, ModelUsage
from inspect_ai.solver import TaskState

_HOME_VARIABLES = ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME")


@pytest.fixture(scope="session", autouse=True)
def inspect_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One temporary Inspect home (data, cache, state, config, logs) for the session."""
    home = tmp_path_factory.mktemp("inspect_home")
    with pytest.MonkeyPatch.context() as mp:
        for variable in _HOME_VARIABLES:
            mp.setenv(variable, str(home / variable.lower()))
        mp.setenv("INSPECT_LOG_DIR", str(home / "logs"))
        mp.delenv("INSPECT_EVAL_MODEL", raising=False)
        yield home


def model_output(content: str, stop_reason: str = "stop") -> ModelOutput:
    """A mockllm reply with `usage` set, so mockllm never downloads a tokenizer (offline)."""
    output = ModelOutput.from_content(model="mockllm/model", content=content, stop_reason=stop_reason)  # type: ignore[arg-type]
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def task_state(completion: str = "", *, input: str = "question", stop_reason: str = "stop", **kwargs: Any) -> TaskState:
    """The TaskState a scorer sees after `generate()`: the input, and the model's reply."""
    output = model_output(completion, stop_reason)
    return TaskState(
        model=ModelName("mockllm/model"),
        sample_id=1,
        epoch=1,
        input=input,
        messages=[ChatMessageUser(content=input), output.message],
        output=output,
        **kwargs,
    )


@pytest.fixture(scope="session")
def make_output() -> Callable[..., ModelOutput]:
    """`model_output` as a fixture."""
    return model_output


@pytest.fixture(scope="session")
def make_state() -> Callable[..., TaskState]:
    """`task_state` as a fixture."""
    return task_state
