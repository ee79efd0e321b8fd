"""How a model-graded scorer asks its grader: a timeout per call, retries of transient failures, pacing.

A grader is usually an HTTP API that is rate-limited and flaky. Each call is
bounded by a timeout; a call that fails transiently (`transient`: a 429, a
5xx, a dropped connection, a timeout) is tried again after a backoff that
honours the server's Retry-After, as `Retry` allows; a permanent failure (a
400, a 401, a refusal, an error of the grader's own code) is not. The calls
to one grader, from every scorer of this process that uses it, go through one
`Pacer`: it lets fewer calls run at once after a 429 and more again as calls
succeed, and spaces them to an optional rate and to the rate it measures
between 429s. A call slower than the grader's
usual slowest replies gets a second, identical request alongside it (a
"hedge"), and the first reply is used, so a hung request costs about half a
second, not its whole timeout. A batch may set a deadline (`grader_deadline`) after
which no call starts and a running one is given up.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import queue
import threading
import time
from collections import deque
from collections.abc import Awaitable, Iterator
from contextvars import ContextVar
from types import FunctionType, ModuleType
from typing import Any, Final, Literal

from .._protocol.values import is_bool, is_number, shown
from .._protocol.values import seconds as check_seconds

__all__ = [
    "Asker",
    "GraderFailed",
    "Pacer",
    "Retry",
    "TimedOut",
    "call_async",
    "call_sync",
    "check_retry",
    "grader_deadline",
    "pacer_of",
    "retries_unseen",
    "retry_after",
    "transient",
]


class Retry:
    """How a grader call that failed transiently is tried again. Immutable; its arguments are checked.

    - `attempts`: calls at most, the first included (1: never retried); default 8;
    - `seconds`: the most time one row may spend on its grader, its calls and
      the waits between them (a wait that would end past it is not begun:
      the row is recorded as the grader's failure); default 120;
    - `backoff`: the wait before the first retry, doubled before each next
      one, up to `max_backoff` (default 0.25 and 30 s), each wait drawn at
      random between half of it and all of it ("jitter", so calls that failed
      together do not come back together);
    - `hedge`: a call with no reply after this many seconds, or after the
      grader's usual slowest replies when that is later (the 95th percentile
      of its last 100 reply times, once it has given 20), gets a second,
      identical request alongside it; the first reply of the two is used and
      the other request abandoned (default 0.5 s; None: never). A hedge is no
      attempt of its own, and starts only as the grader's pacing lets a call
      start. A hung request then costs about half a second, not the whole
      `timeout`: that matters most where rows run one batch after another
      (a reward batch waits for its slowest row).

    A reply that says when to come back (a `Retry-After` or `retry-after-ms`
    header of a 429 or 503) is waited for instead, plus a jitter of up to
    `backoff`. Failures count as attempts whatever their kind; a 429 also
    lowers the grader's concurrency (`Pacer`).
    """

    __slots__ = ("attempts", "backoff", "hedge", "max_backoff", "seconds")

    attempts: int
    seconds: float
    backoff: float
    max_backoff: float
    hedge: float | None

    def __init__(
        self,
        attempts: int = 8,
        *,
        seconds: float = 120.0,
        backoff: float = 0.25,
        max_backoff: float = 30.0,
        hedge: float | None = 0.5,
    ) -> None:
        if is_bool(attempts) or not isinstance(attempts, int) or attempts < 1:
            raise ValueError(f"Retry: attempts must be a whole number, at least 1; got {shown(attempts)}")
        values = {"seconds": seconds, "backoff": backoff, "max_backoff": max_backoff}
        for name, value in values.items():
            if is_bool(value) or not is_number(value) or not 0 <= float(value) < math.inf:
                raise ValueError(f"Retry: {name} must be a number of seconds, 0 or more; got {shown(value)}")
        if float(max_backoff) < float(backoff):
            raise ValueError(f"Retry: max_backoff ({max_backoff!r}) must be at least backoff ({backoff!r})")
        if hedge is not None and (is_bool(hedge) or not is_number(hedge) or not 0 < float(hedge) < math.inf):
            raise ValueError(f"Retry: hedge must be a number of seconds, more than 0, or None; got {shown(hedge)}")
        object.__setattr__(self, "attempts", attempts)
        for name, value in values.items():
            object.__setattr__(self, name, float(value))
        object.__setattr__(self, "hedge", None if hedge is None else float(hedge))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Retry is immutable; cannot set {name!r} (make another: Retry(...))")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a Retry is immutable; cannot delete {name!r}")

    def _key(self) -> tuple[int, float, float, float, float | None]:
        return (self.attempts, self.seconds, self.backoff, self.max_backoff, self.hedge)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Retry) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"Retry({self.attempts}, seconds={self.seconds:g}, backoff={self.backoff:g}, "
            f"max_backoff={self.max_backoff:g}, hedge={'None' if self.hedge is None else f'{self.hedge:g}'})"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (_remade, self._key())

    def wait(self, failures: int, after: float | None) -> float:
        """Seconds to wait after the `failures`-th failed call; `after` is the server's Retry-After, if any."""
        import random  # here: it imports hashlib, which `import scorebridge` has no need of

        if after is not None:
            return after + random.uniform(0.0, self.backoff)
        step = min(self.max_backoff, self.backoff * 2.0 ** (failures - 1))
        return random.uniform(step / 2, step)


