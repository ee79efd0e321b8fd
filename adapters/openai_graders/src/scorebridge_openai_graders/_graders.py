"""Each grader type run offline on one row: a `Result` (a score, or an OpenAI error flag) from the namespaces."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, NamedTuple

from scorebridge.kit import ScorerContractError, run_sync

from . import _spec

Embed = Callable[[str], Sequence[float]]
"""A function of a text returning its embedding (a sequence of floats); may be async."""
Grader = Callable[[str], Any]
"""A scorebridge grader: a function of the prompt returning the model's reply, sync or async."""

PARSE_FLAGS: Final = ("sample_parse_error", "model_grader_parse_error", "formula_parse_error")
"""OpenAI's error flags recorded as parse_failure; every other flag is recorded as error."""

_SANDBOX: Final = Path(__file__).with_name("_sandbox.py")
_JSON_OBJECT: Final = re.compile(r"\{.*\}", re.DOTALL)


class Result(NamedTuple):
    """One grader's result on one row: `score` in the grader's own scale, or an OpenAI error `flag` and why."""

    score: float | None
    flag: str | None = None
    why: str | None = None
    detail: Mapping[str, Any] | None = None


class Row(NamedTuple):
    """What a row offers the templates and a python grader: the item and sample namespaces."""

    scorer: str
    item: Mapping[str, Any]
    sample: Mapping[str, Any]


_MISSING: Final = object()


def lookup(row: Row, path: _spec.Path_, expression: str) -> Any:
    """The value a template field names; a missing item field a ScorerContractError naming it.

    `sample.output_json` of an output that is not JSON is a `SampleParse` (OpenAI's sample_parse_error).
    """
    namespace, steps = path
    value: Any = row.item if namespace == "item" else row.sample
    for depth, step in enumerate(steps):
        if isinstance(step, int):
            found = value[step] if isinstance(value, list) and -len(value) <= step < len(value) else _MISSING
        else:
            found = value.get(step, _MISSING) if isinstance(value, Mapping) else _MISSING
        if found is _MISSING:
            if namespace == "sample" and steps[0] == "output_json":
                raise SampleParse(f"the template {{{{{expression}}}}} names a field the output's JSON does not have")
            where = ".".join(str(s) for s in steps[: depth + 1])
            held = ", ".join(sorted(value)) if isinstance(value, Mapping) else type(value).__name__
            raise ScorerContractError(
                f"{row.scorer}: the template {{{{{expression}}}}} names the field {namespace}.{where}, which this "
                f"row does not have (it has: {held or 'no fields'})"
            )
        if found is NOT_JSON:
            raise SampleParse(f"the template {{{{{expression}}}}} reads the output as JSON, and it is not JSON")
        value = found
    return value


class SampleParse(Exception):
    """A template read the output as JSON, and it is not (OpenAI's sample_parse_error)."""


NOT_JSON: Final = object()
"""`sample.output_json` of an output that is not JSON: an error only when a template reads it."""


def fill(row: Row, template: str) -> str:
    return _spec.render(template, lambda path, expression: lookup(row, path, expression))


def string_check(spec: Mapping[str, Any]) -> Callable[[Row], Result]:
    operation = spec["operation"]

    def run(row: Row) -> Result:
        given, reference = fill(row, spec["input"]), fill(row, spec["reference"])
        if operation == "eq":
            passed = given == reference
        elif operation == "ne":
            passed = given != reference
        elif operation == "like":
            passed = reference in given
        else:
            passed = reference.casefold() in given.casefold()
        return Result(1.0 if passed else 0.0)

    return run


def _metric(at: str, metric: str, embed: Embed | None) -> Callable[[str, str], float]:
    """The metric's function of (input, reference), each from a well-kept library; refused when it cannot run."""
    if metric == "fuzzy_match":
        from rapidfuzz import fuzz, utils

        return lambda a, b: float(fuzz.WRatio(a, b, processor=utils.default_process)) / 100.0
    if metric == "bleu":
        import sacrebleu

        return lambda a, b: float(sacrebleu.sentence_bleu(a, [b]).score) / 100.0
    if metric == "gleu":
        from nltk.translate.gleu_score import sentence_gleu

        return lambda a, b: float(sentence_gleu([b.split()], a.split()))
    if metric == "meteor":
        import nltk

        try:
            nltk.data.find("corpora/wordnet")
        except LookupError:
            raise _spec.SpecError(
                f"{at}: meteor needs NLTK's WordNet data, which is not installed here and is never downloaded while "
                "scoring; install it once with python -m nltk.downloader wordnet, or use another metric"
            ) from None
        from nltk.translate.meteor_score import meteor_score

        return lambda a, b: float(meteor_score([b.split()], a.split()))
    if metric == "cosine":
        if embed is None or not callable(embed):
            raise _spec.SpecError(f"{at}: cosine needs an embedding function: from_openai_grader(spec, embed=...)")
        return lambda a, b: _cosine(_embedding(embed, a), _embedding(embed, b))
    from rouge_score import rouge_scorer

    kind = "rougeL" if metric == "rouge_l" else f"rouge{metric[-1]}"
    scorer = rouge_scorer.RougeScorer([kind])
    return lambda a, b: float(scorer.score(b, a)[kind].fmeasure)


def _embedding(embed: Embed, text: str) -> list[float]:
    vector = embed(text)
    if isinstance(vector, Awaitable):
        vector = run_sync(vector)
    return [float(x) for x in vector]


def _cosine(a: list[float], b: list[float]) -> float:
    if len(a) != len(b):
        raise ValueError(f"the embeddings have {len(a)} and {len(b)} dimensions")
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return 0.0 if norm == 0 else sum(x * y for x, y in zip(a, b, strict=True)) / norm


