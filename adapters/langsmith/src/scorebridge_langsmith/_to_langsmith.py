"""`to_langsmith`: a scorebridge scorer as a LangSmith evaluator, for `evaluate`, `aevaluate` and openevals."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Literal

from scorebridge import Score, Scorer
from scorebridge.kit import body_of, recorded, recording, unlabelled, unwrap

from ._from_langsmith import LangsmithCall
from ._native import MADE_FROM, carrying

__all__ = ["to_langsmith"]

OUTPUT_KEYS = ("output",)
"""Where LangSmith holds a target's output: `{"output": ...}` for a target that returns no mapping."""
LABEL_KEYS = ("answer", "label", "output")
"""Where a dataset holds the reference answer in an example's outputs, in this order."""


def _result(key: str, score: Score) -> dict[str, Any]:
    metadata = {"grade": score.grade, "failure_kind": score.failure_kind}
    return {"key": key, "score": score.value, "comment": score.explanation, "metadata": metadata}


def to_langsmith(
    scorer: Scorer, *, on_error: Literal["raise", "record"] = "raise", key: str | None = None
) -> Callable[..., Any]:
    """A scorebridge scorer as a LangSmith evaluator; one made by `from_langsmith` is given back as it was."""
    if not isinstance(scorer, Scorer):
        raise TypeError(f"to_langsmith: expected a scorebridge Scorer; got {type(scorer).__name__}")
    body = body_of(scorer)
    if isinstance(body, LangsmithCall) and on_error == "raise" and key in (None, scorer.name):
        return body.evaluator  # type: ignore[no-any-return]  # a round trip: the evaluator itself
    call = recording(scorer.name, scorer.acall if scorer.is_async else scorer, on_error, needs_label=scorer.needs_label)
    name = scorer.name if key is None else key

    def read(run: Any, example: Any, inputs: Any, outputs: Any, reference: Any) -> tuple[tuple[Any, ...], Score | None]:
        if run is not None:
            outputs = run.outputs
        if example is not None:
            inputs, reference = example.inputs, example.outputs
        row = (inputs, unwrap(outputs, OUTPUT_KEYS, sole=True), unwrap(reference, LABEL_KEYS, sole=True))
        if run is None or not run.error:
            return row, None
        why = f"the target raised: {run.error:.300}"  # a crashed target: an error, as score_many records one
        return row, recorded(scorer.name, False, None, "error", None, why, unlabelled=unlabelled(scorer, row[2]))

    def evaluator(run=None, example=None, *, inputs=None, outputs=None, reference_outputs=None, **kwargs):  # type: ignore[no-untyped-def]
        row, crashed = read(run, example, inputs, outputs, reference_outputs)
        with carrying(row, None if run is None else (run, example)):
            return _result(name, crashed if crashed is not None else call(*row))  # type: ignore[arg-type]

    async def aevaluator(run=None, example=None, *, inputs=None, outputs=None, reference_outputs=None, **kwargs):  # type: ignore[no-untyped-def]
        row, crashed = read(run, example, inputs, outputs, reference_outputs)
        with carrying(row, None if run is None else (run, example)):
            return _result(name, crashed if crashed is not None else await call(*row))  # type: ignore[misc]

    made = aevaluator if scorer.is_async else evaluator
    made.__name__ = made.__qualname__ = name
    # it wraps the scorer: LangSmith, which reads an evaluator's keys from its source, then names no other key
    made.__signature__, made.__wrapped__ = inspect.signature(made), scorer  # type: ignore[attr-defined]
    setattr(made, MADE_FROM, scorer)
    return made
