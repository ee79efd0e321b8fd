"""`from_langsmith`: a LangSmith or openevals evaluator as a scorebridge `Scorer`."""

from __future__ import annotations

import inspect
import math
import uuid
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any, Literal

from langsmith.evaluation import RunEvaluator
from langsmith.schemas import Example, Run

from scorebridge import Score, Scorer
from scorebridge.kit import (
    Ask,
    OptionsError,
    ScorerContractError,
    ask,
    element,
    grade_value,
    is_async,
    is_number,
    judge,
    options_of,
    recording,
    sync_and_async,
    verdict,
)

from ._native import MADE_FROM, NATIVE

__all__ = ["LangsmithCall", "from_langsmith"]

BY_NAME = ("inputs", "outputs", "reference_outputs", "run", "example")
"""The arguments LangSmith hands an evaluator by name (and `attachments`, which scorebridge rows have none of)."""


def _names(evaluator: Any) -> tuple[str, ...] | None:
    """The arguments an evaluator takes by name, by LangSmith's rule; None for `(run, example)` by position."""
    if isinstance(evaluator, RunEvaluator):
        return None
    params = [p for p in inspect.signature(evaluator).parameters.values() if p.kind is not p.VAR_KEYWORD]
    by_name = all(p.name in BY_NAME or p.default is not p.empty for p in params)
    if by_name and [p.name for p in params] != ["run", "example"]:
        return tuple(p.name for p in params if p.name in BY_NAME)
    return None


def _held(x: Any, key: str) -> dict[str, Any]:
    return dict(x) if isinstance(x, Mapping) else {} if x is None else {key: x}


def _run_and_example(item: Any, output: Any, label: Any) -> tuple[Run, Example]:
    """The run and example LangSmith would hold for a row: a non-mapping output as `{"output": ...}`, a label as
    `{"answer": ...}`, an item as `{"input": ...}`."""
    run_id, inputs = uuid.uuid4(), _held(item, "input")
    now = datetime.now(timezone.utc)
    run = Run(id=run_id, trace_id=run_id, name="scorebridge", run_type="chain", start_time=now, inputs=inputs,
              outputs=_held(output, "output"))  # fmt: skip
    return run, Example(id=uuid.uuid4(), inputs=inputs, outputs=None if label is None else _held(label, "answer"))


class LangsmithCall:
    """The body of a scorer made by `from_langsmith`: the evaluator called on (item, output, label)."""

    def __init__(self, evaluator: Any, name: str, threshold: float, needs_label: bool) -> None:
        self.evaluator, self.name, self.threshold, self.needs_label = evaluator, name, threshold, needs_label
        self.names = _names(evaluator)

    def __repr__(self) -> str:
        return f"<LangSmith evaluator {self.name}>"

    def __call__(self, item: Any, output: Any, label: Any) -> Any:
        asked = ask(self.name, output, label, needs_label=self.needs_label, read_label=False, structured=True)
        if isinstance(asked, Score):
            return asked
        native = NATIVE.native(item, output, label)  # inside LangSmith: its own run and example
        given = asked.output if asked.rejected is None else asked.text  # an output with no text as ""
        return judge(self.name, lambda: self.call(item, given, asked.label, native), lambda r: self.verdict(asked, r))

    def call(self, item: Any, output: Any, label: Any, native: tuple[Any, Any] | None) -> Any:
        run, example = native or _run_and_example(item, output, label)
        if self.names is None:  # (run, example) by position, or a RunEvaluator
            is_run_evaluator = isinstance(self.evaluator, RunEvaluator)
            return self.evaluator.evaluate_run(run, example) if is_run_evaluator else self.evaluator(run, example)
        given = {"run": run, "example": example, "inputs": item, "outputs": output, "reference_outputs": label}
        if native is not None:  # what LangSmith hands by name
            given.update(inputs=example.inputs, outputs=run.outputs or {}, reference_outputs=example.outputs or {})
        return self.evaluator(**{n: given[n] for n in self.names})

    def verdict(self, asked: Ask, found: Any) -> Score:
        results = found.get("results", found) if isinstance(found, Mapping) and "results" in found else found
        read = [self.read(r) for r in (results if isinstance(results, list) else [results])]
        scores = [s for s, _, _ in read]
        value = None if not read or None in scores else sum(scores) / len(scores)  # type: ignore[arg-type]
        comments = [f"{k}: {c}" if len(read) > 1 and k else c for _, k, c in read if c]
        metadata = {"results": {k or str(n): s for n, (s, k, _) in enumerate(read)}} if len(read) > 1 else None
        correct = None if value is None else value >= self.threshold
        return verdict(
            self.name, asked, correct, value=value, explanation="; ".join(comments) or None, metadata=metadata
        )

    def read(self, result: Any) -> tuple[float | None, str | None, str | None]:
        """One result's score (0-1; None for none), key and comment."""
        score = result if isinstance(result, (bool, int, float, str)) else element(result, "score")
        if score is None or isinstance(score, str):
            value = element(result, "value") if score is None else score
            score = None if value is None else grade_value(value)
        if score is not None and not isinstance(score, bool) and (not is_number(score) or not 0 <= float(score) <= 1):
            raise ScorerContractError(f"{self.name}: the evaluator's score must be 0-1 or a bool; got {score!r:.80}")
        key, comment = element(result, "key"), element(result, "comment")
        return (None if score is None else float(score)), key, None if comment is None else str(comment)


def from_langsmith(
    evaluator: Callable[..., Any] | RunEvaluator,
    *,
    name: str | None = None,
    threshold: float = 1.0,
    needs_label: bool | None = None,
    on_error: Literal["raise", "record"] = "raise",
    options: Mapping[str, Any] | None = None,
) -> Scorer:
    """An openevals or LangSmith evaluator as a scorebridge scorer; one made by `to_langsmith` gives its scorer back."""
    made_from = getattr(evaluator, MADE_FROM, None)
    if isinstance(made_from, Scorer) and on_error == "raise" and name in (None, made_from.name):
        return made_from  # a round trip: the scorebridge scorer to_langsmith was given
    if not callable(evaluator) and not isinstance(evaluator, RunEvaluator):
        raise TypeError(f"from_langsmith: expected an evaluator (a function or a RunEvaluator); got {evaluator!r:.80}")
    if name is None:
        given = getattr(evaluator, "__name__", None)
        name = given if isinstance(given, str) and given[:1].isalpha() else "langsmith_evaluator"
    if not is_number(threshold) or not math.isfinite(threshold):
        raise ValueError(f"from_langsmith({name}): threshold must be a finite number; got {threshold!r:.80}")
    if needs_label is None:  # it reads a reference: `reference_outputs` or the example
        names = _names(evaluator)
        needs_label = names is None or "reference_outputs" in names or "example" in names
    if options is None:
        try:
            options = {"evaluator": options_of(evaluator)}
        except OptionsError as exc:
            raise TypeError(
                f"from_langsmith({name}): {exc}; give the evaluator's identity as options={{...}}"
            ) from None
    call = LangsmithCall(evaluator, name, float(threshold), needs_label)
    fn = sync_and_async(
        recording(name, call, on_error, needs_label=needs_label), is_async=callable(evaluator) and is_async(evaluator)
    )
    return Scorer(name, fn, {**options, "threshold": float(threshold)}, recorded=True, needs_label=needs_label)