def text_similarity(spec: Mapping[str, Any], at: str, embed: Embed | None) -> Callable[[Row], Result]:
    measure = _metric(at, spec["evaluation_metric"], embed)

    def run(row: Row) -> Result:
        given, reference = fill(row, spec["input"]), fill(row, spec["reference"])
        try:
            return Result(measure(given, reference))
        except Exception as exc:  # an embedding function that fails, a library's own error
            return Result(None, "other_error", f"{spec['evaluation_metric']} raised {type(exc).__name__}: {exc}")

    return run


def _reply_value(reply: str) -> Any:
    """The `result` of a model grader's reply: a JSON object's, else the reply itself (stripped)."""
    for candidate in (reply.strip(), *(m.group(0) for m in [_JSON_OBJECT.search(reply)] if m)):
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        return data.get("result", reply.strip()) if isinstance(data, dict) else data
    return reply.strip()


def model(spec: Mapping[str, Any], at: str, grader: Grader | None) -> Callable[[Row], Result]:
    """A score_model or label_model grader: the messages as one prompt to `grader`, its reply read."""
    if grader is None or not callable(grader):
        raise _spec.SpecError(
            f"{at}: a {spec['type']} grader needs a grader model: from_openai_grader(spec, grader=...), any "
            "scorebridge grader (scorebridge_inspect.inspect_grader, scorebridge_dspy.dspy_grader, a function)"
        )
    turns = _spec.messages(at, spec["input"])
    if spec["type"] == "score_model":
        low, high = _spec.score_range(at, spec.get("range"))
        ask = f'Reply with a JSON object {{"result": SCORE}}, SCORE a number from {low:g} to {high:g}.'
    else:
        labels = spec["labels"]
        ask = 'Reply with a JSON object {"result": LABEL}, LABEL one of: ' + ", ".join(map(json.dumps, labels)) + "."

    def read(reply: Any) -> Result:
        if not isinstance(reply, str):
            return Result(None, "model_grader_parse_error", f"the grader returned {type(reply).__name__}, not text")
        value = _reply_value(reply)
        detail = {"reply": reply}
        if spec["type"] == "label_model":
            if value not in labels:
                return Result(None, "model_grader_parse_error", f"the reply gives no label of {labels}", detail)
            return Result(1.0 if value in spec["passing_labels"] else 0.0, detail={**detail, "label": value})
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                return Result(None, "model_grader_parse_error", "the reply gives no score", detail)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            return Result(None, "model_grader_parse_error", f"the reply's score {value!r} is not in {low:g}..{high:g}")
        return Result(float(value), detail=detail)

    def run(row: Row) -> Result:
        prompt = "\n\n".join(f"{role}: {fill(row, template)}" for role, template in turns) + "\n\n" + ask
        try:
            reply = grader(prompt)
            if isinstance(reply, Awaitable):
                reply = run_sync(reply)
        except Exception as exc:  # a grader that fails is the row's error, as OpenAI flags it
            why = f"the grader raised {type(exc).__name__}: {exc}"
            return Result(None, "model_grader_server_error", why, {"prompt": prompt})
        result = read(reply)
        return result._replace(detail={"prompt": prompt, **(result.detail or {})})

    return run


def python(spec: Mapping[str, Any], timeout: float) -> Callable[[Row], Result]:
    """A python grader: `grade(sample, item)` in a child interpreter (`python -I`), killed after `timeout` s."""
    source = spec["source"]

    def run(row: Row) -> Result:
        sample = {k: None if v is NOT_JSON else v for k, v in row.sample.items()}
        request = json.dumps({"source": source, "sample": sample, "item": row.item})
        with subprocess.Popen(
            [sys.executable, "-I", str(_SANDBOX)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            start_new_session=True,  # its own process group: killed with whatever it started
        ) as child:
            try:
                out, err = child.communicate(request, timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill(child)
                return Result(None, "python_grader_runtime_error", f"grade gave no result within {timeout:g} s")
        try:
            data = json.loads(out)
        except ValueError:
            tail = err.strip().splitlines()[-1:] or [f"exit status {child.returncode}"]
            return Result(None, "python_grader_server_error", f"the grader's process ended without a result: {tail[0]}")
        if "error" in data:
            return Result(None, data["error"], data["why"], {"stderr": err[-2000:]} if err else None)
        return Result(data["value"])

    return run


def _kill(child: subprocess.Popen[str]) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):  # gone already; no process groups (Windows)
        child.kill()
    child.communicate()


def multi(
    spec: Mapping[str, Any], at: str, make: Callable[[Mapping[str, Any], str], Callable[[Row], Result]]
) -> Callable[[Row], Result]:
    """A multi grader: each sub-grader on the row, then `calculate_output` over their scores."""
    subs = {key: make(sub, f"{at}, sub-grader {key!r}") for key, sub in spec["graders"].items()}
    tree = _spec.formula(at, spec["calculate_output"], tuple(subs))

    def run(row: Row) -> Result:
        scores: dict[str, float] = {}
        for key, sub in subs.items():
            result = sub(row)
            if result.score is None:
                why = f"the sub-grader {key!r} failed: {result.why}"
                return Result(None, result.flag, why, {"sub_rewards": scores})
            scores[key] = result.score
        try:
            value = _spec.evaluate(tree, scores)
        except (ArithmeticError, ValueError) as exc:  # a division by zero, a log of 0, a power too large
            why = f"calculate_output raised {type(exc).__name__}: {exc}"
            return Result(None, "other_error", why, {"sub_rewards": scores})
        return Result(value, detail={"sub_rewards": scores})

    return run
