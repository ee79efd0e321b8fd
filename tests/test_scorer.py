"""`Scorer` and `scorer()`: calling, the async twin, batches, names and errors."""

from __future__ import annotations

import asyncio
import contextvars
import pickle
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

import scorebridge as sb


def same(item: Any, output: Any, label: Any) -> bool:
    return bool(output == label)


async def asame(item: Any, output: Any, label: Any) -> bool:
    await asyncio.sleep(0)
    return bool(output == label)


def test_scorer_name_defaults_to_the_function_name() -> None:
    assert sb.scorer(same).name == "same"


def test_lambda_scorer_needs_a_name() -> None:
    with pytest.raises(ValueError, match="a scorer needs a name"):
        sb.scorer(lambda item, output, label: True)


def test_scorer_fn_must_be_callable() -> None:
    with pytest.raises(TypeError, match="fn must be a function of"):
        sb.scorer("same", "same")  # type: ignore[arg-type]


def test_a_function_that_cannot_take_item_output_and_label_is_refused_when_the_scorer_is_made() -> None:
    # A function of (output, label) was accepted and raised TypeError on every row: a TRL reward, which records
    # errors by default, then trained on a reward of 0.0 for every completion, with one warning.
    def two(output: Any, label: Any) -> bool:
        return bool(output == label)

    with pytest.raises(TypeError) as caught:
        sb.scorer(two)
    assert str(caught.value) == (
        "scorer 'two': fn must take three positional arguments, (item, output, label); two(output, label) takes 2"
    )


def test_a_function_of_item_output_label_with_options_or_defaults_is_a_scorer() -> None:
    # the arity check refuses only what cannot be called with three arguments
    def loose(item: Any, output: Any, label: Any = None, extra: Any = None, *, tolerance: float = 0.1) -> bool:
        return True

    assert sb.scorer(loose)(None, "a", "a").correct is True
    assert sb.scorer(lambda *args: True, name="anything")(None, "a", "a").correct is True


def test_a_bound_method_and_a_callable_object_are_checked_by_what_they_take() -> None:
    class Judge:
        def check(self, item: Any, output: Any, label: Any) -> bool:
            return bool(output == label)

        def __call__(self, output: Any, label: Any) -> bool:
            return bool(output == label)

    assert sb.scorer(Judge().check)(None, "a", "a").correct is True  # self is bound: three left
    with pytest.raises(TypeError, match=r"__call__|Judge\(output, label\) takes 2"):
        sb.scorer(Judge(), name="judge")


def test_scorer_is_immutable() -> None:
    s = sb.scorer(same)
    with pytest.raises(AttributeError):
        s.name = "other"  # type: ignore[misc]


def test_repr_of_a_user_scorer_names_its_function() -> None:
    assert repr(sb.scorer(asame, "eq")) == "<Scorer eq fn=asame async>"


def test_async_scorer_is_awaitable_with_acall() -> None:
    assert asyncio.run(sb.scorer(asame).acall(None, "a", "a")).correct is True


def test_async_scorer_works_from_a_plain_call() -> None:
    assert sb.scorer(asame)(None, "a", "b").failure_kind == "wrong"


def test_async_scorer_works_from_a_plain_call_inside_a_running_loop() -> None:
    async def inside() -> sb.Score:
        return sb.scorer(asame)(None, "a", "a")

    assert asyncio.run(inside()).correct is True


def test_async_scorer_works_from_worker_threads() -> None:
    s = sb.scorer(asame)
    with ThreadPoolExecutor(4) as pool:
        scores = list(pool.map(lambda i: s(None, i, 3), range(8)))
    assert [x.correct for x in scores] == [i == 3 for i in range(8)]


def test_object_with_async_call_is_async() -> None:
    # ag2ai/ag2#3190: an object whose __call__ is async is not a coroutine function to `inspect`.
    class Judge:
        async def __call__(self, item: Any, output: Any, label: Any) -> bool:
            return True

    assert sb.scorer(Judge(), "judge").is_async


def test_sync_scorer_acall_runs_inline() -> None:
    assert asyncio.run(sb.scorer(same).acall(None, 1, 1)).correct is True


def test_score_many_keeps_order() -> None:
    scores = sb.scorer(same).score_many(["q1", "q2", "q3"], ["a", "b", "c"], ["a", "x", "c"])
    assert [s.correct for s in scores] == [True, False, True]


def test_score_many_takes_no_items() -> None:
    assert [s.correct for s in sb.exact().score_many(None, ["a", "b"], ["a", "a"])] == [True, False]


def test_score_many_rejects_unequal_lengths() -> None:
    with pytest.raises(ValueError, match="same: score_many needs as many items, outputs and labels; got 2, 2 and 1"):
        sb.scorer(same).score_many([1, 2], ["a", "b"], ["a"])


