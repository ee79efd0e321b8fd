"""Our stand-in for the top-level `tests/conftest.py` of an Inspect AI checkout, for the Inspect shadow.

Inspect's own top-level conftest starts a local S3 server (moto) and sets up
its whole suite; its scorer tests need only its helpers (`test_helpers`) on the path and async
tests run on asyncio. `run.py inspect` writes this file in that conftest's
place in a scratch copy. The model-graded tests use Inspect's `mockllm/model`;
no API key is set, so no request leaves the machine.
"""

from __future__ import annotations

import inspect
import os
import sys

import pytest

sys.path.append(os.path.dirname(__file__))  # for the helpers package, test_helpers
os.environ.pop("OPENAI_API_KEY", None)
os.environ.pop("INSPECT_EVAL_MODEL", None)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every async test runs on anyio (asyncio), as Inspect's own conftest marks them."""
    for item in items:
        function = getattr(item, "function", None)
        if function is not None and inspect.iscoroutinefunction(function):
            item.add_marker(pytest.mark.anyio)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
