"""scorebridge_verifiers passes the conformance suite in both verifiers APIs: v1 rewards scored by verifiers'
own `Task.score`, and legacy Rubric reward functions called as a Rubric called them."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import pytest
import verifiers.v1 as vf
from vf_offline import Item, run, run_legacy

from scorebridge.kit.testing import Adapter, Check, Judge, checks
from scorebridge_verifiers import from_verifiers, to_verifiers


def _as_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        with contextlib.suppress(ValueError):  # an int too long to write: no text
            return str(value)
    return None


def _references(answer: Any) -> list[str]:
    """The reference answers as a reward reads a task's `answer`: a list's each, or the one value."""
    if isinstance(answer, Mapping):
        answer = answer.get("answer")
    found = [_as_text(r) for r in (answer if isinstance(answer, (list, tuple)) else [answer])]
    return [r for r in found if r is not None]


def native(judge: Judge) -> Any:
    """A v1 reward of verifiers' own kind: a Task's `@vf.reward` method reading the reply and `self.data.answer`."""

    class Judged(vf.Task[Item]):
        @vf.reward
        async def judged(self, trace: vf.Trace) -> float:
            return judge(trace.last_reply, _references(self.data.answer))

    return Judged(Item()).judged


def label_free(judge: Judge) -> Any:
    """A v1 reward that reads only the trace (a format check): it needs no label."""

    async def concise(trace: vf.Trace) -> float:
        return judge(trace.last_reply, [])

    return concise


def legacy_native(judge: Judge) -> Any:
    """A legacy Rubric function, as Hub environments write them: the last message's content against `answer`."""

    def judged(completion: Any, answer: Any, **kwargs: Any) -> float:
        return judge(completion[-1]["content"] or "", _references(answer))

    return judged


def legacy_native_async(judge: Judge) -> Any:
    async def judged(completion: Any, answer: Any, **kwargs: Any) -> float:
        return judge(completion[-1]["content"] or "", _references(answer))

    return judged


def legacy_label_free(judge: Judge) -> Any:
    def concise(completion: Any) -> float:
        return judge(completion[-1]["content"] or "", [])

    return concise


def _variants() -> tuple[Any, Any, Any]:
    def at_least(level: float) -> Any:
        def graded(completion: Any, answer: Any) -> float:
            return float(len(completion[-1]["content"] or "") >= level)

        return graded

    return at_least(1), at_least(1), at_least(3)


V1 = Adapter(
    "verifiers",
    to_harness=to_verifiers,
    run=run,
    from_harness=from_verifiers,
    native=native,
    to_recording=lambda made: to_verifiers(made, on_error="record"),
    from_recording=lambda reward: from_verifiers(reward, on_error="record"),
    variants=_variants,
    carries_objects=False,  # a trace's reply is text
    label_free=label_free,
)

LEGACY = Adapter(
    "verifiers-legacy",
    # unscored=None: the suite counts an unscored row as left out (a Rubric's sum needs the default 0.0)
    to_harness=lambda made: to_verifiers(made, legacy=True, unscored=None),
    run=run_legacy,
    from_harness=from_verifiers,
    native=legacy_native,
    native_async=legacy_native_async,
    to_recording=lambda made: to_verifiers(made, legacy=True, on_error="record", unscored=None),
    from_recording=lambda reward: from_verifiers(reward, on_error="record"),
    variants=_variants,
    carries_objects=False,
    label_free=legacy_label_free,
)


@pytest.mark.parametrize("check", checks(V1), ids=str)
def test_the_v1_reward_adapter_conforms(check: Check) -> None:
    check()


@pytest.mark.parametrize("check", checks(LEGACY), ids=str)
def test_the_legacy_reward_adapter_conforms(check: Check) -> None:
    check()
