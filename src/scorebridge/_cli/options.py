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

import inspect
from collections.abc import Iterable, Mapping
from typing import Any

from .._protocol.values import a_type
from .main import UsageError

__all__ = ["quote_hint", "read_options"]


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