def _remade(attempts: int, seconds: float, backoff: float, max_backoff: float, hedge: float | None = 1.0) -> Retry:
    return Retry(attempts, seconds=seconds, backoff=backoff, max_backoff=max_backoff, hedge=hedge)


NO_RETRY: Final = Retry(1, hedge=None)
"""What `retry=None` means: one call, never retried nor hedged."""


def check_retry(where: str, retry: object) -> Retry:
    """`retry` as a `Retry` (None is one call); anything else a TypeError starting with `where`."""
    if retry is None:
        return NO_RETRY
    if not isinstance(retry, Retry):
        raise TypeError(f"{where}: retry must be a scorebridge.Retry or None; got {shown(retry)}")
    return retry


# --- what failed, and whether to try again -------------------------------------------------------

# Exception type names (anywhere in the type's MRO) that mean a call may succeed if tried again: the openai
# SDK's and LiteLLM's, DSPy's own (LMServerError, ...), httpx's, aiohttp's, and Python's own.
_LIMITED_NAMES: Final = frozenset({"RateLimitError", "LMRateLimitError"})
_TRANSIENT_NAMES: Final = frozenset(
    {
        "LMServerError",
        "LMTimeoutError",
        "LMTransportError",
        "RateLimitError",
        "APIConnectionError",
        "APITimeoutError",
        "InternalServerError",
        "ServiceUnavailableError",
        "BadGatewayError",
        "Timeout",
        "TimeoutException",
        "TimeoutError",
        "TransportError",
        "NetworkError",
        "RemoteProtocolError",
        "ConnectionError",
        "ClientConnectionError",
        "ServerDisconnectedError",
        "ServerTimeoutError",
        "TimedOut",
    }
)
_STATUS_NAMES: Final = ("status_code", "status", "http_status")


def _status(exc: BaseException) -> int | None:
    """The HTTP status an exception carries: its own attribute, or its `response`'s."""
    for holder in (exc, getattr(exc, "response", None)):
        if holder is None:
            continue
        for name in _STATUS_NAMES:
            try:
                value = getattr(holder, name, None)
            except Exception:  # a property that raises (an httpx Response without a request, say)
                continue
            if isinstance(value, int) and not is_bool(value) and 100 <= value <= 599:
                return value
    return None


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """The exception and those it was raised from (`raise ... from`), a grader's wrapping of its client's."""
    seen: set[int] = set()
    at: BaseException | None = exc
    while at is not None and id(at) not in seen and len(seen) < 8:
        seen.add(id(at))
        yield at
        at = at.__cause__


Failure = Literal["limited", "transient", "permanent"]


def transient(exc: BaseException) -> Failure:
    """What a grader call's exception means: "limited" (a 429), "transient" (worth a retry), or "permanent".

    The HTTP status, where the exception or the one it was raised from carries
    one (`status_code` or `status`, or its `response`'s), decides: 429 is
    "limited"; 408, 409, 425 and every 5xx are "transient"; any other 4xx
    (400, 401, 403, 404, 422: a bad request, a key refused, a refusal by a
    content filter) is "permanent". Without a status, the exception's type
    decides, by the names of its classes: the openai SDK's and LiteLLM's
    `RateLimitError` ("limited"), `APIConnectionError`, `APITimeoutError`,
    `InternalServerError`, DSPy's `LMServerError`, `LMTimeoutError` and
    `LMTransportError` (`LMRateLimitError`: "limited"), httpx's `TimeoutException` and `TransportError`,
    aiohttp's connection errors, and Python's `TimeoutError` and
    `ConnectionError` are "transient". Anything else (an error of a grader's
    own code, a refusal the grader raises as a RuntimeError) is "permanent":
    trying again would give the same answer.
    """
    for at in _chain(exc):
        status = _status(at)
        if status is not None:
            if status == 429:
                return "limited"
            return "transient" if status >= 500 or status in (408, 409, 425) else "permanent"
    for at in _chain(exc):
        names = {cls.__name__ for cls in type(at).__mro__}
        if names & _LIMITED_NAMES:
            return "limited"
        if names & _TRANSIENT_NAMES:
            return "transient"
    return "permanent"


_MOST_AFTER: Final = 3600.0  # seconds: a Retry-After beyond an hour is read as an hour


