"""OpenAI grader specs as scorebridge scorers, run offline: `from_openai_grader(spec)`.

A grader spec (the JSON of `string_check`, `text_similarity`, `score_model`,
`label_model`, `python` and `multi` graders, as OpenAI's evals and
reinforcement fine-tuning took them) becomes a `Scorer`, so it runs in plain
Python, the `scorebridge` command and every harness scorebridge reaches
(Inspect AI, DSPy, MLflow, TRL rewards...). docs/openai_graders.md describes
each type and what is faithful to OpenAI's documentation.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from scorebridge.kit import GRADER_FAILED, Ask, Scorer, ScorerContractError, ask, label_is_missing, scale, verdict

from . import _graders, _spec
from ._graders import Embed, Grader, Result, Row
from ._spec import SpecError

__all__ = ["DEFAULT_TIMEOUT", "SpecError", "from_openai_grader", "item_namespace", "sample_namespace"]

_JSON_STARTS = frozenset('{["-0123456789tfn')

DEFAULT_TIMEOUT = 120.0
"""Seconds a python grader's `grade` may run on one row: OpenAI's limit was 2 minutes."""


def from_openai_grader(
    spec: Mapping[str, Any] | str | Path,
    *,
    grader: Grader | None = None,
    embed: Embed | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    label_field: str = "reference",
) -> Scorer:
    """A Scorer of an OpenAI grader spec: a mapping, or the path of a JSON file holding one.

    - `grader`: for `score_model` and `label_model` (also inside `multi`): any
      scorebridge grader, a function of the prompt (one string) returning the
      reply, sync or async (`scorebridge_inspect.inspect_grader`,
      `scorebridge_dspy.dspy_grader`, `scorebridge.testing.FakeGrader`);
    - `embed`: for `text_similarity` with `cosine`: a function of a text
      returning its embedding;
    - `timeout`: seconds a `python` grader may run on one row before the row is
      an `error` (its process killed);
    - `label_field`: the item field a row's label is offered as, to templates
      and to a python grader's `item` (`"reference"`: `{{item.reference}}`; an
      exported eval whose templates read `{{item.reference_answer}}` says
      `label_field="reference_answer"`, and then runs alike in a harness that
      hands the label apart, Inspect's target, TRL's solution column). An item
      that has the field already keeps its own value.

    The Scorer's name is the spec's `name`, its options the spec itself (so
    `-S pass_threshold=0.8` and `with_options` change a field). It needs no label:
    the spec's templates read what they read, a row's label among them as
    `item.<label_field>`. `grader`, `embed`, `timeout` and `label_field` are
    kept when `with_options` makes it again, and are not among its options.

    A row is correct when its score reaches `pass_threshold` (for
    `text_similarity`, `score_model`, `python` and `multi`; without one, when
    it is the top of the grader's scale), for `string_check` when the check holds,
    for `label_model` when the label is one of `passing_labels`. Its value is the
    score on 0 to 1 (a `score_model` range mapped onto it; a `python` or `multi`
    score as computed). OpenAI's error flags are failure kinds: a parse error
    (the output's JSON, the model's reply) `parse_failure`, the rest `error`,
    the flag in the Score's metadata (`openai_error`).

    Raises SpecError (a ValueError) naming the grader and the field for a spec
    OpenAI would refuse, or one that cannot run here (meteor without NLTK's
    WordNet data, cosine without `embed`, a model grader without `grader`, an
    image in a model grader's messages); TypeError for a spec that is neither a
    mapping nor a path.
    """
    data = _spec.load(spec)
    _spec.check(data)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout < float("inf"):
        raise ValueError(f"from_openai_grader: timeout must be a number of seconds above 0; got {timeout!r}")
    if not isinstance(label_field, str) or not label_field:
        raise TypeError(f"from_openai_grader: label_field must be a field name; got {label_field!r}")
    name = data["name"]

    def make(sub: Mapping[str, Any], at: str) -> Callable[[Row], Result]:
        kind = sub["type"]
        if kind == "string_check":
            return _graders.string_check(sub)
        if kind == "text_similarity":
            return _graders.text_similarity(sub, at, embed)
        if kind in ("score_model", "label_model"):
            return _graders.model(sub, at, grader)
        if kind == "python":
            return _graders.python(sub, float(timeout))
        return _graders.multi(sub, at, make)

    run = make(data, f"grader {name!r}")
    # a score_model's range, mapped onto 0-1 by the kit's Scale; any other score is the value as it is
    ranged = scale(name, _spec.score_range("", data.get("range"))) if data["type"] == "score_model" else None
    top = 1.0 if ranged is None else ranged.high
    threshold = data.get("pass_threshold")

    def body(item: Any, output: Any, label: Any) -> Any:
        asked = ask(name, output, label, needs_label=False, read_label=False, structured=True)
        if not isinstance(asked, Ask):
            return asked  # an output that reports its own failure
        row = Row(name, item_namespace(name, item, asked.label, label_field), sample_namespace(asked))
        try:
            result = run(row)
        except _graders.SampleParse as exc:
            result = Result(None, "sample_parse_error", str(exc))
        metadata: dict[str, Any] = dict(result.detail or {})
        if result.score is None:
            flag = result.flag or "other_error"
            metadata["openai_error"] = flag
            if flag.startswith("model_grader"):
                metadata[GRADER_FAILED] = result.why
            kind: Literal["parse_failure", "error"] = "parse_failure" if flag in _graders.PARSE_FLAGS else "error"
            return verdict(name, asked, False, value=0.0, explanation=result.why, metadata=metadata, failure_kind=kind)
        metadata["score"] = result.score
        value = result.score if ranged is None else ranged.read(name, result.score)[1]
        correct = result.score >= threshold if threshold is not None else result.score >= top
        return verdict(name, asked, correct, value=value, explanation=result.why, metadata=metadata)

    def factory(**changed: Any) -> Scorer:
        return from_openai_grader(changed, grader=grader, embed=embed, timeout=timeout, label_field=label_field)

    return Scorer(name, body, data, factory=factory, recorded=True, needs_label=False)


def item_namespace(scorer_name: str, item: Any, label: Any, label_field: str = "reference") -> dict[str, Any]:
    """The `item` namespace of a row: a mapping item's fields (a string item as `input`), and the label.

    The label is `item.<label_field>` unless the item has a field of that name. An
    item that is neither a mapping, a string nor missing (an object) is read as
    its attributes (`vars`); one with none is a ScorerContractError naming the scorer.
    """
    if item is None or label_is_missing(item):
        fields: dict[str, Any] = {}
    elif isinstance(item, str):
        fields = {"input": item}
    elif isinstance(item, Mapping):
        fields = dict(item)
    elif hasattr(item, "toDict"):  # a dspy.Example, whose fields are not its attributes
        fields = dict(item.toDict())
    elif hasattr(item, "__dict__"):
        fields = {k: v for k, v in vars(item).items() if not k.startswith("_")}
    else:
        raise ScorerContractError(
            f"{scorer_name}: the item must be a mapping of fields or a string (its input); got {type(item).__name__}"
        )
    if label is not None and label_field not in fields:
        fields[label_field] = label
    jsonable: dict[str, Any] = _jsonable(fields)
    return jsonable


def _jsonable(value: Any) -> Any:
    """A value as the JSON a python grader is handed (an unknown object as its text)."""
    return json.loads(json.dumps(value, default=str))


def sample_namespace(asked: Ask) -> dict[str, Any]:
    """The `sample` namespace of a row: the output as `output_text`, `output_json` and one chat choice.

    A mapping or list output is its own `output_json` (its `output_text` the JSON
    text); a text output is parsed as JSON, and one that is not JSON has no
    `output_json` (a template that reads it is a parse failure).
    """
    output = asked.output
    if isinstance(output, (Mapping, list)) and not asked.text:
        output_json: Any = _jsonable(output)
        text = json.dumps(output_json, ensure_ascii=False)
    else:
        text = asked.text
        output_json = _graders.NOT_JSON
        if text.lstrip()[:1] in _JSON_STARTS:  # text no JSON can be is not parsed (a row's time went on it)
            with contextlib.suppress(ValueError):
                output_json = json.loads(text)
    choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
    return {"output_text": text, "output_json": output_json, "choices": [choice]}
