"""The scores a pytest run recorded, and which run is recording now.

This module is imported when pytest loads the plugin, so it imports nothing but
parts of the standard library that pytest has already imported. A `Records` belongs to one pytest run
(one `Config`); the run that is active now is the top of a stack, because
pytest can run inside pytest (`pytester`'s in-process runs), and the inner run
must neither see nor feed the outer run's records.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scorebridge import Score

__all__ = ["Records", "active", "on_error", "pack", "pop", "push", "safe_repr", "set_on_error", "unpack"]


class Records:
    """Every score one pytest run recorded, as rows ready for the JSONL report.

    A row is a plain dict: `nodeid` (the test that recorded it, or None outside
    any test), `scorer` (its name), then the Score's fields as
    `Score.as_dict()` gives them, its metadata made JSON-safe (a value JSON
    cannot hold becomes its repr; metadata that JSON cannot write at all, a
    mapping that holds itself, nests too deep, has tuple keys or raises,
    becomes `{"repr": ...}`). Rows travel from xdist workers to the
    controller as one JSON text (`pack`).
    """

    __slots__ = ("case", "current", "group_by", "rows")

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.current: str | None = None  # the nodeid of the test running now
        self.case: dict[str, Any] | None = None  # its case (a row of a case file), if it has one
        self.group_by: tuple[str, ...] = ()  # --scorebridge-group-by: the case fields a row keeps as "group"

    def add(self, nodeid: str | None, scorer: str, score: Score) -> None:
        """Record `score`, given by the scorer named `scorer` in the test `nodeid`."""
        row: dict[str, Any] = {"nodeid": nodeid, "scorer": scorer, **score.as_dict()}
        if self.group_by:
            case = self.case or {}
            row["group"] = {f: _plain(case.get(f)) for f in self.group_by}
        try:
            row["metadata"] = json.loads(json.dumps(row["metadata"], default=safe_repr))
        except Exception:  # a mapping that holds itself, nests too deep, has keys JSON cannot hold, or raises
            row["metadata"] = {"repr": safe_repr(row["metadata"])}
        self.rows.append(row)

    def __repr__(self) -> str:
        return f"<scorebridge Records: {len(self.rows)} scores>"


def _plain(value: Any) -> Any:
    """A case's value as the report holds it: JSON's own types kept, anything else its repr."""
    return value if value is None or isinstance(value, (str, int, float, bool)) else safe_repr(value)


def safe_repr(value: Any) -> str:
    """`repr(value)`, or a note naming the type when that raises."""
    try:
        return repr(value)
    except Exception as exc:
        return f"<{type(value).__name__} whose repr raised {type(exc).__name__}>"


def pack(rows: list[dict[str, Any]]) -> str:
    """The rows as one JSON text of ASCII only, for the trip from an xdist worker to the controller.

    execnet sends a `str` as UTF-8, which cannot hold a lone surrogate (what
    `os.fsdecode` gives for bytes that are not UTF-8): a row holding one once
    lost the whole worker's rows. JSON escapes (`\\udc80`) carry any `str`.
    """
    return json.dumps(rows, ensure_ascii=True)


def unpack(text: str) -> list[dict[str, Any]]:
    """The rows `pack` made, exactly as they were."""
    rows = json.loads(text)
    if not isinstance(rows, list):
        raise ValueError(f"the scores sent are a {type(rows).__name__}, not a list")
    return rows


_stack: list[Records] = []


def push(records: Records) -> None:
    """Make `records` the active run's (a pytest run starts)."""
    _stack.append(records)


def pop(records: Records) -> None:
    """Forget `records` (its pytest run ends); the run around it, if any, is active again."""
    if records in _stack:
        _stack.remove(records)


def active() -> Records | None:
    """The active pytest run's records, or None outside pytest (or with the plugin off)."""
    return _stack[-1] if _stack else None


_on_error = ["raise"]  # what a scorer's exception does in the test running now: a case test's on_error


def on_error() -> str:
    """What an exception raised by a scorer does in the test running now: "record" in a case test whose
    on_error says so, else "raise"."""
    return _on_error[-1]


def set_on_error(value: str) -> str:
    """Make `value` the test's on_error; returns the one before, for the caller to set again after the test."""
    before = _on_error[-1]
    _on_error[-1] = value
    return before
