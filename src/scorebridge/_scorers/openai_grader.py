"""`openai_grader()`: a client of the openai SDK (or one of its shape) as the grader of a model-graded scorer.

The grader sends the prompt as one user message to the client's chat
completions API and returns the text of the first choice. The client's own
retries are turned off (`client.with_options(max_retries=0)`): the scorer's
`retry=` retries instead, and sees each 429 to pace the grader by (the
SDK's 2 retries would wait them out unseen, and keep sending as fast as
before). The openai package is not imported here: any client with
`chat.completions.create` works (an `openai.OpenAI` or `AzureOpenAI` gives a
sync grader, an `openai.AsyncOpenAI` its async twin).
"""

from __future__ import annotations

import inspect
import json
from typing import Any, Final

from .._protocol.values import shown

__all__ = ["openai_grader"]

_NOT_SETTINGS: Final = frozenset({"messages", "model", "stream", "n"})  # what the grader itself decides


def _client_without_retries(client: Any) -> Any:
    with_options = getattr(client, "with_options", None)
    return with_options(max_retries=0) if callable(with_options) else client


def _text(reply: Any, model: str) -> str:
    """The text of a chat completion's first choice; a refusal or a reply without text raises, naming it."""
    choices = getattr(reply, "choices", None)
    if not choices:
        raise RuntimeError(f"the grader model {model!r} returned no choice")
    message = getattr(choices[0], "message", None)
    content = getattr(message, "content", None)
    if isinstance(content, str):
        return content
    refusal = getattr(message, "refusal", None)
    if refusal:
        raise RuntimeError(f"the grader model {model!r} refused: {refusal}")
    raise RuntimeError(f"the grader model {model!r} returned no text")


class _OpenAIGrader:
    """A sync grader over a chat completions client (its retries off); immutable."""

    __slots__ = ("client", "model", "settings")

    client: Any
    model: str
    settings: dict[str, Any]

    def __init__(self, client: Any, model: str, settings: dict[str, Any]) -> None:
        object.__setattr__(self, "client", client)
        object.__setattr__(self, "model", model)
        object.__setattr__(self, "settings", settings)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"an openai grader is immutable; cannot set {name!r}")

    def __repr__(self) -> str:
        return f"openai_grader(model={self.model!r})"

    def grader_identity(self) -> str:
        """What a `scorebridge.GraderCache` knows this grader's replies by: the API's base URL, the model and
        the sampling settings (never the key)."""
        settings = json.dumps(self.settings, sort_keys=True, default=repr)
        return f"openai {getattr(self.client, 'base_url', '')} {self.model} {settings}"

    def _request(self, prompt: str) -> Any:
        messages = [{"role": "user", "content": prompt}]
        return self.client.chat.completions.create(model=self.model, messages=messages, **self.settings)

    def __call__(self, prompt: str) -> str:
        """The model's reply to `prompt`: the text of its first choice."""
        return _text(self._request(prompt), self.model)


class _AsyncOpenAIGrader(_OpenAIGrader):
    """The async twin of `_OpenAIGrader`, over an async client."""

    __slots__ = ()

    async def __call__(self, prompt: str) -> str:  # type: ignore[override]
        """The model's reply to `prompt`: the text of its first choice."""
        return _text(await self._request(prompt), self.model)


def openai_grader(client: Any, *, model: str, **settings: Any) -> _OpenAIGrader:
    """A grader for `model_graded_qa()`/`model_graded_fact()` that asks an OpenAI-compatible chat API.

    `client` is an `openai.OpenAI` (a sync grader) or `openai.AsyncOpenAI`
    (an async one), made as usual (`base_url=`, `api_key=`, its defaults
    otherwise); `model` the model to ask; `settings` go with each request
    (`temperature=0`, `max_tokens=...`). The client's retries are turned off
    (`with_options(max_retries=0)`; a client without `with_options` is used
    as it is): the scorer retries, paced by the 429s it sees. Its timeout is
    the client's; the scorer's `timeout=` bounds each call too.

    The reply is the first choice's text. A refusal (the message's `refusal`)
    or a reply without text raises a RuntimeError naming the model: the row
    is recorded as the grader's failure, not retried. The cache knows the
    grader by the client's base URL, the model and the settings.

    Raises TypeError when `client` has no `chat.completions.create`, `model`
    is not a non-empty string, or a setting is one the grader sets itself
    (`messages`, `model`, `stream`, `n`).
    """
    create = getattr(getattr(getattr(client, "chat", None), "completions", None), "create", None)
    if not callable(create):
        raise TypeError(
            f"openai_grader: client must be an OpenAI-compatible client (an openai.OpenAI or AsyncOpenAI, with "
            f"chat.completions.create); got {type(client).__name__}"
        )
    if not isinstance(model, str) or not model.strip():
        raise TypeError(f"openai_grader: model must be the name of the model to ask; got {shown(model)}")
    reserved = sorted(_NOT_SETTINGS & settings.keys())
    if reserved:
        raise TypeError(f"openai_grader: {', '.join(reserved)} cannot be set; the grader sets them itself")
    # the SDK's create is an `async def` under a decorator (functools.wraps): unwrapped, it says so
    asynchronous = inspect.iscoroutinefunction(create) or inspect.iscoroutinefunction(inspect.unwrap(create))
    kind = _AsyncOpenAIGrader if asynchronous else _OpenAIGrader
    return kind(_client_without_retries(client), model, dict(settings))