def retry_after(exc: BaseException) -> float | None:
    """The seconds a failed call's server asked to wait (`retry-after-ms`, or `Retry-After` in seconds or as a
    date), from the headers of the exception or its `response`, or a `retry_after` number it carries (DSPy's
    errors); None when it said nothing readable."""
    for at in _chain(exc):
        own = getattr(at, "retry_after", None)
        if isinstance(own, (int, float)) and not is_bool(own) and 0 <= own < math.inf:
            return min(float(own), _MOST_AFTER)
        for holder in (at, getattr(at, "response", None)):
            headers = getattr(holder, "headers", None)
            if headers is None or not hasattr(headers, "get"):
                continue
            try:
                ms = headers.get("retry-after-ms")
                text = headers.get("retry-after")
            except Exception:
                continue
            after = _seconds_of(ms, 1000.0) if ms is not None else None
            if after is None and text is not None:
                after = _seconds_of(text, 1.0)
                if after is None:
                    after = _date_after(text)
            if after is not None:
                return min(after, _MOST_AFTER)
    return None


def _seconds_of(text: object, per_second: float) -> float | None:
    try:
        value = float(str(text).strip()) / per_second
    except ValueError:
        return None
    return value if 0 <= value < math.inf else None


def _date_after(text: object) -> float | None:
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(str(text))
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time())


# --- a client that retries by itself, inside a grader function ------------------------------------


_CLIENT_CALLS: Final = frozenset({"chat", "completions", "responses"})  # what an openai client is called through


def _retries_of(obj: object) -> str | None:
    """How `obj` retries by itself, when it is a client that does ("max_retries=2"), else None."""
    module = obj.__name__ if isinstance(obj, ModuleType) else type(obj).__module__
    root = module.partition(".")[0]
    for package, attribute in (("openai", "max_retries"), ("dspy", "num_retries")):
        if root == package:
            try:
                retries = getattr(obj, attribute, None)
            except Exception:  # a lazy attribute that fails: nothing to say
                return None
            if isinstance(retries, int) and not is_bool(retries) and retries > 0:
                return f"{attribute}={retries}"
    return None


def retries_unseen(grader: object) -> str | None:
    """The client a grader function calls that waits out 429s itself, said in words, or None.

    Looked for where a function's code finds it: its closure's cells and the
    module globals its code names (an `openai.OpenAI` or `AsyncOpenAI` with
    `max_retries` above 0, the SDK's default 2; the `openai` module's own
    client, where the code calls it: `openai.chat...`; a `dspy.LM` with
    `num_retries` above 0). Such a client retries a
    429 after its Retry-After without raising, so the scorer's pacing never
    sees the grader's rate limit, and every batch meets it again. Only plain
    functions are looked into: a callable object (the ready-made graders,
    which turn those retries off) is not.
    """
    if not isinstance(grader, FunctionType):
        return None
    code = grader.__code__
    cells = zip(code.co_freevars, grader.__closure__ or (), strict=True)
    found = [(name, held) for name, cell in cells if (held := _held(cell)) is not None]
    # the openai module counts where the code calls its client (openai.chat..., openai.responses...), not where
    # it only names one of its exceptions
    calls = not _CLIENT_CALLS.isdisjoint(code.co_names)
    found += [
        (name, held)
        for name in code.co_names
        if (held := grader.__globals__.get(name)) is not None and (calls or not isinstance(held, ModuleType))
    ]
    for name, obj in found:
        retries = _retries_of(obj)
        if retries is not None:
            what = "the openai module's client" if isinstance(obj, ModuleType) else type(obj).__name__
            return f"{name} ({what}, {retries})"
    return None


def _held(cell: Any) -> object:
    """What a closure's cell holds; None for a cell not yet assigned."""
    try:
        return cell.cell_contents
    except ValueError:
        return None


# --- the deadline of a batch ---------------------------------------------------------------------

_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("scorebridge_grader_deadline", default=None)
"""The running batch's deadline: its `time.monotonic()` and the seconds it was set for."""


@contextlib.contextmanager
def grader_deadline(limit: float | None) -> Iterator[None]:
    """Within the block, no grader call of a model-graded scorer runs past `limit` seconds from now.

    A call still running then is given up (a sync grader is left on its
    thread), and no retry begins that would end past it: the row is recorded
    as the grader's failure ("grader_failed"), so one hung call cannot hold a
    batch for longer. None sets no deadline (an outer one still holds); a
    deadline inside another keeps the earlier of the two. The deadline is
    a context variable: `score_many`'s rows, which run in copies of the
    caller's context, see it.
    """
    if limit is None:
        yield
        return
    given = float(check_seconds("grader_deadline", limit) or 0.0)
    mine = (time.monotonic() + given, given)
    outer = _DEADLINE.get()
    token = _DEADLINE.set(mine if outer is None or mine[0] < outer[0] else outer)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


# --- pacing: concurrency that adapts to 429s, and a rate ------------------------------------------


class GaveUp(Exception):
    """A grader call given up before it began or while it waited: the batch's deadline or the retries' time."""


