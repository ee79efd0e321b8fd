"""`to_verifiers`: a scorebridge scorer as a verifiers v1 reward, or as a legacy Rubric reward function."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Literal

from scorebridge import Score, Scorer
from scorebridge.kit import body_of, element, recording

from ._from_verifiers import VerifiersCall
from ._native import LABEL_FIELD, MADE_FROM, as_recorded, said

__all__ = ["VerifiersReward", "to_verifiers"]

INFO_KEY = "scorebridge"
"""Where a trace's `info` (v1) or a legacy `state` holds each scorer's Score, by scorer name."""


class VerifiersReward:
    """A scorebridge scorer as a v1 reward: `async (task, trace) -> keyed scores`, tagged as `@vf.reward` tags.

    An attribute of a `vf.Task` subclass (it is not a function, so it does not
    bind `self`), or a plugged reward. It records its Score under the scorer's
    name: a `Reward` (the Score's value, with `weight`, or a plugged reward's
    weight from the taskset's config), or None for an unscored row,
    as verifiers seeds a reward that did not run; a failure kind is the metric
    `<name>/<kind>` = 1.0, and `trace.info["scorebridge"][name]` holds the Score.
    """

    reward = True

    def __init__(self, scorer: Scorer, call: Callable[..., Any], name: str, weight: float, priority: int,
                 label_field: str) -> None:  # fmt: skip
        self.scorer, self.call, self.name, self.label_field = scorer, call, name, label_field
        self._vf_weight, self.reward_priority = float(weight), priority
        # verifiers seeds None under __name__ and drops that seed when keyed scores come back: under
        # a name of its own, the scorer's name keeps the None an unscored row records.
        self.__name__ = f"{name}__scorebridge"
        setattr(self, MADE_FROM, scorer)

    def __repr__(self) -> str:
        return f"<verifiers reward of scorer {self.name}>"

    async def __call__(self, task: Any, trace: Any) -> dict[str, float]:
        prompt_text = element(task, "prompt_text")
        row = (element(task, "prompt") if prompt_text is None else prompt_text, trace.last_reply,
               element(task, self.label_field))  # fmt: skip
        score = self.call(*row)
        if inspect.isawaitable(score):
            score = await score
        return self.record(trace, score)

    def record(self, trace: Any, score: Score) -> dict[str, float]:
        trace.info.setdefault(INFO_KEY, {})[self.name] = as_recorded(score)
        if score.failure_kind is not None:
            trace.metrics[f"{self.name}/{score.failure_kind}"] = 1.0
        if score.value is None:
            trace.rewards[self.name] = None
            return {}
        return {self.name: score.value}  # verifiers records it with the hook's weight (a plugged reward's own)


def _legacy(scorer: Scorer, call: Callable[..., Any], name: str, unscored: float | None) -> Callable[..., Any]:
    def read(prompt: Any, completion: Any, answer: Any) -> tuple[Any, Any, Any]:
        return said(prompt, "user"), said(completion, "assistant"), answer

    def scored(score: Score, state: Any) -> float | None:
        if isinstance(state, MutableMapping):
            state.setdefault(INFO_KEY, {})[name] = as_recorded(score)
        return unscored if score.value is None else score.value

    def reward(completion=None, answer=None, prompt=None, state=None, **kwargs):  # type: ignore[no-untyped-def]
        return scored(call(*read(prompt, completion, answer)), state)

    async def areward(completion=None, answer=None, prompt=None, state=None, **kwargs):  # type: ignore[no-untyped-def]
        found: Awaitable[Score] = call(*read(prompt, completion, answer))
        return scored(await found, state)

    made = areward if scorer.is_async else reward
    made.__name__ = made.__qualname__ = name
    setattr(made, MADE_FROM, scorer)
    return made


def to_verifiers(
    scorer: Scorer,
    *,
    legacy: bool = False,
    on_error: Literal["raise", "record"] = "raise",
    name: str | None = None,
    weight: float = 1.0,
    priority: int = 0,
    label_field: str = LABEL_FIELD,
    unscored: float | None = 0.0,
) -> Any:
    """A scorebridge scorer as a verifiers reward; one made by `from_verifiers` is given back as it was.

    `legacy=False`: a v1 reward (`VerifiersReward`), reading the trace's
    `last_reply` and the task's `label_field`; `weight` and `priority` as
    `@vf.reward` takes them. `legacy=True`: a reward function for a legacy
    `vf.Rubric(funcs=[...])` (verifiers before 0.4), reading `completion`,
    `answer` and `prompt`; its unscored row is `unscored` (0.0: a Rubric sums
    floats, and None in the sum fails the rollout; None for a caller that
    leaves None out), and `state["scorebridge"][name]` records the Score.
    """
    if not isinstance(scorer, Scorer):
        raise TypeError(f"to_verifiers: expected a scorebridge Scorer; got {type(scorer).__name__}")
    body = body_of(scorer)
    round_trip = isinstance(body, VerifiersCall) and on_error == "raise" and name in (None, scorer.name)
    if round_trip and body.v1 != legacy:  # a round trip: the reward itself, in the API it was written for
        return body.reward
    call = recording(scorer.name, scorer.acall if scorer.is_async else scorer, on_error, needs_label=scorer.needs_label)
    name = scorer.name if name is None else name
    if legacy:
        return _legacy(scorer, call, name, unscored)
    return VerifiersReward(scorer, call, name, weight, priority, label_field)
