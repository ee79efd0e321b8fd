"""A small OpenAI-compatible chat-completions server on 127.0.0.1 that behaves like a real, flaky grader API.

`GraderServer(...)` (a context manager) serves `POST /v1/chat/completions`
(and `/chat/completions`) with:

- `delay`: seconds spent on every reply;
- `rate`, `burst`: a token bucket of `rate` requests a second holding at most
  `burst`; a request that finds it empty gets a 429 with `Retry-After:
  retry_after` (None: no limit);
- `errors`: the share of requests answered with a 500;
- `hangs`, `hang`: the share of requests held `hang` seconds (then answered);
- `seed`: the random draws of the errors and hangs.

The reply grades the prompt with `grade(prompt)`: "GRADE: C" or "GRADE: I",
decided by the prompt alone, so the grades are the same whichever request
is answered, whatever failed before. The server binds 127.0.0.1 only, stops
after `lifetime` seconds or `max_requests` requests (answering 503 after
that), and releases held requests when it stops. It counts what it did:
`requests`, `statuses` (a Counter), `answered` (prompts answered 200) and
`peak` (most requests in flight at once).
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FAST", "HOSTS_FILE", "RECORD_HOSTS", "GraderServer", "connections", "grade"]


FAST = {"delay": 0.02, "rate": 100.0, "burst": 10, "retry_after": 0.2, "errors": 0.1, "hangs": 0.02, "hang": 3.0}
"""The small, fast profile the tests use: 20 ms a reply, 100 requests/s with a burst of 10 (429 with Retry-After
0.2 s beyond), 10% 500s and 2% held 3 s (against a 1 s timeout of the scorer's)."""


def grade(prompt: str) -> str:
    """The grade the server gives a prompt: C for two prompts in three, decided by its hash."""
    return "C" if hashlib.sha256(prompt.encode()).digest()[0] % 3 else "I"


class GraderServer:
    """The server (see the module); `url` is its base URL, ending "/v1"."""

    def __init__(
        self,
        *,
        delay: float = 0.0,
        rate: float | None = None,
        burst: int = 10,
        retry_after: float = 1.0,
        errors: float = 0.0,
        hangs: float = 0.0,
        hang: float = 60.0,
        seed: int = 0,
        lifetime: float = 120.0,
        max_requests: int = 20_000,
    ) -> None:
        self.delay, self.rate, self.burst, self.retry_after = delay, rate, burst, retry_after
        self.errors, self.hangs, self.hang = errors, hangs, hang
        self.lifetime, self.max_requests = lifetime, max_requests
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self._tokens = float(burst)
        self._refilled = time.monotonic()
        self._stopped = threading.Event()
        self.requests = 0
        self.in_flight = 0
        self.peak = 0
        self.statuses: Counter[int] = Counter()
        self.answered: list[str] = []
        self._server = _Listening(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> GraderServer:
        self._thread = threading.Thread(target=self._server.serve_forever, name="grader-server", daemon=True)
        self._thread.start()
        self._timer = threading.Timer(self.lifetime, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self._stopped.is_set():
            return
        self._stopped.set()  # held requests are released
        if self._timer is not None:
            self._timer.cancel()
        self._server.shutdown()
        self._server.server_close()

    # --- what a request gets --------------------------------------------------------------------

    def _take_token(self) -> bool:
        if self.rate is None:
            return True
        now = time.monotonic()
        self._tokens = min(float(self.burst), self._tokens + (now - self._refilled) * self.rate)
        self._refilled = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False

    def decide(self) -> str:
        """What this request gets: "over" (past max_requests), "limited", "error", "hang" or "ok"."""
        with self._lock:
            self.requests += 1
            if self.requests > self.max_requests or self._stopped.is_set():
                return "over"
            if not self._take_token():
                return "limited"
            draw = self._random.random()
            if draw < self.errors:
                return "error"
            if draw < self.errors + self.hangs:
                return "hang"
            return "ok"


class _Listening(ThreadingHTTPServer):
    """A threading HTTP server whose queue of connections not yet accepted holds 128, not socketserver's 5:
    32 clients connecting at once on a loaded machine otherwise wait out TCP's retransmission."""

    request_queue_size = 128


def _handler(server: GraderServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _send(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            with server._lock:
                server.statuses[status] += 1
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (its timeout) and closed the connection
                pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            request = json.loads(self.rfile.read(length) or b"{}")
            with server._lock:
                server.in_flight += 1
                server.peak = max(server.peak, server.in_flight)
            try:
                self._answer(request)
            finally:
                with server._lock:
                    server.in_flight -= 1

        def _answer(self, request: dict[str, Any]) -> None:
            what = server.decide()
            if what == "over":
                self._send(503, {"error": {"message": "the test server is done", "type": "server_error"}})
                return
            if what == "limited":
                error = {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}
                self._send(429, {"error": error}, {"Retry-After": f"{server.retry_after:g}"})
                return
            if what == "hang":
                server._stopped.wait(server.hang)
            elif server.delay:
                server._stopped.wait(server.delay)
            if what == "error":
                self._send(500, {"error": {"message": "The server had an error", "type": "server_error"}})
                return
            messages = request.get("messages") or [{}]
            prompt = str(messages[-1].get("content", ""))
            with server._lock:
                server.answered.append(prompt)
            text = f"The answer is judged.\nGRADE: {grade(prompt)}"
            self._send(
                200,
                {
                    "id": f"chatcmpl-{server.requests}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": str(request.get("model", "grader")),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                },
            )

    return Handler


_CONNECTS: list[list[str]] = []  # the open `connections()` blocks' records
_HOOKED = threading.Lock()
_hooked = False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "socket.connect" and _CONNECTS:
        address = args[1]
        host = address[0] if isinstance(address, tuple) and address else str(address)
        for seen in _CONNECTS:
            seen.append(str(host))


class connections:
    """`with connections() as hosts:` the hosts every socket of this process connected to in the block.

    It reads Python's `socket.connect` audit event (a hook installed once for the process, which records
    nothing outside such a block), so it sees the connections of every client: openai, httpx, LiteLLM.
    """

    def __enter__(self) -> list[str]:
        global _hooked
        with _HOOKED:
            if not _hooked:
                import sys

                sys.addaudithook(_audit)
                _hooked = True
        self.hosts: list[str] = []
        _CONNECTS.append(self.hosts)
        return self.hosts

    def __exit__(self, *exc: object) -> None:
        _CONNECTS.remove(self.hosts)


HOSTS_FILE = "GRADER_SERVER_HOSTS"
"""The environment variable naming the file `RECORD_HOSTS` appends to."""

RECORD_HOSTS = f"""\
import os as _os
import sys as _sys


def _record_host(event, args):  # every host a socket of this process connects to, one a line
    if event == "socket.connect":
        address = args[1]
        host = address[0] if isinstance(address, tuple) and address else str(address)
        with open(_os.environ["{HOSTS_FILE}"], "a", encoding="utf-8") as hosts:
            hosts.write(f"{{host}}\\n")


_sys.addaudithook(_record_host)
"""
"""Python to put at the top of a file another process runs (a scorer file of the CLI's): as `connections()`
does in this process, it records the hosts that process connects to, in the file `$GRADER_SERVER_HOSTS`."""
