"""A regular-expression search with a wall-clock deadline: `detect_pattern`'s defence against hostile text.

The `regex` package's own `timeout` counts the CPU time of the whole process
(C `clock()`), checked every 256 steps of its engine. So it is not the time a
user waits: other busy threads of the process use up the budget (a 0.51 s
search was stopped as "more than 1.0 s" while three other threads ran), a
starved search runs over (3.6 s of wall time for a 1 s timeout), and one step
of a pattern such as `(\\w+)\\s+(\\w+)` can scan all of a 10 MB text, so 256
steps between two checks take seconds (7.5 s for a 1 s timeout). Nothing can
stop a search running in this process from outside.

So a search gets two tries, and the deadline is the wall-clock time spent
searching (`seconds` in all):

1. On a text of at most `INLINE_CHARS` characters, in this thread, with the
   package's timeout set to `INLINE_CPU` seconds (capped by `seconds`). Nearly
   every search of a model's output ends here, in microseconds; the GIL is
   released while it runs. A text this short bounds the overrun between two
   of the engine's checks to milliseconds.
2. Otherwise (a longer text, or a search that needed more than the first
   try's slice), in a child process (`python -I -S`, importing only `regex`),
   which is killed when the rest of the wall-clock budget runs out. Starting
   it (about 20 ms) is not counted; the search itself is, from when the text
   is handed over. Other threads of this process neither slow it down nor
   use up its budget.

Where no child process can be started (no `sys.executable` that is Python, a
frozen application, a platform without processes), the second try runs in
this process with the package's CPU-time timeout: the documented fallback.

Before both, a pattern whose worst case is polynomial (`bounded_work`: no
repeated group, no back-reference, every repeat of one character, say `(\\d+)`
or `ANSWER:\\s*(.+)$`) searches a text short enough for that worst case to be
a tenth of the deadline without the package's timeout at all (1414 characters
for `(\\d+)`, 87 for `ANSWER:\\s*(.+)$`): setting it costs two reads of the
process's CPU clock (system calls, about 1 µs), more than the search of a
short answer itself.
"""

from __future__ import annotations

import marshal
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import subprocess

__all__ = [
    "INLINE_CHARS",
    "INLINE_CPU",
    "STEPS_PER_SECOND",
    "Failed",
    "Found",
    "TimedOut",
    "bounded_work",
    "longest_unguarded",
    "searcher",
]

INLINE_CHARS: Final = 200_000
"""The longest text searched in this process first: about 50,000 tokens, longer than nearly every model's
answer, so a child process is the exception. On 200,000 characters a step of the engine between two of its
timeout checks runs over by milliseconds (on 1,000,000 it ran over by 0.2 s, on 10,000,000 by seconds)."""

INLINE_CPU: Final = 0.05
"""The CPU seconds (of the whole process: the package's unit) the first try may take."""

STEPS_PER_SECOND: Final = 100_000_000
"""Steps of the engine a second, at the least: ten times fewer than measured (`a.*x` on 4,000 "a"s, 23 ms)."""

_STARTUP: Final = 30.0  # seconds a child process may take to start before it is given up
_CHILDREN: Final = threading.BoundedSemaphore(64)  # child processes searching at once, at most

Found = tuple[str, tuple[str | None, ...]] | None
"""What a search found: the whole match and its groups, or None for no match."""


class TimedOut(Exception):
    """The search was stopped at its deadline."""


class Failed(Exception):
    """The search's child process died or could not be read (its message says why)."""


class _NoChild(Exception):
    """No child process can search here: search in this process instead."""


# The child's program: it says it is ready, reads (pattern, flags, text, CPU backstop), searches and
# writes what it found. The backstop stops an orphan whose parent died; the parent kills it sooner.
_PROGRAM: Final = """
import marshal, sys
sys.path.insert(0, sys.argv[1])
import regex
out = sys.stdout.buffer
out.write(b"R")
out.flush()
pattern, flags, text, backstop = marshal.loads(sys.stdin.buffer.read())
try:
    m = regex.compile(pattern, flags).search(text, timeout=backstop)
    reply = ("found", None if m is None else (m.group(0), m.groups()))
except TimeoutError:
    reply = ("timeout", None)
except BaseException as exc:
    reply = ("error", repr(exc)[:300])
out.write(marshal.dumps(reply))
out.flush()
"""


