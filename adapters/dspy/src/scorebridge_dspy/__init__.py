"""scorebridge for DSPy: scorers as DSPy metrics, and DSPy metrics as scorers.

`to_dspy(scorer)` is a metric for `dspy.Evaluate` and every optimizer (a float
to score, a strict bool while bootstrapping, a Prediction with feedback for
GEPA); `from_dspy(metric)` is a `scorebridge.Scorer` calling any DSPy metric;
`evaluate(program, devset, scorer)` runs `dspy.Evaluate` and gives scorebridge's
summary beside DSPy's own score.
Needs DSPy >= 3.4.1: `pip install "scorebridge[dspy]"`.
"""

try:
    import dspy as _dspy  # noqa: F401  # fail here, once, with the install command
except ModuleNotFoundError as _missing:
    if _missing.name != "dspy":  # DSPy is there but broken: its own error says why
        raise
    raise ModuleNotFoundError(
        'scorebridge_dspy needs DSPy, which is not installed: pip install "scorebridge[dspy]"', name="dspy"
    ) from None

from ._evaluate import Evaluation, evaluate
from ._feedback import feedback_text
from ._from_dspy import from_dspy
from ._grader import dspy_grader
from ._metric import ScorerMetric
from ._to_dspy import to_dspy

__all__ = ["Evaluation", "ScorerMetric", "dspy_grader", "evaluate", "feedback_text", "from_dspy", "to_dspy"]