def test_score_many_runs_async_scorers_concurrently_up_to_the_bound() -> None:
    in_flight = peak = 0
    lock = threading.Lock()

    async def slow(item: Any, output: Any, label: Any) -> bool:
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        await asyncio.sleep(0.01)
        with lock:
            in_flight -= 1
        return True

    sb.scorer(slow).score_many(None, range(20), range(20), concurrency=4)
    assert peak == 4


def test_score_many_keeps_the_order_of_the_rows_whatever_order_they_finish_in() -> None:
    async def later_for_earlier(item: Any, output: int, label: Any) -> bool:
        await asyncio.sleep(0.001 * (10 - output))
        return output % 2 == 0

    scores = sb.scorer(later_for_earlier).score_many(None, range(10), range(10), concurrency=5)
    assert [s.correct for s in scores] == [n % 2 == 0 for n in range(10)]


def test_scoring_many_stops_once_a_row_raises() -> None:
    # a failed batch must not go on calling the scorer (an LM judge, say) in the background. The other rows
    # finish only after row 2 has raised, so exactly the four that were running when it did have started
    # (the test once allowed anything under 20).
    started: list[int] = []

    async def batch_then_wait() -> None:
        failed = asyncio.Event()

        async def fails_on_the_third(item: Any, output: int, label: Any) -> bool:
            started.append(output)
            if output == 2:
                failed.set()
                raise RuntimeError("judge down")
            await failed.wait()
            return True

        with pytest.raises(RuntimeError, match="judge down"):
            await sb.scorer(fails_on_the_third).ascore_many(None, range(20), range(20), concurrency=4)
        # nothing is left running in the background to go on to the next rows (once checked by sleeping)
        assert asyncio.all_tasks() == {asyncio.current_task()}

    asyncio.run(batch_then_wait())
    assert sorted(started) == [0, 1, 2, 3]


def _after_the_note(exc: BaseException) -> None:
    """Wait until the batch has taken `exc` as its row's failure (it notes the row when it does)."""
    for _ in range(2000):
        if any(note.startswith("at row ") for note in getattr(exc, "__notes__", ())):
            return
        threading.Event().wait(0.005)
    raise AssertionError("the batch never noted the failed row")


def test_scoring_many_stops_once_a_row_raises_when_the_scorer_never_waits() -> None:
    # a sync judge through ascore_many runs in worker threads: the rows running when row 2 raised finish
    # (here, only once the batch has taken the failure), and none starts after
    started: list[int] = []
    judge_down = RuntimeError("judge down")
    all_running = threading.Barrier(4, timeout=20)

    def fails_on_the_third(item: Any, output: int, label: Any) -> bool:
        started.append(output)
        all_running.wait()
        if output == 2:
            raise judge_down
        _after_the_note(judge_down)
        return True

    with pytest.raises(RuntimeError, match="judge down"):
        asyncio.run(sb.scorer(fails_on_the_third).ascore_many(None, range(20), range(20), concurrency=4))
    assert sorted(started) == [0, 1, 2, 3]


def test_score_many_runs_sync_scorers_in_worker_threads_up_to_the_bound() -> None:
    # a sync grader (most graders use a sync client) once ran one row at a time: 64 x 0.25 s took 16 s
    in_flight = peak = 0
    lock = threading.Lock()
    four_at_once = threading.Barrier(4, timeout=20)  # passes only when four rows run together

    def judged(item: Any, output: Any, label: Any) -> bool:
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        four_at_once.wait()
        with lock:
            in_flight -= 1
        return True

    scores = sb.scorer(judged).score_many(None, range(12), range(12), concurrency=4)
    assert [s.correct for s in scores] == [True] * 12
    assert peak == 4


def test_a_fast_scorer_scores_its_batch_inline_in_the_callers_thread() -> None:
    threads: set[int] = set()

    def quick(item: Any, output: Any, label: Any) -> bool:
        threads.add(threading.get_ident())
        return True

    sb.Scorer("quick", quick, fast=True).score_many(None, range(50), range(50), concurrency=8)
    assert threads == {threading.get_ident()}


def test_only_sync_scorers_can_be_fast() -> None:
    with pytest.raises(ValueError, match="'a': an async fn is awaited, never run inline: it cannot be fast"):
        sb.Scorer("a", asame, fast=True)


@pytest.mark.parametrize(
    ("scorer", "fast"),
    [
        (sb.exact(), True),
        (sb.detect_includes(), True),
        (sb.detect_match(), True),
        (sb.detect_exact(), True),
        (sb.detect_answer(), True),
        (sb.detect_pattern("(a)"), False),  # its regex may run up to its timeout
        (sb.scorer(same), False),  # your own sync function may block: nobody can tell
    ],
    ids=str,
)
def test_which_scorers_are_fast(scorer: sb.Scorer, fast: bool) -> None:
    assert scorer.fast is fast


