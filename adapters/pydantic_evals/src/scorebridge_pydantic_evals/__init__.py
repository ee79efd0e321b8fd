"""scorebridge_pydantic_evals: scorebridge scorers in pydantic-evals, and pydantic-evals' evaluators anywhere.

`to_pydantic_evals(scorer)` gives an `Evaluator` (a `ScorerEvaluator` dataclass) that
`Dataset.evaluate`, `evaluate_sync` and `pydantic_evals.online.run_evaluators` run;
`from_pydantic_evals(evaluator)` gives a scorebridge `Scorer` that runs in plain
Python, `benchmark()`, Inspect AI, DSPy and pytest. Round trips are identities.
"""

try:
    import pydantic_evals  # noqa: F401
except ModuleNotFoundError as exc:
    if exc.name not in ("pydantic_evals", "pydantic_ai"):
        raise
    raise ImportError(
        "scorebridge_pydantic_evals needs pydantic-evals (Python 3.11 or later): "
        'pip install "scorebridge[pydantic-evals]"'
    ) from None

from ._from_pydantic_evals import EvaluatorCall, from_pydantic_evals
from ._to_pydantic_evals import ScorerEvaluator, to_pydantic_evals

__all__ = [
    "EvaluatorCall",
    "ScorerEvaluator",
    "from_pydantic_evals",
    "to_pydantic_evals",
]