_TIMES_KEPT: Final = 100  # the reply times a Pacer keeps: a steady 95th percentile, soon past a slow start
_TIMES_LEAST: Final = 20  # the replies a grader gives before any call of it is hedged
_PACE_SPAN: Final = (1.0, 10.0)  # seconds between two 429s a grader's rate is measured over, least and most
_PACE_GAP: Final = 0.1  # the longest pause in the calls between them, as a share of that time
_PACE_SHARE: Final = 0.95  # the share of the measured rate calls are then paced to
_PACE_GROWTH: Final = 0.01  # and the share of it the pace grows by a second, to find a limit that rose
_PACE_LEAST: Final = 0.5  # requests a second: the slowest pace learned
_PACE_NOISE: Final = 0.05  # the share of the calls between two 429s that may be 429s without cutting a pace
_PACE_FLOOR: Final = 0.5  # the share of the highest rate measured that no later measure paces below


class Pacer:
    """The calls to one grader in this process: how many may run at once, and how fast they may start.

    The limit on calls at once starts unbounded (the caller's concurrency
    bounds them). A 429 halves it, down from the calls running then (to no
    fewer than 1); 429s of calls that began before that cut do not cut it
    again. Each call that succeeds raises it by 1/limit, so by about one per
    limit's worth of calls. With a `rate`, calls start at most `rate` a
    second, evenly spaced. It also learns a pace from the 429s (`_learn`):
    calls then start at most that fast too (`pace`), so a grader's rate
    limit, once met, is kept under rather than met by every batch anew; the
    pace grows slowly from what was learned, and a 429 takes it back. It
    keeps the times of the grader's last replies
    (`took`), which say when a call is slow enough to hedge (`slow_after`).
    Thread-safe, and usable from several event loops: sync callers wait on a
    condition, async ones on a future their loop owns.
    """

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self.limit = math.inf
        self.running = 0
        self.rate: float | None = None
        self._next_start = 0.0
        self._cut_at = -math.inf
        self._waiting: list[tuple[Any, Any]] = []  # (loop, future) of async waiters
        self._took: deque[float] = deque(maxlen=_TIMES_KEPT)
        self._starts: deque[float] = deque()  # when the calls of the last `_PACE_SPAN[1]` seconds began
        self._limited: deque[float] = deque()  # and those of them the grader answered with a 429
        self._learned: tuple[float, float] | None = None  # (requests a second, when learned)
        self._highest = 0.0  # the highest rate measured (requests a second)
        self._warned = False  # whether a warning about the grader was given (`first_warning`)

    def first_warning(self) -> bool:
        """True once, the first time it is asked: a warning about this grader is given once a process (a
        scorer made again with other options, as the CLI's -S makes it, is the same grader)."""
        with self._lock:
            first, self._warned = not self._warned, True
        return first

    def took(self, seconds: float) -> None:
        """A request of the grader gave its reply in `seconds`."""
        with self._lock:
            self._took.append(seconds)

    def slow_after(self) -> float | None:
        """When a reply is slow for this grader: the 95th percentile of its last `_TIMES_KEPT` reply times (so
        about one call in 20 is hedged, whatever the grader's pace); None before it has given `_TIMES_LEAST`."""
        with self._lock:
            if len(self._took) < _TIMES_LEAST:
                return None
            times = sorted(self._took)
        return times[math.ceil(0.95 * len(times)) - 1]

    def slow_to(self, rate: float | None) -> None:
        """Start calls at most `rate` a second (the lowest any scorer of this grader asked for)."""
        if rate is not None:
            with self._lock:
                self.rate = rate if self.rate is None else min(self.rate, rate)

    @property
    def learned(self) -> float | None:
        """The pace learned from the last 429s, before it grew (requests a second); None: none learned yet."""
        with self._lock:
            return None if self._learned is None else self._learned[0]

    @property
    def pace(self) -> float | None:
        """The requests a second calls start at most: the lower of `rate` and the pace learned from 429s
        (which grows by `_PACE_GROWTH` of itself a second since it was learned); None: no limit."""
        with self._lock:
            return self._pace(time.monotonic())

    def _pace(self, now: float) -> float | None:
        if self._learned is None:
            return self.rate
        learned, since = self._learned
        learned *= 1.0 + _PACE_GROWTH * (now - since)
        return learned if self.rate is None else min(self.rate, learned)

    def _admit(self) -> float | None:
        """Under the lock: take a slot and return when the call may start, or None when no slot is free."""
        if self.limit < math.inf and self.running >= max(1, int(self.limit)):
            return None
        self.running += 1
        now = time.monotonic()
        pace = self._pace(now)
        start = now if pace is None else max(now, self._next_start)
        if pace is not None:
            self._next_start = start + 1.0 / pace
        self._starts.append(start)
        while self._starts[0] < start - _PACE_SPAN[1]:
            self._starts.popleft()
        return start

    def _learn(self, began: float) -> None:
        """Under the lock: a call that began at `began` was answered 429. The grader's bucket was empty then
        and at the 429 before (`_PACE_SPAN` seconds earlier): the calls it accepted between the two are what
        it refilled, so its rate is those calls over the time between (whatever its burst). The count says
        too little, and is not used, after a pause in the calls between (longer than `_PACE_GAP` of that
        time: the bucket overflowed). Once a pace is learned, a pair measures again only when more than 1
        call in 20 between was a 429 too (`_PACE_NOISE`): calls at the pace met by the API's 429s for other
        reasons, or by a late start, would otherwise cut it at each pair, 0.95 of the calls' own rate, then
        0.95 of that, down to nothing. No measure paces below half the highest rate measured
        (`_PACE_FLOOR`): 429s that no pace ends cost their retries, not the run. A pace already learned
        stops growing at any 429, back to what was learned: the growth met the limit, and each 429 costs its
        row the server's Retry-After."""
        now = time.monotonic()
        if self._learned is not None:
            self._learned = (self._learned[0], now)
        limited = self._limited
        before = None
        for at in reversed(limited):
            if began - _PACE_SPAN[1] <= at <= began - _PACE_SPAN[0]:
                before = at
                break
        limited.append(began)
        while limited[0] < began - _PACE_SPAN[1]:
            limited.popleft()
        if before is None:
            return
        span = began - before
        starts = [at for at in self._starts if before < at < began]
        gaps = [b - a for a, b in zip([before, *starts], [*starts, began], strict=True)]
        if max(gaps) > _PACE_GAP * span:
            return
        accepted = len(starts) - sum(before < at < began for at in limited)
        if accepted <= 0 or (self._learned is not None and len(starts) - accepted <= _PACE_NOISE * len(starts)):
            return
        rate = accepted / span
        self._highest = max(self._highest, rate)
        self._learned = (max(_PACE_LEAST, _PACE_SHARE * rate, _PACE_FLOOR * self._highest), now)

    def acquire(self, deadline: float | None) -> float:
        """Wait for a slot and the call's turn (sync); the time it began. `GaveUp` at `deadline`."""
        with self._lock:
            while (start := self._admit()) is None:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise GaveUp
                self._lock.wait(left)
        self._sleep_until(start, deadline)
        return start

    def _sleep_until(self, start: float, deadline: float | None) -> None:
        wait = start - time.monotonic()
        if wait > 0:
            if deadline is not None and start > deadline:
                self.release(start, None)
                raise GaveUp
            time.sleep(wait)

    async def aacquire(self, deadline: float | None) -> float:
        """The async twin of `acquire`: the event loop runs on while the call waits."""
        import asyncio

        loop = asyncio.get_running_loop()
        while True:
            with self._lock:
                start = self._admit()
                if start is None:
                    future = loop.create_future()
                    self._waiting.append((loop, future))
            if start is not None:
                break
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                self._forget(future)
                raise GaveUp
            try:
                await asyncio.wait_for(future, left)
            except asyncio.TimeoutError:
                self._forget(future)
                raise GaveUp from None
            except BaseException:
                self._forget(future)
                raise
        wait = start - time.monotonic()
        if wait > 0:
            if deadline is not None and start > deadline:
                self.release(start, None)
                raise GaveUp
            try:
                await asyncio.sleep(wait)
            except BaseException:
                self.release(start, None)
                raise
        return start

    def _forget(self, future: Any) -> None:
        with self._lock:
            self._waiting = [(lp, f) for lp, f in self._waiting if f is not future]

    def release(self, began: float, outcome: Failure | Literal["ok"] | None) -> None:
        """A call that began at `began` is over: "ok", "limited" (a 429), another failure, or None (not run)."""
        with self._lock:
            self.running -= 1
            if outcome == "limited":
                self._learn(began)
            if outcome == "limited" and began >= self._cut_at:
                self.limit = max(1.0, min(self.limit, self.running + 1) / 2)
                self._cut_at = time.monotonic()
            elif outcome == "ok" and self.limit < math.inf:
                self.limit += 1.0 / self.limit
            self._lock.notify_all()
            waiting, self._waiting = self._waiting, []
        for loop, future in waiting:  # each tries again for a slot; those that find none wait again
            with contextlib.suppress(RuntimeError):  # a loop closed meanwhile: nobody waits there
                loop.call_soon_threadsafe(_wake, future)


