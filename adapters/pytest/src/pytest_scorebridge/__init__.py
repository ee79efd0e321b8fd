"""pytest-scorebridge: scorebridge scorers as pytest assertions, data-driven cases and a summary.

Plain `pytest` runs it (the plugin loads through the `pytest11` entry point):
`assert_scored` and `assert_accuracy` (and their async twins) turn a scorer's
verdict into a test's; `@pytest.mark.scorebridge_cases("cases.jsonl")` runs a
test once per row of a JSONL or CSV file; the `scorebridge_record` fixture
records a score without failing; the run ends with a "scorebridge" summary
per scorer, and `--scorebridge-report PATH` writes every score as JSONL.

The names below are imported on first use, so loading the plugin into a run
that does not use it imports neither scorebridge nor these modules.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._assert import assert_accuracy, assert_accuracy_async, assert_scored, assert_scored_async
    from ._recorder import Recorder

__all__ = ["Recorder", "assert_accuracy", "assert_accuracy_async", "assert_scored", "assert_scored_async"]

_HOME = {
    "Recorder": "._recorder",
    "assert_accuracy": "._assert",
    "assert_accuracy_async": "._assert",
    "assert_scored": "._assert",
    "assert_scored_async": "._assert",
}

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
