"""`GraderCache`: the replies of a grader kept in a SQLite file, so a rerun asks again only what it lacks.

A reply is found by the grader's identity (`grader_identity`) and the whole
prompt, which holds the template, the instructions, the question, the answer
and the criterion. Each reply is written in a transaction of its own, so a
run killed midway leaves whole entries only. Only replies that are text are
kept; a call that failed is not, so a rerun asks it again.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Mapping
from typing import Any, Final

from .._protocol.values import shown

__all__ = ["GraderCache", "cache_lines", "cache_of", "check_cache", "grader_identity"]


def grader_identity(grader: Any) -> str:
    """What tells one grader from another in a cache: the model it asks and how (its sampling settings).

    A grader may say it itself: a `grader_identity` attribute that is a
    string, or a method returning one (`dspy_grader` and `inspect_grader`
    give the model's name, its API base and its settings, such as the
    temperature). Otherwise it is a function's file and qualified name (an
    object's class, by module and qualified name; a `functools.partial` adds
    its arguments' reprs): give a function of your own a `grader_identity`
    naming its model and settings, or two graders of one function share
    their replies.
    """
    own = getattr(grader, "grader_identity", None)
    if callable(own):
        own = own()
    if isinstance(own, str):
        return own
    if isinstance(grader, functools.partial):
        args = ", ".join([*map(repr, grader.args), *(f"{k}={v!r}" for k, v in grader.keywords.items())])
        return f"{grader_identity(grader.func)}({args})"
    fn = grader if hasattr(grader, "__qualname__") else type(grader)
    name = getattr(fn, "__qualname__", type(fn).__name__)
    code = getattr(fn, "__code__", None)
    if code is not None:  # a function: its file, which names it alike in every process (a module may not)
        return f"{code.co_filename}:{name}"
    return f"{getattr(fn, '__module__', '?')}.{name}"


_SCHEMA: Final = (
    "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, grader TEXT NOT NULL, prompt TEXT NOT NULL, "
    "reply TEXT NOT NULL, saved REAL NOT NULL)"
)


class GraderCache:
    """Grader replies in a SQLite file at `path` (made when missing), shared by every scorer given that path.

    `GraderCache(path)` for the same file in one process is the same object
    (one connection, guarded by a lock; SQLite's own locking lets other
    processes share the file). `hits` counts the replies it gave, `stored`
    the ones it kept, since it was opened.
    """

    _open: Final[dict[str, GraderCache]] = {}
    _open_lock: Final = threading.Lock()

    path: str
    hits: int
    stored: int

    def __new__(cls, path: str | os.PathLike[str]) -> GraderCache:
        if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
            raise TypeError(f"GraderCache: path must name a file (a str or a path); got {shown(path)}")
        where = os.path.realpath(os.fspath(path))
        with cls._open_lock:
            cache = cls._open.get(where)
            if cache is None:
                cache = object.__new__(cls)
                cache._start(os.fspath(path), where)
                cls._open[where] = cache
            return cache

    def _start(self, path: str, where: str) -> None:
        import sqlite3

        self.path = path
        self.hits = self.stored = 0
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(where, timeout=30.0, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)
        except sqlite3.Error as exc:
            raise ValueError(f"GraderCache: cannot use {path} as a cache of grader replies: {exc}") from None

    def __repr__(self) -> str:
        return f"GraderCache({self.path!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (GraderCache, (self.path,))

    @staticmethod
    def _key(grader: Any, prompt: str) -> tuple[str, str]:
        import hashlib
        import json

        identity = grader_identity(grader)
        digest = hashlib.sha256(json.dumps([identity, prompt]).encode("utf-8", "surrogatepass")).hexdigest()
        return digest, identity

    def get(self, grader: Any, prompt: str) -> str | None:
        """The reply kept for `grader` and `prompt`, or None."""
        key, _ = self._key(grader, prompt)
        with self._lock:
            row = self._db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
            if row is None:
                return None
            self.hits += 1
        return str(row[0])

    def put(self, grader: Any, prompt: str, reply: str) -> None:
        """Keep `reply` (one transaction: whole or not at all); a reply already kept stays as it was."""
        key, identity = self._key(grader, prompt)
        with self._lock:
            cursor = self._db.execute(
                "INSERT OR IGNORE INTO replies VALUES (?, ?, ?, ?, ?)", (key, identity, prompt, reply, time.time())
            )
            self.stored += cursor.rowcount

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM replies").fetchone()[0])


def check_cache(where: str, cache: object) -> GraderCache | None:
    """`cache` (None, a path, or a GraderCache) as a GraderCache or None; anything else a TypeError."""
    if cache is None or isinstance(cache, GraderCache):
        return cache
    if isinstance(cache, (str, os.PathLike)):
        return GraderCache(cache)
    raise TypeError(f"{where}: cache must be a file path, a scorebridge.GraderCache or None; got {shown(cache)}")


def cache_of(scorer: Any) -> GraderCache | None:
    """The grader cache a scorer was made with (its `cache` option), or None."""
    options = getattr(scorer, "options", None)
    given = options.get("cache") if isinstance(options, Mapping) else None
    if isinstance(given, (str, os.PathLike, GraderCache)):
        return check_cache(scorer.name, given)
    return None


def cache_lines(scorers: Any) -> list[str]:
    """A line per grader cache the scorers used in this process: how many replies it gave, how many it kept,
    e.g. "model_graded_qa: 880 grader replies from the cache grades.sqlite, 0 asked and kept"."""
    return [
        f"{scorer.name}: {cache.hits} grader replies from the cache {cache.path}, {cache.stored} asked and kept"
        for scorer in scorers
        if (cache := cache_of(scorer)) is not None
    ]
