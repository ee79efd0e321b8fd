"""scorebridge_deepeval: scorebridge scorers as deepeval metrics, and deepeval metrics anywhere.

`to_deepeval(scorer)` gives a deepeval `BaseMetric` for `deepeval.evaluate`,
`assert_test` and deepeval's pytest runner; `from_deepeval(metric)` gives a
scorebridge `Scorer` of a deepeval metric (`ExactMatchMetric()`, `GEval(...)`,
`AnswerRelevancyMetric(...)`, a metric of one's own); `as_test_case(item, output,
label)` and `row_of(case)` are the one mapping between a scorebridge row and an
`LLMTestCase`. docs/deepeval.md maps one onto the other.
"""

try:
    import deepeval  # noqa: F401
except ModuleNotFoundError as exc:
    if exc.name != "deepeval":
        raise
    raise ImportError('scorebridge_deepeval needs deepeval: pip install "scorebridge[deepeval]"') from None

from ._cases import as_test_case, row_of
from ._from_deepeval import from_deepeval
from ._to_deepeval import to_deepeval

__all__ = ["as_test_case", "from_deepeval", "row_of", "to_deepeval"]
