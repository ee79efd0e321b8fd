"""`to_trl`: a scorer as a GRPOTrainer reward function, called as GRPOTrainer calls it (no trainer)."""

from __future__ import annotations

import inspect
import math
import sys
import threading
import time
from typing import Any

import pytest
from rl_calls import TRLLogs, TRLLoop, call_as_trl, chat

import scorebridge as sb
from scorebridge.testing import FakeGrader
from scorebridge_rl import prompt_text, to_trl

ROWS = [
    {"prompt": "Capital of France?", "solution": "Paris"},
    {"prompt": "Capital of Italy?", "solution": "Rome"},
]


def same(got: list[float], want: list[float | None]) -> bool:
    return len(got) == len(want) and all(
        (w is None and math.isnan(g)) or g == w for g, w in zip(got, want, strict=True)
    )


def test_the_value_of_each_completion_is_its_reward_in_the_standard_format() -> None:
    rewards = call_as_trl(to_trl(sb.exact()), ROWS, [" paris", "Lyon", "Rome", ""], num_generations=2)
    assert rewards == [1.0, 0.0, 1.0, 0.0]


def test_the_value_of_each_completion_is_its_reward_in_the_conversational_format() -> None:
    rows = [{"prompt": [{"role": "user", "content": r["prompt"]}], "solution": r["solution"]} for r in ROWS]
    rewards = call_as_trl(
        to_trl(sb.exact()), rows, [chat("Paris"), chat("Lyon"), chat("ROME"), chat("")], num_generations=2
    )
    assert rewards == [1.0, 0.0, 1.0, 0.0]


def test_a_partial_credit_is_the_reward() -> None:
    @sb.scorer
    def overlap(item: Any, output: str, label: str) -> dict[str, Any]:
        words = set(label.split())
        share = len(words & set(output.split())) / len(words)
        return {"correct": share == 1, "outcome": output, "failure_kind": None, "value": share}

    rows = [{"prompt": "q", "solution": "new york city"}]
    assert call_as_trl(to_trl(overlap), rows, ["new york"]) == [pytest.approx(2 / 3)]


def test_an_unlabelled_row_gives_none_which_trl_leaves_out() -> None:
    rows = [{"prompt": "q", "solution": "Paris"}, {"prompt": "q", "solution": None}, {"prompt": "q", "solution": " "}]
    reward = to_trl(sb.exact())
    assert reward(prompts=["q"] * 3, completions=["Paris", "Paris", "Paris"], solution=["Paris", None, " "]) == [
        1.0,
        None,
        None,
    ]
    assert same(call_as_trl(reward, rows, ["Paris", "Paris", "Paris"]), [1.0, None, None])


def test_every_row_has_a_reward_whatever_the_completion() -> None:
    odd: list[Any] = ["Paris", None, [], [{"role": "assistant", "content": None}], {"content": "Paris"}, 42, b"Paris"]
    rows = [{"prompt": "q", "solution": "Paris"}] * len(odd)
    assert call_as_trl(to_trl(sb.exact()), rows, odd) == [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]


def test_the_label_comes_from_the_column_named() -> None:
    rows = [{"prompt": "What is 6 x 7?", "answer": "42"}]
    assert call_as_trl(to_trl(sb.exact(), label="answer"), rows, ["42"]) == [1.0]


def test_a_dataset_without_the_label_column_is_one_clear_error() -> None:
    rows = [{"prompt": "What is 6 x 7?", "answer": "42"}]
    with pytest.raises(ValueError, match=r"to_trl\(exact\): the dataset has no column 'solution'.*\['answer'"):
        call_as_trl(to_trl(sb.exact()), rows, ["42"])


def test_a_raising_scorer_does_not_crash_the_batch_by_default() -> None:
    @sb.scorer
    def fragile(item: Any, output: str, label: str) -> bool:
        if output == "boom":
            raise RuntimeError("the grader is down")
        return output == label

    logs = TRLLogs()
    rows = [{"prompt": "q", "solution": "Paris"}]
    with pytest.warns(RuntimeWarning, match=r"to_trl\(fragile\).*RuntimeError.*reward 0\.0"):
        rewards = call_as_trl(to_trl(fragile), rows * 4, ["Paris", "boom", "Lyon", "boom"], logs=logs)
    assert rewards == [1.0, 0.0, 0.0, 0.0]
    assert logs.extra["fragile/failure_kind"] == [None, "error", "wrong", "error"]
    assert logs.metrics["rewards/fragile/error"] == [0.5]


