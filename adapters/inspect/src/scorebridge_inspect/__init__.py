"""scorebridge_inspect: scorebridge scorers in Inspect AI, and Inspect AI scorers anywhere.

`to_inspect(scorer)` gives a registered Inspect AI scorer; `from_inspect(inspect_scorer)`
gives a scorebridge `Scorer`; `failure_kinds()` is the metric that counts failure
kinds (a default of `to_inspect`); `summarize(log)` is scorebridge's Summary of a
scorer in an eval log, the grader's failures counted apart from the rows with no
label. The `inspect_ai` entry point puts every built-in scorer in Inspect's registry
as `scorebridge/NAME` (for `inspect score --scorer`).
"""

try:
    import inspect_ai  # noqa: F401
except ModuleNotFoundError as exc:
    if exc.name != "inspect_ai":
        raise
    raise ImportError('scorebridge_inspect needs Inspect AI: pip install "scorebridge[inspect]"') from None

from ._from_inspect import from_inspect
from ._grader import inspect_grader
from ._metrics import failure_kinds
from ._summary import summarize
from ._to_inspect import to_inspect

__all__ = [
    "failure_kinds",
    "from_inspect",
    "inspect_grader",
    "summarize",
    "to_inspect",
]
