"""Helpers for testing code that uses scorebridge: `FakeGrader`, a scripted grader model.

Imported only when used (`from scorebridge.testing import FakeGrader`);
`import scorebridge` does not load it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, overload

__all__ = ["FakeGrader"]

Reply = str | BaseException
"""A scripted reply: the text returned, or an exception raised."""
Script = str | Sequence[Reply] | Mapping[str, Reply] | Callable[[str], str]
"""What `FakeGrader` replies from."""


def _check_reply(where: str, reply: object) -> Reply:
    if isinstance(reply, (str, BaseException)):
        return reply
    raise TypeError(f"FakeGrader: {where} must be a string or an exception instance; got {type(reply).__name__}")


class FakeGrader:
    """A grader model with scripted replies, for tests of model-graded scorers.

    `replies` is one of:

    - a string: the reply to every prompt;
    - a list or tuple: the replies in call order, one per call; a call after
      the last raises `LookupError` (under concurrency the call order is the
      order the calls arrive in: use a mapping or a callable when each
      prompt needs its own reply);
    - a mapping of substrings to replies: the reply of the first key (in the
      mapping's order) found in the prompt; "" matches every prompt; no key
      found raises `LookupError`;
    - a callable: `replies(prompt)` is the reply (it must return a string).

    A scripted reply that is an exception instance is raised instead of
    returned, to test a grader that fails.

    `delay` seconds are spent in every call before the reply: `time.sleep` in
    a sync grader, `asyncio.sleep` in an async one, to simulate latency.
    With `asynchronous=True` the grader is async: calling it returns a
    coroutine, and `model_graded_qa()` then scores concurrently.

    It records what it saw: `prompts` (in call order), `calls`, and
    `max_in_flight`, the largest number of calls that were running at once.
    It is thread-safe: DSPy and `score_many` may call it from many threads
    or tasks at a time.
    """

    __slots__ = ("_delay", "_in_flight", "_lock", "_max_in_flight", "_next", "_prompts", "_replies")

    @overload
    def __new__(cls, replies: Script, *, delay: float = ..., asynchronous: Literal[False] = ...) -> FakeGrader: ...
    @overload
    def __new__(cls, replies: Script, *, delay: float = ..., asynchronous: Literal[True]) -> _AsyncFakeGrader: ...
    @overload
    def __new__(cls, replies: Script, *, delay: float = ..., asynchronous: bool) -> FakeGrader: ...
    def __new__(cls, replies: Script, *, delay: float = 0.0, asynchronous: bool = False) -> FakeGrader:
        if not isinstance(asynchronous, bool):
            raise TypeError(f"FakeGrader: asynchronous must be True or False; got {asynchronous!r}")
        grader: FakeGrader = object.__new__(_AsyncFakeGrader if asynchronous else FakeGrader)
        grader._setup(replies, delay)
        return grader

    def _setup(self, replies: Script, delay: float) -> None:
        if isinstance(delay, bool) or not isinstance(delay, (int, float)) or not 0 <= delay < float("inf"):
            raise ValueError(f"FakeGrader: delay must be a number of seconds, 0 or more; got {delay!r}")
        script: str | list[Reply] | dict[str, Reply] | Callable[[str], Any]
        if isinstance(replies, str):
            script = replies
        elif isinstance(replies, Mapping):
            if not replies:
                raise ValueError("FakeGrader: replies is empty; give at least one reply")
            script = {}
            for key, reply in replies.items():
                if not isinstance(key, str):
                    raise TypeError(f"FakeGrader: the keys of replies must be strings; got {type(key).__name__}")
                script[key] = _check_reply(f"the reply to {key!r}", reply)
        elif isinstance(replies, (list, tuple)):
            if not replies:
                raise ValueError("FakeGrader: replies is empty; give at least one reply")
            script = [_check_reply(f"reply {i}", reply) for i, reply in enumerate(replies)]
        elif callable(replies):
            script = replies
        else:
            raise TypeError(
                "FakeGrader: replies must be a string, a list of replies, a mapping of substrings to "
                f"replies, or a callable; got {type(replies).__name__}"
            )
        self._replies = script
        self._delay = float(delay)
        self._lock = threading.Lock()
        self._prompts: list[str] = []
        self._next = 0
        self._in_flight = 0
        self._max_in_flight = 0

    @property
    def prompts(self) -> list[str]:
        """The prompts seen so far, in call order (a copy)."""
        with self._lock:
            return list(self._prompts)

    @property
    def calls(self) -> int:
        """How many times the grader was called."""
        with self._lock:
            return len(self._prompts)

    @property
    def max_in_flight(self) -> int:
        """The largest number of calls that were running at the same time."""
        with self._lock:
            return self._max_in_flight

    @property
    def asynchronous(self) -> bool:
        """True when calling the grader returns a coroutine."""
        return False

    @property
    def delay(self) -> float:
        """The seconds every call waits before it replies."""
        return self._delay

    def __repr__(self) -> str:
        replies = self._replies
        if isinstance(replies, list):
            script = f"{len(replies)} replies"
        elif isinstance(replies, dict):
            script = f"{len(replies)} keyed replies"
        else:
            script = repr(replies) if isinstance(replies, str) else getattr(replies, "__qualname__", "a callable")
        extra = (", asynchronous=True" if self.asynchronous else "") + (f", delay={self._delay}" if self._delay else "")
        return f"<FakeGrader {script}{extra}, {self.calls} calls>"

    def _start(self, prompt: str) -> Reply | None:
        """Record the call and take its scripted reply (None: ask the callable)."""
        if not isinstance(prompt, str):
            raise TypeError(f"FakeGrader: the prompt must be a string; got {type(prompt).__name__}")
        with self._lock:
            self._prompts.append(prompt)
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            replies = self._replies
            if isinstance(replies, str):
                return replies
            if isinstance(replies, list):
                if self._next < len(replies):
                    self._next += 1
                    return replies[self._next - 1]
                return LookupError(f"FakeGrader: ran out of replies after {len(replies)} calls")
            if isinstance(replies, dict):
                for key, reply in replies.items():
                    if key in prompt:
                        return reply
                return LookupError(f"FakeGrader: no scripted reply for the prompt {prompt[:200]!r}")
            return None

    def _finish(self, prompt: str, reply: Reply | None) -> str:
        """The reply of a call, or its scripted exception raised."""
        if reply is None:
            assert callable(self._replies)
            reply = self._replies(prompt)
            if not isinstance(reply, str):
                raise TypeError(f"FakeGrader: the replies callable returned {type(reply).__name__}, not a string")
        if isinstance(reply, BaseException):
            raise reply
        return reply

    def _end(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def __call__(self, prompt: str) -> str:
        """The scripted reply to `prompt`, after `delay` seconds."""
        reply = self._start(prompt)
        try:
            if self._delay:
                time.sleep(self._delay)
            return self._finish(prompt, reply)
        finally:
            self._end()


class _AsyncFakeGrader(FakeGrader):
    """A `FakeGrader` made with `asynchronous=True`: calling it returns a coroutine."""

    __slots__ = ()

    @property
    def asynchronous(self) -> bool:
        return True

    async def __call__(self, prompt: str) -> str:  # type: ignore[override]
        """The scripted reply to `prompt`, after `delay` seconds of `asyncio.sleep`."""
        reply = self._start(prompt)
        try:
            if self._delay:
                await asyncio.sleep(self._delay)
            return self._finish(prompt, reply)
        finally:
            self._end()
