"""Progress people can trust: a bar with done/total, rate and ETA on a terminal; a line now and then in a log.

- On a terminal (or in a notebook), a tqdm bar: done/total, the rate and the
  time left when the total is known (a file), done and the rate when it is not
  (standard input). tqdm is imported only when a bar is shown, so `import
  scorebridge` never pays for it.
- Anywhere else (a CI log, a file, a pipe), no bar, whose carriage returns
  make a log unreadable, but one line every 10 seconds saying how far it is
  (`scoring: 4,000/10,000 rows (40%), 52.1 rows/s, 1m55s left`), from a
  thread of its own, so a line comes on time even while a slow row is being
  scored, and one line at the end.

The interval is 10 s unless the environment variable
`SCOREBRIDGE_PROGRESS_INTERVAL` says otherwise (in seconds).

When no row has finished for `STALLED` seconds (30), or for ten times the mean
time a row has taken if that is longer, the time left is not guessed: the line
(and the bar) says `stalled, nothing done for 45s`, since a rate that falls
during a hang gives an ETA that only climbs. A run stopped by a signal ends
with `interrupted after 3m13s`, not `done in`: `close(interrupted=True)`.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import IO, Any, Final, Literal

__all__ = ["INTERVAL", "STALLED", "Progress", "count_rows", "progress_mode", "stderr_is_terminal"]

INTERVAL: Final = 10.0
"""Seconds between two progress lines in a log (`SCOREBRIDGE_PROGRESS_INTERVAL` overrides it)."""

STALLED: Final = 30.0
"""Seconds with no row finished after which the progress says "stalled" instead of a time left (or ten times the
mean seconds a row has taken, when that is longer)."""

Mode = Literal["bar", "lines", "off"]


def stderr_is_terminal() -> bool:
    """True when standard error is a terminal (False when it is a file, a pipe, closed or replaced)."""
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False


def _in_notebook() -> bool:
    return "ipykernel" in sys.modules


def progress_mode(requested: bool | None, *, lines_by_default: bool) -> Mode:
    """How to show progress: `requested` False is off; on a terminal (or in a notebook) a bar; elsewhere lines.

    `requested` None (the default) shows the lines only when `lines_by_default`
    (the command line does; `benchmark()` shows nothing unless asked).
    """
    if requested is False:
        return "off"
    if stderr_is_terminal() or (requested is True and _in_notebook()):
        return "bar"
    if requested is True or lines_by_default:
        return "lines"
    return "off"


def interval() -> float:
    """The seconds between two lines: `SCOREBRIDGE_PROGRESS_INTERVAL` when it is a positive number, else 10."""
    text = os.environ.get("SCOREBRIDGE_PROGRESS_INTERVAL", "")
    try:
        value = float(text)
    except ValueError:
        return INTERVAL
    return value if value > 0 else INTERVAL


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def count_rows(path: str, fmt: str) -> int | None:
    """The number of rows of a data file, for a progress total, cheaply; None when it cannot be told.

    JSONL: the non-blank lines; CSV: the records after the header (a quoted
    field may hold line breaks, so the rows are parsed); Parquet: the count its
    metadata holds.
    """
    try:
        if fmt == "parquet":
            from importlib import import_module

            return int(import_module("pyarrow.parquet").ParquetFile(path).metadata.num_rows)
        with open(path, "rb") as f:
            if fmt == "jsonl":
                return sum(1 for line in f if line.strip())
            import csv
            import io

            text = io.TextIOWrapper(f, encoding="utf-8-sig", errors="replace", newline="")
            return max(0, sum(1 for row in csv.reader(text) if row) - 1)
    except Exception:  # the reader reports a bad file, with its line; a progress total is no place for that
        return None


class Progress:
    """How far a run is: `update(n)` as work is done, `close()` at the end (a final line in a log).

    `mode` is "bar" (tqdm), "lines" (a line every `every` seconds from a
    thread, and at the end) or "off". `total` None means not known. `final`
    says whether the end line is printed when no line was printed before (a
    run shorter than `every`): the command line keeps a short run quiet.
    `stalled` is the seconds with no row done after which the time left reads
    "stalled" (`STALLED` by default; see the module). `close(interrupted=True)`
    ends a run a signal stopped: "interrupted after", not "done in".
    """

    def __init__(
        self,
        desc: str,
        unit: str,
        total: int | None,
        mode: Mode,
        *,
        initial: int = 0,
        delay: float = 0.0,
        every: float | None = None,
        final: bool = True,
        file: IO[str] | None = None,
        notebook: bool = False,
        stalled: float = STALLED,
    ) -> None:
        self.desc = desc
        self.unit = unit
        self.total = total
        self.mode = mode
        self.done = initial
        self._initial = initial
        self._final = final
        self._file = file
        self._start = self._last = time.monotonic()
        self.stalled = stalled
        self._printed = 0
        self._bar: Any = None
        self._stall_shown = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.every = interval() if every is None else every
        tick = self.every
        if mode == "bar":
            if notebook or _in_notebook():
                from tqdm.auto import tqdm
            else:
                from tqdm import tqdm
            self._bar = tqdm(
                total=total,
                initial=initial,
                desc=desc,
                unit=f" {unit}",
                file=self._file or sys.stderr,
                mininterval=0.25,
                delay=delay,
                dynamic_ncols=True,
            )
            tick = 1.0  # the bar's own line is redrawn by tqdm; this thread only marks a stall on it
        if mode != "off":
            self._thread = threading.Thread(target=self._tick, args=(tick,), name="scorebridge-progress", daemon=True)
            self._thread.start()

    def update(self, n: int = 1) -> None:
        """Count `n` more done."""
        self.done += n
        if n:
            self._last = time.monotonic()
        bar = self._bar
        if bar is not None:
            if self._stall_shown:
                self._stall_shown = False
                bar.set_postfix_str("", refresh=False)
            bar.update(n)

    def idle(self, now: float | None = None) -> float | None:
        """The seconds since a row was last done when that counts as stalled (see the module), else None."""
        now = time.monotonic() if now is None else now
        quiet = now - self._last
        new = self.done - self._initial
        mean = (self._last - self._start) / new if new > 0 else 0.0
        return quiet if quiet >= max(self.stalled, 10 * mean) else None

    def line(self, *, end: bool = False, interrupted: bool = False) -> str:
        """The progress line: done/total (and the share), the rate, the time left (or "stalled") or taken."""
        now = time.monotonic()
        elapsed = now - self._start
        new = self.done - self._initial
        rate = new / elapsed if elapsed > 0 else 0.0
        count = f"{self.done:,}/{self.total:,} {self.unit}" if self.total is not None else f"{self.done:,} {self.unit}"
        parts = [count]
        if self.total:
            parts[0] += f" ({100 * self.done / self.total:.0f}%)"
        parts.append(f"{rate:,.1f} {self.unit}/s")
        quiet = None if end else self.idle(now)
        if end:
            parts.append(f"{'interrupted after' if interrupted else 'done in'} {_duration(elapsed)}")
        elif quiet is not None:
            parts.append(f"stalled, nothing done for {_duration(quiet)}")
        elif self.total is not None and rate > 0:
            parts.append(f"{_duration((self.total - self.done) / rate)} left")
        else:
            parts.append(f"{_duration(elapsed)} so far")
        return f"{self.desc}: {', '.join(parts)}"

    def _write(self, text: str) -> None:
        out = self._file or sys.stderr
        try:
            out.write(text + "\n")
            out.flush()
        except (OSError, ValueError, AttributeError):  # a closed or missing stderr
            pass
        self._printed += 1

    def _tick(self, every: float) -> None:
        while not self._stop.wait(every):
            bar = self._bar
            if bar is None:
                self._write(self.line())
                continue
            quiet = self.idle()
            if quiet is not None:
                self._stall_shown = True
                bar.set_postfix_str(f"stalled, nothing done for {_duration(quiet)}")

    def close(self, *, interrupted: bool = False) -> None:
        """Stop: close the bar, or stop the lines with a last one (see `final`). Again does nothing.

        `interrupted`: the run was stopped (a signal), so the last line says "interrupted after", not "done in",
        and the bar is marked "interrupted".
        """
        thread, self._thread = self._thread, None
        if thread is not None:
            self._stop.set()
            thread.join()
        bar, self._bar = self._bar, None
        if bar is not None:
            if interrupted:
                bar.set_postfix_str("interrupted", refresh=False)
            bar.close()
        elif thread is not None and (self._final or self._printed):
            self._write(self.line(end=True, interrupted=interrupted))
