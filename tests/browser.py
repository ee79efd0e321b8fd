"""A real headless Chromium, driven over the DevTools protocol on a pipe, and a PNG reader: for tests of pages.

`Browser.start()` finds Debian's `chromium` (or `chromium-browser`, `google-chrome`) and starts it with
`--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking
--user-data-dir=<temp> --remote-debugging-pipe`: the protocol's JSON messages go over file descriptors 3
and 4, so no port is opened and no library is needed. `open(url)` loads a page and records every request
the page made (`Network.requestWillBeSent`); `evaluate(js)` runs JavaScript in it and gives the value;
`screenshot(clip)` gives a PNG, which `read_png` turns into pixels (zlib and struct, no imaging library).
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import queue
import shutil
import struct
import subprocess
import tempfile
import threading
import time
import zlib
from collections.abc import Iterator
from typing import Any, NamedTuple

__all__ = ["Browser", "Png", "find_chromium", "read_png"]

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
)


def find_chromium() -> str | None:
    """The path of a Chromium (Debian's `chromium` first), or None."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _high(fd: int) -> int:
    """`fd` moved to a number above 10, so that putting the pipes on 3 and 4 in the child cannot clobber one."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class Browser:
    """One headless Chromium and one page in it, driven over the DevTools protocol."""

    def __init__(self, executable: str, width: int = 1280, height: int = 900) -> None:
        self.folder = tempfile.mkdtemp(prefix="scorebridge-chromium-")
        to_browser_r, to_browser_w = (_high(fd) for fd in os.pipe())
        from_browser_r, from_browser_w = (_high(fd) for fd in os.pipe())

        def on_3_and_4() -> None:  # in the child, before exec: the pipe ends Chromium reads (3) and writes (4)
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self.folder}", "--remote-debugging-pipe",
             f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=on_3_and_4,
        )  # fmt: skip
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._out = os.fdopen(to_browser_w, "wb", buffering=0)
        self._in = os.fdopen(from_browser_r, "rb", buffering=0)
        self._next = 0
        self._replies: dict[int, queue.Queue[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.width, self.height = width, height
        self.session = self._attach()

    def _read(self) -> None:
        buffer = b""
        while True:
            chunk = self._in.read(65536)
            if not chunk:
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                if "id" in message and message["id"] in self._replies:
                    self._replies[message["id"]].put(message)
                else:
                    with self._lock:
                        self.events.append(message)

    def send(self, method: str, params: dict[str, Any] | None = None, *, session: bool = True) -> dict[str, Any]:
        """Call a protocol method (on the page's session unless `session` is False); its result."""
        with self._lock:
            self._next += 1
            number = self._next
        reply: queue.Queue[dict[str, Any]] = queue.Queue()
        self._replies[number] = reply
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if session and getattr(self, "session", None):
            message["sessionId"] = self.session
        self._out.write(json.dumps(message).encode() + b"\0")
        answer = reply.get(timeout=60)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        result: dict[str, Any] = answer.get("result", {})
        return result

    def _attach(self) -> str:
        targets = self.send("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        session: str = self.send(
            "Target.attachToTarget", {"targetId": page["targetId"], "flatten": True}, session=False
        )["sessionId"]
        self.session = session
        self.send("Page.enable")
        self.send("Network.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False},
        )
        return session

    def _events(self, method: str) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e in self.events if e.get("method") == method and e.get("sessionId") == self.session]

    def open(self, url: str, settle: float = 0.5) -> list[str]:
        """Load `url` and wait for its load event (then `settle` seconds more); the URLs of every request made."""
        with self._lock:
            self.events.clear()
        self.send("Page.navigate", {"url": url})
        deadline = time.monotonic() + 60
        while not self._events("Page.loadEventFired"):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not load")
            time.sleep(0.05)
        time.sleep(settle)
        return [e["params"]["request"]["url"] for e in self._events("Network.requestWillBeSent")]

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (returned by value)."""
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, clip: dict[str, float] | None = None) -> bytes:
        """A PNG of the viewport, or of `clip` ({x, y, width, height} in CSS pixels, scale 1)."""
        params: dict[str, Any] = {"format": "png"}
        if clip is not None:
            params["clip"] = {**clip, "scale": 1}
            params["captureBeyondViewport"] = True
        return base64.b64decode(self.send("Page.captureScreenshot", params)["data"])

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.send("Browser.close", session=False)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for f in (self._out, self._in):
            with contextlib.suppress(OSError):
                f.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    @classmethod
    @contextlib.contextmanager
    def start(cls, executable: str, width: int = 1280, height: int = 900) -> Iterator[Browser]:
        browser = cls(executable, width, height)
        try:
            yield browser
        finally:
            browser.close()


class Png(NamedTuple):
    """A decoded PNG: its size and its pixels, RGBA, row by row."""

    width: int
    height: int
    rows: list[bytes]

    def pixel(self, x: int, y: int) -> tuple[int, int, int, int]:
        row = self.rows[y]
        return row[4 * x], row[4 * x + 1], row[4 * x + 2], row[4 * x + 3]

    def colours(self) -> dict[tuple[int, int, int], int]:
        """How many pixels of each colour (RGB)."""
        counts: dict[tuple[int, int, int], int] = {}
        for row in self.rows:
            for i in range(0, len(row), 4):
                key = (row[i], row[i + 1], row[i + 2])
                counts[key] = counts.get(key, 0) + 1
        return counts


def read_png(data: bytes) -> Png:
    """Decode an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes) with zlib and struct."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    at, idat = 8, []
    width = height = depth = colour = interlace = 0
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        body = data[at + 8 : at + 8 + length]
        at += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    channels = 4 if colour == 6 else 3
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = bytearray(raw[start + 1 : start + 1 + stride])
        if kind == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 255
        elif kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, previous, strict=True))
        elif kind == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b = previous[i]
                c = previous[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        previous = line
        if channels == 3:
            rgba = bytearray(width * 4)
            rgba[0::4], rgba[1::4], rgba[2::4] = line[0::3], line[1::3], line[2::3]
            rgba[3::4] = b"\xff" * width
            rows.append(bytes(rgba))
        else:
            rows.append(bytes(line))
    return Png(width, height, rows)
