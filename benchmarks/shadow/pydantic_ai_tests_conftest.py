"""Our stand-in for the top-level `tests/conftest.py` of a pydantic-ai checkout, for the pydantic-evals shadow.

pydantic-ai's own top-level conftest loads every model provider, VCR cassettes
and HTTP client tracking; its `tests/evals` need only a handful of its names.
`run.py pydantic-evals` writes this file in that conftest's place in a scratch
copy, so the evals tests run against the installed pydantic-evals alone: no
model request is allowed (`ALLOW_MODEL_REQUESTS = False`, as pydantic-ai's own
suite sets it), and the async tests run on asyncio.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

import pydantic_ai.models
import pytest
from dirty_equals import IsStr
from pydantic_ai import BinaryContent, BinaryImage
from pydantic_ai.messages import ModelMessage

__all__ = ("BinaryContent", "IsStr", "iter_message_parts", "try_import")

pydantic_ai.models.ALLOW_MODEL_REQUESTS = False

# the smallest valid JPEG header: the tests that take an image only pass it through to a judge's prompt
_TINY_JPEG = bytes.fromhex("ffd8ffe000104a46494600010100000100010000ffd9")


@contextmanager
def try_import() -> Iterator[Callable[[], bool]]:
    """`with try_import() as ok:` around optional imports; `ok()` says whether they all succeeded."""
    succeeded = False

    def ok() -> bool:
        return succeeded

    try:
        yield ok
    except ImportError:
        pass
    else:
        succeeded = True


def iter_message_parts(messages: Sequence[ModelMessage], message_type: type, part_type: type) -> Iterator[Any]:
    """Every part of type `part_type` in the messages of type `message_type`."""
    for message in messages:
        if isinstance(message, message_type):
            for part in message.parts:
                if isinstance(part, part_type):
                    yield part


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _on_anyio(anyio_backend: str) -> str:
    """Every test asks for the backend, so anyio's plugin runs the async fixtures of sync tests too (as
    pydantic-ai's own autouse fixtures that take `anyio_backend` make it)."""
    return anyio_backend


@pytest.fixture(scope="session")
def image_content() -> BinaryImage:
    return BinaryImage(data=_TINY_JPEG, media_type="image/jpeg")


@pytest.fixture
def closed_event_loop() -> Iterator[asyncio.AbstractEventLoop]:
    """The thread's event loop is one that is closed; the one before is put back afterwards."""
    before = asyncio.get_event_loop()
    closed = asyncio.new_event_loop()
    closed.close()
    asyncio.set_event_loop(closed)
    try:
        yield closed
    finally:
        asyncio.get_event_loop().close()
        asyncio.set_event_loop(before)


@pytest.fixture
def missing_event_loop() -> Iterator[asyncio.AbstractEventLoop]:
    """The thread has no event loop; the one before is given, and put back afterwards."""
    before = asyncio.get_event_loop()
    asyncio.set_event_loop(None)
    try:
        yield before
    finally:
        with suppress(RuntimeError):
            asyncio.get_event_loop().close()
        asyncio.set_event_loop(before)
