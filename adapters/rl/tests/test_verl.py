"""`to_verl` and `from_verl`, called as verl's reward manager calls a `compute_score` (verl not installed)."""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import re
from typing import Any

import pytest
from rl_calls import call_as_verl, call_as_verl_batch

import scorebridge as sb
from scorebridge.testing import FakeGrader
from scorebridge_rl import from_verl, to_verl


def gsm8k_style(
    data_source: str, solution_str: str, ground_truth: str, extra_info: Any = None, format_score: float = 0.0
) -> float:
    """A reward in the shape of verl's gsm8k.compute_score, written here: the last "#### N" of the response."""
    found = re.findall(r"#### (-?[0-9.,]+)", solution_str[-300:])
    if not found:
        return 0.0
    return 1.0 if found[-1].replace(",", "") == ground_truth else format_score


@pytest.mark.skipif(
    importlib.util.find_spec("verl") is not None,
    reason="verl is installed (the RL lane): verl's own reward managers call to_verl in test_verl_reward_loop.py",
)
def test_verl_is_not_installed_here() -> None:
    # these tests call to_verl as verl would, without verl: uv.lock must not bring it in
    assert importlib.util.find_spec("verl") is None


def test_to_verl_gives_a_dict_with_the_score_and_the_failure_kind() -> None:
    samples = [
        {"response": "Paris", "ground_truth": "Paris", "extra_info": {"question": "Capital of France?"}},
        {"response": "Lyon", "ground_truth": "Paris"},
        {"response": "", "ground_truth": "Paris"},
    ]
    results = call_as_verl(to_verl(sb.exact()), samples)
    assert results == [
        {"score": 1.0, "acc": 1.0, "pred": "paris", "failure_kind": "", "scored": 1.0},
        {"score": 0.0, "acc": 0.0, "pred": "lyon", "failure_kind": "wrong", "scored": 1.0},
        {"score": 0.0, "acc": 0.0, "pred": "", "failure_kind": "parse_failure", "scored": 1.0},
    ]


def test_every_dict_has_the_same_keys_and_types_as_verl_collects_them_into_arrays() -> None:
    samples = [{"response": r, "ground_truth": g} for r, g in [("Paris", "Paris"), ("x", None), ("", "a")]]
    results = call_as_verl(to_verl(sb.exact()), samples)
    assert {tuple((k, type(v)) for k, v in r.items()) for r in results} == {
        (("score", float), ("acc", float), ("pred", str), ("failure_kind", str), ("scored", float))
    }


def test_an_unscored_response_scores_zero_and_says_so() -> None:
    [result] = call_as_verl(to_verl(sb.exact()), [{"response": "Paris", "ground_truth": ""}])
    assert (result["score"], result["scored"]) == (0.0, 0.0)


def test_the_item_is_the_extra_info_which_holds_the_question() -> None:
    grader = FakeGrader("GRADE: C")
    sample = {"response": "12", "ground_truth": "12", "extra_info": {"question": "What is 6 + 6?", "index": 3}}
    [result] = call_as_verl(to_verl(sb.model_graded_qa(grader)), [sample])
    assert result["score"] == 1.0
    assert "What is 6 + 6?" in grader.prompts[0]


def test_a_raising_scorer_gives_a_zero_with_the_error_kind_by_default() -> None:
    @sb.scorer
    def broken(item: Any, output: str, label: str) -> bool:
        raise RuntimeError("down")

    [result] = call_as_verl(to_verl(broken), [{"response": "a", "ground_truth": "a"}])
    assert (result["score"], result["failure_kind"]) == (0.0, "error")
    with pytest.raises(RuntimeError, match="down"):
        call_as_verl(to_verl(broken, on_error="raise"), [{"response": "a", "ground_truth": "a"}])


def test_an_async_scorer_gives_an_async_compute_score() -> None:
    @sb.scorer
    async def later(item: Any, output: str, label: str) -> bool:
        await asyncio.sleep(0)
        return output == label

    compute_score = to_verl(later)
    # verl's managers test the function itself (inspect.iscoroutinefunction), not its __call__: an object with an
    # async __call__ was run in a thread, its coroutine never awaited, and the coroutine taken as the reward
    assert inspect.iscoroutinefunction(compute_score)
    [result] = call_as_verl(compute_score, [{"response": "a", "ground_truth": "a"}])
    assert result["score"] == 1.0


def test_from_verl_scores_with_a_gsm8k_style_function() -> None:
    scorer = from_verl(gsm8k_style)
    right = scorer("What is 6 x 7?", "6 x 7 is 42.\n#### 42", "42")
    wrong = scorer("What is 6 x 7?", "#### 41", "42")
    assert (right.correct, right.value) == (True, 1.0)
    assert (wrong.correct, wrong.failure_kind) == (False, "wrong")
    assert scorer("q", "", "42").failure_kind == "parse_failure"
    assert scorer("q", "#### 42", None).correct is None  # no ground truth: unscored, not called


