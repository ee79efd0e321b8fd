"""Model-graded scoring against a real, rate-limited, flaky grader API (tests/grader_server.py on 127.0.0.1).

Before, a grader call that failed with a 429, a 500 or a hang left its row
unscored, so the accuracy changed from run to run (5.7% of rows lost with the
openai SDK's defaults, 80% with bare httpx), and the rows lost were counted
with the rows that have no label. Now scorebridge retries transient failures
itself (`Retry`), paces the calls to one grader (`Pacer`), and counts a row
whose retries are spent as `Summary.grader_failed`.

The server here is the small, fast profile: 20 ms a reply, 100 requests/s
with a burst of 10 (429 with Retry-After 0.2 s beyond), 10% 500s and 2% held
3 s against a 1 s timeout. benchmarks/bench_grader_api.py runs the full one.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from typing import Any

import httpx
import openai
import pytest
from grader_server import FAST, GraderServer, connections, grade

import scorebridge as sb
from scorebridge._scorers.grader_calls import Pacer, pacer_of, retry_after, transient
from scorebridge.kit import GRADER_FAILED, grader_deadline
from scorebridge.testing import FakeGrader

ROWS = 120
UNLABELLED = 12  # every tenth row has no label
OUTPUTS = [f"answer {i}" for i in range(ROWS)]
LABELS = [None if i % 10 == 0 else f"answer {i}" for i in range(ROWS)]
QUICK = sb.Retry(8, seconds=30, backoff=0.05, max_backoff=0.5)


def _response(status: int, headers: dict[str, str] | None = None) -> Any:
    import httpx2  # the openai SDK's own copy of httpx

    return httpx2.Response(status, headers=headers, request=httpx2.Request("POST", "http://127.0.0.1/v1"))


def _status_error(cls: type[openai.APIStatusError], status: int, **headers: str) -> openai.APIStatusError:
    return cls("failed", response=_response(status, headers), body=None)


def openai_grader(url: str) -> Callable[[str], str]:
    client = openai.OpenAI(base_url=url, api_key="test-key")  # the SDK's defaults: 2 retries, 600 s timeout

    def ask(prompt: str) -> str:
        reply = client.chat.completions.create(model="grader", messages=[{"role": "user", "content": prompt}])
        return reply.choices[0].message.content or ""

    return ask


def httpx_grader(url: str) -> Callable[[str], str]:
    client = httpx.Client(base_url=url)  # bare httpx: no retry of its own

    def ask(prompt: str) -> str:
        reply = client.post("/chat/completions", json={"model": "g", "messages": [{"role": "user", "content": prompt}]})
        reply.raise_for_status()
        return str(reply.json()["choices"][0]["message"]["content"])

    return ask


def expected(scores: list[sb.Score]) -> int:
    """How many rows the server's grades make correct: every labelled row graded, as `grade` grades it."""
    return sum(grade(s.metadata["prompt"]) == "C" for s, label in zip(scores, LABELS, strict=True) if label)


@pytest.fixture
def server() -> Iterator[GraderServer]:
    with GraderServer(**FAST, lifetime=60) as running:  # type: ignore[arg-type]
        yield running


# --- what is retried --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "exc",
    [
        _status_error(openai.InternalServerError, 500),
        _status_error(openai.InternalServerError, 503),
        openai.APIConnectionError(request=_response(500).request),
        openai.APITimeoutError(request=_response(500).request),
        httpx.ConnectError("refused"),
        httpx.ReadTimeout("slow"),
        httpx.RemoteProtocolError("dropped"),
        httpx.HTTPStatusError("bad gateway", request=httpx.Request("GET", "http://x"), response=httpx.Response(502)),
        TimeoutError("slow"),
        ConnectionResetError("reset"),
    ],
    ids=repr,
)
def test_5xx_connection_errors_and_timeouts_are_transient(exc: BaseException) -> None:
    assert transient(exc) == "transient"


