"""Smoke: the adapter imports, exports its names, and says what to install when Inspect AI is missing."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable

from inspect_ai.scorer import Target
from inspect_ai.solver import TaskState

import scorebridge as sb
import scorebridge_inspect
from scorebridge_inspect import from_inspect, to_inspect


def test_public_names() -> None:
    assert {"to_inspect", "from_inspect"} <= set(scorebridge_inspect.__all__)
    for name in scorebridge_inspect.__all__:
        assert getattr(scorebridge_inspect, name) is not None


def test_a_scorer_goes_to_inspect_and_comes_back(make_state: Callable[..., TaskState]) -> None:
    back = from_inspect(to_inspect(sb.exact()))
    assert back("q", " Paris ", "paris") == sb.exact()("q", " Paris ", "paris")
    assert asyncio.run(to_inspect(back)(make_state("Paris"), Target("paris"))).value == "C"


def test_missing_inspect_ai_is_one_clear_import_error() -> None:
    code = (
        "import sys; sys.modules['inspect_ai'] = None\n"  # what an environment without Inspect AI looks like
        "try:\n    import scorebridge_inspect\n"
        "except ImportError as e:\n    print(type(e).__name__, e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == 'ImportError scorebridge_inspect needs Inspect AI: pip install "scorebridge[inspect]"'
