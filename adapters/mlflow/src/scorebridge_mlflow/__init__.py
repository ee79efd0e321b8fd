"""scorebridge_mlflow: scorebridge scorers in MLflow GenAI evaluation, and MLflow's scorers anywhere.

`to_mlflow(scorer)` gives an MLflow scorer for `mlflow.genai.evaluate`;
`from_mlflow(mlflow_scorer)` gives a scorebridge `Scorer` (a `@scorer`
function, a `Scorer` subclass, the built-ins, the LLM judges); `summarize(result,
name)` reads a scorer's column of an evaluation's `result_df` as a
`scorebridge.Summary`. A round trip is an identity both ways.
"""

try:
    import mlflow.genai  # noqa: F401
except ModuleNotFoundError as exc:
    if exc.name is None or not exc.name.startswith("mlflow"):
        raise
    raise ImportError('scorebridge_mlflow needs MLflow: pip install "scorebridge[mlflow]"') from None

from ._from_mlflow import from_mlflow
from ._scorer import ScorebridgeScorer, feedback, rebuilt
from ._summary import summarize
from ._to_mlflow import to_mlflow

__all__ = [
    "ScorebridgeScorer",
    "feedback",
    "from_mlflow",
    "rebuilt",
    "summarize",
    "to_mlflow",
]
