"""The deepeval adapter's tests run offline: telemetry off, a working folder of their own, no connection out."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from de_offline import CONNECTIONS  # noqa: E402
from offline import refuse_connections  # noqa: E402


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """deepeval's test-run cache in a temporary folder; a connection leaving the machine refused and recorded."""
    monkeypatch.setenv("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
    monkeypatch.chdir(tmp_path)  # deepeval writes .deepeval/ (its test-run cache) in the working folder
    refuse_connections(monkeypatch, CONNECTIONS)
    yield
