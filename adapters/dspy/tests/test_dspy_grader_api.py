"""`dspy_grader` over `dspy.LM(api_base=...)` against a flaky, rate-limited grader API on 127.0.0.1.

Before, DSPy's own 3 retries left 3.2-3.9% of graded rows unscored under 429s
and 500s, a different share every run. Now scorebridge retries what LiteLLM
raises for them, and a row's grade is the server's whichever client asked.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import dspy
import openai
import pytest
from grader_server import FAST, GraderServer, connections

import scorebridge as sb
from scorebridge.kit import grader_identity
from scorebridge_dspy import dspy_grader

ROWS = 100
OUTPUTS = [f"answer {i}" for i in range(ROWS)]
LABELS = [None if i % 10 == 0 else f"answer {i}" for i in range(ROWS)]
QUICK = sb.Retry(8, seconds=30, backoff=0.05, max_backoff=0.5)


@pytest.fixture
def server() -> Iterator[GraderServer]:
    with GraderServer(**FAST, lifetime=60) as running:  # type: ignore[arg-type]
        yield running


def lm(url: str, **settings: object) -> dspy.LM:
    # DSPy's defaults (3 retries of its own) but for its disk cache, which would answer the second run
    return dspy.LM("openai/grader", api_base=url, api_key="test-key", cache=False, **settings)


@pytest.mark.filterwarnings("ignore:model_graded_qa. the grader calls:UserWarning")  # a client retrying by itself
def test_dspy_grader_loses_no_labelled_row_and_grades_as_the_openai_sdk_does(server: GraderServer) -> None:
    with connections() as hosts:
        scores = sb.model_graded_qa(dspy_grader(lm(server.url)), timeout=2, retry=QUICK).score_many(
            None, OUTPUTS, LABELS, concurrency=16
        )
    client = openai.OpenAI(base_url=server.url, api_key="test-key")

    def ask(prompt: str) -> str:
        reply = client.chat.completions.create(model="grader", messages=[{"role": "user", "content": prompt}])
        return reply.choices[0].message.content or ""

    by_sdk = sb.model_graded_qa(ask, timeout=2, retry=QUICK).score_many(None, OUTPUTS, LABELS, concurrency=16)
    summary = sb.Summary.of("model_graded_qa", scores)
    assert (summary.scored, summary.grader_failed) == (90, 0)
    assert summary == sb.Summary.of("model_graded_qa", by_sdk)
    assert set(hosts) == {"127.0.0.1"} and server.statuses[500] > 0


def test_dspys_server_errors_are_retried_to_the_end() -> None:
    # every call a 500: DSPy raises LMServerError for it, which scorebridge retries, then records
    with GraderServer(errors=1.0, lifetime=60) as server:
        grader = dspy_grader(dspy.LM("openai/grader", api_base=server.url, api_key="k", cache=False, num_retries=0))
        scorer = sb.model_graded_qa(grader, retry=sb.Retry(3, backoff=0.01, max_backoff=0.02))
        scores = scorer.score_many(None, OUTPUTS[1:5], LABELS[1:5], concurrency=4)
    assert sb.Summary.of("qa", scores).grader_failed == 4 and server.statuses[500] == 12
    assert scores[0].metadata["grader_failed"].startswith("LMServerError: ")  # DSPy's wrapping of it


def test_a_dspy_lm_at_its_default_retries_sends_one_request_an_attempt() -> None:
    # Before, DSPy retried each 500 three times inside one of scorebridge's attempts (4 requests each), with
    # its own waits, and each 429 it retried was one the grader's pacing never saw.
    with GraderServer(errors=1.0, lifetime=60) as server:
        scorer = sb.model_graded_qa(dspy_grader(lm(server.url)), retry=sb.Retry(2, backoff=0.01, max_backoff=0.02))
        [score] = scorer.score_many(None, OUTPUTS[1:2], LABELS[1:2])
    assert score.metadata["grader_failed"].startswith("LMServerError: ") and server.statuses[500] == 2


def test_a_dspy_grader_leaves_the_users_lm_retrying_as_it_did() -> None:
    given = lm("http://127.0.0.1:9/v1")
    dspy_grader(given)
    assert given.num_retries == 3 and "num_retries" not in given.kwargs


def test_the_identity_of_a_dspy_grader_names_its_model_and_settings_but_not_its_key() -> None:
    identity = grader_identity(dspy_grader(lm("http://127.0.0.1:9/v1", temperature=0.0)))
    assert "openai/grader" in identity and '"temperature": 0.0' in identity and "test-key" not in identity
    assert identity != grader_identity(dspy_grader(lm("http://127.0.0.1:9/v1", temperature=1.0)))


def test_a_function_over_a_dspy_lm_that_retries_by_itself_is_warned_of() -> None:
    # DSPy waits out the 429s inside lm(prompt): the grader's pacing never sees them
    given = lm("http://127.0.0.1:9/v1")

    def ask(prompt: str) -> str:
        return str(given(prompt)[0])

    with pytest.warns(UserWarning, match=r"the grader calls given \(LM, num_retries=3\), which waits out"):
        sb.model_graded_qa(ask)


def test_dspy_grader_over_the_same_lm_is_not_warned_of() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb.model_graded_qa(dspy_grader(lm("http://127.0.0.1:9/v1")))
