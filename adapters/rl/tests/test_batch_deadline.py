"""A reward batch's deadline: one hung grader call no longer holds a training step.

Before, a `to_trl` batch holding a row whose grader hung took 60 s against
2-4 s for the others (the per-call timeout was 300 s). Now no grader call runs
past the batch's deadline (`deadline=`, default 60 s): the row still hung is
left unscored with "grader_failed", the others keep their rewards.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

import scorebridge as sb
from scorebridge_rl import to_trl, to_verl
from scorebridge_rl._batch import DEFAULT_DEADLINE

_release = threading.Event()


@pytest.fixture(autouse=True)
def _end_hung_calls() -> Iterator[None]:
    _release.clear()
    yield
    _release.set()  # the abandoned grader threads end


def hangs_on_rome(prompt: str) -> str:
    if "Rome" in prompt:
        _release.wait(120)
    return "GRADE: C"


SCORER = sb.model_graded_qa(hangs_on_rome, timeout=30)
COMPLETIONS = ["Paris", "Rome", "Berlin"]


def test_the_default_deadline_is_a_minute() -> None:
    assert DEFAULT_DEADLINE == 60.0


def test_a_trl_batch_records_a_row_still_hung_at_its_deadline_as_the_graders_failure() -> None:
    reward = to_trl(SCORER, deadline=0.5)
    start = time.monotonic()
    values = reward(prompts=["q"] * 3, completions=COMPLETIONS, solution=COMPLETIONS)
    assert values == [1.0, None, 1.0] and time.monotonic() - start < 20  # not the 30 s timeout


def test_a_verl_batch_records_a_row_still_hung_at_its_deadline_as_the_graders_failure() -> None:
    compute = to_verl(SCORER, batch=True, deadline=0.5)
    results = compute(data_sources=["d"] * 3, solution_strs=COMPLETIONS, ground_truths=COMPLETIONS)
    assert [r["scored"] for r in results] == [1.0, 0.0, 1.0]


def test_a_deadline_that_is_no_number_of_seconds_is_refused_naming_the_reward() -> None:
    with pytest.raises(ValueError, match=r"to_trl\(model_graded_qa\): deadline must be a number of seconds"):
        to_trl(SCORER, deadline=0)


def test_a_trl_batch_whose_fast_grader_hangs_once_ends_in_seconds_with_every_reward() -> None:
    # Before, the hung row held its batch for the whole per-call timeout (30 s here), and batches run one after
    # another: now a request slower than the grader's pace gets a second one alongside, and the first reply counts.
    romes: list[str] = []

    def hangs_once_on_rome(prompt: str) -> str:
        if "Rome" in prompt:
            romes.append(prompt)
            if len(romes) == 1:
                _release.wait(120)
        return "GRADE: C"

    reward = to_trl(sb.model_graded_qa(hangs_once_on_rome, timeout=30))
    warm = [f"Paris {i}" for i in range(24)]
    assert reward(prompts=["q"] * 24, completions=warm, solution=warm) == [1.0] * 24  # the grader's pace, known
    start = time.monotonic()
    values = reward(prompts=["q"] * 3, completions=COMPLETIONS, solution=COMPLETIONS)
    assert values == [1.0, 1.0, 1.0] and len(romes) == 2 and time.monotonic() - start < 10
