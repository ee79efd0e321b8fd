"""Reading a grader spec: its validation, its templates and a multi grader's formula, all when the scorer is made.

Everything here runs at construction, so an invalid spec is refused before any
row is scored, as OpenAI's `graders.validate` refused it.
"""

from __future__ import annotations

import ast
import functools
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

TYPES: Final = ("string_check", "text_similarity", "score_model", "label_model", "python", "multi")
OPERATIONS: Final = ("eq", "ne", "like", "ilike")
METRICS: Final = (
    "cosine",
    "fuzzy_match",
    "bleu",
    "gleu",
    "meteor",
    "rouge_1",
    "rouge_2",
    "rouge_3",
    "rouge_4",
    "rouge_5",
    "rouge_l",
)
SAMPLE_FIELDS: Final = ("output_text", "output_json", "choices")
"""The `sample` namespace offline: the output as text, as JSON, and as one chat choice."""

# The fields of each type, as openai-python's `types.graders` and the evals' testing criteria have them.
_REQUIRED: Final[Mapping[str, tuple[str, ...]]] = {
    "string_check": ("type", "name", "input", "reference", "operation"),
    "text_similarity": ("type", "name", "input", "reference", "evaluation_metric"),
    "score_model": ("type", "name", "input", "model"),
    "label_model": ("type", "name", "input", "model", "labels", "passing_labels"),
    "python": ("type", "name", "source"),
    "multi": ("type", "name", "graders", "calculate_output"),
}
_OPTIONAL: Final[Mapping[str, tuple[str, ...]]] = {
    "string_check": (),
    "text_similarity": ("pass_threshold",),
    "score_model": ("range", "sampling_params", "pass_threshold"),
    "label_model": (),
    "python": ("image_tag", "pass_threshold"),
    "multi": ("pass_threshold",),
}
_TEMPLATE: Final = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_STEP: Final = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_-]*)((?:\[\d+\])*)\s*")

FUNCTIONS: Final[Mapping[str, Callable[..., float]]] = {
    "min": min,
    "max": max,
    "abs": abs,
    "floor": math.floor,
    "ceil": math.ceil,
    "exp": math.exp,
    "sqrt": math.sqrt,
    "log": math.log,
}
"""The functions a multi grader's `calculate_output` may call, as OpenAI's guide lists them."""


class SpecError(ValueError):
    """A grader spec that cannot be run: the message names the grader and the field."""


def load(spec: Mapping[str, Any] | str | Path) -> dict[str, Any]:
    """The spec as a dict: a mapping copied, a path read as JSON (a file whose JSON is not an object refused)."""
    if isinstance(spec, Mapping):
        copied: dict[str, Any] = json.loads(json.dumps(spec))  # a deep copy of JSON values, a refusal of others
        return copied
    if isinstance(spec, (str, Path)):
        path = Path(spec)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise SpecError(f"cannot read the grader spec {str(path)!r}: {exc.strerror or exc}") from None
        except json.JSONDecodeError as exc:
            raise SpecError(f"{path}:{exc.lineno}: the grader spec is not JSON: {exc.msg}") from None
        if not isinstance(data, dict):
            raise SpecError(f"{path}: a grader spec is a JSON object; got {type(data).__name__}")
        return data
    raise TypeError(f"from_openai_grader: spec must be a mapping or a path to a JSON file; got {type(spec).__name__}")


