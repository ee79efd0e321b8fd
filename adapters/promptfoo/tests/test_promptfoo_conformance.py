"""scorebridge_promptfoo passes the conformance suite, the assertion called as promptfoo calls it.

promptfoo (npm) calls a Python assertion with its provider's text and a context whose `vars` are the test's;
it counts a test's `score`. The real `promptfoo eval` runs in test_promptfoo.py where promptfoo is installed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import pytest

from scorebridge.kit.testing import Adapter, Check, Judge, Row, checks
from scorebridge_promptfoo import from_promptfoo, to_promptfoo


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        with contextlib.suppress(ValueError):  # an int too long to write: no text
            return str(value)
    return None


def _references(label: Any) -> list[str]:
    found = [_text(x) for x in (label if isinstance(label, (list, tuple)) else [label])]
    return [x for x in found if x is not None]


def run(get_assert: Any, rows: list[Row]) -> Sequence[float | None]:
    """Each row as promptfoo hands it over (text output, the label among the vars), the score promptfoo counts."""
    values: list[float | None] = []
    for item, output, label in rows:
        variables: dict[str, Any] = {"item": item}
        if label is not None:
            variables["label"] = label
        result = get_assert(output if isinstance(output, str) else "", {"vars": variables})
        values.append(float(result["score"]) if isinstance(result, dict) else float(result))
    return values


def native(judge: Judge) -> Any:
    """A promptfoo Python assertion of its own kind: the output against the label var's references."""

    def get_assert(output: str, context: dict[str, Any]) -> float:
        return judge(output, _references(context["vars"].get("label")))  # promptfoo's number form: the points

    return get_assert


PROMPTFOO = Adapter(
    "promptfoo",
    to_harness=to_promptfoo,
    run=run,
    from_harness=from_promptfoo,
    native=native,
    to_recording=lambda made: to_promptfoo(made, on_error="record"),
    from_recording=lambda get_assert: from_promptfoo(get_assert, on_error="record"),
    carries_objects=False,
    unit_points=True,  # its points are 0-1: 3 points are a contract error
)


# promptfoo has no "unscored": a test whose row has no label fails (score 0), and scorebridge's summary leaves the
# row out (docs/promptfoo.md says so). These checks hold that difference to account: they fail while it lasts.
NO_UNSCORED = tuple(
    f"to_harness: {name}" for name in ("exact()'s values counted", "an async scorer", "on_error='record'")
)


def _marked(check: Check) -> Any:
    if any(str(check).endswith(name) for name in NO_UNSCORED):
        return pytest.param(check, marks=pytest.mark.xfail(reason="promptfoo counts an unscored row 0", strict=True))
    return check


@pytest.mark.parametrize("check", [_marked(c) for c in checks(PROMPTFOO)], ids=str)
def test_the_promptfoo_adapter_conforms(check: Check) -> None:
    check()