def test_from_verl_calls_the_function_by_keyword_as_verl_does() -> None:
    seen: dict[str, Any] = {}

    def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: Any = None) -> float:
        seen.update(
            data_source=data_source, solution_str=solution_str, ground_truth=ground_truth, extra_info=extra_info
        )
        return 1.0

    from_verl(compute_score, data_source="openai/gsm8k")("What is 6 x 7?", "#### 42", "42")
    assert seen == {
        "data_source": "openai/gsm8k",
        "solution_str": "#### 42",
        "ground_truth": "42",
        "extra_info": {"question": "What is 6 x 7?", "num_turns": None, "rollout_reward_scores": {}},  # verl >= 0.7.1
    }
    from_verl(compute_score)({"data_source": "lighteval/MATH", "question": "q"}, "x", "y")
    assert seen["data_source"] == "lighteval/MATH"


def test_from_verl_reads_a_dict_with_the_score_and_keeps_the_rest() -> None:
    def dapo_style(data_source: str, solution_str: str, ground_truth: str, extra_info: Any = None) -> dict[str, Any]:
        ok = solution_str.strip() == ground_truth
        return {"score": 1.0 if ok else -1.0, "acc": ok, "pred": solution_str.strip(), "len": len(solution_str)}

    score = from_verl(dapo_style)("q", " 41 ", "42")
    assert (score.correct, score.value, score.outcome) == (False, -1.0, "41")
    assert dict(score.metadata) == {"len": 4}


def test_from_verl_refuses_a_dict_without_a_score() -> None:
    def no_score(**kwargs: Any) -> dict[str, Any]:
        return {"acc": 1.0}

    with pytest.raises(sb.ScorerContractError, match="without 'score'"):
        from_verl(no_score, name="no_score")("q", "a", "a")


def test_from_verl_names_a_compute_score_by_its_module() -> None:
    assert from_verl(gsm8k_style).name == "gsm8k_style"

    def compute_score(**kwargs: Any) -> float:
        return 1.0

    assert from_verl(compute_score).name == "test_verl"


def test_the_batch_function_gives_the_one_response_functions_dicts() -> None:
    samples = [
        {"response": r, "ground_truth": g, "extra_info": {"question": "q"}}
        for r, g in [("Paris", "Paris"), ("Lyon", "Paris"), ("", "Paris"), ("Paris", None)]
    ]
    assert call_as_verl_batch(to_verl(sb.exact(), batch=True), samples) == call_as_verl(to_verl(sb.exact()), samples)


def test_the_batch_function_asks_a_grader_about_the_responses_side_by_side() -> None:
    grader = FakeGrader("GRADE: C", delay=0.02, asynchronous=True)
    samples = [{"response": str(i), "ground_truth": str(i), "extra_info": {"question": f"q{i}"}} for i in range(16)]
    results = call_as_verl_batch(to_verl(sb.model_graded_qa(grader), batch=True, concurrency=8), samples)
    assert [r["score"] for r in results] == [1.0] * 16
    assert grader.max_in_flight == 8  # side by side, not one after another


def test_the_batch_function_records_a_raising_scorer_by_default() -> None:
    @sb.scorer
    def broken(item: Any, output: str, label: str) -> bool:
        raise RuntimeError("down")

    [result] = call_as_verl_batch(to_verl(broken, batch=True), [{"response": "a", "ground_truth": "a"}])
    assert (result["score"], result["failure_kind"]) == (0.0, "error")
    assert from_verl(to_verl(broken, batch=True)) is broken


# verl 0.7.1's reward loop adds num_turns and rollout_reward_scores to every extra_info: an extra_info of one text
# field stops being read as that text unless the two fields, holding nothing, are left out of the item.
def test_the_fields_verl_adds_to_extra_info_leave_the_item_as_it_was() -> None:
    seen: list[Any] = []
    scorer = sb.scorer(lambda item, output, label: seen.append(item) or output == label, name="sees")
    compute_score = to_verl(scorer)
    extra_info = {"prompt": "Capital?", "num_turns": None, "rollout_reward_scores": {}}
    result = compute_score(data_source="d", solution_str="Paris", ground_truth="Paris", extra_info=extra_info)
    assert result["score"] == 1.0 and seen == [{"prompt": "Capital?"}]


def test_an_agent_loops_turns_and_tool_rewards_reach_the_scorer() -> None:
    seen: list[Any] = []
    scorer = sb.scorer(lambda item, output, label: seen.append(item) or True, name="sees")
    extra_info = {"question": "q", "num_turns": 3, "rollout_reward_scores": {"tool": 0.5}}
    to_verl(scorer)(data_source="d", solution_str="a", ground_truth="a", extra_info=extra_info)
    assert seen == [extra_info]


def test_a_per_sample_timeout_cancels_an_async_scorer() -> None:
    # verl's limited manager wraps each call in asyncio.wait_for(..., reward.timeout): the scorer must be cancelled
    cancelled: list[bool] = []

    @sb.scorer
    async def slow(item: Any, output: str, label: str) -> bool:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return True

    compute_score = to_verl(slow)

    async def under_timeout() -> None:
        await asyncio.wait_for(compute_score(data_source="d", solution_str="a", ground_truth="a", extra_info={}), 0.05)

    with pytest.raises(asyncio.TimeoutError):
        asyncio.run(under_timeout())
    assert cancelled == [True]
