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


@pytest.fixture(scope="module", autouse=True)
def offline() -> Iterator[None]:
    """A connection leaving the machine is refused and recorded in CONNECTIONS, for a whole test module.

    Module-wide, not per test: pytest sets a module's fixtures up before a
    test's own, so a per-test guard let a module fixture (a whole verifiers
    eval) connect anywhere while the proof that nothing left looked on."""
    with pytest.MonkeyPatch.context() as mp:
        refuse_connections(mp, CONNECTIONS)
        yield
