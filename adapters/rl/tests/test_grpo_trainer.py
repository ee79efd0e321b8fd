"""A real GRPOTrainer trains a tiny model for one step with rewards from `to_trl`, offline, on the CPU.

It needs torch and TRL, which the main (uv) environment leaves out: there it is
skipped. .ci/run runs it in a pip venv of its own, with the CPU build of torch.
The model is a Llama of a few thousand parameters and the tokenizer one of
characters, both built here: nothing is downloaded.
"""

from __future__ import annotations

import math
import os
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("trl", reason="needs TRL and torch: the RL lane of .ci/run installs them (CPU torch, pip)")

import scorebridge as sb
from scorebridge.testing import FakeGrader
from scorebridge_rl import from_trl, to_trl

os.environ.setdefault("HF_HUB_OFFLINE", "1")
LETTERS = "abcde"
QUESTIONS = ["say a", "say b", "say c", "say d"]


def tiny_model_and_tokenizer() -> tuple[Any, Any]:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    specials = ["<pad>", "<s>", "</s>", "<unk>"]
    vocab = {token: i for i, token in enumerate([*specials, *sorted(set(LETTERS + "say "))])}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Split("", behavior="isolated")
    wrapped = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, pad_token="<pad>", bos_token="<s>", eos_token="</s>", unk_token="<unk>"
    )
    config = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=64,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )
    return LlamaForCausalLM(config), wrapped


class Seen:
    """Every (item, output, label) a scorer was given, so the test can score the same completions again."""

    def __init__(self) -> None:
        self.rows: list[tuple[Any, Any, Any]] = []
        self.lock = threading.Lock()

    def add(self, item: Any, output: Any, label: Any) -> None:
        with self.lock:
            self.rows.append((item, output, label))


SEEN_OWN, SEEN_GRADED = Seen(), Seen()


def ends_right_fn(item: Any, output: str, label: str) -> dict[str, Any]:
    """A scorer of one's own: an answer with no letter a-e is a parse failure, else right when it holds the
    letter asked."""
    if not any(letter in output for letter in LETTERS):
        return {"correct": False, "outcome": output, "failure_kind": "parse_failure"}
    return {"correct": label in output, "outcome": output, "failure_kind": None}


def spied(fn: Any, seen: Seen, name: str) -> sb.Scorer:
    def scored(item: Any, output: Any, label: Any) -> Any:
        seen.add(item, output, label)
        return fn(item, output, label)

    return sb.scorer(scored, name=name)


def grade(prompt: str) -> str:
    """The grader: C when the answer holds the criterion's letter; no verdict (unscored) when it holds an
    "e"; I otherwise."""
    answer = prompt.split("<answer>")[1].split("</answer>")[0]
    criterion = prompt.split("<criterion>")[1].split("</criterion>")[0].strip()
    if criterion in answer:
        return "GRADE: C"
    return "I cannot tell." if "e" in answer else "GRADE: I"


@pytest.mark.timeout(600)
def test_a_grpo_step_logs_the_scorers_accuracy_and_failure_kinds(tmp_path: Path) -> None:
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    model, tokenizer = tiny_model_and_tokenizer()
    dataset = Dataset.from_list([{"prompt": q, "solution": q[-1]} for q in QUESTIONS])
    own = to_trl(spied(ends_right_fn, SEEN_OWN, "ends_right"))
    graded_scorer = sb.model_graded_qa(FakeGrader(grade, asynchronous=True))

    async def graded_fn(item: Any, output: Any, label: Any) -> Any:
        SEEN_GRADED.add(item, output, label)
        return await graded_scorer.acall(item, output, label)

    graded = to_trl(sb.Scorer("graded", graded_fn, recorded=True))
    args = GRPOConfig(
        output_dir=str(tmp_path),
        per_device_train_batch_size=8,
        num_generations=4,
        max_completion_length=4,
        max_steps=1,
        logging_steps=1,
        use_cpu=True,
        report_to="none",
        save_strategy="no",
        reward_weights=[1.0, 0.0],  # the model-graded scorer is logged beside the reward, not trained on
        temperature=1.5,
        seed=0,
        log_completions=True,  # the completions table, with a failure-kind column per reward
    )
    trainer = GRPOTrainer(
        model=model, reward_funcs=[own, graded], args=args, train_dataset=dataset, processing_class=tokenizer
    )
    trainer.train()
    [logged] = [entry for entry in trainer.state.log_history if "rewards/ends_right/mean" in entry]

    shown: dict[str, sb.Summary] = {}
    for name, seen, scorer in (
        ("ends_right", SEEN_OWN, sb.scorer(ends_right_fn)),
        ("graded", SEEN_GRADED, graded_scorer),
    ):
        assert len(seen.rows) == 8  # one generation batch: 2 prompts x 4 generations
        items, outputs, labels = zip(*seen.rows, strict=True)
        assert set(items) <= set(QUESTIONS)  # the item is the prompt
        summary = sb.Summary.of(name, scorer.score_many(list(items), list(outputs), list(labels)))
        assert logged[f"rewards/{name}/unscored"] == pytest.approx(summary.unscored / summary.rows)
        if summary.scored:  # TRL's mean is over the scored completions (None is NaN, left out)
            assert logged[f"rewards/{name}/mean"] == pytest.approx(summary.accuracy)
            for kind, count in summary.failure_kinds.items():
                assert logged[f"rewards/{name}/{kind}"] == pytest.approx(count / summary.scored)
        shown[name] = summary
    print(sb.Summaries(shown.values(), kind="reward"))

    import pandas as pd

    [table] = [pd.read_parquet(path) for path in (tmp_path / "completions").glob("*.parquet")]
    for name, seen, scorer in (
        ("ends_right", SEEN_OWN, sb.scorer(ends_right_fn)),
        ("graded", SEEN_GRADED, graded_scorer),
    ):
        logged_kinds = [None if pd.isna(k) else k for k in table[f"{name}/failure_kind"]]
        items, outputs, labels = (list(column) for column in zip(*seen.rows, strict=True))
        assert logged_kinds == [s.failure_kind for s in scorer.score_many(items, outputs, labels)]
    assert math.isfinite(logged["loss"])


def test_from_trl_of_think_format_reward_gives_trls_own_verdicts() -> None:
    from trl.rewards import think_format_reward

    outputs = [
        "<think>\nsome reasoning\n</think>\nThe answer.",
        "<think>no end",
        "plain",
        "<think>a</think><think>b</think>",
    ]
    theirs = think_format_reward([[{"role": "assistant", "content": o}] for o in outputs])
    scorer = from_trl(think_format_reward)
    assert [scorer("q", o, None).value for o in outputs] == theirs
    assert [s.value for s in scorer.score_many(None, outputs, [None] * 4)] == theirs
    assert to_trl(scorer) is think_format_reward


def test_from_trl_of_accuracy_reward_when_math_verify_is_installed() -> None:
    pytest.importorskip("math_verify", reason="TRL's accuracy_reward needs math_verify, not installed here")
    from trl.rewards import accuracy_reward

    scorer = from_trl(accuracy_reward)
    assert scorer("q", r"My answer is \boxed{\frac{1}{3}}", r"\frac{1}{3}").correct is True
    assert scorer("q", r"My answer is \boxed{\frac{1}{2}}", r"\frac{1}{3}").correct is False
