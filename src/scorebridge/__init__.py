"""scorebridge: write a scorer once, run it in every eval harness.

The hub: the scorer protocol (`Score`, `Scorer`, `scorer`), seed 000's recording
rules, seed 004's grade mapping and the built-in scorers. It imports no harness;
the adapters `scorebridge_inspect`, `scorebridge_dspy` and `pytest_scorebridge`
are the spokes.
"""

from typing import TYPE_CHECKING, Any

from ._detect import detect_answer, detect_exact, detect_includes, detect_match, detect_pattern
from ._exact import exact
from ._grade import grade_value
from ._model_graded import model_graded_fact, model_graded_qa
from ._score import FAILURE_KINDS, FailureKind, Score, ScorerContractError
from ._scorer import Scorer, scorer

if TYPE_CHECKING:
    from ._benchmark import BenchmarkResult, BudgetExceeded, abenchmark, benchmark

__all__ = [
    "FAILURE_KINDS",
    "BenchmarkResult",
    "BudgetExceeded",
    "FailureKind",
    "Score",
    "Scorer",
    "ScorerContractError",
    "abenchmark",
    "benchmark",
    "detect_answer",
    "detect_exact",
    "detect_includes",
    "detect_match",
    "detect_pattern",
    "exact",
    "grade_value",
    "model_graded_fact",
    "model_graded_qa",
    "scorer",
]

__version__ = "0.1.0"

_LAZY = frozenset({"BenchmarkResult", "BudgetExceeded", "abenchmark", "benchmark"})


def __getattr__(name: str) -> Any:
    # The benchmark runner needs asyncio, which costs more start-up time than the
    # whole protocol: it is imported on first use.
    if name in _LAZY:
        from . import _benchmark

        value = getattr(_benchmark, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
