"""`from_trl()`: a TRL-style reward function (TRL's built-ins, or one's own) as a scorebridge `Scorer`."""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, Literal

from scorebridge import Score, Scorer, ScorerContractError
from scorebridge.kit import (
    Ask,
    ask,
    is_async,
    is_bool,
    is_number,
    item_text_for,
    judge,
    judge_each,
    sync_and_async,
    verdict,
)

from ._asking import reward_value

__all__ = ["Shape", "TRLCall", "from_trl", "made_by_from_trl"]

Shape = Literal["text", "chat"]
"""The shape a reward function reads: TRL's standard format (strings) or its conversational one (messages)."""

# A dataset row's fields that TRL does not pass a reward function as columns.
_NOT_COLUMNS: Final = frozenset({"prompt", "completion", "completion_ids"})


def callable_name(fn: Any) -> str:
    """The name TRL logs a reward under: its `__name__` (through `functools.partial`), else its class name."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    name = getattr(fn, "__name__", None)
    return name if isinstance(name, str) and name.strip() else type(fn).__name__


def _parameters(fn: Any) -> set[str]:
    try:
        return set(inspect.signature(fn).parameters)
    except (TypeError, ValueError):  # a builtin or an object with no signature
        return set()


class _Logs:
    """`log_extra` and `log_metric` for a call from outside a trainer: what the function logs for its one row
    becomes the Score's metadata (a column's one value under its name, a metric's value under its name)."""

    __slots__ = ("logged",)

    def __init__(self) -> None:
        self.logged: dict[str, Any] = {}

    def extra(self, column: str, values: list[Any]) -> None:
        self.logged[str(column)] = values[0] if isinstance(values, list) and len(values) == 1 else values

    def metric(self, name: str, value: float) -> None:
        self.logged[str(name)] = value


class TRLCall:
    """What a scorer made by `from_trl` runs (its fn's `body`): the reward function on a batch of one.

    `reward` is the function wrapped (`to_trl` gives it back); `name` the
    scorer's name. It returns a Score, or an awaitable of one for an async
    reward function (`kit.sync_and_async` makes the scorer's fn of it).
    """

    def __init__(
        self,
        reward: Callable[..., Any],
        name: str,
        label: str,
        shape: Shape,
        threshold: float,
        needs_label: bool,
        each_answer: bool = False,
    ) -> None:
        self.reward, self.name, self.label, self.shape = reward, name, label, shape
        self.threshold, self.needs_label, self.each_answer = threshold, needs_label, each_answer

    def __repr__(self) -> str:
        return f"from_trl({callable_name(self.reward)})"

    def _batch(self, item: Any, text: str, solution: Any, logs: _Logs) -> dict[str, Any]:
        """The keywords TRL would pass for this one completion, in the shape the function reads."""
        columns: dict[str, list[Any]] = {}
        prompt: Any = item
        if isinstance(item, Mapping):  # a dataset row: its other fields are the columns TRL passes
            columns = {str(k): [v] for k, v in item.items() if k not in _NOT_COLUMNS}
            prompt = item.get("prompt", item_text_for(self.name, item))
        if self.shape == "chat":
            completion: Any = [{"role": "assistant", "content": text}]
            if not (isinstance(prompt, list) and all(isinstance(m, Mapping) for m in prompt)):
                prompt = [{"role": "user", "content": item_text_for(self.name, prompt)}]
        else:
            completion = text
            if not isinstance(prompt, str):
                prompt = item_text_for(self.name, prompt)
        columns[self.label] = [solution]
        return {
            "prompts": [prompt],
            "completions": [completion],
            "completion_ids": None,  # no token ids outside a trainer
            **columns,
            "trainer_state": None,
            "log_extra": logs.extra,
            "log_metric": logs.metric,
        }

    def _score(self, asked: Ask, rewards: Any, logs: _Logs) -> Score:
        if isinstance(rewards, (str, bytes, Mapping)) or not isinstance(rewards, Sequence) or len(rewards) != 1:
            raise ScorerContractError(
                f"{self.name}: the reward function returned {rewards!r:.80}; expected a list of one reward "
                "for the one completion it was given"
            )
        value = reward_value(self.name, rewards[0], "the reward function")
        correct = None if value is None else value >= self.threshold
        return verdict(self.name, asked, correct, value=value, metadata=logs.logged or None)

    def __call__(self, item: Any, output: Any, label: Any) -> Score | Awaitable[Score]:
        asked = ask(self.name, output, label, needs_label=self.needs_label, read_label=self.each_answer)
        if type(asked) is Score:
            return asked
        logs = _Logs()
        judged: Score | Awaitable[Score]
        if self.each_answer:  # the explicit option: one call per accepted answer, the first correct wins
            judged = judge_each(
                self.name,
                asked,
                lambda solution: self.reward(**self._batch(item, asked.text, solution, logs)),
                lambda rewards: self._score(asked, rewards, logs),
            )
        else:  # the label as TRL hands a dataset's column: the row's value, a list whole
            judged = judge(
                self.name,
                lambda: self.reward(**self._batch(item, asked.text, asked.label, logs)),
                lambda rewards: self._score(asked, rewards, logs),
            )
        return judged


