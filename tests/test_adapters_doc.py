"""docs/adapters.md's reference of the kit: every public name is there, and each signature is the code's.

The page once gave `Scorer` without `needs_label`/`label_type`, `raised_score` without `needs_label=`,
`Adapter(...)` without `label_free`, and called `ask`'s first argument `scorer` (it is `scorer_name`).
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path
from typing import Any

import pytest

import scorebridge.kit as kit
import scorebridge.kit.testing as kit_testing

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "adapters.md").read_text(encoding="utf-8")
REFERENCE = PAGE.split("## The kit, name by name", 1)[1].split("\n## ", 1)[0]
ROW = re.compile(r"^\| `(\w+)` \| (.*?) \| ", re.MULTILINE)
ROWS = {name: cell for name, cell in ROW.findall(REFERENCE)}


def _call(text: str, name: str) -> str | None:
    """The first `name(...)` or `name.attr(...)` call written in `text`, from its name to its closing bracket."""
    found = re.search(rf"`({re.escape(name)}(?:\.\w+)?)\(", text)
    if found is None:
        return None
    start, depth = found.start(1), 0
    for end in range(found.end(1), len(text)):
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        if depth == 0:
            return text[start : end + 1].replace("\\|", "|")
    raise AssertionError(f"an unclosed bracket in {text!r}")


def _written(call: str) -> list[tuple[str, str, Any]]:
    """The parameters a written call states: (name, kind, default), read as Python reads a def."""
    params = call.split("(", 1)[1]
    tree = ast.parse(f"def f({params}: pass")
    args = tree.body[0].args  # type: ignore[attr-defined]
    found: list[tuple[str, str, Any]] = []
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + args.defaults
    for arg, default in zip(positional, defaults, strict=True):
        found.append((arg.arg, "positional", _default(default)))
    if args.vararg is not None:
        found.append((args.vararg.arg, "*", None))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        found.append((arg.arg, "keyword", _default(default)))
    if args.kwarg is not None:
        found.append((args.kwarg.arg, "**", None))
    return found


def _default(node: ast.expr | None) -> Any:
    if node is None:
        return inspect.Parameter.empty
    try:
        return ast.literal_eval(node)
    except ValueError:
        return ast.unparse(node)  # a name: TEXT


def _real(obj: Any) -> list[tuple[str, str, Any]]:
    kinds = {
        inspect.Parameter.POSITIONAL_ONLY: "positional",
        inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
        inspect.Parameter.VAR_POSITIONAL: "*",
        inspect.Parameter.KEYWORD_ONLY: "keyword",
        inspect.Parameter.VAR_KEYWORD: "**",
    }
    found = []
    for p in inspect.signature(obj).parameters.values():
        default = p.default
        if default is not inspect.Parameter.empty and not isinstance(default, (str, int, float, bool, tuple)):
            default = None if default is None else repr(default)
        found.append((p.name, kinds[p.kind], None if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) else default))
    return found


def _target(call: str) -> Any:
    names = call.split("(", 1)[0].split(".")
    found: Any = getattr(kit, names[0])
    for attr in names[1:]:
        found = getattr(found, attr)
    return found


def test_every_public_name_of_the_kit_is_in_the_reference() -> None:
    assert sorted(set(kit.__all__) - set(ROWS)) == []


CALLS = sorted((name, call) for name, cell in ROWS.items() if (call := _call(cell, name)) is not None)


def test_the_reference_writes_the_calls_out() -> None:
    # the check below would pass on a page it cannot read
    assert (
        len(CALLS) >= 45
        and ("ask", "ask(scorer_name, output, label, *, needs_label=True, read_label=True, structured=False)") in CALLS
    )


@pytest.mark.parametrize(("name", "call"), CALLS, ids=[name for name, _ in CALLS])
def test_a_signature_in_the_reference_is_the_codes(name: str, call: str) -> None:
    assert _written(call) == _real(_target(call))


def test_the_adapter_description_is_the_codes_signature() -> None:
    call = _call(PAGE.split("### The conformance suite", 1)[1].replace("\n", " "), "Adapter")
    assert call is not None
    assert _written(call) == _real(kit_testing.Adapter)
