"""scorebridge_langsmith: scorebridge scorers as LangSmith evaluators, and LangSmith and openevals evaluators anywhere.

`to_langsmith(scorer)` gives an evaluator for `langsmith.evaluate`/`aevaluate` and
openevals' runners; `from_langsmith(evaluator)` gives a scorebridge `Scorer` of an
openevals evaluator (`exact_match`, `create_llm_as_judge(...)`, ...) or a LangSmith
custom evaluator. docs/langsmith.md maps one onto the other.
"""

try:
    import langsmith  # noqa: F401
except ModuleNotFoundError as exc:
    if exc.name != "langsmith":
        raise
    raise ImportError('scorebridge_langsmith needs LangSmith: pip install "scorebridge[langsmith]"') from None

from ._from_langsmith import from_langsmith
from ._to_langsmith import to_langsmith

__all__ = ["from_langsmith", "to_langsmith"]