@pytest.mark.parametrize(
    "exc",
    [
        _status_error(openai.RateLimitError, 429),
        httpx.HTTPStatusError("slow down", request=httpx.Request("GET", "http://x"), response=httpx.Response(429)),
    ],
    ids=repr,
)
def test_a_429_is_a_rate_limit(exc: BaseException) -> None:
    assert transient(exc) == "limited"


@pytest.mark.parametrize(
    "exc",
    [
        _status_error(openai.BadRequestError, 400),
        _status_error(openai.AuthenticationError, 401),
        httpx.HTTPStatusError("no key", request=httpx.Request("GET", "http://x"), response=httpx.Response(401)),
        RuntimeError("the grader model refused"),
        ValueError("a bug in the grader"),
    ],
    ids=repr,
)
def test_a_bad_request_a_refused_key_or_a_refusal_is_permanent(exc: BaseException) -> None:
    assert transient(exc) == "permanent"


def test_a_grader_error_raised_from_a_clients_429_is_a_rate_limit() -> None:
    # a grader of one's own that wraps its client's error (`raise ... from exc`) is read through the cause
    try:
        try:
            raise _status_error(openai.RateLimitError, 429)
        except openai.RateLimitError as inner:
            raise RuntimeError("grading failed") from inner
    except RuntimeError as outer:
        assert transient(outer) == "limited"


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [({"Retry-After": "2"}, 2.0), ({"retry-after-ms": "250"}, 0.25), ({"Retry-After": "soon"}, None), ({}, None)],
)
def test_retry_after_is_read_in_seconds_or_milliseconds(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after(_status_error(openai.RateLimitError, 429, **headers)) == seconds


def test_retry_after_as_a_date_is_the_seconds_until_it() -> None:
    when = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=30), usegmt=True)
    after = retry_after(_status_error(openai.RateLimitError, 429, **{"Retry-After": when}))
    assert after is not None and 25 <= after <= 30


def test_a_permanent_failure_is_asked_once() -> None:
    grader = FakeGrader([_status_error(openai.AuthenticationError, 401), "GRADE: C"])
    score = sb.model_graded_qa(grader, retry=QUICK)("q", "Paris", "Paris")
    assert (grader.calls, score.correct, score.metadata[GRADER_FAILED]) == (1, None, "AuthenticationError: failed")


def test_a_timed_out_call_is_tried_again() -> None:
    calls: list[float] = []

    def slow_once(prompt: str) -> str:
        calls.append(time.monotonic())
        if len(calls) == 1:
            time.sleep(2)
        return "GRADE: C"

    score = sb.model_graded_qa(slow_once, timeout=0.2, retry=QUICK)("q", "Paris", "Paris")
    assert (score.correct, len(calls)) == (True, 2)


def test_retry_after_is_waited_for_before_the_next_call() -> None:
    starts: list[float] = []

    def limited_once(prompt: str) -> str:
        starts.append(time.monotonic())
        if len(starts) == 1:
            raise _status_error(openai.RateLimitError, 429, **{"Retry-After": "0.5"})
        return "GRADE: C"

    score = sb.model_graded_qa(limited_once, retry=QUICK)("q", "Paris", "Paris")
    assert score.correct is True and starts[1] - starts[0] >= 0.5


def test_each_backoff_doubles_and_is_drawn_between_half_of_it_and_all_of_it() -> None:
    # jitter: calls that failed together (a 500 burst) must not come back together
    retry = sb.Retry(8, backoff=0.25, max_backoff=30)
    for failures, step in [(1, 0.25), (2, 0.5), (3, 1.0), (4, 2.0)]:
        waits = [retry.wait(failures, None) for _ in range(200)]
        assert step / 2 <= min(waits) and max(waits) <= step and max(waits) - min(waits) > step / 4


