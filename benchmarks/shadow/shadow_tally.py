"""The tally both shadow plugins keep: one record per repeated call, its summary, and where they go.

A record is a dict with "result": "agree", "explained" (with the "rule" that
explains it), "real", or "shadow error" (the shadow itself could not repeat the
call: counted apart, never a test's failure), and "round_trip_identity". The
plugins import the pytest hooks below into their own namespace.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

RECORDS: list[dict[str, Any]] = []
_LOCK = threading.Lock()
_TEST: list[str] = [""]  # the test running now


def add(record: dict[str, Any]) -> None:
    """Keep one call's record, with the test that made the call (from any thread)."""
    with _LOCK:
        RECORDS.append({"test": _TEST[0], **record})


def broken(scorer: str, exc: Exception) -> None:
    """The shadow could not repeat a call of `scorer`."""
    add({"scorer": scorer, "result": "shadow error", "error": repr(exc)})


def subclasses(kind: type) -> list[type]:
    """Every subclass of `kind`, however deep."""
    found: list[type] = []
    todo = [kind]
    sub: type
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.append(sub)
                todo.append(sub)
    return found


def summary() -> dict[str, Any]:
    """Calls, agreements, explained (by rule), real, shadow errors, round trips that are identities, and the
    calls per scorer."""
    results = Counter(r["result"] for r in RECORDS)
    identities = [r["round_trip_identity"] for r in RECORDS if r.get("round_trip_identity") is not None]
    return {
        "calls": len(RECORDS) - results["shadow error"],
        "agree": results["agree"],
        "explained": results["explained"],
        "real": results["real"],
        "shadow errors": results["shadow error"],
        "rules": dict(Counter(r["rule"] for r in RECORDS if r["result"] == "explained")),
        "round_trip_identity": f"{sum(identities)} of {len(identities)}",
        "scorers": dict(Counter(r["scorer"] for r in RECORDS)),
    }


EXTRA: list[Any] = []
"""A plugin's own addition to the summary: a function of the records giving a dict."""


def full_summary() -> dict[str, Any]:
    tally = summary()
    for more in EXTRA:
        tally.update(more(RECORDS))
    return tally


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _TEST[0] = item.nodeid


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = os.environ.get("SCOREBRIDGE_SHADOW_OUT")
    if out:
        with open(out, "w", encoding="utf-8") as f:
            for record in RECORDS:
                f.write(json.dumps(record) + "\n")
            f.write(json.dumps({"summary": full_summary()}) + "\n")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    terminalreporter.section("shadow through scorebridge")
    for key, value in full_summary().items():
        terminalreporter.write_line(f"{key}: {value}")
    for r in RECORDS:
        if r["result"] in ("real", "shadow error"):
            terminalreporter.write_line(f"{r['result'].upper()}: {r}")


def shadowed_run(plugin: str, tests: str, folder: Path, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The records (and the summary, last) of the test module `tests` (its text), written in `folder` and run
    in a pytest of its own with the shadow `plugin` loaded; AssertionError with pytest's output when a test
    fails (the shadow must break no test)."""
    test_file = folder / "test_calls.py"
    test_file.write_text(tests, encoding="utf-8")
    out = folder / "tally.jsonl"
    here = str(Path(__file__).resolve().parent)
    run_env = {**os.environ, "PYTHONPATH": os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])}
    run_env.update(env or {}, SCOREBRIDGE_SHADOW_OUT=str(out))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", plugin]
    done = subprocess.run(
        [*command, "-c", os.devnull, "--rootdir", str(folder), str(test_file)],
        cwd=folder,
        env=run_env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
