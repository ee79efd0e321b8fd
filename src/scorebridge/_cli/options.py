"""`-S key=value` options, read exactly as Inspect AI reads its own `-S`.

Inspect AI (`inspect eval`, `inspect score`) reads each value as YAML, then
splits a plain text holding commas into a list, and writes a dash in the key as
an underscore. So `-S case_sensitive=True`, `-S normalise=yes`, `-S
tolerance=1.5`, `-S targets=[a, b]` and `-S targets=a,b` mean the same to
`scorebridge score` as to `inspect score`, and one command line can be moved
from one to the other. A text that YAML reads as something else is quoted, as
in Inspect: `-S "pattern='123'"` is the text "123", `-S pattern=123` the
number 123.

The one difference: an argument without "=" is an error here, where Inspect
drops it silently.
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .._protocol.scorer import Scorer
from .._protocol.values import a_type, shown
from .main import UsageError

__all__ = ["check_values", "option_params", "quote_hint", "read_options"]


def _yaml(key: str, text: str) -> Any:
    import yaml  # only `score` with -S needs it

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise UsageError(
            f"-S {key}={text}: not a YAML value ({problem}); -S values are read as YAML, as Inspect AI reads "
            f"them: quote a text, -S \"{key}='{text}'\""
        ) from None


def read_options(pairs: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """The options of `-S key=value` pairs, by key, as Inspect AI's `parse_cli_args` reads them.

    The value is `yaml.safe_load` of the text (`True`/`yes`/`on` True, `1.5` a
    float, `[a, b]` a list, an empty text None); a str result holding commas
    is split at them into a list; a dash in the key becomes an underscore. A
    key given twice keeps its last value. A text YAML cannot read is a
    `UsageError` saying to quote it.
    """
    options: dict[str, Any] = {}
    for key, text in pairs:
        value = _yaml(key, text)
        if isinstance(value, str):
            parts = value.split(",")
            value = parts if len(parts) > 1 else parts[0]
        options[key.replace("-", "_")] = value
    return options


def _is_text(param: inspect.Parameter) -> bool:
    """True when `param` takes text: a str default, or `str` in its annotation."""
    if isinstance(param.default, str):
        return True
    if param.annotation is param.empty:
        return False
    # annotations are text under `from __future__ import annotations`: "str", "str | None" ...
    hint = param.annotation if isinstance(param.annotation, str) else inspect.formatannotation(param.annotation)
    return "str" in (part.strip() for part in hint.split("|"))


def quote_hint(params: Mapping[str, inspect.Parameter], pairs: Iterable[tuple[str, str]]) -> str:
    """A hint for refused options: a text option whose value YAML read as something else, to quote; or ""."""
    for key, text in pairs:
        param = params.get(key.replace("-", "_"))
        value = _yaml(key, text)
        if param is not None and _is_text(param) and value is not None and not isinstance(value, str):
            return (
                f" (-S values are YAML, as in Inspect AI: {key}={text} is {a_type(value)}; "
                f"for the text, quote it: -S \"{key}='{text}'\")"
            )
    return ""


def _signature(fn: Callable[..., Any]) -> inspect.Signature | None:
    """`fn`'s signature, its annotations evaluated where they can be (text under `from __future__ import
    annotations`); None when it has none."""
    try:
        return inspect.signature(fn, eval_str=True)
    except (NameError, SyntaxError, TypeError, AttributeError):  # a name only a type checker sees, say
        pass
    except ValueError:
        return None
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def option_params(obj: Any) -> tuple[dict[str, inspect.Parameter], bool]:
    """The options `obj` takes (a Scorer, or a function that makes one), by name, and whether it takes any other.

    A Scorer's options are its factory's parameters (a built-in's), or else the keyword-only parameters of its
    function (a scorer made with `@scorer`); a function's, its parameters. The second value is True when a
    `**kwargs` takes any option.
    """
    candidates: list[tuple[Callable[..., Any], bool]] = []  # (function, keyword-only parameters only)
    if isinstance(obj, Scorer):
        if obj.factory is not None:
            candidates.append((obj.factory, False))
        fn: Any = obj.fn
        while isinstance(fn, functools.partial):
            fn = fn.func
        candidates.append((fn, True))
    elif callable(obj):
        candidates.append((obj, False))
    for fn, keyword_only in candidates:
        sig = _signature(fn)
        if sig is None:
            continue
        params = list(sig.parameters.values())
        if keyword_only:
            params = [p for p in params if p.kind is p.KEYWORD_ONLY]
        elif any(p.kind is p.VAR_KEYWORD for p in params) and not any(
            p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in params
        ):
            continue  # `factory(**chosen)`, the maker of a @scorer Scorer: its function says the options
        anything = any(p.kind is p.VAR_KEYWORD for p in params)
        named = {p.name: p for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        return named, anything
    return {}, False


_NAMES = {
    bool: "True or False",
    int: "a whole number",
    float: "a number",
    str: "text",
    list: "a list",
    dict: "a mapping",
    type(None): "null",
}


def _fits(kind: Any, value: Any) -> tuple[bool | None, str]:
    """Whether `value` fits the annotation `kind` (None: cannot tell), and the annotation said in words."""
    if kind is Any or kind is inspect.Parameter.empty or isinstance(kind, (str, typing.TypeVar)):
        return None, ""
    origin = typing.get_origin(kind)
    if origin is typing.Union or origin is types.UnionType:
        verdicts = [_fits(member, value) for member in typing.get_args(kind)]
        words = " or ".join(w for _, w in verdicts if w)
        if any(v is True for v, _ in verdicts):
            return True, words
        return (None if any(v is None for v, _ in verdicts) else False), words
    if origin is typing.Literal:
        allowed = typing.get_args(kind)
        return value in allowed and type(value) in {type(a) for a in allowed}, f"one of {', '.join(map(repr, allowed))}"
    if kind is None or kind is type(None):
        return value is None, "null"
    if kind is bool:
        return type(value) is bool, _NAMES[bool]
    if kind is int:
        return type(value) is int, _NAMES[int]
    if kind is float:
        return type(value) in (int, float), _NAMES[float]
    if kind is str:
        return isinstance(value, str), _NAMES[str]
    if origin in (list, tuple, set, frozenset) or kind in (list, tuple, set, frozenset):
        if not isinstance(value, list):
            return False, "a list"
        args = [a for a in typing.get_args(kind) if a is not Ellipsis]
        if len(args) == 1:
            inner = [_fits(args[0], v)[0] for v in value]
            return (False if False in inner else None if None in inner else True), f"a list of {_fits(args[0], 0)[1]}"
        return True, "a list"
    if origin in (dict, Mapping) or kind in (dict, Mapping):
        return isinstance(value, dict), "a mapping"
    if isinstance(kind, type):
        return isinstance(value, kind), f"a {kind.__name__}"
    return None, ""


def _expected(param: inspect.Parameter, value: Any) -> str | None:
    """What `param` takes, in words, when `value` does not fit it (its annotation, else its default's type)."""
    if param.annotation is not param.empty and not isinstance(param.annotation, str):
        fits, words = _fits(param.annotation, value)
        return None if fits is not False else words
    default = param.default
    if default is param.empty or default is None:
        return None
    for kind in (bool, int, float, str):
        if type(default) is kind:
            fits, words = _fits(kind, value)
            return None if fits else words
    if isinstance(default, (list, tuple)):
        return None if isinstance(value, list) else "a list"
    return None


def check_values(
    what: str, params: Mapping[str, inspect.Parameter], options: Mapping[str, Any], pairs: Iterable[tuple[str, str]]
) -> None:
    """Refuse an option value that does not fit its option: its annotation, or else its default's type.

    `-S tolerance=abc` for `tolerance: float = 0.01` (or `tolerance=0.01`) is refused here, before any row
    is read, in one line; a text option given what YAML reads as something else says to quote it.
    """
    typed = {key.replace("-", "_"): text for key, text in pairs}
    for key, value in options.items():
        param = params.get(key)
        if param is None:
            continue
        expected = _expected(param, value)
        if expected is None:
            continue
        text = typed.get(key, repr(value))
        default = "" if param.default is param.empty else f" (its default is {param.default!r})"
        got = f"{shown(value)} ({_NAMES.get(type(value)) or a_type(value)})"
        hint = quote_hint(params, [(key, text)]) if expected == "text" else ""
        raise UsageError(f"{what}: -S {key}={text}: {key} takes {expected}{default}, not {got}{hint}")
