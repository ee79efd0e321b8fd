"""`from_verifiers`: a verifiers reward (v1, or a legacy Rubric function) as a scorebridge `Scorer`."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from typing import Any, Literal

import verifiers.v1 as vf
from verifiers.v1.graph import MessageNode
from verifiers.v1.utils.decorators import invoke

from scorebridge import Score, Scorer
from scorebridge.kit import (
    Ask,
    OptionsError,
    ScorerContractError,
    ask,
    is_async,
    is_bool,
    is_number,
    item_text_for,
    judge,
    options_of,
    recording,
    sync_and_async,
    verdict,
)

from ._native import LABEL_FIELD, MADE_FROM

__all__ = ["LEGACY_NAMES", "V1_NAMES", "VerifiersCall", "from_verifiers"]

V1_NAMES = ("task", "trace", "runtime")
"""What verifiers v1 hands a reward by name (`Task.score`); scorebridge rows have no runtime."""
LEGACY_NAMES = ("completion", "answer", "prompt", "state", "task", "info")
"""What a legacy `vf.Rubric` handed a reward function by name."""


def _parameters(fn: Callable[..., Any]) -> tuple[list[str], bool]:
    params = inspect.signature(fn).parameters.values()
    return [p.name for p in params if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)], any(
        p.kind is p.VAR_KEYWORD for p in params
    )


def _is_v1(reward: Any) -> bool:
    """A v1 reward: marked `@vf.reward`/`@vf.metric`, a Task's method, or one taking only v1's names."""
    if getattr(reward, "reward", False) is True or getattr(reward, "metric", False) is True:
        return True
    if inspect.ismethod(reward) and isinstance(reward.__self__, vf.Task):
        return True
    names, _ = _parameters(reward)
    return bool(names) and all(n in V1_NAMES for n in names) and "trace" in names


class VerifiersCall:
    """The body of a scorer made by `from_verifiers`: the reward called on (item, output, label), as verifiers would."""

    def __init__(self, reward: Any, name: str, threshold: float, needs_label: bool, label_field: str) -> None:
        self.reward, self.name, self.threshold, self.needs_label = reward, name, threshold, needs_label
        self.label_field, self.v1 = label_field, _is_v1(reward)
        owner = reward.__self__ if inspect.ismethod(reward) and isinstance(reward.__self__, vf.Task) else None
        self.task = owner  # a Task's reward: called on a Task of the row, as verifiers makes one per row
        self.names, self.takes_all = _parameters(reward)

    def __repr__(self) -> str:
        return f"<verifiers reward {self.name}>"

    def __call__(self, item: Any, output: Any, label: Any) -> Any:
        asked = ask(self.name, output, label, needs_label=self.needs_label, read_label=False)
        if isinstance(asked, Score):
            return asked
        prompt, text = item_text_for(self.name, item), "" if asked.text is None else asked.text
        call = self.v1_call if self.v1 else self.legacy_call
        return judge(self.name, lambda: call(item, prompt, text, asked.label), lambda r: self.verdict(asked, r))

    def v1_call(self, item: Any, prompt: str, text: str, label: Any) -> Any:
        """The reward on a Task and Trace of the row, by verifiers' own injection (`task` is the row's TaskData)."""
        data_type = vf.WireTaskData if self.task is None else type(self.task).data_type()
        fields = {k: v for k, v in item.items() if isinstance(k, str)} if isinstance(item, Mapping) else {}
        try:
            data = data_type.model_validate({**fields, "prompt": prompt, self.label_field: label})
        except ValueError as exc:
            raise ScorerContractError(f"{self.name}: the row is not a {data_type.__name__}: {exc}") from None
        trace = vf.Trace(
            task=vf.TraceTask(type=data_type.__name__, data=data), agent=vf.AgentInfo(config=vf.AgentConfig())
        )
        user = MessageNode(message=vf.UserMessage(content=prompt))
        trace.nodes = [user, MessageNode(parent=0, message=vf.AssistantMessage(content=text), sampled=True)]
        fn = self.reward
        if self.task is not None:  # verifiers makes a Task per row: `self.data` is the row's
            fn = self.reward.__func__.__get__(type(self.task)(data, self.task.config))
        return invoke(fn, {"task": data, "trace": trace})

    def legacy_call(self, item: Any, prompt: str, text: str, label: Any) -> Any:
        """The function as a legacy Rubric called it: chat messages, the answer, a state, by name."""
        info = item.get("info") if isinstance(item, Mapping) else None
        given: dict[str, Any] = {
            "prompt": [{"role": "user", "content": prompt}],
            "completion": [{"role": "assistant", "content": text}],
            "answer": label, "task": "default", "info": dict(info) if isinstance(info, Mapping) else {},
        }  # fmt: skip
        given["state"] = {**given, "responses": []}
        return self.reward(**(given if self.takes_all else {n: given[n] for n in self.names if n in given}))

    def verdict(self, asked: Ask, found: Any) -> Score:
        """A reward's float or bool, or keyed scores (their sum, as `Trace.reward` counts them); None: unscored."""
        keyed = dict(found) if isinstance(found, Mapping) else None
        for value in (keyed or {}).values() if keyed is not None else [found]:
            if value is not None and not is_bool(value) and (not is_number(value) or not math.isfinite(value)):
                raise ScorerContractError(f"{self.name}: a reward must be a finite number; got {value!r:.80}")
        if keyed is not None:
            scored = [float(v) for v in keyed.values() if v is not None]
            value = sum(scored) if scored else None
        else:
            value = None if found is None else float(found)
        metadata = {"rewards": {str(k): v for k, v in keyed.items()}} if keyed is not None else None
        correct = None if value is None else value >= self.threshold
        return verdict(self.name, asked, correct, value=value, metadata=metadata)


