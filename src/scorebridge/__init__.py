"""scorebridge: write a scorer once, run it in every eval harness.

The hub: the scorer protocol (`Score`, `Scorer`, `scorer`), the recording rules,
the grade mapping, the built-in scorers, the benchmark runner and the one
summary. It imports no harness; the adapters `scorebridge_inspect`,
`scorebridge_dspy`, `pytest_scorebridge` (and `scorebridge_ray`) are the spokes,
built on the adapter kit, `scorebridge.kit`.
"""

import sys
from typing import TYPE_CHECKING, Any

from ._protocol.grade import grade_value
from ._protocol.score import FAILURE_KINDS, FailureKind, Score, ScorerContractError, UnreadableLabel
from ._protocol.scorer import Scorer, scorer
from ._protocol.timeout import ScorerTimeout
from ._runner.groups import GroupedSummaries
from ._runner.summary import Summaries, Summary
from ._scorers.detect import detect_exact, detect_includes, detect_match
from ._scorers.exact import exact
from ._scorers.grader_cache import GraderCache
from ._scorers.grader_calls import Retry
from ._scorers.model_graded import model_graded_fact, model_graded_qa
from ._scorers.pattern import detect_answer, detect_pattern

if TYPE_CHECKING:
    from ._runner.compare import RunComparison, compare, compare_scorers
    from ._runner.records import BudgetExceeded
    from ._runner.result import BenchmarkResult
    from ._runner.run import abenchmark, benchmark
    from ._scorers.openai_grader import openai_grader

__all__ = [
    "FAILURE_KINDS",
    "BenchmarkResult",
    "BudgetExceeded",
    "FailureKind",
    "GraderCache",
    "GroupedSummaries",
    "Retry",
    "RunComparison",
    "Score",
    "Scorer",
    "ScorerContractError",
    "ScorerTimeout",
    "Summaries",
    "Summary",
    "UnreadableLabel",
    "abenchmark",
    "benchmark",
    "compare",
    "compare_scorers",
    "detect_answer",
    "detect_exact",
    "detect_includes",
    "detect_match",
    "detect_pattern",
    "exact",
    "grade_value",
    "model_graded_fact",
    "model_graded_qa",
    "openai_grader",
    "scorer",
]

_LAZY = {
    "BenchmarkResult": "._runner.result",
    "BudgetExceeded": "._runner.records",
    "abenchmark": "._runner.run",
    "benchmark": "._runner.run",
    "RunComparison": "._runner.compare",
    "compare": "._runner.compare",
    "compare_scorers": "._runner.compare",
    "openai_grader": "._scorers.openai_grader",
}


def __getattr__(name: str) -> Any:
    # The benchmark runner needs asyncio, which costs more start-up time than the whole
    # protocol, and the version needs importlib.metadata: both are read on first use.
    if name == "__version__":
        from importlib.metadata import version

        return version("scorebridge")
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    for other, where in _LAZY.items():  # those the import loaded too: a BudgetExceeded raised by benchmark()
        loaded = sys.modules.get(f"{__name__}{where}")
        if loaded is not None:
            _publish(getattr(loaded, other, None))
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__, "__version__"])


def _publish(value: object) -> None:
    """A public class shown by its public path: `scorebridge.ScorerContractError`, not `scorebridge._protocol...`.

    Tracebacks, pytest's report and reprs name a class by its `__module__`; pickle
    finds it there too, so it must be (and is) an attribute of this module.
    """
    if isinstance(value, type) and value.__module__.startswith(f"{__name__}._"):
        value.__module__ = __name__


for _name in __all__:
    _publish(globals().get(_name))
del _name