def test_ascore_many_never_blocks_the_event_loop_with_a_sync_scorer() -> None:
    # each row waits for the loop to answer: run inline on the loop, the first row would wait for ever
    answered = threading.Event()

    def waits_for_the_loop(item: Any, output: Any, label: Any) -> bool:
        return answered.wait(timeout=20)

    async def batch() -> list[bool | None]:
        scoring = asyncio.ensure_future(sb.scorer(waits_for_the_loop).ascore_many(None, [1, 2], [1, 2], concurrency=1))
        await asyncio.sleep(0)
        answered.set()  # runs only if the loop is free
        return [s.correct for s in await scoring]

    assert asyncio.run(batch()) == [True, True]


def test_the_first_failing_row_in_order_is_raised_naming_its_row() -> None:
    both_running = threading.Barrier(2, timeout=20)

    def fails(item: Any, output: int, label: Any) -> bool:
        both_running.wait()
        raise LookupError(f"row {output}")

    with pytest.raises(LookupError, match="row 0") as info:
        sb.scorer(fails).score_many(None, [0, 1], [0, 1], concurrency=2)
    assert "at row 0 of the batch (counting from 0)" in info.value.__notes__


def test_an_inline_batch_names_the_failing_row_too() -> None:
    def fails_on_two(item: Any, output: int, label: Any) -> bool:
        if output == 2:
            raise LookupError("two")
        return True

    with pytest.raises(LookupError) as info:
        sb.scorer(fails_on_two).score_many(None, range(5), range(5), concurrency=1)
    assert info.value.__notes__ == [
        "raised inside the scorer 'fails_on_two'",
        "at row 2 of the batch (counting from 0)",
    ]


def test_rows_in_worker_threads_see_the_callers_context_not_what_another_row_set() -> None:
    current: contextvars.ContextVar[str] = contextvars.ContextVar("current", default="unset")
    seen: list[str] = []

    def traced(item: Any, output: int, label: Any) -> bool:
        seen.append(current.get())
        current.set(f"row {output}")
        return True

    current.set("the caller's")
    sb.scorer(traced).score_many(None, range(8), range(8), concurrency=2)
    assert seen == ["the caller's"] * 8


def test_cancelling_ascore_many_starts_no_further_row() -> None:
    started: list[int] = []
    release = threading.Event()

    def slow(item: Any, output: int, label: Any) -> bool:
        started.append(output)
        release.wait(timeout=20)
        return True

    async def cancel_it() -> None:
        scoring = asyncio.ensure_future(sb.scorer(slow).ascore_many(None, range(10), range(10), concurrency=2))
        while len(started) < 2:
            await asyncio.sleep(0.001)
        scoring.cancel()
        with pytest.raises(asyncio.CancelledError):
            await scoring
        release.set()  # the two rows running finish; a third would start now

    asyncio.run(cancel_it())  # returns once the batch's thread has ended (asyncio.run waits for it)
    assert sorted(started) == [0, 1]


def test_each_row_sees_the_callers_context_not_what_another_row_set() -> None:
    # as asyncio.gather gives each coroutine a copy: a span a tracer sets in one row must not leak into the next
    current: contextvars.ContextVar[int | None] = contextvars.ContextVar("current", default=None)
    seen: list[int | None] = []

    async def traced(item: Any, output: int, label: Any) -> bool:
        seen.append(current.get())
        current.set(output)
        await asyncio.sleep(0)
        return True

    sb.scorer(traced).score_many(None, range(8), range(8), concurrency=2)
    assert seen == [None] * 8


async def interrupted(item: Any, output: int, label: Any) -> bool:
    """Ctrl-C in the third row."""
    await asyncio.sleep(0)
    if output == 2:
        raise KeyboardInterrupt
    return True


def test_keyboard_interrupt_in_a_row_leaves_the_next_batch_unharmed() -> None:
    with pytest.raises(KeyboardInterrupt):
        sb.scorer(interrupted).score_many(None, range(8), range(8), concurrency=2)
    assert [s.correct for s in sb.scorer(asame).score_many(None, ["a"], ["a"])] == [True]


def test_keyboard_interrupt_in_a_row_inside_a_running_loop_is_carried_back() -> None:
    # in a running loop the batch runs on a nested loop; an interrupt must not leave that loop broken
    async def in_a_notebook() -> list[bool | None]:
        with pytest.raises(KeyboardInterrupt):
            sb.scorer(interrupted).score_many(None, range(8), range(8), concurrency=2)
        return [s.correct for s in sb.scorer(asame).score_many(None, ["a"], ["a"])]

    # On a thread of its own, joined with a timeout: a hang fails here. (asyncio.wait_for around it could
    # never fire: score_many blocks the very loop that would time it out.)
    result: list[list[bool | None]] = []
    worker = threading.Thread(target=lambda: result.append(asyncio.run(in_a_notebook())), daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), "the batch after the interrupt hung"
    assert result == [[True]]


