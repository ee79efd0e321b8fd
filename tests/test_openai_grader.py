"""`scorebridge.openai_grader`: an openai SDK client, at its defaults, as the grader (tests/grader_server.py).

Before, a grader over the openai SDK at its defaults retried each 429 and 500
twice inside one of scorebridge's attempts: the 429s it waited out were never
seen by the grader's pacing, so 32 calls at once kept meeting the rate limit
(479 429s in bench_grader_api.py's to_trl path, 1.78x the ideal).
"""

from __future__ import annotations

import asyncio
import re
import warnings
from typing import Any

import openai
import pytest
from grader_server import GraderServer, connections, grade

import scorebridge as sb
from scorebridge.kit import GRADER_FAILED, grader_identity

QUICK = sb.Retry(2, backoff=0.01, max_backoff=0.02)


def test_a_default_client_sends_one_request_an_attempt() -> None:
    with GraderServer(errors=1.0, lifetime=60) as server:
        grader = sb.openai_grader(openai.OpenAI(base_url=server.url, api_key="test-key"), model="grader")
        score = sb.model_graded_qa(grader, retry=QUICK)("q", "Paris", "Paris")
    assert score.metadata[GRADER_FAILED].startswith("InternalServerError: ") and server.statuses[500] == 2


def test_an_async_client_gives_an_async_scorer_that_grades_as_the_server_does() -> None:
    with GraderServer(lifetime=60) as server, connections() as hosts:
        client = openai.AsyncOpenAI(base_url=server.url, api_key="test-key")
        scorer = sb.model_graded_qa(sb.openai_grader(client, model="grader", temperature=0), retry=QUICK)
        scores = asyncio.run(scorer.ascore_many(["q"] * 4, [f"answer {i}" for i in range(4)], ["answer"] * 4))
    assert [s.correct for s in scores] == [grade(s.metadata["prompt"]) == "C" for s in scores]
    assert scorer.is_async and set(hosts) == {"127.0.0.1"}


def test_the_identity_names_the_base_url_model_and_settings_but_not_the_key() -> None:
    client = openai.OpenAI(base_url="http://127.0.0.1:9/v1", api_key="test-key")
    identity = grader_identity(sb.openai_grader(client, model="grader", temperature=0.0))
    assert "127.0.0.1:9/v1" in identity and "grader" in identity and '"temperature": 0.0' in identity
    assert "test-key" not in identity
    assert identity != grader_identity(sb.openai_grader(client, model="grader", temperature=1.0))


class _Refusing:
    """A client of the SDK's shape whose model refuses; counts its requests."""

    def __init__(self) -> None:
        self.requests = 0
        self.chat = self
        self.completions = self

    def create(self, **request: Any) -> Any:
        self.requests += 1
        message = type("Message", (), {"content": None, "refusal": "I can't grade that."})()
        return type("Reply", (), {"choices": [type("Choice", (), {"message": message})()]})()


def test_a_refusal_is_the_rows_grader_failure_asked_once() -> None:
    client = _Refusing()
    score = sb.model_graded_qa(sb.openai_grader(client, model="m"), retry=QUICK)("q", "Paris", "Paris")
    assert score.correct is None and client.requests == 1
    assert score.metadata[GRADER_FAILED] == "RuntimeError: the grader model 'm' refused: I can't grade that."


@pytest.mark.parametrize(
    ("client", "options", "message"),
    [
        (object(), {"model": "m"}, "client must be an OpenAI-compatible client"),
        (_Refusing(), {"model": ""}, "model must be the name of the model"),
        (_Refusing(), {"model": "m", "messages": []}, "messages cannot be set"),
    ],
    ids=["no chat API", "empty model", "messages"],
)
def test_a_bad_argument_is_refused_at_construction(client: Any, options: dict[str, Any], message: str) -> None:
    with pytest.raises(TypeError, match=f"openai_grader: {message}"):
        sb.openai_grader(client, **options)


# --- a function of one's own over a client that retries by itself --------------------------------

CLIENT = openai.OpenAI(base_url="http://127.0.0.1:9/v1", api_key="test-key")  # the SDK's defaults: 2 retries


def over_the_global_client(prompt: str) -> str:
    reply = CLIENT.chat.completions.create(model="grader", messages=[{"role": "user", "content": prompt}])
    return reply.choices[0].message.content or ""


def over(client: Any) -> Any:
    def ask(prompt: str) -> str:
        reply = client.chat.completions.create(model="grader", messages=[{"role": "user", "content": prompt}])
        return reply.choices[0].message.content or ""

    return ask


@pytest.mark.parametrize(
    ("grader", "named"),
    [(over_the_global_client, "CLIENT (OpenAI, max_retries=2)"), (over(CLIENT), "client (OpenAI, max_retries=2)")],
    ids=["global", "closure"],
)
def test_a_function_over_a_client_that_retries_by_itself_is_warned_of(grader: Any, named: str) -> None:
    # its 429s are waited out inside the SDK, unseen by the pacing: reward batches took 1.8x the ideal
    # (bench_grader_api.py), and nothing said why
    with pytest.warns(UserWarning, match=rf"model_graded_qa: the grader calls {re.escape(named)}, which waits"):
        sb.model_graded_qa(grader)


@pytest.mark.parametrize(
    "make",
    [
        lambda: sb.model_graded_qa(over(CLIENT.with_options(max_retries=0))),
        lambda: sb.model_graded_qa(sb.openai_grader(CLIENT, model="grader")),
        lambda: sb.model_graded_qa(over(CLIENT), rate=38),
        lambda: sb.model_graded_fact(lambda prompt: "GRADE: C"),
    ],
    ids=["retries-off", "openai_grader", "rate", "no-client"],
)
def test_no_warning_where_the_scorer_sees_the_429s_or_paces_by_rate(make: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make()


def over_the_openai_modules_client(prompt: str) -> str:
    reply = openai.chat.completions.create(model="grader", messages=[{"role": "user", "content": prompt}])
    return reply.choices[0].message.content or ""


def naming_an_openai_exception(prompt: str) -> str:
    raise openai.RateLimitError("limited", response=None, body=None)  # type: ignore[arg-type]


def test_a_function_over_the_openai_modules_own_client_is_warned_of() -> None:
    with pytest.warns(UserWarning, match=r"the grader calls openai \(the openai module's client, max_retries=2\)"):
        sb.model_graded_qa(over_the_openai_modules_client)


def test_a_function_that_only_names_an_openai_exception_is_not_warned_of() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb.model_graded_qa(naming_an_openai_exception)


def test_the_warning_is_given_once_for_one_grader() -> None:
    # the CLI's -S makes the scorer again with other options: the same warning came twice, the second naming
    # scorebridge's own code
    grader = over(openai.OpenAI(base_url="http://127.0.0.1:9/v1", api_key="test-key"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        made = sb.model_graded_qa(grader)
        made.factory(**{**made.options, "timeout": 5})
    assert len(caught) == 1
