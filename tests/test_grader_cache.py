"""The grader-call cache (`cache=`) and a benchmark resumed over rows whose grader failed.

Before, a rerun over the same data graded every row again (1,398 requests and
212 s for 1,000 rows, and a different summary), and `benchmark(out=)` resumed
never asked again about the rows whose grader had failed.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import openai
import pytest
from grader_server import GraderServer

import scorebridge as sb
from scorebridge.kit import GRADER_CACHED, GRADER_FAILED, grader_identity
from scorebridge.testing import FakeGrader

OUTPUTS = [f"answer {i}" for i in range(40)]
LABELS = [None if i % 10 == 0 else f"answer {i}" for i in range(40)]


def openai_grader(url: str) -> Any:
    client = openai.OpenAI(base_url=url, api_key="test-key")

    def ask(prompt: str) -> str:
        reply = client.chat.completions.create(model="grader", messages=[{"role": "user", "content": prompt}])
        return reply.choices[0].message.content or ""

    ask.grader_identity = f"openai grader at {url}"  # type: ignore[attr-defined]
    return ask


def test_a_rerun_with_the_cache_sends_no_request_and_gives_the_same_summary(tmp_path: Path) -> None:
    cache = tmp_path / "grades.sqlite"
    with GraderServer(delay=0.01, lifetime=60) as server:
        grader = openai_grader(server.url)
        first = sb.model_graded_qa(grader, cache=str(cache)).score_many(None, OUTPUTS, LABELS, concurrency=8)
        asked = server.requests
        again = sb.model_graded_qa(grader, cache=str(cache)).score_many(None, OUTPUTS, LABELS, concurrency=8)
        assert asked >= 36  # the 36 labelled rows (one slower than a second may have had a hedge too)
        assert server.requests == asked  # the rerun sent none
    assert sb.Summary.of("qa", again) == sb.Summary.of("qa", first)
    assert sum(bool(s.metadata.get(GRADER_CACHED)) for s in again) == 36
    assert not any(s.metadata.get(GRADER_CACHED) for s in first)


def test_a_failed_call_is_not_kept_so_a_rerun_asks_it_again(tmp_path: Path) -> None:
    cache = str(tmp_path / "grades.sqlite")
    down = FakeGrader([ValueError("the grader is down")])
    sb.model_graded_qa(down, cache=cache)("q", "Paris", "Paris")
    up = FakeGrader("GRADE: C")
    assert grader_identity(up) == grader_identity(down)  # a FakeGrader is known by its class
    assert sb.model_graded_qa(up, cache=cache)("q", "Paris", "Paris").correct is True and up.calls == 1


def test_a_reply_is_found_by_the_graders_identity_and_the_whole_prompt(tmp_path: Path) -> None:
    cache = str(tmp_path / "grades.sqlite")

    def first(prompt: str) -> str:
        return "GRADE: C"

    def second(prompt: str) -> str:
        return "GRADE: I"

    assert sb.model_graded_qa(first, cache=cache)("q", "Paris", "Paris").correct is True
    assert sb.model_graded_qa(second, cache=cache)("q", "Paris", "Paris").correct is False  # another grader
    other_prompt = sb.model_graded_qa(second, cache=cache, template="Grade {answer} against {criterion}")
    assert other_prompt("q", "Paris", "Paris").metadata.get(GRADER_CACHED) is None


def test_a_cache_is_one_object_per_file_and_pickles_as_its_path(tmp_path: Path) -> None:
    import pickle

    path = tmp_path / "grades.sqlite"
    cache = sb.GraderCache(path)
    assert sb.GraderCache(str(path)) is cache and pickle.loads(pickle.dumps(cache)) is cache


def test_a_cache_that_is_no_path_is_a_type_error_naming_the_scorer() -> None:
    with pytest.raises(TypeError, match="model_graded_qa: cache must be a file path"):
        sb.model_graded_qa(FakeGrader("GRADE: C"), cache=3)  # type: ignore[arg-type]


_KILLED = """
import sys, time
import scorebridge as sb

def slow(prompt):
    time.sleep(0.01)
    return "GRADE: C " + "x" * 10_000  # a long reply: a torn write would show
slow.grader_identity = "slow"
scorer = sb.model_graded_qa(slow, cache=sys.argv[1])
print("started", flush=True)
scorer.score_many(None, [f"a{i}" for i in range(100_000)], [f"a{i}" for i in range(100_000)], concurrency=8)
"""


def test_a_run_killed_midway_leaves_whole_entries_only(tmp_path: Path) -> None:
    path = tmp_path / "grades.sqlite"
    run = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_KILLED), str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert run.stdout is not None and run.stdout.readline() == "started\n"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (not path.exists() or _count(path) < 50):
            time.sleep(0.05)
    finally:
        os.kill(run.pid, signal.SIGKILL)
        run.wait(30)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        replies = [r for (r,) in db.execute("SELECT reply FROM replies")]
    assert len(replies) >= 50 and set(replies) == {"GRADE: C " + "x" * 10_000}


def _count(path: Path) -> int:
    try:
        with sqlite3.connect(path) as db:
            return int(db.execute("SELECT count(*) FROM replies").fetchone()[0])
    except sqlite3.Error:
        return 0


def test_benchmark_resumed_asks_again_only_the_rows_whose_grader_failed(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    items = {f"q{i}": f"question {i}" for i in range(10)}
    labels = {f"q{i}": f"answer {i}" for i in range(10)}
    failing = {"answer 3", "answer 7"}
    asked: list[str] = []
    lock = threading.Lock()

    def flaky(prompt: str) -> str:
        with lock:
            asked.append(prompt)
        if any(f"<answer>\n{a}\n</answer>" in prompt for a in failing):
            raise ValueError("the grader is down")
        return "GRADE: C"

    arms = {"model": lambda item: item.replace("question", "answer")}
    first = sb.benchmark(arms, items, labels, sb.model_graded_qa(flaky), out=out)
    assert first.summary()["model"].grader_failed == 2
    failing.clear()
    asked.clear()
    again = sb.benchmark(arms, items, labels, sb.model_graded_qa(flaky), out=out)
    assert len(asked) == 2  # the two whose grader failed, no other
    assert again.summary()["model"].scored == 10
    assert not any(GRADER_FAILED in r.metadata for r in again.records)
    again_read = sb.benchmark(arms, items, labels, sb.model_graded_qa(flaky), out=out)  # from the file alone
    assert len(asked) == 2
    assert str(again_read.summary()) == str(again.summary())