def test_ascore_many_is_the_async_twin() -> None:
    scores = asyncio.run(sb.scorer(asame).ascore_many(None, ["a", "b"], ["a", "a"]))
    assert [s.correct for s in scores] == [True, False]


def test_concurrency_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="concurrency must be a whole number, at least 1"):
        sb.scorer(asame).score_many(None, ["a"], ["a"], concurrency=0)


def test_exception_in_fn_propagates_with_a_note_naming_the_scorer() -> None:
    def boom(item: Any, output: Any, label: Any) -> bool:
        raise KeyError("answer")

    with pytest.raises(KeyError) as info:
        sb.scorer(boom, "boomer")(None, "x", "y")
    assert "raised inside the scorer 'boomer'" in getattr(info.value, "__notes__", [])


def test_exception_in_async_fn_propagates_from_acall() -> None:
    async def boom(item: Any, output: Any, label: Any) -> bool:
        raise RuntimeError("grader down")

    with pytest.raises(RuntimeError, match="grader down"):
        asyncio.run(sb.scorer(boom).acall(None, "x", "y"))


def test_keyboard_interrupt_inside_a_running_loop_reaches_the_caller_and_the_next_call_works() -> None:
    # A KeyboardInterrupt escaping a coroutine once stopped the shared helper loop,
    # and every later plain call from inside a running loop hung.
    async def interrupted(item: Any, output: Any, label: Any) -> bool:
        raise KeyboardInterrupt

    async def inside() -> sb.Score:
        with pytest.raises(KeyboardInterrupt):
            sb.scorer(interrupted)(None, "a", "a")
        return sb.scorer(asame)(None, "a", "a")

    assert asyncio.run(inside()).correct is True


def test_copies_of_a_scorer_are_the_scorer() -> None:
    # DSPy deep-copies programs and the metrics they hold; an immutable scorer is its own copy.
    import copy

    s = sb.exact()
    assert copy.copy(s) is s and copy.deepcopy(s) is s


def test_score_many_refuses_one_string_for_a_list() -> None:
    # "abc" as labels would be read one character at a time
    with pytest.raises(TypeError, match="exact: score_many takes a list of labels, not one str"):
        sb.exact().score_many(None, ["a", "b", "c"], "abc")


def test_concurrency_below_one_is_refused_for_sync_scorers_too() -> None:
    with pytest.raises(ValueError, match="concurrency must be a whole number, at least 1"):
        sb.exact().score_many(None, ["a"], ["a"], concurrency=0)


def test_options_are_read_only() -> None:
    with pytest.raises(TypeError):
        sb.exact().options["normalise"] = "x"  # type: ignore[index]


def test_plain_call_nested_inside_a_helper_thread_does_not_wait_on_itself() -> None:
    # A sync scorer wrapping an async one, called from inside a running loop: the helper
    # thread's coroutine makes a plain call again. One shared helper deadlocked here.
    inner = sb.scorer(asame, "inner")
    outer = sb.scorer(lambda item, output, label: inner(item, output, label), "outer")
    wrapper = sb.scorer(lambda item, output, label: outer(item, output, label), "wrapper")

    async def inside() -> sb.Score:
        async def via_async(item: Any, output: Any, label: Any) -> sb.Score:
            return wrapper(item, output, label)

        return sb.scorer(via_async, "top")(None, "a", "a")

    result: list[sb.Score] = []
    worker = threading.Thread(target=lambda: result.append(asyncio.run(inside())), daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), "the nested plain call hung"
    assert result[0].correct is True


BUILT_INS = [
    sb.exact(),
    sb.exact(normalise=False),
    sb.detect_includes(case_sensitive=True),
    sb.detect_match(location="begin"),
    sb.detect_exact(),
    sb.detect_pattern(r"(\d+)", all=True),
    sb.detect_answer(format="word"),
]


@pytest.mark.parametrize("builtin", BUILT_INS, ids=repr)
def test_a_built_in_pickles_with_plain_pickle_as_its_factory_and_options(builtin: sb.Scorer) -> None:
    # Its fn is a closure plain pickle cannot take: it is made again by its factory, which the protocol
    # knows from the factory's mark, not by importing the built-ins (the protocol reaching up a layer).
    again = pickle.loads(pickle.dumps(builtin))
    assert (repr(again), again(None, "ANSWER: 42", "42")) == (repr(builtin), builtin(None, "ANSWER: 42", "42"))


def test_a_scorer_of_ones_own_pickles_by_its_fields() -> None:
    again = pickle.loads(pickle.dumps(sb.scorer(same)))
    assert (again.name, again.fn, again(None, "a", "a").correct) == ("same", same, True)
