"""scorebridge: write a scorer once, run it in every eval harness.

The hub: the scorer protocol (`Score`, `Scorer`, `scorer`), seed 000's recording
rules, seed 004's grade mapping and the built-in scorers. It imports no harness;
the adapters `scorebridge_inspect`, `scorebridge_dspy` and `pytest_scorebridge`
are the spokes.
"""

from ._exact import exact
from ._grade import grade_value
from ._score import FAILURE_KINDS, FailureKind, Score, ScorerContractError
from ._scorer import Scorer, scorer

__all__ = [
    "FAILURE_KINDS",
    "FailureKind",
    "Score",
    "Scorer",
    "ScorerContractError",
    "exact",
    "grade_value",
    "scorer",
]

__version__ = "0.1.0"
