"""`scorebridge list`: the built-in scorers, their options and what each checks; as text or JSON.

The list is read from the factories' signatures and docstrings, so a new
built-in appears here without a change. The model-graded scorers are listed
too, marked: they need a grader model, so `-S` options cannot make them.
"""

from __future__ import annotations

import argparse
import inspect
import json
from collections.abc import Callable
from typing import Any

from .load import NEEDS_GRADER, signature

__all__ = ["entries", "run"]


def _options(factory: Callable[..., Any]) -> list[dict[str, Any]]:
    options = []
    for p in inspect.signature(factory).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        entry: dict[str, Any] = {"name": p.name, "required": p.default is p.empty}
        if p.default is not p.empty:
            entry["default"] = p.default
        options.append(entry)
    return options


def entries() -> list[dict[str, Any]]:
    """Every built-in scorer: name, signature, options, the first line of its docstring, and whether it
    needs a grader (then `-S` cannot make it), sorted by name, model-graded last."""
    import scorebridge

    from .._scorers.builtins import BUILTINS

    factories = {**dict(sorted(BUILTINS.items())), **{name: getattr(scorebridge, name) for name in NEEDS_GRADER}}
    return [
        {
            "name": name,
            "signature": f"{name}({signature(factory)})",
            "options": _options(factory),
            "description": (inspect.getdoc(factory) or "").partition("\n")[0],
            "needs_grader": name in NEEDS_GRADER,
        }
        for name, factory in factories.items()
    ]


def run(args: argparse.Namespace) -> int:
    """Print the list (text, or JSON with --format json)."""
    listed = entries()
    if args.format == "json":
        print(json.dumps(listed, default=repr))
        return 0
    for entry in listed:
        print(entry["signature"])
        if entry["description"]:
            print(f"    {entry['description']}")
        if entry["needs_grader"]:
            print("    Needs a grader model, so -S cannot make it: make it in a file of yours and use file.py@name.")
    print("\nUse one with: scorebridge score FILE --scorer NAME -S option=value")
    print("A scorer of yours: --scorer path/to/file.py@name, or --scorer package.module:name")
    return 0