def test_backoff_stops_growing_at_max_backoff() -> None:
    waits = [sb.Retry(20, backoff=1, max_backoff=4).wait(12, None) for _ in range(50)]
    assert min(waits) >= 2 and max(waits) <= 4


def test_a_servers_retry_after_is_waited_for_with_a_jitter_of_at_most_one_backoff() -> None:
    waits = [sb.Retry(backoff=0.25).wait(1, 3.0) for _ in range(200)]
    assert min(waits) >= 3.0 and max(waits) <= 3.25


def test_a_row_gives_up_before_a_wait_that_would_end_past_its_retry_seconds() -> None:
    # Retry.seconds bounds a row's time on its grader: a Retry-After of 5 s is not waited for with 1 s left
    grader = FakeGrader([_status_error(openai.RateLimitError, 429, **{"Retry-After": "5"}), "GRADE: C"])
    began = time.monotonic()
    score = sb.model_graded_qa(grader, retry=sb.Retry(8, seconds=1, hedge=None))("q", "Paris", "Paris")
    assert (grader.calls, score.correct) == (1, None) and time.monotonic() - began < 1
    assert score.metadata[GRADER_FAILED] == "RateLimitError: failed"


def test_the_default_timeout_is_thirty_seconds_as_for_an_http_api() -> None:
    # it was 300 s, which never fired against a server holding a request for 60 s
    assert sb.model_graded_qa(FakeGrader("GRADE: C")).options["timeout"] == 30


# --- a slow call hedged -------------------------------------------------------------------------


