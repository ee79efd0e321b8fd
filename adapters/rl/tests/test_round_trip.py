"""Round trips are identities: a reward made from a scorer gives the scorer back, and the other way."""

from __future__ import annotations

import pickle
from typing import Any

import scorebridge as sb
from scorebridge_rl import from_trl, from_verl, to_trl, to_verl


def mine(prompts: list[str], completions: list[str], solution: list[str], **kwargs: Any) -> list[float]:
    return [1.0 if c == s else 0.0 for c, s in zip(completions, solution, strict=True)]


def compute_score(data_source: Any, solution_str: str, ground_truth: str, extra_info: Any = None) -> float:
    return 1.0 if solution_str == ground_truth else 0.0


def test_to_trl_of_from_trl_is_the_function_itself() -> None:
    assert to_trl(from_trl(mine)) is mine
    assert to_trl(from_trl(mine), on_error="raise", label="answer") is mine


def test_from_trl_of_to_trl_is_the_scorer_itself() -> None:
    scorer = sb.exact()
    assert from_trl(to_trl(scorer)) is scorer
    assert from_trl(to_trl(scorer, name="exact_match")) is scorer


def test_to_verl_of_from_verl_is_the_function_itself() -> None:
    assert to_verl(from_verl(compute_score)) is compute_score


def test_from_verl_of_to_verl_is_the_scorer_itself() -> None:
    scorer = sb.detect_includes()
    assert from_verl(to_verl(scorer)) is scorer


def test_another_name_makes_a_new_scorer_with_the_same_verdicts() -> None:
    again = from_trl(to_trl(sb.exact()), name="exact_again")
    assert again.name == "exact_again"
    assert again("q", "Paris", "Paris").correct is True
    assert again("q", "Lyon", "Paris").correct is False


def test_a_reward_pickles_as_trl_expects_of_reward_functions() -> None:
    reward = to_trl(sb.exact())
    again = pickle.loads(pickle.dumps(reward))
    assert again.__name__ == "exact"
    assert again(prompts=["q"], completions=["Paris"], solution=["Paris"]) == [1.0]
    assert pickle.loads(pickle.dumps(to_verl(sb.exact())))(None, "Paris", "Paris")["score"] == 1.0
