"""The RL spoke's tests: rl_calls.py (how TRL and verl call a reward function) is importable by name."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from rl_calls import TRLLoop  # noqa: E402


@pytest.fixture
def trl_loop() -> Iterator[TRLLoop]:
    """An event loop in a thread of its own, as GRPOTrainer runs async rewards on."""
    loop = TRLLoop()
    yield loop
    loop.close()
