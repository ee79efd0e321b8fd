"""scorebridge_langsmith: scorebridge scorers as LangSmith evaluators, and LangSmith and openevals evaluators anywhere.

`to_langsmith(scorer)` gives an evaluator for `langsmith.evaluate`/`aevaluate` and
openevals' runners; `from_langsmith(evaluator)` gives a scorebridge `Scorer` of an
openevals evaluator (`exact_match`, `create_llm_as_judge(...)`, ...) or a LangSmith
custom evaluator. docs/langsmith.md maps one onto the other.
"""

try:
    import langsmith  # noqa: F401
except ModuleNotFoundError as exc:  # one clear error, saying what to install; its cause shown
    raise ImportError('scorebridge_langsmith needs LangSmith: pip install "scorebridge[langsmith]"') from exc

from ._langsmith import from_langsmith, to_langsmith

__all__ = ["from_langsmith", "to_langsmith"]