def check(spec: Mapping[str, Any], where: str = "") -> None:
    """Refuse a spec OpenAI would refuse (and what cannot run offline), naming the grader and the field."""
    kind = spec.get("type")
    label = f"grader {spec.get('name')!r}" if isinstance(spec.get("name"), str) else "grader"
    at = f"{where}{label}"
    if kind not in TYPES:
        raise SpecError(f"{at}: type must be one of {', '.join(TYPES)}; got {kind!r}")
    missing = [k for k in _REQUIRED[kind] if k not in spec]
    if missing:
        raise SpecError(f"{at}: a {kind} grader needs {', '.join(missing)}")
    unknown = sorted(set(spec) - set(_REQUIRED[kind]) - set(_OPTIONAL[kind]))
    if unknown:
        raise SpecError(f"{at}: a {kind} grader has no field {', '.join(unknown)}")
    if not isinstance(spec["name"], str) or not spec["name"]:
        raise SpecError(f"{at}: name must be a non-empty string; got {spec['name']!r}")
    if "pass_threshold" in spec:
        number(at, "pass_threshold", spec["pass_threshold"])
    if kind in ("string_check", "text_similarity"):
        for key in ("input", "reference"):
            text(at, key, spec[key])
            fields(at, spec[key])
        choice = spec["operation"] if kind == "string_check" else spec["evaluation_metric"]
        allowed = OPERATIONS if kind == "string_check" else METRICS
        if choice not in allowed:
            key = "operation" if kind == "string_check" else "evaluation_metric"
            raise SpecError(f"{at}: {key} must be one of {', '.join(allowed)}; got {choice!r}")
    elif kind in ("score_model", "label_model"):
        text(at, "model", spec["model"])
        messages(at, spec["input"])
        if kind == "score_model":
            score_range(at, spec.get("range"))
        else:
            labels = strings(at, "labels", spec["labels"])
            passing = strings(at, "passing_labels", spec["passing_labels"])
            if not labels:
                raise SpecError(f"{at}: labels must name at least one label")
            stray = [x for x in passing if x not in labels]
            if stray:
                raise SpecError(f"{at}: passing_labels must be a subset of labels; {', '.join(stray)} is not a label")
    elif kind == "python":
        source(at, spec["source"])
    else:
        graders = spec["graders"]
        if not isinstance(graders, Mapping) or not graders:
            raise SpecError(f"{at}: graders must be an object of sub-graders by name; got {type(graders).__name__}")
        for key, sub in graders.items():
            if not isinstance(sub, Mapping):
                raise SpecError(f"{at}: the sub-grader {key!r} must be a grader spec; got {type(sub).__name__}")
            if sub.get("type") == "multi":
                raise SpecError(f"{at}: the sub-grader {key!r} is a multi grader, which OpenAI does not nest")
            check(sub, f"{at}, sub-grader {key!r}: ")
        text(at, "calculate_output", spec["calculate_output"])
        formula(at, spec["calculate_output"], tuple(graders))