def _found(match: Any) -> Found:
    return None if match is None else (match.group(0), match.groups())


def searcher(compiled: Any, seconds: float) -> Callable[[str], Found]:
    """`compiled.search`, stopped after `seconds` of wall-clock searching (see the module).

    The function returned raises `TimedOut` at the deadline, `Failed` when the
    child process died.
    """
    work = bounded_work(compiled.pattern)
    unguarded = 0 if work is None else longest_unguarded(work, seconds)
    search = compiled.search

    def bounded(text: str) -> Found:
        if len(text) <= unguarded:
            return _found(search(text))
        return _search(compiled, text, seconds)

    return bounded


def bounded_work(pattern: str) -> tuple[int, int] | None:
    """How far a search of `pattern` may backtrack: (work per place, repeats), or None for unboundedly far.

    A pattern made of characters, escapes of one character (`\\d`, `\\.`),
    character classes without sets inside, zero-width anchors (`^`, `$`,
    `\\b`, `\\A`, `\\Z`), plain, non-capturing and named groups, at most 8
    `|`, and repeats (`*`, `+`, `?`, `{m,n}`, lazy or possessive) each of one
    character, is searched in polynomial time: at each of the n starting
    places the engine tries at most (n + 1) counts of each of the r repeats in
    each of at most 2**bars branches, each checked in at most len(pattern)
    steps. So at most n**(r + 1) * work steps in all, work being
    len(pattern) * 2**bars.

    Anything else (a repeated group, a back-reference, lookaround, inline
    flags, `\\p{...}`, fuzzy matching) is None: it may backtrack
    exponentially, `(a+)+$` or `(a?){30}a{30}`.
    """
    repeats = bars = depth = 0
    atom = False  # may a repeat follow? (only a single character may be repeated)
    i, end = 0, len(pattern)
    while i < end:
        c = pattern[i]
        if c == "\\":
            e = pattern[i + 1 : i + 2]
            if e and e in "bBAZ":
                atom = False
            elif e and (e in "dDwWsSntrfv" or (e.isascii() and not e.isalnum())):
                atom = True
            else:  # a back-reference, \g<1>, \p{...}, \N{...}, \x41, \L<list>, \X, ... or a trailing backslash
                return None
            i += 2
            continue
        if c == "[":
            close = _class_end(pattern, i)
            if close is None:
                return None
            i, atom = close + 1, True
            continue
        if c in "*+?{":
            width = 1 if c != "{" else _braces(pattern, i)
            if not atom or width == 0:
                return None
            repeats += 1
            i += width
            if pattern[i : i + 1] in ("?", "+"):  # lazy or possessive
                i += 1
            atom = False
            continue
        if c == "(":
            if pattern.startswith("(?:", i):
                i += 3
            elif pattern.startswith("(?P<", i):
                close = pattern.find(">", i)
                if close < 0 or not pattern[i + 4 : close].isidentifier():
                    return None
                i = close + 1
            elif pattern.startswith("(?", i):
                return None
            else:
                i += 1
            depth += 1
            atom = False
            continue
        if c == ")":
            depth -= 1
            if depth < 0:
                return None
        elif c == "|":
            bars += 1
        atom = c not in "()|^$"
        i += 1
    if bars > 8:
        return None
    return len(pattern) << bars, repeats


def _class_end(pattern: str, start: int) -> int | None:
    """Where the character class opened at `start` ends, or None (unclosed, or a set inside it)."""
    i = start + 1
    if pattern[i : i + 1] == "^":
        i += 1
    if pattern[i : i + 1] == "]":  # a "]" first is a character
        i += 1
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
        elif c == "[":
            return None
        elif c == "]":
            return i
        else:
            i += 1
    return None