def made_by_from_trl(scorer: Scorer) -> TRLCall | None:
    """The `TRLCall` a scorer made by `from_trl` runs, or None for any other scorer."""
    body = getattr(scorer.fn, "body", None)
    return body if isinstance(body, TRLCall) else None


def from_trl(
    reward_func: Callable[..., Any],
    *,
    label: str = "solution",
    threshold: float = 1.0,
    shape: Shape | None = None,
    needs_label: bool | None = None,
    each_answer: bool = False,
    name: str | None = None,
) -> Scorer:
    """A scorer that calls the TRL-style reward function `reward_func` on a batch of one completion.

    `reward_func(prompts, completions, completion_ids, **columns)` returns a
    list of rewards (TRL's built-ins `think_format_reward`, `accuracy_reward`;
    one of your own). Scoring `(item, output, label)` calls it by keyword, as
    GRPOTrainer does, with one completion, in the shape it reads (`shape`):
    "chat", TRL's conversational format (`[{"role": "assistant", "content":
    text}]`, the prompt a list of one user message), which TRL's built-ins
    read, is the default for a function of TRL's own; "text", the standard
    format (the completion and the prompt strings), for any other. The label
    is the column `label` ("solution"), holding the row's label as TRL hands a
    dataset column: as it is, a list whole (`solution=[["name", "age"]]` for
    the label `["name", "age"]`), a number a number, None for a row with no
    label. `each_answer=True` is the per-answer option instead: the function is
    asked once per accepted answer, as text, until one is correct
    (`kit.judge_each`), for a reward that takes one reference and a label of
    several accepted answers; an item that is a mapping (a dataset
    row) gives the prompt (its "prompt" field, else its text) and its other
    fields as the columns, as TRL passes them; `completion_ids` is None and
    `trainer_state` None (no trainer), and what the function logs through
    `log_extra` and `log_metric` is kept in the Score's metadata.

    The reward is the Score's value; correct when it is at least `threshold`
    (1.0). None (or NaN), TRL's way to abstain, is unscored. A return that is
    not a list of one reward, or a reward that is not a finite number, is a
    `ScorerContractError` naming the scorer; an exception from the function
    propagates with a note naming it (`score_many(on_error="record")` and
    every harness's `on_error` record it).

    The function needs a label when it has a parameter named `label` (TRL's
    `accuracy_reward(completions, solution, ...)`); then a row with no label
    is unscored without calling it. One that reads none (`think_format_reward`)
    scores every row; `needs_label` says so instead. An output that reports
    its own failure (a `failure_kind` element, `ok` False) is recorded so
    without calling the function.

    An async reward function gives an async scorer. The scorer is named
    `name`, else as TRL names the function (its `__name__`). A round trip is
    the identity: `from_trl(to_trl(s))` is `s`.
    """
    from ._to_trl import TRLReward

    if not callable(reward_func):
        raise TypeError(f"from_trl: reward_func must be callable; got {type(reward_func).__name__}")
    if isinstance(reward_func, TRLReward) and name in (None, reward_func.scorer.name):
        return reward_func.scorer  # a round trip is the identity
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise TypeError(f"from_trl: name must be a non-blank string; got {name!r:.80}")
    name = name or callable_name(reward_func)
    where = f"from_trl({name})"
    if not isinstance(label, str) or not label.strip():
        raise TypeError(f"{where}: label must name the column the function reads; got {label!r:.80}")
    if is_bool(threshold) or not is_number(threshold) or not math.isfinite(threshold):
        raise ValueError(f"{where}: threshold must be a finite number; got {threshold!r:.80}")
    if shape is None:
        inner = reward_func
        while isinstance(inner, functools.partial):
            inner = inner.func
        module = getattr(inner, "__module__", None) or ""
        shape = "chat" if module == "trl" or module.startswith("trl.") else "text"
    elif shape not in ("text", "chat"):
        raise ValueError(f"{where}: shape must be 'text' or 'chat'; got {shape!r:.80}")
    if needs_label is None:
        needs_label = label in _parameters(reward_func)
    elif not isinstance(needs_label, bool):
        raise TypeError(f"{where}: needs_label must be True, False or None; got {needs_label!r:.80}")
    if not isinstance(each_answer, bool):
        raise TypeError(f"{where}: each_answer must be True or False; got {each_answer!r:.80}")
    call = TRLCall(reward_func, name, label, shape, float(threshold), needs_label, each_answer)
    options: dict[str, Any] = {"label": label, "threshold": float(threshold), "shape": shape}
    if each_answer:  # in the options only when given: a scorer's identity is unchanged without it
        options["each_answer"] = True
    fn = sync_and_async(call, is_async=is_async(reward_func))
    return Scorer(name, fn, options, recorded=True, needs_label=needs_label)