class HangsOnRome:
    """A grader that answers at once, except its first request about Rome, which hangs until released
    (and those `fails` says, which are answered 500)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.rome = 0
        self.lock = threading.Lock()

    def hangs(self, prompt: str) -> bool:
        with self.lock:
            if "Rome" not in prompt:
                return False
            self.rome += 1
            return self.rome == 1

    def fails(self, prompt: str) -> bool:
        return False


def sync_grader(hung: HangsOnRome) -> Callable[[str], str]:
    def grader(prompt: str) -> str:
        if hung.hangs(prompt):
            hung.release.wait(30)
        if hung.fails(prompt):
            raise _status_error(openai.InternalServerError, 500)
        return "GRADE: C"

    return grader


def async_grader(hung: HangsOnRome) -> Callable[[str], Any]:
    import asyncio

    async def grader(prompt: str) -> str:
        if hung.hangs(prompt):
            await asyncio.sleep(30)
        if hung.fails(prompt):
            raise _status_error(openai.InternalServerError, 500)
        return "GRADE: C"

    return grader


def graded_rome(scorer: sb.Scorer, hung: HangsOnRome, *, warm: bool) -> tuple[sb.Score, float]:
    """The row about Rome graded (after 22 other rows when `warm`: the grader's pace known), and its seconds."""
    import asyncio

    try:
        if warm:
            scorer.score_many(None, OUTPUTS[1:25], LABELS[1:25], concurrency=4)
        start = time.monotonic()
        [score] = asyncio.run(scorer.ascore_many(["q"], ["Rome"], ["Rome"]))
        return score, time.monotonic() - start
    finally:
        hung.release.set()


@pytest.mark.parametrize("make", [sync_grader, async_grader], ids=["sync", "async"])
def test_a_hung_request_of_a_fast_grader_is_hedged_within_about_half_a_second(make: Callable[..., Any]) -> None:
    # Before, a hung request cost its row the whole timeout; reward batches run one after another, so each
    # hang added its timeout to the wall time (2.3x the rate-limit ideal in bench_grader_api.py's to_trl path).
    hung = HangsOnRome()
    score, elapsed = graded_rome(sb.model_graded_qa(make(hung), timeout=20, retry=QUICK), hung, warm=True)
    assert (score.correct, hung.rome) == (True, 2) and 0.5 <= elapsed < 5.0  # the hedge's reply, not the 20 s


class HedgeFailsOnRome(HangsOnRome):
    """As HangsOnRome, and the second request about Rome (the hedge) is answered 500."""

    def fails(self, prompt: str) -> bool:
        with self.lock:
            return "Rome" in prompt and self.rome == 2


@pytest.mark.parametrize("make", [sync_grader, async_grader], ids=["sync", "async"])
def test_a_failed_hedge_of_a_hung_request_is_retried_without_waiting_out_the_timeout(
    make: Callable[..., Any],
) -> None:
    # Before, a hedge answered 500 left its row waiting on the hung first request until the timeout: a
    # reward batch of 6.4 s against 2 s for the rest in bench_grader_api.py's to_trl path.
    hung = HedgeFailsOnRome()
    score, elapsed = graded_rome(sb.model_graded_qa(make(hung), timeout=20, retry=QUICK), hung, warm=True)
    assert (score.correct, hung.rome) == (True, 3) and elapsed < 5.0  # the hedge's 500, then a retry


def test_no_request_is_hedged_before_the_grader_has_shown_its_pace() -> None:
    # A grader that has given few replies may just be slow (a chat model thinking): no second request yet.
    hung = HangsOnRome()
    scorer = sb.model_graded_qa(sync_grader(hung), timeout=1.5, retry=sb.Retry(2, backoff=0.01, max_backoff=0.02))
    score, elapsed = graded_rome(scorer, hung, warm=False)
    assert (score.correct, hung.rome) == (True, 2) and elapsed >= 1.5  # its timeout, then the retry


def test_hedge_none_never_sends_a_second_request_alongside() -> None:
    hung = HangsOnRome()
    scorer = sb.model_graded_qa(sync_grader(hung), timeout=2.5, retry=sb.Retry(2, backoff=0.01, hedge=None))
    score, elapsed = graded_rome(scorer, hung, warm=True)
    assert (score.correct, hung.rome) == (True, 2) and elapsed >= 2.5  # the timeout, then the retry


def test_a_reply_is_slow_past_the_95th_percentile_of_the_graders_last_hundred() -> None:
    pacer = Pacer()
    for _ in range(18):
        pacer.took(0.1)
    pacer.took(4.0)  # a hung request, say
    assert pacer.slow_after() is None  # 19 replies: too few to know
    pacer.took(0.1)
    assert pacer.slow_after() == pytest.approx(0.1)  # one slow reply in 20 is the tail, not the pace
    for _ in range(100):
        pacer.took(0.3)
    assert pacer.slow_after() == pytest.approx(0.3)  # the older replies no longer count


# --- Retry, the value ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        {"attempts": 0},
        {"attempts": 2.5},
        {"attempts": True},
        {"seconds": -1},
        {"backoff": float("nan")},
        {"hedge": 0},
        {"hedge": "soon"},
    ],
    ids=repr,
)
def test_retry_refuses_a_bad_argument_naming_it(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=f"Retry: {next(iter(bad))}"):
        sb.Retry(**bad)


def test_retry_is_immutable_equal_by_value_and_pickles() -> None:
    retry = sb.Retry(3, seconds=10)
    with pytest.raises(AttributeError, match="immutable"):
        retry.attempts = 5  # type: ignore[misc]
    assert retry == sb.Retry(3, seconds=10) != sb.Retry(4, seconds=10)
    assert pickle.loads(pickle.dumps(retry)) == retry


def test_a_retry_that_is_no_retry_is_a_type_error_naming_the_scorer() -> None:
    with pytest.raises(TypeError, match=r"model_graded_qa: retry must be a scorebridge\.Retry"):
        sb.model_graded_qa(FakeGrader("GRADE: C"), retry=3)  # type: ignore[arg-type]


# --- pacing --------------------------------------------------------------------------------------