def _braces(pattern: str, start: int) -> int:
    """The length of the repeat `{m}`, `{m,}`, `{,n}` or `{m,n}` at `start`, or 0 for anything else there."""
    close = pattern.find("}", start)
    if close < 0:
        return 0
    low, comma, high = pattern[start + 1 : close].partition(",")
    counts = (low, high) if comma else (low,)
    if all(n == "" or (n.isascii() and n.isdigit()) for n in counts) and any(counts):
        return close - start + 1
    return 0


def longest_unguarded(work: tuple[int, int], seconds: float) -> int:
    """The longest text whose search's worst case (`bounded_work`) is a tenth of `seconds`."""
    per_place, repeats = work
    steps = seconds * STEPS_PER_SECOND / 10
    longest = min(int((steps / per_place) ** (1 / (repeats + 1))), INLINE_CHARS)
    while longest and per_place * longest ** (repeats + 1) > steps:  # the root's rounding
        longest -= 1
    return longest


def _search(compiled: Any, text: str, seconds: float) -> Found:
    start = time.monotonic()
    if len(text) <= INLINE_CHARS:
        try:
            return _found(compiled.search(text, timeout=min(seconds, INLINE_CPU)))
        except TimeoutError:
            pass
    remaining = seconds - (time.monotonic() - start)
    if remaining <= 0:
        raise TimedOut
    try:
        return _in_child(compiled, text, remaining)
    except _NoChild:
        try:
            return _found(compiled.search(text, timeout=remaining))
        except TimeoutError:
            raise TimedOut from None


def _python() -> str | None:
    """The Python to start a child with, or None when there is none (a frozen or embedded application)."""
    exe = sys.executable
    if not exe or getattr(sys, "frozen", False):
        return None
    name = os.path.basename(exe).lower()
    return exe if name.startswith(("python", "pypy")) else None


def _in_child(compiled: Any, text: str, budget: float) -> Found:
    exe = _python()
    if exe is None:
        raise _NoChild
    import subprocess  # 2-3 ms to import: only a search that needs a child pays for it

    import regex

    with _CHILDREN:
        try:
            child = subprocess.Popen(
                [exe, "-I", "-S", "-c", _PROGRAM, os.path.dirname(os.path.dirname(regex.__file__))],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0),
            )
        except OSError:
            raise _NoChild from None
        try:
            return _ask(child, compiled, text, budget)
        finally:
            if child.poll() is None:
                child.kill()
            child.wait()
            for pipe in (child.stdin, child.stdout):
                if pipe is not None and not pipe.closed:
                    pipe.close()


def _ask(child: subprocess.Popen[bytes], compiled: Any, text: str, budget: float) -> Found:
    import queue

    stdin, stdout = child.stdin, child.stdout
    assert stdin is not None and stdout is not None
    replies: queue.SimpleQueue[bytes] = queue.SimpleQueue()

    def read() -> None:  # a thread reads, so the wait has a wall-clock timeout on every platform
        try:
            replies.put(stdout.read(1))
            replies.put(stdout.read())
        except (OSError, ValueError):  # killed, or its pipe closed
            replies.put(b"")
            replies.put(b"")

    threading.Thread(target=read, name="scorebridge-regex-child", daemon=True).start()
    try:
        ready = replies.get(timeout=_STARTUP)
    except queue.Empty:
        raise _NoChild from None
    if ready != b"R":
        raise _NoChild  # it could not start (no regex there, say)
    try:
        stdin.write(marshal.dumps((compiled.pattern, compiled.flags, text, max(2 * budget, 1.0))))
        stdin.close()
        reply = replies.get(timeout=budget)
    except queue.Empty:
        raise TimedOut from None
    except OSError as exc:
        raise Failed(f"the search's process stopped: {exc!r:.200}") from None
    try:
        kind, value = marshal.loads(reply)
    except (EOFError, ValueError, TypeError):
        raise Failed(f"the search's process died (exit status {child.poll()})") from None
    if kind == "timeout":
        raise TimedOut
    if kind == "error":
        raise Failed(f"the search raised {value}")
    return value  # type: ignore[no-any-return]
