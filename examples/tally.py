"""tally: a tiny made-up eval harness, the one docs/adapters.md writes an adapter for.

A check reads one row, {"prompt", "response", "expected"} (a list of accepted
answers), and gives a Verdict: points from 0 to 1, a note, or skipped. `run`
adds up a check over rows.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    points: float
    note: str = ""
    skipped: bool = False


Check = Callable[[dict], Verdict]


def run(check: Check, rows: Iterable[dict]) -> dict:
    """The tally of a check over rows: points, rows counted, rows skipped, and the mean."""
    verdicts = [check(row) for row in rows]
    counted = [v for v in verdicts if not v.skipped]
    points = sum(v.points for v in counted)
    mean = points / len(counted) if counted else None
    return {"points": points, "counted": len(counted), "skipped": len(verdicts) - len(counted), "mean": mean}
