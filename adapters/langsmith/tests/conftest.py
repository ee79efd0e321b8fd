"""The LangSmith adapter's tests run offline: tracing off, no key, and no connection leaving the machine."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from ls_offline import CONNECTIONS  # noqa: E402
from offline import refuse_connections  # noqa: E402


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tracing off, no key; a connection leaving the machine is refused and recorded."""
    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    monkeypatch.setenv("LANGCHAIN_TRACING_V2", "false")
    monkeypatch.delenv("LANGSMITH_API_KEY", raising=False)
    refuse_connections(monkeypatch, CONNECTIONS)
    yield