def number(at: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SpecError(f"{at}: {key} must be a finite number; got {value!r}")
    return float(value)


def text(at: str, key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise SpecError(f"{at}: {key} must be a string; got {type(value).__name__}")
    return value


def strings(at: str, key: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise SpecError(f"{at}: {key} must be a list of strings; got {value!r}")
    return value


def score_range(at: str, value: Any) -> tuple[float, float]:
    """A score_model's range, [0, 1] when not given; two numbers, the first below the second."""
    if value is None:
        return 0.0, 1.0
    if not isinstance(value, list) or len(value) != 2:
        raise SpecError(f"{at}: range must be two numbers [low, high]; got {value!r}")
    low, high = number(at, "range", value[0]), number(at, "range", value[1])
    if not low < high:
        raise SpecError(f"{at}: range must be [low, high] with low below high; got {value!r}")
    return low, high


def message_text(at: str, content: Any) -> str:
    """A message's content as one template string: a string, or its text parts joined by blank lines.

    Images, audio and files are refused: a scorebridge grader takes one prompt of text.
    """
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else [content]
    texts = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, Mapping) and part.get("type") in ("input_text", "output_text"):
            texts.append(text(at, "a text part's text", part.get("text")))
        else:
            what = part.get("type") if isinstance(part, Mapping) else type(part).__name__
            raise SpecError(f"{at}: a message part of type {what!r} cannot go to a text grader; only text parts can")
    return "\n\n".join(texts)


def messages(at: str, value: Any) -> list[tuple[str, str]]:
    """A model grader's input messages as (role, template) pairs; each template's fields checked."""
    if not isinstance(value, list) or not value:
        raise SpecError(f"{at}: input must be a non-empty list of messages")
    out = []
    for message in value:
        if not isinstance(message, Mapping) or "role" not in message or "content" not in message:
            raise SpecError(f"{at}: each input message is an object with role and content; got {message!r:.80}")
        if message["role"] not in ("user", "assistant", "system", "developer"):
            raise SpecError(f"{at}: a message's role is user, assistant, system or developer; got {message['role']!r}")
        template = message_text(at, message["content"])
        fields(at, template)
        out.append((message["role"], template))
    return out


def source(at: str, code: Any) -> None:
    """A python grader's source: it must compile and define `grade` at its top level (it is not run here)."""
    text(at, "source", code)
    try:
        tree = ast.parse(code, filename=f"<grader source of {at}>")
    except SyntaxError as exc:
        raise SpecError(f"{at}: the source does not compile: {exc.msg} (line {exc.lineno})") from None
    defined = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if "grade" not in defined:
        raise SpecError(f"{at}: the source must define grade(sample, item) at its top level")


Path_ = tuple[str, tuple["str | int", ...]]
"""A template field: its namespace ("item" or "sample") and the steps below it."""


def field(at: str, expression: str) -> Path_:
    """`item.a.b[0]` as ("item", ("a", "b", 0)); anything else a SpecError naming the template."""
    steps: list[str | int] = []
    for piece in expression.split("."):
        match = _STEP.fullmatch(piece)
        if match is None:
            raise SpecError(f"{at}: the template {{{{{expression}}}}} is not a field such as item.answer")
        steps.append(match.group(1))
        steps.extend(int(i) for i in re.findall(r"\[(\d+)\]", match.group(2)))
    namespace, rest = str(steps[0]), tuple(steps[1:])
    if namespace not in ("item", "sample"):
        raise SpecError(f"{at}: the template {{{{{expression}}}}} must start item. or sample.")
    if namespace == "sample" and (not rest or rest[0] not in SAMPLE_FIELDS):
        raise SpecError(
            f"{at}: the template {{{{{expression}}}}} names a sample field offline scoring does not have; "
            f"it has sample.{', sample.'.join(SAMPLE_FIELDS)}"
        )
    return namespace, rest


def fields(at: str, template: str) -> list[Path_]:
    """The fields a template names, each checked."""
    return [field(at, m.group(1).strip()) for m in _TEMPLATE.finditer(template)]


@functools.lru_cache(maxsize=4096)
def _parsed(expression: str) -> Path_:
    """`field` of a template checked when its scorer was made, parsed once (a row's time went on it)."""
    return field("", expression)


def render(template: str, lookup: Callable[[Path_, str], Any]) -> str:
    """The template with each `{{field}}` replaced: text as it is, any other value as JSON."""

    def one(match: re.Match[str]) -> str:
        expression = match.group(1).strip()
        value = lookup(_parsed(expression), expression)
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

    return _TEMPLATE.sub(one, template)


def formula(at: str, expression: str, names: Sequence[str]) -> ast.Expression:
    """`calculate_output` parsed: arithmetic over the sub-graders' names, numbers and FUNCTIONS, nothing else."""
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        raise SpecError(f"{at}: calculate_output {expression!r} is not a formula") from None
    binary = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.Mod, ast.FloorDiv)

    def arithmetic(node: ast.AST) -> None:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return
        if isinstance(node, ast.Name) and node.id in names:
            return
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return arithmetic(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, binary):
            arithmetic(node.left)
            return arithmetic(node.right)
        called = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS
        if called and node.args and not node.keywords:  # type: ignore[attr-defined]
            for arg in node.args:  # type: ignore[attr-defined]
                arithmetic(arg)
            return None
        if isinstance(node, ast.Name):
            raise SpecError(
                f"{at}: calculate_output {expression!r} names {node.id!r}, which is not a sub-grader "
                f"({', '.join(names)})"
            )
        raise SpecError(
            f"{at}: calculate_output {expression!r} is not arithmetic over the sub-graders' names: "
            f"{ast.unparse(node)!r} is not allowed (numbers, + - * / // % **, and {', '.join(FUNCTIONS)} are)"
        )

    arithmetic(tree.body)
    return tree


def evaluate(tree: ast.Expression, values: Mapping[str, float]) -> float:
    """The formula's value over the sub-graders' scores, in floats (a too large power is an OverflowError)."""

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return value(node.body)
        if isinstance(node, ast.Constant):
            assert isinstance(node.value, (int, float))
            return float(node.value)
        if isinstance(node, ast.Name):
            return values[node.id]
        if isinstance(node, ast.UnaryOp):
            x = value(node.operand)
            return -x if isinstance(node.op, ast.USub) else x
        if isinstance(node, ast.Call):
            assert isinstance(node.func, ast.Name)
            return float(FUNCTIONS[node.func.id](*(value(a) for a in node.args)))
        assert isinstance(node, ast.BinOp)
        a, b = value(node.left), value(node.right)
        op = node.op
        if isinstance(op, ast.Add):
            return a + b
        if isinstance(op, ast.Sub):
            return a - b
        if isinstance(op, ast.Mult):
            return a * b
        if isinstance(op, ast.Div):
            return a / b
        if isinstance(op, ast.Mod):
            return a % b
        if isinstance(op, ast.FloorDiv):
            return a // b
        return math.pow(a, b)

    return value(tree)