def _wake(future: Any) -> None:
    if not future.done():
        future.set_result(None)


_PACERS: dict[int, tuple[object, Pacer]] = {}
_PACERS_LOCK: Final = threading.Lock()


def pacer_of(grader: object) -> Pacer:
    """The one `Pacer` of `grader` (the same object) in this process; the grader is kept alive with it."""
    with _PACERS_LOCK:
        held = _PACERS.get(id(grader))
        if held is None or held[0] is not grader:
            held = _PACERS[id(grader)] = (grader, Pacer())
        return held[1]


# --- one call, bounded -------------------------------------------------------------------------


class TimedOut(Exception):
    """A grader call that gave no reply within its time."""


def call_sync(grader: Any, prompt: str, timeout: float | None) -> Any:
    """`grader(prompt)`, a coroutine it returns run to completion; `TimedOut` after `timeout` seconds.

    With a timeout the call runs on a daemon thread of its own (with this
    context's variables, so a DSPy LM set by `dspy.context` is seen): a grader
    that hangs is abandoned there, and never holds the caller or the exit of
    the process.
    """
    if timeout is None:
        reply = grader(prompt)
        if isinstance(reply, Awaitable):  # a sync function that hands back a coroutine
            from .._protocol.sync import run_sync

            reply = run_sync(reply)
        return reply
    box: list[Any] = []
    context = contextvars.copy_context()

    def work() -> None:
        try:
            box.append((True, context.run(call_sync, grader, prompt, None)))
        except BaseException as exc:  # carried back to the caller
            box.append((False, exc))

    thread = threading.Thread(target=work, name="scorebridge-grader", daemon=True)
    thread.start()
    thread.join(timeout)
    if not box:
        raise TimedOut
    ok, result = box[0]
    if not ok:
        raise result
    return result


