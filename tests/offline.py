"""One guard for the offline tests of every spoke: a socket connection leaving the machine is refused and recorded.

`refuse_connections(monkeypatch, seen)` patches `socket.socket.connect` for one test: a connection to
127.0.0.1, ::1 or localhost (a server of the test's own) goes through; any other address is appended to
`seen` and refused with an OSError, so a test asserts `seen == []` to prove no request left.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest

LOOPBACK = ("127.0.0.1", "::1", "localhost")


def refuse_connections(monkeypatch: pytest.MonkeyPatch, seen: list[str]) -> None:
    connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> Any:
        if not (isinstance(address, tuple) and address[0] in LOOPBACK):
            seen.append(repr(address))
            raise OSError(f"the offline tests connect nowhere; refused {address!r}")
        return connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