def test_with_on_error_raise_the_exception_stops_the_step() -> None:
    @sb.scorer
    def broken(item: Any, output: str, label: str) -> bool:
        raise RuntimeError("the grader is down")

    with pytest.raises(RuntimeError, match="the grader is down"):
        call_as_trl(to_trl(broken, on_error="raise"), ROWS, ["Paris", "Rome"])


def test_the_failure_kinds_are_logged_as_shares_of_the_scored_completions() -> None:
    logs = TRLLogs()
    rows = [{"prompt": "q", "solution": "Paris"}] * 4 + [{"prompt": "q", "solution": None}]
    call_as_trl(to_trl(sb.exact()), rows, ["Paris", "", "NOT_IN_DOCUMENT", "Lyon", "Paris"], logs=logs)
    shares = {name.split("/")[-1]: values for name, values in logs.metrics.items()}
    assert shares == {
        "unscored": [0.2],
        "parse_failure": [0.25],
        "refusal": [0.0],
        "not_in_document": [0.25],
        "wrong": [0.25],
        "budget_stop": [0.0],
        "error": [0.0],
    }
    assert logs.extra == {"exact/failure_kind": [None, "parse_failure", "not_in_document", "wrong", None]}


def test_the_logged_shares_are_scorebridges_summary_of_the_same_completions() -> None:
    outputs = ["Paris", "", "Lyon", "paris", "NOT_IN_DOCUMENT", {"failure_kind": "refusal"}, "Paris", "x"]
    labels = ["Paris", "Paris", "Paris", None, "Paris", "Paris", "Paris", "Paris"]
    logs = TRLLogs()
    rows = [{"prompt": f"q{i}", "solution": lab} for i, lab in enumerate(labels)]
    rewards = call_as_trl(to_trl(sb.exact()), rows, outputs, logs=logs)
    summary = sb.Summary.of("exact", sb.exact().score_many(None, outputs, labels))
    assert sum(r for r in rewards if not math.isnan(r)) / summary.scored == summary.accuracy
    for kind, count in summary.failure_kinds.items():
        assert logs.metrics[f"rewards/exact/{kind}"] == [count / summary.scored]
    assert logs.metrics["rewards/exact/unscored"] == [summary.unscored / summary.rows]


def test_nothing_is_logged_outside_a_trainer() -> None:
    assert to_trl(sb.exact())(prompts=["q"], completions=["Paris"], solution=["Paris"]) == [1.0]


def test_the_reward_is_named_for_the_scorer_as_trl_logs_it() -> None:
    assert to_trl(sb.exact()).__name__ == "exact"
    assert to_trl(sb.exact(), name="exact_match").__name__ == "exact_match"


def test_the_item_is_the_prompts_text() -> None:
    seen: list[Any] = []

    @sb.scorer
    def reads_item(item: Any, output: str, label: str) -> bool:
        seen.append(item)
        return True

    rows = [
        {"prompt": "Capital of France?", "solution": "Paris"},
        {"prompt": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Capital of Peru?"}],
         "solution": "Lima"},
    ]  # fmt: skip
    call_as_trl(to_trl(reads_item, on_error="raise"), rows, ["Paris", "Lima"])
    assert seen == ["Capital of France?", "Capital of Peru?"]
    seen.clear()
    call_as_trl(to_trl(reads_item, item=lambda prompt: prompt, on_error="raise"), rows, ["Paris", "Lima"])
    assert seen == [rows[0]["prompt"], rows[1]["prompt"]]
    seen.clear()
    with_question = [{"prompt": "Answer: ", "question": "Capital of Chile?", "solution": "Santiago"}]
    call_as_trl(to_trl(reads_item, item="question", on_error="raise"), with_question, ["Santiago"])
    assert seen == ["Capital of Chile?"]


def test_prompt_text_reads_the_last_user_message_of_a_conversation() -> None:
    prompt = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Capital "}, {"type": "text", "text": "of Peru?"}]},
    ]
    assert prompt_text(prompt) == "Capital of Peru?"
    assert prompt_text("Capital of Peru?") == "Capital of Peru?"


