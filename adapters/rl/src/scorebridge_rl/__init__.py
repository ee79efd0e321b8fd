"""scorebridge_rl: scorebridge scorers as RL rewards (TRL's GRPOTrainer, verl), and their rewards as scorers.

`to_trl(scorer)` gives a reward function for `GRPOTrainer(reward_funcs=[...])`;
`from_trl(reward_func)` gives a `Scorer` of a TRL-style reward function (TRL's
built-ins, or one's own). `to_verl(scorer)` gives a `compute_score` function for
verl's `custom_reward_function`; `from_verl(compute_score)` a `Scorer` of one.

The reward functions are plain functions over lists: nothing here imports TRL,
verl or torch, so unsloth, ms-swift or a training loop of one's own can call
them as TRL does.
"""

from ._from_trl import from_trl
from ._reading import completion_text, prompt_text
from ._to_trl import to_trl
from ._verl import from_verl, to_verl

__all__ = ["completion_text", "from_trl", "from_verl", "prompt_text", "to_trl", "to_verl"]
