"""The verifiers adapter's tests run offline: no connection leaves the machine but to 127.0.0.1."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from offline import refuse_connections  # noqa: E402
from vf_offline import CONNECTIONS  # noqa: E402


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A connection leaving the machine is refused and recorded in CONNECTIONS."""
    refuse_connections(monkeypatch, CONNECTIONS)
    yield
