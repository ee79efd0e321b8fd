"""LangSmith, offline: a client that can send nothing, and LangSmith's evaluate over scorebridge rows.

`langsmith.evaluate(upload_results=False)` with tracing off sends nothing; the client is given a session
that refuses and records every request (`SESSION.sent`), and conftest refuses and records every socket
connection but to 127.0.0.1 (`CONNECTIONS`), so a test sees any request that would have left.
"""

from __future__ import annotations

import json
import logging
import types
import uuid
from collections.abc import Sequence
from typing import Any

import langsmith
import requests
from langsmith.schemas import Example

from scorebridge.kit.testing import Row


class Refusing(requests.Session):
    """A requests session that sends nothing: each request is recorded, then refused."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        self.sent.append(f"{method!r} {url!r}")
        raise requests.ConnectionError(f"the offline tests send nothing; refused {method!r} {url!r}")


SESSION = Refusing()
CONNECTIONS: list[str] = []


def offline_client() -> langsmith.Client:
    return langsmith.Client(api_url="http://127.0.0.1:9", api_key="offline", session=SESSION, auto_batch_tracing=False)


class Caught(logging.Handler):
    """What LangSmith's runner logged: the exceptions it caught (a raising evaluator's row is recorded as an
    error), and whether it could not trace a target's output."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.caught: list[BaseException] = []
        self.untraced = False

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR and record.exc_info and record.exc_info[1] is not None:
            self.caught.append(record.exc_info[1])
        self.untraced = self.untraced or record.getMessage().startswith("Unable to process trace outputs")


def examples(rows: Sequence[Row]) -> list[Example]:
    """A LangSmith dataset of the rows: the item under `question`, the label as `{"answer": ...}`."""
    return [
        Example(
            id=uuid.uuid4(), inputs={"question": item, "row": n}, outputs=None if label is None else {"answer": label}
        )
        for n, (item, _, label) in enumerate(rows)
    ]


def evaluated(evaluators: list[Any], rows: Sequence[Row], *, raising: bool = True) -> list[dict[str, float | None]]:
    """`langsmith.evaluate` over the rows, offline: per row, each feedback key's score (None: no score).

    The target answers each row's output. An evaluator's exception, which LangSmith catches and logs, is
    raised again when `raising` (as the harness reported it, its notes kept)."""
    data = examples(rows)
    caught = Caught()
    loggers = [logging.getLogger("langsmith.evaluation._runner"), logging.getLogger("langsmith.run_helpers")]
    for logger in loggers:
        logger.addHandler(caught)
    try:
        results = langsmith.evaluate(
            lambda inputs: rows[inputs["row"]][1], data=data, evaluators=evaluators, client=offline_client(),
            upload_results=False, max_concurrency=0,
        )  # fmt: skip
        found = {row["example"].id: row["evaluation_results"]["results"] for row in results}
    except AttributeError:
        # LangSmith 0.15 stops the whole run when it cannot trace a target's output (an object whose every
        # method raises): its runner reads the id of the run it could not make. It refused the rows.
        if not caught.untraced:
            raise
        return [{} for _ in data]
    finally:
        for logger in loggers:
            logger.removeHandler(caught)
    if raising and caught.caught:
        raise caught.caught[0]
    return [{r.key: r.score for r in found[example.id]} for example in data]


def run(evaluator: Any, rows: list[Row]) -> Sequence[float | None]:
    """LangSmith's evaluate scoring the rows with one evaluator: the number its mean counts for each row."""
    return [next(iter(scores.values()), None) for scores in evaluated([evaluator], rows)]


class ScriptedJudge:
    """An OpenAI-style client for openevals' LLM judges that answers one verdict and sends nothing.

    `judge.chat.completions.create(...)` returns the JSON openevals asks for: `{"reasoning", "score"}`; the
    messages it was asked are kept in `asked`.
    """

    def __init__(self, score: bool | float, reasoning: str = "scripted") -> None:
        self.score, self.reasoning = score, reasoning
        self.asked: list[Any] = []

    @property
    def chat(self) -> Any:
        return self

    @property
    def completions(self) -> Any:
        return self

    def create(self, **params: Any) -> Any:
        self.asked.append(params["messages"])
        content = json.dumps({"reasoning": self.reasoning, "score": self.score})
        message = types.SimpleNamespace(content=content)
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)])
