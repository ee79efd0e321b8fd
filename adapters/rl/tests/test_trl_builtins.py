"""Every reward TRL ships, read by `from_trl` as TRL would run it: whether it needs the label column.

TRL declares nothing about its rewards: `from_trl` reads a reward's signature and code (`kit.reads_argument`),
never a list of names. Each built-in of the installed TRL is checked against what it does when called without
the label column, so a new built-in that `from_trl` misreads fails here. TRL needs torch: this runs in the RL
lane's pip venv (.ci/run) and is skipped elsewhere.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

import pytest

rewards = pytest.importorskip("trl.rewards", reason="TRL needs torch: the RL lane installs it")

from scorebridge_rl import from_trl  # noqa: E402


def _builtins() -> Iterator[tuple[str, Callable[..., Any]]]:
    """Each reward function of `trl.rewards`, a factory's made with small whole numbers for its arguments."""
    for name in rewards.__all__:
        found = getattr(rewards, name)
        if not callable(found):
            continue  # a submodule
        if name.startswith("get_"):  # a factory: its required arguments are lengths and sizes
            required = [p for p in inspect.signature(found).parameters.values() if p.default is inspect.Parameter.empty]
            found = found(**{p.name: 8 for p in required})
        yield name, found


BUILTINS = dict(_builtins())


def _needs_the_column(reward: Callable[..., Any]) -> bool:
    """What the reward does without the label column, called as GRPOTrainer calls it: a TypeError naming it."""
    completion = [{"role": "assistant", "content": "<think>x</think>42"}]
    try:
        reward(prompts=[[{"role": "user", "content": "q"}]], completions=[completion], completion_ids=[[1, 2, 3]])
    except TypeError as exc:
        return "solution" in str(exc)
    except KeyError as exc:
        return "solution" in str(exc)
    return False


def test_trl_ships_rewards_to_check() -> None:
    assert {"accuracy_reward", "think_format_reward"} <= set(BUILTINS)


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_from_trl_reads_whether_each_builtin_needs_the_label(name: str) -> None:
    reward = BUILTINS[name]
    assert from_trl(reward).needs_label is _needs_the_column(reward), name
