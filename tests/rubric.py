"""rubric: a tiny made-up eval harness, a sixth one, unlike tally: graders take one reference, may be async,
and are made with arguments.

A grader has `grade(response, reference) -> Result` (or an awaitable of one); a Result's score is from 0 to 1,
None when the grader cannot grade. `evaluate` grades samples {"response", "reference"}.
"""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Result:
    score: float | None
    reason: str = ""


@dataclass(frozen=True)
class StartsWith:
    """A built-in grader: the response starts with the reference."""

    ignore_case: bool = True

    def grade(self, response: str, reference: Any) -> Result:
        if not isinstance(reference, str):
            return Result(None, "no reference")
        r, ref = (response.lower(), reference.lower()) if self.ignore_case else (response, reference)
        return Result(1.0 if r.startswith(ref) else 0.0)


async def _awaited(result: Any) -> Any:
    return await result


def evaluate(grader: Any, samples: list[dict[str, Any]]) -> list[float | None]:
    """Each sample's score (None: not graded, left out of rubric's mean)."""
    results = []
    for sample in samples:
        result = grader.grade(sample["response"], sample["reference"])
        if inspect.isawaitable(result):
            result = asyncio.run(_awaited(result))
        results.append(result.score)
    return results