def test_a_429_halves_the_calls_at_once_and_successes_bring_them_back() -> None:
    pacer = Pacer()
    began = [pacer.acquire(None) for _ in range(8)]
    pacer.release(began[0], "limited")  # 7 running then: the limit is (7 + 1) / 2
    assert pacer.limit == 4
    pacer.release(began[1], "limited")  # began before the cut: the same overload, no second cut
    assert pacer.limit == 4
    for b in began[2:]:
        pacer.release(b, "ok")
    assert 5 < pacer.limit < 6  # 1/limit per success


def _paced(monkeypatch: pytest.MonkeyPatch, starts: list[float], limited: set[float]) -> float | None:
    """A Pacer's pace after calls started at `starts` (on a clock of the test's), those at `limited` 429s."""
    clock = [0.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    pacer = Pacer()
    for at in starts:
        clock[0] = at
        pacer.release(pacer.acquire(None), "limited" if at in limited else "ok")
    return pacer.pace


EVERY_50TH = [i / 50 for i in range(76)]  # calls at 50 a second for 1.5 s
OVER_THE_LIMIT = {0.0, 0.6, 0.7, 0.8, 0.9, 1.5}  # 429s: a pair 1.5 s apart, and 4 of the 74 calls between


def test_the_pace_is_the_calls_accepted_between_two_429s_over_the_time_between(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pace = _paced(monkeypatch, EVERY_50TH, OVER_THE_LIMIT)
    assert pace == pytest.approx(0.95 * 70 / 1.5)  # the 70 accepted between, over 1.5 s, and a margin of 5%


def test_no_pace_is_learned_across_a_pause_in_the_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    # the API's allowance fills up during a pause (a reward batch's tail), so the calls accepted after it
    # say more than its rate: none is learned
    starts = [at for at in EVERY_50TH if not 0.9 < at < 1.2]  # no call for 0.3 s of the 1.5
    assert _paced(monkeypatch, starts, OVER_THE_LIMIT) is None


def test_a_learned_pace_is_not_cut_where_1_call_in_20_or_fewer_between_two_429s_was_a_429(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # an API's 429s that no rate explains (a busy server), or calls that keep to the pace but for a late
    # start, cut the pace at each pair of 429s: 0.95 of the calls' own rate, then 0.95 of that, down to nothing
    later = [10 + i / 40 for i in range(61)]  # 40 calls a second, under the pace, a 429 at 10 and 11.5 s
    pace = _paced(monkeypatch, EVERY_50TH + later, OVER_THE_LIMIT | {10.0, 11.5})
    assert pace == pytest.approx(0.95 * 70 / 1.5)  # not 0.95 * 59 / 1.5


def test_no_measure_paces_below_half_the_highest_rate_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    # 429s that go on whatever the pace (every 7th request, say) measured each slower pace again, down to
    # 0.5 requests a second: 5x slower than the same calls without pacing, for a new user's server
    later = [20 + i / 10 for i in range(16)]  # 10 calls a second, a 429 at 20, 20.7 and 21.5 s: 8.7 a second
    pace = _paced(monkeypatch, EVERY_50TH + later, OVER_THE_LIMIT | {20.0, 20.7, 21.5})
    assert pace == pytest.approx(0.5 * 70 / 1.5)  # not 0.95 * 13 / 1.5


def test_a_429_takes_a_grown_pace_back_to_the_pace_learned(monkeypatch: pytest.MonkeyPatch) -> None:
    # the pace grows 1% a second to find a limit that rose; once above the limit, each 429 cost its row the
    # server's Retry-After until a second 429 measured the rate again
    pace = _paced(monkeypatch, [*EVERY_50TH, 31.5], OVER_THE_LIMIT | {31.5})  # a 429 30 s after the pace
    assert pace == pytest.approx(0.95 * 70 / 1.5)  # not 1.3 times it


def test_a_graders_rate_is_learned_from_its_429s_and_later_calls_keep_under_it() -> None:
    # Before, only the calls at once adapted: each reward batch met the rate limit anew, and each 429 cost
    # its row the server's Retry-After on the batch's critical path (1.66x the ideal in bench_grader_api.py).
    # The grader is the ready-made one, which sees every 429 (a function over a client that retries by
    # itself hides most of them: docs/model_graded.md).
    # 25 requests/s with a burst of 5: a client on a loaded machine starts its calls up to 200 ms late and
    # then together, and a 429 answers that, not its pace (at 50/s and 100 ms, 5 to 7 later 429s in a
    # loaded run, against 11 to 15 while learning)
    rows = 200
    with GraderServer(delay=0.02, rate=25.0, burst=5, retry_after=0.2, lifetime=60) as server:
        grader = sb.openai_grader(openai.OpenAI(base_url=server.url, api_key="test-key"), model="grader")
        scorer = sb.model_graded_qa(grader, retry=QUICK)
        scorer.score_many(None, [f"a{i}" for i in range(rows)], ["a"] * rows, concurrency=16)
        learning = server.statuses[429]
        scorer.score_many(None, [f"b{i}" for i in range(rows)], ["b"] * rows, concurrency=16)
        later = server.statuses[429] - learning
    learned = pacer_of(grader).learned
    assert learned is not None and 20 <= learned <= 25  # 0.95 of the server's 25 a second, as measured here
    # the pace grows 1% a second from it to find a raised limit, so the later calls may meet the limit now
    # and then: a 429 at most (0 or 1 in 8 runs beside this file's and the paths' tests, against 18 to 27
    # while learning)
    assert learning > 0 and later * 4 <= learning


def test_rate_spaces_the_calls_of_every_scorer_of_one_grader() -> None:
    starts: list[float] = []
    lock = threading.Lock()

    def grader(prompt: str) -> str:
        with lock:
            starts.append(time.monotonic())
        return "GRADE: C"

    qa = sb.model_graded_qa(grader, rate=20)
    fact = sb.model_graded_fact(grader, rate=20)
    runs = [
        threading.Thread(target=s.score_many, args=(None, OUTPUTS[1:9], LABELS[1:9]), kwargs={"concurrency": 8})
        for s in (qa, fact)
    ]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    # 16 calls at 20 a second, whichever scorer made them: 15 gaps of 50 ms at least (two rates of their own
    # would take half that). A late thread may start its call late, never early.
    assert len(starts) == 16 and max(starts) - min(starts) >= 15 / 20 - 0.01


def test_a_batch_deadline_gives_up_a_hung_call() -> None:
    release = threading.Event()
    scorer = sb.model_graded_qa(lambda prompt: release.wait(60) and "GRADE: C", timeout=30)
    try:
        with grader_deadline(0.5):
            scores = scorer.score_many(None, ["Paris"] * 4, ["Paris"] * 4, concurrency=4)
    finally:
        release.set()
    assert {s.metadata[GRADER_FAILED] for s in scores} == {
        "the batch's deadline of 0.5 s passed with the grader's call unanswered"
    }


# --- against the server ------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:model_graded_qa. the grader calls:UserWarning")  # a client retrying by itself
@pytest.mark.parametrize("make", [openai_grader, httpx_grader], ids=["openai-sdk", "bare-httpx"])
def test_no_labelled_row_is_lost_to_429s_500s_or_hangs(server: GraderServer, make: Callable[..., Any]) -> None:
    # before: 5.7% of rows lost with the openai SDK's defaults, 80% with bare httpx
    scorer = sb.model_graded_qa(make(server.url), timeout=1, retry=QUICK)
    with connections() as hosts:
        scores = scorer.score_many(None, OUTPUTS, LABELS, concurrency=32)
    summary = sb.Summary.of("model_graded_qa", scores)
    assert (summary.scored, summary.grader_failed) == (ROWS - UNLABELLED, 0)
    assert summary.correct == expected(scores)
    assert set(hosts) == {"127.0.0.1"}
    assert server.statuses[500] > 0 and server.statuses[200] >= ROWS - UNLABELLED  # the server did fail


@pytest.mark.filterwarnings("ignore:model_graded_qa. the grader calls:UserWarning")  # a client retrying by itself
def test_the_summary_is_the_same_run_after_run() -> None:
    summaries = []
    for seed in (1, 2):
        with GraderServer(**FAST, seed=seed, lifetime=60) as server:  # type: ignore[arg-type]
            scorer = sb.model_graded_qa(openai_grader(server.url), timeout=1, retry=QUICK)
            summaries.append(sb.Summary.of("qa", scorer.score_many(None, OUTPUTS, LABELS, concurrency=32)))
    assert summaries[0] == summaries[1]


def test_a_grader_that_always_fails_leaves_every_labelled_row_unscored_with_grader_failed() -> None:
    with GraderServer(errors=1.0, lifetime=60) as server:
        scorer = sb.model_graded_qa(httpx_grader(server.url), retry=sb.Retry(3, backoff=0.01, max_backoff=0.02))
        scores = scorer.score_many(None, OUTPUTS, LABELS, concurrency=16)  # no exception comes out
    summary = sb.Summary.of("model_graded_qa", scores)
    assert (summary.scored, summary.unscored, summary.grader_failed) == (0, ROWS, ROWS - UNLABELLED)
    assert summary.unscored_because() == "108 rows: the grader failed; 12 rows: no label or no verdict"
    assert server.statuses[500] == 3 * (ROWS - UNLABELLED)  # three attempts a row


def test_an_async_grader_is_retried_as_a_sync_one_is(server: GraderServer) -> None:
    client = openai.AsyncOpenAI(base_url=server.url, api_key="test-key", max_retries=0)

    async def ask(prompt: str) -> str:
        reply = await client.chat.completions.create(model="g", messages=[{"role": "user", "content": prompt}])
        return reply.choices[0].message.content or ""

    scores = sb.model_graded_qa(ask, timeout=1, retry=QUICK).score_many(None, OUTPUTS, LABELS, concurrency=32)
    summary = sb.Summary.of("model_graded_qa", scores)
    assert (summary.scored, summary.grader_failed) == (ROWS - UNLABELLED, 0) and summary.correct == expected(scores)


# --- counted apart from "no label" ---------------------------------------------------------------

FAILED_ROWS = [sb.Score(None, metadata={GRADER_FAILED: "RateLimitError: slow down"})] * 2
COUNTED = [sb.Score(True), sb.Score(None), *FAILED_ROWS]


def test_summary_counts_the_graders_failures_apart_from_the_rows_with_no_label() -> None:
    summary = sb.Summary.of("qa", COUNTED)
    assert (summary.unscored, summary.grader_failed) == (3, 2)
    assert summary.as_dict()["grader_failed"] == 2
    assert summary.unscored_because() == "2 rows: the grader failed; 1 row: no label or no verdict"


def test_the_summary_table_has_a_grader_failed_column_only_when_a_grader_failed() -> None:
    assert str(sb.Summary.of("qa", COUNTED)).splitlines()[0].split()[-3:] == ["grader", "failed", "unscored"]
    assert "grader failed" not in str(sb.Summary.of("qa", COUNTED[:2]))


def test_from_counts_refuses_more_grader_failures_than_unscored_rows() -> None:
    with pytest.raises(ValueError, match="grader_failed counts unscored rows"):
        sb.Summary.from_counts("qa", 3, 2, 1, 1.0, {}, grader_failed=2)


def test_the_report_page_shows_the_graders_failures_as_a_column_and_a_segment() -> None:
    from scorebridge._runner.report import failure_chart, summary_table

    summary = sb.Summary.of("qa", COUNTED)
    assert '<td class="num" data-field="grader_failed">2</td>' in summary_table([("qa", summary)], "scorer")
    chart = failure_chart([("qa", summary)])
    assert 'data-kind="grader_failed" data-count="2"' in chart and 'data-kind="unscored" data-count="1"' in chart


def test_the_cli_names_the_graders_failures_on_its_summary(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from scorebridge._cli.main import main

    # named apart: the CLI imports a scorer file as a module of its name, which a docs block's graders.py met
    (tmp_path / "down_graders.py").write_text(
        "import scorebridge as sb\n\n"
        "def down(prompt):\n"
        "    raise ConnectionError('the grader API is down')\n\n"
        "graded = sb.model_graded_qa(down, retry=sb.Retry(2, backoff=0, max_backoff=0))\n"
    )
    rows = [
        '{"output": "Paris", "label": "Paris"}',
        '{"output": "Rome", "label": "Rome"}',
        '{"output": "x", "label": null}',
    ]
    (tmp_path / "rows.jsonl").write_text("\n".join(rows) + "\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        main(["score", "rows.jsonl", "--scorer", "down_graders.py@graded"])
    out = capsys.readouterr().out
    assert "model_graded_qa unscored: 2 rows: the grader failed; 1 row: no label or no verdict" in out


def test_fail_under_says_the_grader_failed_when_no_row_was_scored(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # it said only "no row was scored, so there is no accuracy", not that the grader had failed on every row
    from scorebridge._cli.main import main

    (tmp_path / "gone_graders.py").write_text(
        "import scorebridge as sb\n\n"
        "def down(prompt):\n"
        "    raise ConnectionError('the grader API is down')\n\n"
        "graded = sb.model_graded_qa(down, retry=None)\n"
    )
    (tmp_path / "rows.jsonl").write_text('{"output": "Paris", "label": "Paris"}\n{"output": "x", "label": null}\n')
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        status = main(["score", "rows.jsonl", "--scorer", "gone_graders.py@graded", "--fail-under", "0.5"])
    err = capsys.readouterr().err
    assert status == 3  # below the bar
    assert "no row was scored, so there is no accuracy (1 row: the grader failed; 1 row: no label" in err


def _cached_twice(tmp_path: Any, capsys: pytest.CaptureFixture[str], module: str, *more: str) -> tuple[str, str]:
    """What `scorebridge score` printed over two rows with a grader cache, run in this process, then again in a
    process of its own (as a rerun is), both with `more`; the scorer file is `module`.py (a name of its own:
    the CLI imports a scorer file as a module of its name)."""
    from scorebridge._cli.main import main

    (tmp_path / f"{module}.py").write_text(
        "import scorebridge as sb\n\ndef ok(prompt):\n    return 'GRADE: C'\n\ngraded = sb.model_graded_qa(ok)\n"
    )
    (tmp_path / "rows.jsonl").write_text('{"output": "Paris", "label": "Paris"}\n{"output": "Rome", "label": "Rome"}\n')
    command = ["score", "rows.jsonl", "--scorer", f"{module}.py@graded", "-S", "cache=grades.sqlite", *more]
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        main(command)
    first = capsys.readouterr().out
    rerun = [sys.executable, "-m", "scorebridge", *command]
    again = subprocess.run(rerun, cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True).stdout
    return first, again


def test_the_cli_says_how_many_replies_came_from_the_cache(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    first, again = _cached_twice(tmp_path, capsys, "cached_graders")
    assert "model_graded_qa: 0 grader replies from the cache grades.sqlite, 2 asked and kept" in first
    assert "model_graded_qa: 2 grader replies from the cache grades.sqlite, 0 asked and kept" in again


def test_the_clis_json_summary_says_how_many_replies_came_from_the_cache(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # the count was printed under the text table only: --format json said nothing of the cache
    import json

    _, again = _cached_twice(tmp_path, capsys, "json_graders", "--format", "json")
    assert json.loads(again)["grader_cache"] == {"path": "grades.sqlite", "from_cache": 2, "kept": 0}
