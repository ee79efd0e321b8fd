"""Recording scores into the pytest run: the `scorebridge_record` fixture's value, and the assertions' notes."""

from __future__ import annotations

from typing import Any, final

from scorebridge import Score, Scorer

from ._state import Records, active

__all__ = ["Recorder", "note", "require_scorer"]


def require_scorer(where: str, scorer: Any) -> Scorer:
    """`scorer` itself when it is a `scorebridge.Scorer`; else a TypeError saying how to make one."""
    __tracebackhide__ = True
    if not isinstance(scorer, Scorer):
        raise TypeError(
            f"{where}: scorer must be a scorebridge.Scorer (for example scorebridge.exact(), "
            f"or scorebridge.scorer(fn) around a function); got {type(scorer).__name__}"
        )
    return scorer


def note(scorer: Scorer, scores: list[Score]) -> None:
    """Record `scores` into the active pytest run, under the test running now; no-op outside pytest."""
    records = active()
    if records is not None:
        for score in scores:
            records.add(records.current, scorer.name, score)


@final
class Recorder:
    """The value of the `scorebridge_record` fixture: scores an output and records it, never failing.

    `scorebridge_record(scorer, output, label, item=None)` returns the Score and
    adds it to the run's summary and `--scorebridge-report`, under the test's
    node id. A wrong or unscored output does not fail the test; an exception
    raised by the scorer does (it propagates, with a note naming the scorer).
    `await scorebridge_record.acall(...)` is the async twin.
    """

    __slots__ = ("_records", "nodeid")

    def __init__(self, records: Records, nodeid: str) -> None:
        self._records = records
        self.nodeid = nodeid

    def __call__(self, scorer: Scorer, output: Any, label: Any, item: Any = None) -> Score:
        """Score `output` against `label` (on `item`) and record the Score."""
        score = require_scorer("scorebridge_record", scorer)(item, output, label)
        self._records.add(self.nodeid, scorer.name, score)
        return score

    async def acall(self, scorer: Scorer, output: Any, label: Any, item: Any = None) -> Score:
        """The async twin of calling the recorder."""
        score = await require_scorer("scorebridge_record", scorer).acall(item, output, label)
        self._records.add(self.nodeid, scorer.name, score)
        return score

    def __repr__(self) -> str:
        return f"<scorebridge_record for {self.nodeid}>"
