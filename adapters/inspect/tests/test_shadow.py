"""The Inspect shadow (benchmarks/shadow/inspect_shadow.py) on a test file of our own: it repeats each scorer
await through from_inspect and sorts what it finds.

The shadow's figures in docs/compatibility.md come from Inspect AI's own scorer tests, which need a clone of
their repository; these tests run the same plugin offline, in a pytest of its own, on scorer calls whose
verdicts are known, so a shadow that counted nothing, or called a disagreement an agreement, fails here.
"""

from __future__ import annotations

import runpy
import textwrap
from pathlib import Path
from typing import Any

import pytest

SHADOWED_RUN = runpy.run_path(str(Path(__file__).parents[3] / "benchmarks/shadow/shadow_tally.py"))["shadowed_run"]

CALLS = """
import asyncio

from inspect_ai.model import ModelOutput
from inspect_ai.scorer import CORRECT, INCORRECT, Target, match
from inspect_ai.solver import TaskState


def state(output, epoch=1):
    reply = ModelOutput.from_content("mockllm/model", output)
    return TaskState(model="mockllm/model", sample_id=1, epoch=epoch, input="Capital of France?", messages=[],
                     output=reply)


def test_match_on_a_sample():
    assert asyncio.run(match()(state("Paris"), Target(["Paris"]))).value == CORRECT
    assert asyncio.run(match()(state("Lyon"), Target(["Paris"]))).value == INCORRECT


def test_match_on_a_state_of_epoch_0():
    assert asyncio.run(match()(state("Paris", epoch=0), Target(["Paris"]))).value == CORRECT
"""


@pytest.fixture(scope="module")
def tally(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The shadow's records (and summary, last) for the tests above, run in a pytest of their own."""
    folder = tmp_path_factory.mktemp("shadowed")
    return SHADOWED_RUN("inspect_shadow", textwrap.dedent(CALLS), folder)  # type: ignore[no-any-return]


def test_every_scorer_await_is_repeated_and_agreements_are_counted(tally: list[dict[str, Any]]) -> None:
    summary = tally[-1]["summary"]
    assert (summary["calls"], summary["agree"], summary["real"], summary["shadow errors"]) == (3, 2, 0, 0)
    assert summary["round_trip_identity"] == "3 of 3"


def test_an_epoch_0_state_is_explained_by_the_epoch_rule(tally: list[dict[str, Any]]) -> None:
    # Inspect's own test helper makes epoch-0 states, which from_inspect refuses: asked without it, it agrees
    (record,) = [r for r in tally[:-1] if r["test"].endswith("epoch_0")]
    assert (record["result"], record["native"]) == ("explained", "('value', 1.0)")
    assert "epoch" in record["rule"]
