"""`scorebridge.testing.FakeGrader`: a scripted grader model for users' own tests."""

from __future__ import annotations

import asyncio
import inspect
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from scorebridge.testing import FakeGrader


def test_one_string_is_the_reply_to_every_prompt() -> None:
    grader = FakeGrader("GRADE: C")
    assert [grader("a"), grader("b")] == ["GRADE: C", "GRADE: C"]


def test_list_replies_come_in_call_order() -> None:
    grader = FakeGrader(["GRADE: C", "GRADE: I"])
    assert [grader("a"), grader("b")] == ["GRADE: C", "GRADE: I"]


def test_running_out_of_replies_raises_lookup_error() -> None:
    grader = FakeGrader(["GRADE: C"])
    grader("a")
    with pytest.raises(LookupError, match="ran out of replies after 1 calls"):
        grader("b")


def test_mapping_replies_by_the_first_key_found_in_the_prompt() -> None:
    grader = FakeGrader({"Paris": "GRADE: C", "Lyon": "GRADE: I", "": "GRADE: P"})
    assert [grader("Lyon or Paris"), grader("Lyon"), grader("Rome")] == ["GRADE: C", "GRADE: I", "GRADE: P"]


def test_mapping_with_no_key_in_the_prompt_raises_lookup_error() -> None:
    with pytest.raises(LookupError, match="no scripted reply for the prompt 'Rome'"):
        FakeGrader({"Paris": "GRADE: C"})("Rome")


def test_callable_replies_from_the_prompt() -> None:
    assert FakeGrader(str.upper)("grade: c") == "GRADE: C"


def test_callable_that_returns_no_text_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="returned int, not a string"):
        FakeGrader(len)("prompt")  # type: ignore[arg-type]


def test_scripted_exception_is_raised() -> None:
    grader = FakeGrader([ConnectionError("rate limited"), "GRADE: C"])
    with pytest.raises(ConnectionError, match="rate limited"):
        grader("a")
    assert grader("b") == "GRADE: C"


def test_prompts_are_recorded_in_call_order() -> None:
    grader = FakeGrader("GRADE: C")
    grader("first")
    grader("second")
    assert grader.prompts == ["first", "second"]
    assert grader.calls == 2


def test_prompts_is_a_copy() -> None:
    grader = FakeGrader("GRADE: C")
    grader("first")
    grader.prompts.clear()
    assert grader.prompts == ["first"]


def test_failed_calls_are_recorded_too() -> None:
    grader = FakeGrader({"x": "GRADE: C"})
    with pytest.raises(LookupError):
        grader("y")
    assert grader.prompts == ["y"]


def test_asynchronous_grader_returns_a_coroutine() -> None:
    grader = FakeGrader(["GRADE: C"], asynchronous=True)
    assert isinstance(grader, FakeGrader) and grader.asynchronous
    assert inspect.iscoroutinefunction(type(grader).__call__)
    assert asyncio.run(grader("a")) == "GRADE: C"


def test_asynchronous_grader_raises_its_scripted_exception_when_awaited() -> None:
    grader = FakeGrader([ValueError("bad")], asynchronous=True)
    with pytest.raises(ValueError, match="bad"):
        asyncio.run(grader("a"))


def test_sync_grader_is_not_a_coroutine_function() -> None:
    grader = FakeGrader("GRADE: C")
    assert not grader.asynchronous
    assert not inspect.iscoroutinefunction(type(grader).__call__)


def test_delay_keeps_calls_in_flight_so_concurrency_shows() -> None:
    grader = FakeGrader("GRADE: C", delay=0.05, asynchronous=True)

    async def main() -> list[str]:
        return await asyncio.gather(*(grader(str(i)) for i in range(5)))

    assert asyncio.run(main()) == ["GRADE: C"] * 5
    assert grader.max_in_flight > 1


def test_sequential_calls_are_never_in_flight_together() -> None:
    grader = FakeGrader("GRADE: C", delay=0.001)
    for i in range(3):
        grader(str(i))
    assert grader.max_in_flight == 1


def test_every_listed_reply_is_given_once_across_threads() -> None:
    replies = [f"reply {i}" for i in range(400)]
    grader = FakeGrader(replies)
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(grader, (f"prompt {i}" for i in range(400))))
    assert sorted(got) == sorted(replies)
    assert sorted(grader.prompts) == sorted(f"prompt {i}" for i in range(400))


def test_threads_in_flight_are_counted() -> None:
    grader = FakeGrader("GRADE: C", delay=0.05)
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(grader, ["a", "b", "c", "d"]))
    assert 1 < grader.max_in_flight <= 4


@pytest.mark.parametrize(
    ("replies", "error", "message"),
    [
        ([], ValueError, "replies is empty"),
        ({}, ValueError, "replies is empty"),
        (42, TypeError, "replies must be a string"),
        (iter(["GRADE: C"]), TypeError, "replies must be a string"),
        ([b"GRADE: C"], TypeError, "reply 0 must be a string or an exception"),
        ({1: "GRADE: C"}, TypeError, "keys of replies must be strings"),
        ({"x": None}, TypeError, "the reply to 'x' must be a string"),
    ],
)
def test_bad_replies_are_refused_at_construction(replies: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        FakeGrader(replies)


@pytest.mark.parametrize("delay", [-1, float("nan"), float("inf"), "1", True])
def test_bad_delay_is_refused(delay: Any) -> None:
    with pytest.raises(ValueError, match="delay must be a number of seconds"):
        FakeGrader("GRADE: C", delay=delay)


def test_asynchronous_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="asynchronous must be True or False"):
        FakeGrader("GRADE: C", asynchronous="yes")  # type: ignore[call-overload]


def test_prompt_must_be_text() -> None:
    with pytest.raises(TypeError, match="the prompt must be a string"):
        FakeGrader("GRADE: C")(["not", "a", "prompt"])  # type: ignore[arg-type]


def test_repr_shows_the_script_and_the_calls() -> None:
    grader = FakeGrader(["GRADE: C", "GRADE: I"], delay=0.5, asynchronous=True)
    assert repr(grader) == "<FakeGrader 2 replies, asynchronous=True, delay=0.5, 0 calls>"


def test_import_scorebridge_does_not_load_the_testing_module() -> None:
    code = "import sys, scorebridge; print('scorebridge.testing' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
