"""The eval's scorer as an RL reward, offline and without TRL or torch: what GRPOTrainer and verl would get.

    uv run python examples/rl_reward.py

One scorer of your own scores an eval and is the reward of a GRPO run: here the
reward function is called as GRPOTrainer calls it, on one generation batch (2
prompts x 4 completions), and prints the rewards and what TRL would log beside
them; then the same scorer as verl's compute_score. With TRL installed, pass
`to_trl(last_number)` to `GRPOTrainer(reward_funcs=[...])` (docs/rl.md).
"""

from __future__ import annotations

import re
from typing import Any

import scorebridge as sb
from scorebridge_rl import from_trl, to_trl, to_verl


@sb.scorer
def last_number(item: Any, output: str, label: str) -> dict[str, Any]:
    """Right when the last number of the output is the label; an output with no number is a parse failure."""
    numbers = re.findall(r"-?\d+", output or "")
    if not numbers:
        return {"correct": False, "outcome": None, "failure_kind": "parse_failure"}
    return {"correct": numbers[-1] == str(label), "outcome": numbers[-1], "failure_kind": None}


def main() -> None:
    reward = to_trl(last_number)
    logged: dict[str, Any] = {}
    rewards = reward(
        prompts=["What is 6 x 7?"] * 4 + ["What is 9 x 9?"] * 4,
        completions=["42", "It is 42.", "41", "no idea", "81", "eighty-one", "81", "I won't say"],
        completion_ids=[[0]] * 8,
        solution=["42"] * 4 + ["81"] * 4,
        trainer_state=None,
        log_extra=logged.__setitem__,
        log_metric=logged.__setitem__,
    )
    scored = [r for r in rewards if r is not None]
    print("rewards:", rewards)
    print(f"rewards/last_number/mean: {sum(scored) / len(scored):.3f}")  # what TRL logs
    for name, value in logged.items():
        if name.startswith("rewards/") and value:
            print(f"{name}: {value:.3f}")  # why the rest are wrong
    print("completions table column:", logged["last_number/failure_kind"])

    # The same numbers as the eval: the scorer's summary of the same completions.
    scores = last_number.score_many(None, ["42", "It is 42.", "41", "no idea"], ["42"] * 4)
    print(sb.Summary.of("last_number", scores).accuracy)  # 0.5, as rewards/last_number/mean for that prompt

    # verl: compute_score(data_source, solution_str, ground_truth, extra_info) -> a dict verl logs
    compute_score = to_verl(last_number)
    print(compute_score(data_source="arith", solution_str="#### 42", ground_truth="42", extra_info={}))

    # A round trip is the identity
    assert from_trl(reward) is last_number


if __name__ == "__main__":
    main()