async def call_async(grader: Any, prompt: str, timeout: float | None) -> Any:
    """The async twin of `call_sync`: the grader's coroutine awaited, cancelled after `timeout` seconds."""
    import asyncio

    async def call() -> Any:
        reply = grader(prompt)
        return await reply if isinstance(reply, Awaitable) else reply

    if timeout is None:
        return await call()
    try:
        return await asyncio.wait_for(call(), timeout)
    except asyncio.TimeoutError:  # an alias of TimeoutError from Python 3.11
        raise TimedOut from None


# --- a slow call hedged: a second request alongside it, the first reply used -----------------------


_FIRST: Final = "first"
_HEDGE: Final = "hedge"


def _called(
    who: str, grader: Any, prompt: str, context: contextvars.Context, began: float, replies: queue.SimpleQueue[Any]
) -> None:
    """One request of a race, on its own thread: (who, True, reply, seconds it took) or (who, False, exception, 0)."""
    try:
        reply = context.run(call_sync, grader, prompt, None)
    except BaseException as exc:  # carried back to the caller
        replies.put((who, False, exc, 0.0))
        return
    replies.put((who, True, reply, time.monotonic() - began))


class _Race:
    """A sync call and, once it is slow (`Asker.hedge_due`), its hedge: each on a daemon thread.

    The first reply of the two wins. A failure of the first request waits
    for the hedge. A failure of the hedge ends the attempt with it (as
    `HedgeFailed`), the slow first request abandoned: it is most likely hung,
    and the row's retry, after its backoff or the server's Retry-After, costs
    less than waiting out the timeout for it. The
    first request's pacer slot is the caller's (released with the attempt's
    outcome); the hedge's is the race's, released when the hedge fails or the
    race ends, whichever comes first (a hedge admitted after the race ended
    releases its own at once).
    """

    __slots__ = ("asker", "began", "end", "hedge_began", "lock", "over", "prompt", "replies")

    def __init__(self, asker: Asker, prompt: str, began: float, limit: float | None) -> None:
        self.asker, self.prompt, self.began = asker, prompt, began
        self.end = None if limit is None else began + limit
        self.replies: queue.SimpleQueue[tuple[str, bool | None, Any, float]] = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.over = False
        self.hedge_began: float | None = None

    def _hedge(self, context: contextvars.Context) -> None:
        try:
            began = self.asker.pacer.acquire(self.end)
        except GaveUp:
            self.replies.put((_HEDGE, None, None, 0.0))  # no hedge: the first request alone decides
            return
        with self.lock:
            if self.over:
                self.asker.pacer.release(began, None)
                return
            self.hedge_began = began
        _called(_HEDGE, self.asker.grader, self.prompt, context, began, self.replies)

    def _settle(self, outcome: Failure | None, over: bool = False) -> None:
        """The hedge's slot given back (once), with `outcome`; `over`: the race has ended."""
        with self.lock:
            self.over = self.over or over
            began, self.hedge_began = self.hedge_began, None
        if began is not None:
            self.asker.pacer.release(began, outcome)

    def run(self) -> tuple[Any, float]:
        """The first reply and the seconds its request took; the first request's failure, or `TimedOut`."""
        args = (self.asker.grader, self.prompt, contextvars.copy_context(), self.began, self.replies)
        threading.Thread(target=_called, args=(_FIRST, *args), name="scorebridge-grader", daemon=True).start()
        running, hedged = 1, False
        look: float | None = self.asker.hedge_due(self.began, self.began)
        failure: BaseException | None = None
        try:
            while True:
                until = _until(self.end, None if hedged else look)
                wait = None if until is None else max(0.0, until - time.monotonic())
                try:
                    who, ok, value, took = self.replies.get(timeout=wait)
                except queue.Empty:
                    now = time.monotonic()
                    if hedged or (self.end is not None and now >= self.end):
                        raise failure if failure is not None else TimedOut() from None
                    look = self.asker.hedge_due(self.began, now)
                    if look > now:
                        continue
                    hedge = threading.Thread(
                        target=self._hedge, args=(contextvars.copy_context(),), name="scorebridge-grader", daemon=True
                    )
                    hedge.start()
                    running, hedged = running + 1, True
                    continue
                running -= 1
                if ok:
                    return value, took
                if ok is False:
                    if who == _HEDGE:
                        self._settle(transient(value) if isinstance(value, Exception) else "permanent")
                        if isinstance(value, Exception):
                            raise HedgeFailed(value) from value
                    else:
                        failure = value
                if running == 0 and failure is not None:
                    raise failure
        finally:
            self._settle(None, over=True)


