"""Both directions: `to_langsmith` (a scorebridge scorer as a LangSmith evaluator) and `from_langsmith` (a LangSmith
or openevals evaluator as a scorebridge `Scorer`).

What the two tell each other: `NATIVE`, LangSmith's own run and example carried by `to_langsmith` with a scorer's
call (a `from_langsmith` scorer called inside with those very arguments hands its evaluator LangSmith's objects);
`scorebridge_scorer`, the attribute an evaluator made by `to_langsmith` keeps its scorer in;
`LangsmithCall.evaluator`, the evaluator a `from_langsmith` scorer wraps (`kit.body_of`).
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal

from langsmith.evaluation import RunEvaluator
from langsmith.run_trees import RunTree
from langsmith.schemas import Example

from scorebridge import Score, Scorer, kit

NATIVE: Final[kit.NativeCalls[tuple[Any, Any] | None]] = kit.NativeCalls("scorebridge_langsmith_native")
BY_NAME: Final = ("inputs", "outputs", "reference_outputs", "run", "example")
"""The arguments LangSmith hands an evaluator by name (and `attachments`, which scorebridge rows have none of)."""


def _names(evaluator: Any) -> tuple[str, ...] | None:
    """The arguments an evaluator takes by name, by LangSmith's own rule: every parameter is one of `BY_NAME` or has
    a default, and they are not `(run, example)`; None for `(run, example)` by position (two required arguments of
    any names, LangSmith's older convention)."""
    given = {p.name: p for p in inspect.signature(evaluator).parameters.values() if p.kind is not p.VAR_KEYWORD}
    by_name = all(n in BY_NAME or p.default is not p.empty for n, p in given.items())
    return tuple(n for n in given if n in BY_NAME) if by_name and list(given) != ["run", "example"] else None


def _held(x: Any, key: str) -> dict[str, Any]:
    return dict(x) if isinstance(x, Mapping) else {} if x is None else {key: x}


def _run_and_example(item: Any, output: Any, label: Any) -> tuple[RunTree, Example]:
    """The run and example LangSmith would hold for a row: an item that is no mapping as `{"input": ...}`, such an
    output as `{"output": ...}` (as LangSmith holds a target's return), such a label as `{"answer": ...}`."""
    inputs = _held(item, "input")
    run = RunTree(name="scorebridge", inputs=inputs, outputs=_held(output, "output"))  # as LangSmith hands runs
    return run, Example(id=uuid.uuid4(), inputs=inputs, outputs=None if label is None else _held(label, "answer"))


class LangsmithCall:
    """The body of a scorer made by `from_langsmith`: the evaluator called on (item, output, label), what it
    returned read back (`verdict`)."""

    def __init__(self, evaluator: Any, names: tuple[str, ...] | None, name: str, needs_label: bool) -> None:
        self.evaluator, self.names, self.name, self.needs_label = evaluator, names, name, needs_label
        self.runs = names is None or not {"run", "example"}.isdisjoint(names)  # it takes LangSmith's run or example

    def __call__(self, item: Any, output: Any, label: Any) -> Any:
        asked = kit.ask(self.name, output, label, needs_label=self.needs_label, read_label=False, structured=True)
        if isinstance(asked, Score):
            return asked
        native = NATIVE.native(item, output, label)  # inside LangSmith: its own run and example
        return kit.judge(self.name, lambda: self.call(item, asked, native), lambda found: self.verdict(asked, found))

    def call(self, item: Any, asked: kit.Ask, native: tuple[Any, Any] | None) -> Any:
        output = asked.output if asked.rejected is None else asked.text  # an output with no text as ""
        run, example = native or (_run_and_example(item, output, asked.label) if self.runs else (None, None))
        if self.names is None:  # (run, example) by position, or a RunEvaluator
            is_run_evaluator = isinstance(self.evaluator, RunEvaluator)
            return self.evaluator.evaluate_run(run, example) if is_run_evaluator else self.evaluator(run, example)
        given = {"run": run, "example": example, "inputs": item, "outputs": output, "reference_outputs": asked.label}
        if native is not None:  # what LangSmith itself hands by name
            given.update(inputs=example.inputs, outputs=run.outputs or {}, reference_outputs=example.outputs or {})  # type: ignore[union-attr]
        return self.evaluator(**{n: given[n] for n in self.names})

    def verdict(self, asked: kit.Ask, found: Any) -> Score:
        """The Score of what the evaluator returned: a bool, a number, a grade word, a mapping's or an
        EvaluationResult's `score` (else `value`) and `comment`; several results (`EvaluationResults`, a list) are
        their mean, each result's points in metadata (`results`, by key), their comments joined."""
        found = found.get("results", [found]) if isinstance(found, Mapping) else found
        found = found if isinstance(found, list) else [found]
        scores = [kit.scale(self.name).read(self.name, _score(r))[1] for r in found]  # 0-1: no range declared
        value = None if not scores or None in scores else sum(scores) / len(scores)  # type: ignore[arg-type]
        keys = [str(kit.element(r, "key")) for r in found]
        many = {"results": dict(zip(keys, scores, strict=True))} if len(scores) > 1 else None
        said = "; ".join(str(c) for c in (kit.element(r, "comment") for r in found) if c) or None
        correct = None if value is None else value >= 1.0
        return kit.verdict(self.name, asked, correct, value=value, explanation=said, metadata=many)


def _score(result: Any) -> Any:
    """A result's score: a bool, number or text itself; a mapping's or EvaluationResult's `score`, else `value`."""
    plain = result is None or isinstance(result, (bool, int, float, str))
    score = result if plain else kit.element(result, "score")
    return kit.element(result, "value") if score is None and not plain else score


def from_langsmith(
    evaluator: Callable[..., Any] | RunEvaluator,
    *,
    name: str | None = None,
    needs_label: bool | None = None,
    on_error: Literal["raise", "record"] = "raise",
    options: Mapping[str, Any] | None = None,
) -> Scorer:
    """An openevals or LangSmith evaluator as a scorebridge `Scorer`, callable from plain, threaded or async code.

    The evaluator: openevals' prebuilt ones (`exact_match`, `levenshtein_distance`, `create_json_match_evaluator(...)`,
    `create_llm_as_judge(...)` with any model, their async twins), or a LangSmith custom evaluator in any of its
    calling conventions: arguments chosen by name from `inputs`, `outputs`, `reference_outputs`, `run`, `example`;
    `(run, example)` by position; a `RunEvaluator` object. What it is handed:

    - by name, from anywhere but LangSmith: the item as `inputs`, the output as given as `outputs` (text stays text,
      a structured output stays structured; one with no text, None or "", is ""), the label as the data has it as
      `reference_outputs` (a list whole), as openevals' evaluators take them from plain Python;
    - `run` and `example`: a `Run` and an `Example` as LangSmith would hold the row (`{"output": ...}`,
      `{"answer": ...}`, `{"input": ...}` for values that are no mapping);
    - inside LangSmith (a scorer of yours run by `to_langsmith` calling this one with what it was given):
      LangSmith's own run and example, and by name what LangSmith itself hands.

    What it returns is read back: a bool or a number (0-1) is the score, a string or a `value` by the grade mapping,
    a dict or `EvaluationResult` its `score` (else `value`) and `comment` (the explanation); several results
    (`EvaluationResults`, openevals' per-key list) are their mean, each in metadata. Correct when the score is at
    least 1, partial credit (wrong, its points the value) below, as every scorebridge scorer counts points; a score
    outside 0-1 (a 1-5 rating) is a `ScorerContractError` (`kit.Scale.read`).

    needs_label: default, True when the evaluator reads a reference (`reference_outputs`, the example, a
    `(run, example)` evaluator): a row with no label is then unscored without calling it (openevals' exact_match
    would raise). An LLM judge made by `create_llm_as_judge` takes `reference_outputs` whether its prompt uses it
    or not: give `needs_label=False` for one that judges the output alone.

    on_error: "raise" (default): an exception inside the evaluator propagates with a note naming the scorer;
    "record": it is the row's Score, wrong with failure kind "error" (unscored without a label).

    options: the scorer's identity, recorded by `benchmark(out=...)`: by default `{"evaluator": options_of(evaluator)}`
    (a closure's cells, such as create_llm_as_judge's prompt and model, a partial's or an object's arguments), so a
    resume under an evaluator made with other arguments is refused. An evaluator holding what JSON
    cannot (a client made with arguments it does not keep) is a TypeError asking for `options=`.

    Round trip: an evaluator made by `to_langsmith(s)` gives back `s`, unless `name` (other than `s.name`) or
    `on_error="record"` is given. The scorer is named `name`, else the evaluator's `__name__` without leading
    underscores (openevals' factories return `_wrapped_evaluator`: give `name=`); a lambda needs `name=`.
    """
    made_from = getattr(evaluator, "scorebridge_scorer", None)
    if isinstance(made_from, Scorer) and on_error == "raise" and name in (None, made_from.name):
        return made_from  # a round trip: the scorebridge scorer to_langsmith was given
    if not callable(evaluator) and not isinstance(evaluator, RunEvaluator):
        raise TypeError(f"from_langsmith: expected an evaluator (a function or a RunEvaluator); got {evaluator!r:.80}")
    names = None if isinstance(evaluator, RunEvaluator) else _names(evaluator)
    name = name or str(getattr(evaluator, "__name__", "")).lstrip("_") or "langsmith_evaluator"
    reads = names is None or not {"reference_outputs", "example"}.isdisjoint(names)  # it reads a reference
    needs_label = reads if needs_label is None else needs_label
    try:
        options = {"evaluator": kit.options_of(evaluator)} if options is None else options
    except kit.OptionsError as exc:
        raise TypeError(f"from_langsmith({name}): {exc}; give its identity as options={{...}}") from None
    body = kit.recording(name, LangsmithCall(evaluator, names, name, needs_label), on_error, needs_label=needs_label)
    fn = kit.sync_and_async(body, is_async=callable(evaluator) and kit.is_async(evaluator))
    return Scorer(name, fn, options, recorded=True, needs_label=needs_label)


def to_langsmith(
    scorer: Scorer, *, on_error: Literal["raise", "record"] = "raise", key: str | None = None
) -> Callable[..., Any]:
    """A scorebridge scorer as a LangSmith evaluator: for `langsmith.evaluate`/`aevaluate`, openevals' runners, and
    any code that calls an openevals evaluator (`evaluator(inputs=..., outputs=..., reference_outputs=...)`).

    Its arguments are LangSmith's by name, `run`, `example`, `inputs`, `outputs`, `reference_outputs`, all optional;
    the scorer reads:

    - item: the example's inputs (a dict: `item_text` reads its `input`, else `question`);
    - output: the run's outputs, `{"output": ...}` unwrapped (LangSmith holds a target's return that is no mapping
      so); a mapping of other keys whole (the scorer reads its `answer` or `text`, or the whole structure);
    - label: the example's outputs under `answer`, else `label`, else `output`, else their one key of any name; the
      whole mapping when it has several others; no outputs, or `{}`, is no label.

    It returns `{"key": ..., "score": ..., "comment": ..., "metadata": {"failure_kind": ...}}`: `key` is `key`,
    else the scorer's name; `score` the Score's value, None when unscored (LangSmith leaves it out of its mean, as
    every harness leaves a row with no label out of the accuracy); `comment` the explanation. A run whose target
    crashed (`run.error`) is not scored: it is wrong with failure kind "error" (unscored, the kind kept, without a
    label), as `score_many` records an exception.

    It is an `async def` when the scorer is async, awaited by `aevaluate` (and run to completion by `evaluate`).

    on_error: "raise" (default): the scorer's exception propagates, with a note naming it; LangSmith catches and
    logs it and leaves the row out of that key's mean. "record": the row scores 0.0 (wrong, failure kind "error";
    unscored without a label), so LangSmith's mean is `Summary`'s accuracy.

    Round trip: a scorer made by `from_langsmith(e)` gives back `e` itself, unless `key` or `on_error="record"`
    (here, or the scorer's own: `from_langsmith(e, on_error="record")`) asks for something else.
    """
    if not isinstance(scorer, Scorer):
        raise TypeError(f"to_langsmith: expected a scorebridge Scorer; got {type(scorer).__name__}")
    body = kit.body_of(scorer)  # a round trip: the evaluator itself, unless its scorer records its errors
    plain = body is getattr(scorer.fn, "body", None) and on_error == "raise" and key in (None, scorer.name)
    if isinstance(body, LangsmithCall) and plain:
        return body.evaluator  # type: ignore[no-any-return]
    calls = scorer.acall if scorer.is_async else scorer
    call, name = kit.recording(scorer.name, calls, on_error, needs_label=scorer.needs_label), key or scorer.name

    def read(run: Any, example: Any, inputs: Any, outputs: Any, reference: Any) -> tuple[Any, Any, Any, Score | None]:
        inputs, reference = (inputs, reference) if example is None else (example.inputs, example.outputs)
        label = kit.unwrap(reference, ("answer", "label", "output"), sole=True)
        output = kit.unwrap(outputs if run is None else run.outputs, ("output",))
        if run is None or not run.error:
            return inputs, output, label, None
        why = f"the target raised: {run.error:.300}"  # no output to judge: an error, as score_many records one
        crashed = kit.recorded(scorer.name, False, None, "error", None, why, unlabelled=kit.unlabelled(scorer, label))
        return inputs, output, label, crashed

    def evaluator(run=None, example=None, *, inputs=None, outputs=None, reference_outputs=None, **kwargs):  # type: ignore[no-untyped-def]
        item, output, label, crashed = read(run, example, inputs, outputs, reference_outputs)
        with NATIVE.carrying(item, output, label, None if run is None else (run, example)):
            return _result(name, crashed if crashed is not None else call(item, output, label))  # type: ignore[arg-type]

    async def aevaluator(run=None, example=None, *, inputs=None, outputs=None, reference_outputs=None, **kwargs):  # type: ignore[no-untyped-def]
        item, output, label, crashed = read(run, example, inputs, outputs, reference_outputs)
        with NATIVE.carrying(item, output, label, None if run is None else (run, example)):
            return _result(name, crashed if crashed is not None else await call(item, output, label))  # type: ignore[misc]

    made: Callable[..., Any] = aevaluator if scorer.is_async else evaluator
    # the scorer it wraps: for from_langsmith to give back, and LangSmith, which reads an evaluator's keys from its
    # source, then names no other key
    made.__name__ = made.__qualname__ = name
    made.__signature__, made.__wrapped__, made.scorebridge_scorer = inspect.signature(made), scorer, scorer  # type: ignore[attr-defined]
    return made


def _result(key: str, s: Score) -> dict[str, Any]:
    return {"key": key, "score": s.value, "comment": s.explanation, "metadata": {"failure_kind": s.failure_kind}}
