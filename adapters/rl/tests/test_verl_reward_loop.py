"""`to_verl` inside verl's own reward loop (verl 0.7.1 and later): its `naive` and `rate_limited` managers, per sample.

verl needs torch, so this runs in the RL lane's pip venv (.ci/run) and is skipped elsewhere. The managers are
verl's, called as its trainer calls them (`run_single` on a DataProto of one response, in an event loop); only
the tokenizer is ours, one that decodes a response's ids as characters.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

verl = pytest.importorskip("verl", reason="verl's reward loop needs verl (and torch): the RL lane installs it")
np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
omegaconf = pytest.importorskip("omegaconf")
managers = pytest.importorskip("verl.experimental.reward_loop.reward_manager")

import scorebridge as sb  # noqa: E402
from scorebridge.kit import item_text  # noqa: E402
from scorebridge_rl import from_verl, to_verl  # noqa: E402


class Characters:
    """A tokenizer whose ids are characters: what verl decodes a response with, without a model's vocabulary."""

    def decode(self, ids: Any, skip_special_tokens: bool = True) -> str:
        return "".join(chr(int(i)) for i in ids if int(i))


def _one(response: str, ground_truth: Any, extra_info: dict[str, Any]) -> Any:
    """A DataProto of one response as verl's rollout hands it to the reward loop (padded, with its mask)."""
    ids = [ord(c) for c in response] + [0, 0]
    data = verl.DataProto.from_dict(
        tensors={
            "prompts": torch.tensor([[1, 2]]),
            "responses": torch.tensor([ids]),
            "attention_mask": torch.tensor([[1, 1] + [1] * len(response) + [0, 0]]),
        },
        non_tensors={
            "data_source": np.array(["openai/gsm8k"], dtype=object),
            "reward_model": np.array([{"ground_truth": ground_truth}], dtype=object),
            "extra_info": np.array([extra_info], dtype=object),
        },
    )
    return data


def _run(manager: str, compute_score: Any, response: str, ground_truth: Any, **reward: Any) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        cls = managers.get_reward_manager_cls(manager)
        made = cls(omegaconf.DictConfig({"reward": reward}), Characters(), compute_score)
        result: dict[str, Any] = await made.run_single(_one(response, ground_truth, {"question": "Capital?"}))
        return result

    return asyncio.run(run())


def test_the_naive_manager_rewards_exact_through_to_verl() -> None:
    right = _run("naive", to_verl(sb.exact()), "Paris", "Paris")
    wrong = _run("naive", to_verl(sb.exact()), "Lyon", "Paris")
    assert (right["reward_score"], wrong["reward_score"]) == (1.0, 0.0)
    assert wrong["reward_extra_info"]["failure_kind"] == "wrong"


def test_the_naive_manager_awaits_an_async_scorer() -> None:
    # an object with an async __call__ was run in verl's thread pool: its coroutine became the "reward"
    @sb.scorer
    async def later(item: Any, output: str, label: str) -> bool:
        await asyncio.sleep(0)
        return output == label

    assert _run("naive", to_verl(later), "Paris", "Paris")["reward_score"] == 1.0


def test_the_scorer_gets_the_question_though_verl_adds_its_fields() -> None:
    seen: list[Any] = []
    scorer = sb.scorer(lambda item, output, label: seen.append(item_text(item)) or True, name="sees")
    _run("naive", to_verl(scorer), "Paris", "Paris")
    assert seen == ["Capital?"]


def test_a_list_ground_truth_reaches_a_verl_function_whole_through_from_verl() -> None:
    def every_field(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None) -> float:
        return 1.0 if all(f in solution_str for f in ground_truth) else 0.0

    native = _run("naive", every_field, "name", ["name", "age"])["reward_score"]
    assert native == 0.0 and from_verl(every_field)("q", "name", ["name", "age"]).correct is False


def test_the_rate_limited_managers_timeout_cancels_a_slow_async_scorer() -> None:
    @sb.scorer
    async def slow(item: Any, output: str, label: str) -> bool:
        await asyncio.sleep(30)
        return True

    result = _run("rate_limited", to_verl(slow), "Paris", "Paris", timeout=0.1)
    assert (result["reward_score"], result["reward_extra_info"].get("timeout")) == (0.0, True)
