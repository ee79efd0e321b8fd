"""`from_trl`: a TRL-style reward function as a scorer, called on a batch of one in the shape it reads."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from rl_calls import call_as_trl, chat

import scorebridge as sb
from scorebridge_rl import from_trl


def starts_right(prompts: list[str], completions: list[str], solution: list[str], **kwargs: Any) -> list[float]:
    """A TRL-style reward of one's own, standard format: the completion starts with the solution."""
    return [1.0 if c.strip().lower().startswith(s.lower()) else 0.0 for c, s in zip(completions, solution, strict=True)]


def think_format(completions: list[list[dict[str, str]]], **kwargs: Any) -> list[float]:
    """A reference-free reward, conversational format: the reasoning is in <think> tags."""
    pattern = re.compile(r"^<think>(?!.*<think>)(.*?)</think>.*$", re.DOTALL)
    return [1.0 if pattern.match(c[0]["content"]) else 0.0 for c in completions]


def test_a_reward_of_ones_own_is_a_scorer_with_the_same_verdicts_as_in_trl() -> None:
    outputs = ["Paris, of course", "Lyon", "  paris"]
    rows = [{"prompt": "Capital of France?", "solution": "Paris"}] * 3
    in_trl = call_as_trl(starts_right, rows, outputs)
    scorer = from_trl(starts_right)
    scores = [scorer("Capital of France?", o, "Paris") for o in outputs]
    assert [s.value for s in scores] == in_trl == [1.0, 0.0, 1.0]
    assert [s.correct for s in scores] == [True, False, True]
    assert scores[1].failure_kind == "wrong"
    assert scores[0].outcome == "Paris, of course"


def test_the_function_is_called_by_keyword_with_a_batch_of_one() -> None:
    seen: dict[str, Any] = {}

    def spy(**kwargs: Any) -> list[float]:
        seen.update(kwargs)
        return [1.0]

    from_trl(spy, needs_label=True)("Capital of France?", "Paris", "Paris")
    assert seen["prompts"] == ["Capital of France?"]
    assert seen["completions"] == ["Paris"]
    assert seen["solution"] == ["Paris"]
    assert seen["completion_ids"] is None and seen["trainer_state"] is None
    assert callable(seen["log_extra"]) and callable(seen["log_metric"])


def test_the_conversational_shape_is_given_to_a_function_that_reads_it() -> None:
    scorer = from_trl(think_format, shape="chat")
    assert scorer("q", "<think>hmm</think> 42", None).correct is True
    assert scorer("q", "42", None).value == 0.0
    assert call_as_trl(think_format, [{"prompt": "q"}] * 2, [chat("<think>hmm</think> 42"), chat("42")]) == [1.0, 0.0]


def test_a_reward_that_reads_no_label_scores_unlabelled_rows() -> None:
    assert from_trl(think_format, shape="chat")("q", "<think>a</think>b", None).correct is True


def test_a_reward_that_reads_the_label_leaves_an_unlabelled_row_unscored_without_calling_it() -> None:
    calls: list[Any] = []

    def reads(completions: list[str], solution: list[str], **kwargs: Any) -> list[float]:
        calls.append(solution)
        return [1.0]

    score = from_trl(reads)("q", "Paris", None)
    assert (score.correct, score.value, calls) == (None, None, [])


def test_none_from_the_function_is_unscored() -> None:
    def abstains(completions: list[str], **kwargs: Any) -> list[float | None]:
        return [None]

    score = from_trl(abstains)("q", "Paris", "Paris")
    assert score.correct is None and score.value is None


def test_the_threshold_says_what_counts_as_correct() -> None:
    def length(completions: list[str], **kwargs: Any) -> list[float]:
        return [min(len(c) / 10, 1.0) for c in completions]

    assert from_trl(length)("q", "abcde", "x").correct is False
    score = from_trl(length, threshold=0.5)("q", "abcde", "x")
    assert (score.correct, score.value) == (True, 0.5)


def test_an_output_that_reports_its_failure_is_recorded_without_calling_the_function() -> None:
    def never(**kwargs: Any) -> list[float]:
        raise AssertionError("called")

    assert from_trl(never)("q", {"failure_kind": "refusal"}, "Paris").failure_kind == "refusal"


def test_a_wrong_verdict_on_an_output_with_no_text_is_a_parse_failure() -> None:
    assert from_trl(starts_right)("q", "", "Paris").failure_kind == "parse_failure"
    assert from_trl(starts_right)("q", None, "Paris").failure_kind == "parse_failure"


def test_what_the_function_logs_is_kept_in_the_scores_metadata() -> None:
    def logs(
        completions: list[str], solution: list[str], log_extra: Any, log_metric: Any, **kwargs: Any
    ) -> list[float]:
        log_extra("parsed", [c.upper() for c in completions])
        log_metric("length", float(len(completions[0])))
        return [1.0]

    assert dict(from_trl(logs)("q", "paris", "Paris").metadata) == {"parsed": "PARIS", "length": 5.0}


