"""`examples/inspect_task.py`: its plain metric holds on the replies a user's own questions may get."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

_EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "inspect_task.py"


@pytest.fixture(scope="module")
def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("inspect_task_example", _EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_numeric_match_on_a_text_target_is_zero_not_an_error(example: ModuleType) -> None:
    # review: numeric_match called float(gold) on text targets, so any digit in a reply to a "capital of"
    # question raised and failed the eval
    assert example.numeric_match("Paris", "Paris, since 508") == 0.0


def test_numeric_match_scores_the_last_number_of_the_reply(example: ModuleType) -> None:
    assert example.numeric_match("8", "Eight, I think: 8") == 1.0
