"""docs/semantics.md's table of `exact()` beside DSPy and Inspect AI, run live so it cannot rot.

Every row is run through `scorebridge.exact()`, DSPy's `answer_exact_match` and
Inspect AI's `exact()` (awaited on a hand-built TaskState); each must give the
row's cell.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

import scorebridge as sb

TABLE = Path(__file__).resolve().parents[1] / "docs" / "semantics.md"

CASES: dict[str, tuple[Any, Any]] = {
    "X1": ("  New   York ", "new york"),
    "X2": ("Paris.", "Paris"),
    "X3": ("3.14", "314"),
    "X4": ("-5", "5"),
    "X5": ("The Paris", "Paris"),
    "X6": ("", "a"),
    "X7": ("STRASSE", "Straße"),
    "X8": ("1e+05", 100000),
    "X9": ("100000", 1e5),
    "X10": ("anything", ""),
    "X11": ("NOT_IN_DOCUMENT", "Paris"),
    "X12": (None, "Paris"),
}


def rows() -> dict[str, list[str]]:
    lines = TABLE.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| row |"))
    found = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        found[cells[0]] = cells
    return found


ROWS = rows()


def ours(output: Any, label: Any) -> str:
    score = sb.exact()(None, output, label)
    return score.grade + (f" ({score.failure_kind})" if score.failure_kind else "")


def dspy_says(output: Any, label: Any) -> str:
    dspy = pytest.importorskip("dspy")
    try:
        same = dspy.evaluate.answer_exact_match(dspy.Example(answer=label), dspy.Prediction(answer=output))
    except Exception as exc:
        return f"error ({type(exc).__name__}"
    return "C" if same else "I"


def inspect_says(output: Any, label: Any) -> str:
    pytest.importorskip("inspect_ai")
    from inspect_ai.model import ChatMessageUser, ModelName, ModelOutput
    from inspect_ai.scorer import Target, exact
    from inspect_ai.solver import TaskState

    state = TaskState(
        model=ModelName("mockllm/model"), sample_id=1, epoch=1, input="q", messages=[ChatMessageUser(content="q")],
        output=ModelOutput.from_content("mockllm/model", output),
    )  # fmt: skip
    return str(asyncio.run(exact()(state, Target(str(label)))).value)


def test_every_row_has_a_case() -> None:
    assert set(ROWS) == set(CASES)


@pytest.mark.parametrize("row", sorted(CASES, key=lambda r: int(r[1:])))
def test_ours_cell(row: str) -> None:
    assert ours(*CASES[row]) == ROWS[row][2]


@pytest.mark.parametrize("row", sorted(CASES, key=lambda r: int(r[1:])))
def test_dspy_cell(row: str) -> None:
    assert ROWS[row][3].startswith(dspy_says(*CASES[row]))


@pytest.mark.parametrize("row", [r for r in sorted(CASES, key=lambda r: int(r[1:])) if CASES[r][0] is not None])
def test_inspect_cell(row: str) -> None:
    assert re.match(r"[CI]", ROWS[row][4]).group(0) == inspect_says(*CASES[row])  # type: ignore[union-attr]