def test_a_dataset_row_as_the_item_gives_the_function_its_columns() -> None:
    def by_level(prompts: list[str], completions: list[str], level: list[int], **kwargs: Any) -> list[float]:
        return [1.0 if len(c) <= lv else 0.0 for c, lv in zip(completions, level, strict=True)]

    scorer = from_trl(by_level)
    assert scorer({"prompt": "Say hi", "level": 2}, "hi", "hi").correct is True
    assert scorer({"prompt": "Say hi", "level": 1}, "hi", "hi").correct is False


def test_a_bad_return_is_a_contract_error_naming_the_scorer() -> None:
    def two(completions: list[str], **kwargs: Any) -> list[float]:
        return [1.0, 0.0]

    def text(completions: list[str], **kwargs: Any) -> list[Any]:
        return ["yes"]

    with pytest.raises(sb.ScorerContractError, match=r"^two: the reward function returned \[1.0, 0.0\]"):
        from_trl(two)("q", "a", "a")
    with pytest.raises(sb.ScorerContractError, match=r"^text: the reward function returned str 'yes'"):
        from_trl(text)("q", "a", "a")


def test_an_exception_from_the_function_propagates_naming_the_scorer() -> None:
    def breaks(completions: list[str], **kwargs: Any) -> list[float]:
        raise KeyError("content")

    with pytest.raises(KeyError) as raised:
        from_trl(breaks)("q", "a", "a")
    assert "raised inside the scorer 'breaks'" in raised.value.__notes__


def test_an_async_reward_is_an_async_scorer() -> None:
    async def slow(completions: list[str], solution: list[str], **kwargs: Any) -> list[float]:
        await asyncio.sleep(0)
        return [1.0 if completions[0] == solution[0] else 0.0]

    scorer = from_trl(slow)
    assert scorer.is_async
    assert asyncio.run(scorer.acall("q", "a", "a")).correct is True
    assert scorer("q", "b", "a").correct is False


def test_the_scorer_is_named_as_trl_names_the_function() -> None:
    import functools

    assert from_trl(starts_right).name == "starts_right"
    assert from_trl(functools.partial(starts_right)).name == "starts_right"
    assert from_trl(starts_right, name="mine").name == "mine"


# from_trl once called the reward once per element of a list label, first correct wins: a reward needing all of a
# list gave [0.0] in TRL and correct=True through from_trl. The label reaches it as TRL hands a dataset column.
def needs_every_field(completions: list[str], solution: list[Any], **kwargs: Any) -> list[float]:
    """A reward of one's own over a list label: the completion names every field of the solution."""
    return [1.0 if all(f in c for f in s) else 0.0 for c, s in zip(completions, solution, strict=True)]


def test_a_list_label_reaches_the_reward_whole_with_its_native_verdict() -> None:
    native = needs_every_field(["name"], [["name", "age"]])
    score = from_trl(needs_every_field)("Which fields?", "name", ["name", "age"])
    assert native == [0.0] and (score.correct, score.value) == (False, 0.0)


def test_a_list_label_that_the_completion_covers_is_correct() -> None:
    assert from_trl(needs_every_field)("Which fields?", "name, age", ["name", "age"]).correct is True


def test_each_answer_asks_the_reward_once_per_accepted_answer_until_one_is_correct() -> None:
    seen: list[Any] = []

    def equals(completions: list[str], solution: list[Any], **kwargs: Any) -> list[float]:
        seen.extend(solution)
        return [1.0 if c == s else 0.0 for c, s in zip(completions, solution, strict=True)]

    score = from_trl(equals, each_answer=True)("Capital of Italy?", "Rome", ["Paris", "Rome", "Lyon"])
    assert score.correct is True and seen == ["Paris", "Rome"]


def test_each_answer_is_in_the_options_only_when_given() -> None:
    assert "each_answer" not in from_trl(needs_every_field).options
    assert from_trl(needs_every_field, each_answer=True).options["each_answer"] is True


def test_a_structured_label_reaches_the_reward_as_trl_hands_it() -> None:
    def passes_tests(completions: list[str], tests: list[dict[str, str]], **kwargs: Any) -> list[float]:
        return [1.0 if all(v in c for v in t.values()) else 0.0 for c, t in zip(completions, tests, strict=True)]

    score = from_trl(passes_tests, label="tests")("Write f returning 1", "def f(): return 1", {"returns": "return 1"})
    assert score.correct is True


def test_a_number_label_reaches_the_reward_as_a_number() -> None:
    def within_one(completions: list[str], solution: list[Any], **kwargs: Any) -> list[float]:
        return [1.0 if abs(float(c) - s) <= 1 else 0.0 for c, s in zip(completions, solution, strict=True)]

    assert from_trl(within_one)("2 + 2?", "5", 4).correct is True