def from_verifiers(
    reward: Callable[..., Any],
    *,
    name: str | None = None,
    threshold: float = 1.0,
    needs_label: bool | None = None,
    label_field: str = LABEL_FIELD,
    on_error: Literal["raise", "record"] = "raise",
    options: Mapping[str, Any] | None = None,
) -> Scorer:
    """A verifiers reward as a scorebridge scorer; one made by `to_verifiers` gives its scorer back.

    `reward` is a v1 reward (a `@vf.reward` method of a Task instance, called on
    a Task of each row; a function of `task`/`trace`) or a legacy Rubric
    function (`completion`, `answer`, `prompt`, `state`, `task`, `info`, by name).
    The reward is the value, correct at `threshold`; keyed scores are summed.
    """
    made_from = getattr(reward, MADE_FROM, None)
    if isinstance(made_from, Scorer) and on_error == "raise" and name in (None, made_from.name):
        return made_from  # a round trip: the scorebridge scorer to_verifiers was given
    if not callable(reward):
        raise TypeError(f"from_verifiers: expected a reward function; got {reward!r:.80}")
    if name is None:
        given = getattr(reward, "__name__", None)
        name = given if isinstance(given, str) and given[:1].isalpha() else "verifiers_reward"
    if not is_number(threshold) or not math.isfinite(threshold):
        raise ValueError(f"from_verifiers({name}): threshold must be a finite number; got {threshold!r:.80}")
    names, takes_all = _parameters(reward)
    runtime = inspect.signature(reward).parameters.get("runtime")
    if runtime is not None and runtime.default is runtime.empty:
        raise TypeError(f"from_verifiers({name}): the reward needs a runtime (a sandbox), which a row has none of")
    if needs_label is None:  # it reads the row: a Task's method (`self.data`), the task, the answer, the state
        of_task = inspect.ismethod(reward) and isinstance(reward.__self__, vf.Task)
        needs_label = of_task or takes_all or bool({"answer", "state", "task", "info"} & set(names))
    if options is None:
        try:
            target = reward.__func__ if inspect.ismethod(reward) else reward
            options = {"reward": options_of(target)}
        except OptionsError as exc:
            raise TypeError(f"from_verifiers({name}): {exc}; give the reward's identity as options={{...}}") from None
    call = VerifiersCall(reward, name, float(threshold), needs_label, label_field)
    fn = sync_and_async(recording(name, call, on_error, needs_label=needs_label), is_async=is_async(reward))
    options = {**options, "threshold": float(threshold), "label_field": label_field}
    return Scorer(name, fn, options, recorded=True, needs_label=needs_label)