def test_an_async_scorer_gives_an_async_reward_that_trl_awaits(trl_loop: TRLLoop) -> None:
    grader = FakeGrader("GRADE: C", delay=0.05, asynchronous=True)
    reward = to_trl(sb.model_graded_qa(grader), concurrency=8)
    assert inspect.iscoroutinefunction(reward.__call__)
    rows = [{"prompt": f"What is {i} + {i}?", "solution": str(2 * i)} for i in range(16)]
    rewards = call_as_trl(reward, rows, [str(2 * i) for i in range(16)], loop=trl_loop)
    assert rewards == [1.0] * 16
    assert grader.max_in_flight == 8  # concurrently, not one after another (the time is bench_rl.py's)
    assert "What is 3 + 3?" in "\n".join(grader.prompts)  # the prompt is the grader's question


def test_an_async_scorer_can_give_a_sync_reward_for_a_loop_that_only_calls() -> None:
    grader = FakeGrader("GRADE: C", delay=0.01, asynchronous=True)
    reward = to_trl(sb.model_graded_qa(grader), asynchronous=False, concurrency=4)
    assert not inspect.iscoroutinefunction(reward.__call__)
    assert reward(prompts=["q"] * 4, completions=["a"] * 4, solution=["a"] * 4) == [1.0] * 4
    assert grader.max_in_flight == 4


def test_a_blocking_scorer_runs_the_batch_in_threads() -> None:
    in_flight, most = [0], [0]
    lock = threading.Lock()

    @sb.scorer
    def slow(item: Any, output: str, label: str) -> bool:
        with lock:
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])
        time.sleep(0.02)
        with lock:
            in_flight[0] -= 1
        return output == label

    call_as_trl(to_trl(slow, concurrency=4), [{"prompt": "q", "solution": "a"}] * 8, ["a"] * 8)
    assert most[0] == 4


def test_a_raising_async_scorer_is_recorded_too(trl_loop: TRLLoop) -> None:
    @sb.scorer
    async def flaky(item: Any, output: str, label: str) -> bool:
        if output == "boom":
            raise ConnectionError("rate limited")
        return output == label

    logs = TRLLogs()
    with pytest.warns(RuntimeWarning, match="ConnectionError"):
        rewards = call_as_trl(
            to_trl(flaky), [{"prompt": "q", "solution": "a"}] * 2, ["a", "boom"], logs=logs, loop=trl_loop
        )
    assert rewards == [1.0, 0.0]
    assert logs.extra["flaky/failure_kind"] == [None, "error"]


def test_a_grader_that_fails_leaves_the_completion_unscored() -> None:
    # model_graded_qa records a failed grader call itself: unscored (None to TRL), not a zero
    grader = FakeGrader({"boom": RuntimeError("rate limited"), "": "GRADE: C"}, asynchronous=True)
    reward = to_trl(sb.model_graded_qa(grader), asynchronous=False)
    assert reward(prompts=["q", "q"], completions=["fine", "boom"], solution=["a", "a"]) == [1.0, None]


def test_bad_arguments_are_refused_when_the_reward_is_made() -> None:
    with pytest.raises(TypeError, match="expected a scorebridge Scorer"):
        to_trl(lambda prompts, completions, **kw: [1.0])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="on_error must be"):
        to_trl(sb.exact(), on_error="skip")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="label must name a dataset column"):
        to_trl(sb.exact(), label="")
    with pytest.raises(ValueError, match="concurrency"):
        to_trl(sb.exact(), concurrency=0)


def test_a_column_of_the_wrong_length_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match=r"the column 'solution' must hold one value per completion \(2\); got 1"):
        to_trl(sb.exact())(prompts=["q", "q"], completions=["a", "b"], solution=["a"])


def test_the_reward_module_imports_neither_trl_nor_torch() -> None:
    import subprocess

    code = "import scorebridge_rl, sys; print(sorted(m for m in ('trl', 'torch', 'verl') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_scorer_that_needs_no_label_needs_no_label_column() -> None:
    @sb.scorer(needs_label=False)
    def short(item: Any, output: str, label: Any) -> bool:
        return len(output) <= 5

    rows = [{"prompt": "Say hi"}] * 2
    assert call_as_trl(to_trl(short), rows, ["hi", "hello there"]) == [1.0, 0.0]


def test_the_reward_takes_prompts_and_completions_by_position_too() -> None:
    assert to_trl(sb.exact())(["q"], ["Paris"], None, solution=["Paris"]) == [1.0]