class HedgeFailed(Exception):
    """A call's hedge failed while its first request was still unanswered: the attempt fails with the
    hedge's failure (`failure`), which says whether and when to try again."""

    def __init__(self, failure: Exception) -> None:
        super().__init__(str(failure))
        self.failure = failure


def _until(end: float | None, look: float | None) -> float | None:
    """The earlier of a call's end and the time to look again whether to hedge it (None: no such time)."""
    if end is None or look is None:
        return look if end is None else end
    return min(end, look)


async def _arace(asker: Asker, prompt: str, began: float, limit: float | None) -> tuple[Any, float]:
    """The async twin of `_Race.run`: the call and, once it is slow, its hedge, as tasks."""
    import asyncio

    end = None if limit is None else began + limit

    async def request(start: float) -> tuple[Any, float]:
        reply = asker.grader(prompt)
        if isinstance(reply, Awaitable):
            reply = await reply
        return reply, time.monotonic() - start

    async def hedge() -> tuple[Any, float]:
        start = await asker.pacer.aacquire(end)
        outcome: Failure | None = None
        try:
            return await request(start)
        except Exception as exc:
            outcome = transient(exc)
            raise
        finally:
            asker.pacer.release(start, outcome)

    first = asyncio.ensure_future(request(began))
    tasks: set[asyncio.Future[tuple[Any, float]]] = {first}
    hedged = False
    look = asker.hedge_due(began, began)
    failure: BaseException | None = None
    try:
        while True:
            until = _until(end, None if hedged else look)
            wait = None if until is None else max(0.0, until - time.monotonic())
            done, _ = await asyncio.wait(tasks, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
            if not done:
                now = time.monotonic()
                if hedged or (end is not None and now >= end):
                    raise failure if failure is not None else TimedOut()
                look = asker.hedge_due(began, now)
                if look > now:
                    continue
                tasks.add(asyncio.ensure_future(hedge()))
                hedged = True
                continue
            tasks -= done
            won = [task for task in done if task.exception() is None]  # every exception read: none left unseen
            if won:
                reply: tuple[Any, float] = won[0].result()
                return reply
            for task in done:
                exc = task.exception()
                if task is first:
                    failure = exc
                elif not isinstance(exc, GaveUp) and isinstance(exc, Exception):
                    raise HedgeFailed(exc) from exc
            if not tasks and failure is not None:
                raise failure
    finally:
        for task in tasks:
            task.cancel()


# --- asking: the calls of one row, retried -------------------------------------------------------


class GraderFailed(Exception):
    """A row's grader gave no reply: `why` is its `grader_failed` text, `explanation` the Score's."""

    def __init__(self, why: str, explanation: str) -> None:
        super().__init__(why)
        self.why = why
        self.explanation = explanation


class _Row:
    """The attempts of one row's grader call: when each may run till, and what a failure leads to."""

    __slots__ = ("asker", "end", "failures", "first", "last_why", "limit")

    def __init__(self, asker: Asker) -> None:
        self.asker = asker
        self.first = time.monotonic()
        self.end = _DEADLINE.get()  # (monotonic end, seconds) of the batch, or None
        self.failures = 0
        self.last_why: tuple[str, str] | None = None
        self.limit: float | None = None

    @property
    def deadline(self) -> float | None:
        return None if self.end is None else self.end[0]

    def call_limit(self) -> float | None:
        """The timeout of the call about to start: the scorer's, or less when the batch's deadline is nearer."""
        timeout = self.asker.timeout
        if self.end is not None:
            left = max(0.0, self.end[0] - time.monotonic())
            if timeout is None or left < timeout:
                self.limit = left
                return left
        self.limit = None
        return timeout

    def failed(self, exc: Exception, began: float) -> float:
        """A call that began at `began` raised `exc`: the seconds to wait before the next, or GraderFailed."""
        asker = self.asker
        late = False
        slot: Failure | None = None  # the outcome the first request's pacer slot is given back with
        if isinstance(exc, TimedOut):
            kind: Failure = "transient"
            late = self.limit is not None and self.end is not None
            if late:
                why = f"the batch's deadline of {self.end[1]:g} s passed with the grader's call unanswered"  # type: ignore[index]
            else:
                why = f"the grader gave no reply within {asker.timeout:g} s"
            self.last_why = (why, why)
        else:
            if isinstance(exc, HedgeFailed):  # the hedge's slot given back with its own failure already
                exc, slot = exc.failure, "transient"
            kind = transient(exc)
            error = f"{type(exc).__name__}: {exc}"
            self.last_why = (error, f"the grader raised {error}")
        asker.pacer.release(began, slot or kind)
        self.failures += 1
        retry = asker.retry
        if kind == "permanent" or late or self.failures >= retry.attempts:
            raise self.given_up()
        wait = retry.wait(self.failures, None if isinstance(exc, TimedOut) else retry_after(exc))
        resume = time.monotonic() + wait
        if resume > self.first + retry.seconds or (self.deadline is not None and resume >= self.deadline):
            raise self.given_up()
        return wait

    def given_up(self) -> GraderFailed:
        """The row's failure: the last call's, with how many were made when more than one."""
        if self.last_why is None:
            why = (
                f"the batch's deadline of {self.end[1]:g} s passed before the grader was asked"
                if self.end is not None
                else "the grader was not asked"
            )
            return GraderFailed(why, why)
        why, explanation = self.last_why
        if self.failures > 1:
            spent = time.monotonic() - self.first
            note = f" (the last of {self.failures} attempts over {spent:.1f} s)"
            why, explanation = why + note, explanation + note
        return GraderFailed(why, explanation)


class Asker:
    """How one model-graded scorer asks its grader: a call bounded by `timeout`, retried as `retry` allows,
    paced by the grader's `Pacer`, its reply kept in `cache` (a `GraderCache`) when one is given."""

    __slots__ = ("cache", "grader", "pacer", "retry", "timeout")

    def __init__(self, grader: Any, timeout: float | None, retry: Retry, rate: float | None, cache: Any) -> None:
        self.grader = grader
        self.timeout = timeout
        self.retry = retry
        self.pacer = pacer_of(grader)
        self.pacer.slow_to(rate)
        self.cache = cache

    def ask(self, prompt: str) -> tuple[Any, bool]:
        """The grader's reply to `prompt` and whether it came from the cache; `GraderFailed` when none came."""
        if self.cache is not None:
            hit = self.cache.get(self.grader, prompt)
            if hit is not None:
                return hit, True
        row = _Row(self)
        while True:
            try:
                began = self.pacer.acquire(row.deadline)
            except GaveUp:
                raise row.given_up() from None
            try:
                limit = row.call_limit()
                if self.retry.hedge is None:
                    reply = call_sync(self.grader, prompt, limit)
                    took = time.monotonic() - began
                else:
                    reply, took = _Race(self, prompt, began, limit).run()
            except Exception as exc:
                time.sleep(row.failed(exc, began))
                continue
            except BaseException:
                self.pacer.release(began, None)
                raise
            return self._answered(prompt, reply, began, took), False

    async def aask(self, prompt: str) -> tuple[Any, bool]:
        """The async twin of `ask`."""
        import asyncio

        if self.cache is not None:
            hit = await asyncio.to_thread(self.cache.get, self.grader, prompt)
            if hit is not None:
                return hit, True
        row = _Row(self)
        while True:
            try:
                began = await self.pacer.aacquire(row.deadline)
            except GaveUp:
                raise row.given_up() from None
            try:
                limit = row.call_limit()
                if self.retry.hedge is None:
                    reply = await call_async(self.grader, prompt, limit)
                    took = time.monotonic() - began
                else:
                    reply, took = await _arace(self, prompt, began, limit)
            except Exception as exc:
                await asyncio.sleep(row.failed(exc, began))
                continue
            except BaseException:
                self.pacer.release(began, None)
                raise
            return self._answered(prompt, reply, began, took), False

    def hedge_due(self, began: float, now: float) -> float:
        """When a call that began at `began`, unanswered at `now`, gets its hedge: `Retry.hedge` seconds in, or
        later as long as the grader's replies are usually slower (`Pacer.slow_after`). Before the grader has
        given enough replies to know, a time `Retry.hedge` from now, to look again then."""
        floor = self.retry.hedge or 0.0
        slow = self.pacer.slow_after()
        if slow is None:
            return max(began, now) + floor
        return began + max(floor, slow)

    def _answered(self, prompt: str, reply: Any, began: float, took: float) -> Any:
        self.pacer.took(took)
        self.pacer.release(began, "ok")
        if self.cache is not None and isinstance(reply, str):
            self.cache.put(self.grader, prompt, reply)
        return reply
