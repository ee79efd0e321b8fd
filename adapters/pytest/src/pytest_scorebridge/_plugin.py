"""The pytest plugin, loaded through the `pytest11` entry point `scorebridge`.

It adds the marker `scorebridge_cases`, the fixture `scorebridge_record`, the
option `--scorebridge-report PATH` and a "scorebridge" section at the end of a
run that recorded scores. Loading it imports only this module and `_state`
(standard library); scorebridge itself is imported when a test uses it, so a
run that does not pays nothing but a few no-op hook calls.

Under pytest-xdist each worker hands its rows to the controller through
`config.workeroutput`; the controller merges them as each worker goes down
(`pytest_testnodedown`), then prints the summary and writes the report.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ._state import Records, active, pop, push

if TYPE_CHECKING:
    from ._recorder import Recorder

MARKER = "scorebridge_cases"
_RECORDS = pytest.StashKey[Records]()
_WORKER_KEY = "scorebridge_rows"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("scorebridge", "scorebridge scores")
    group.addoption(
        "--scorebridge-report",
        metavar="PATH",
        default=None,
        help="write every score recorded in the run to PATH as JSONL, one score a line "
        "(test node id, scorer, the Score's fields)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(path): run the test once per case in a JSONL or CSV file (path relative to the "
        "test file); each case, a dict of the row, is the test's `case` argument; ids from an `id` column.",
    )
    path = _report_path(config)
    if path is not None and path.is_dir():
        raise pytest.UsageError(f"--scorebridge-report: {path} is a folder; give the path of a file")
    records = Records()
    config.stash[_RECORDS] = records
    push(records)


def pytest_unconfigure(config: pytest.Config) -> None:
    records = config.stash.get(_RECORDS, None)
    if records is not None:
        pop(records)


def pytest_runtest_logstart(nodeid: str) -> None:
    records = active()
    if records is not None:
        records.current = nodeid


def pytest_runtest_logfinish() -> None:
    records = active()
    if records is not None:
        records.current = None


@pytest.fixture
def scorebridge_record(request: pytest.FixtureRequest) -> Recorder:
    """Score an output and record it without failing: `score = scorebridge_record(scorer, output, label, item=None)`.

    The Score is returned and counted in the run's "scorebridge" summary and
    `--scorebridge-report`; a wrong or unscored output does not fail the test.
    `await scorebridge_record.acall(...)` is the async twin.
    """
    from ._recorder import Recorder

    return Recorder(request.config.stash[_RECORDS], request.node.nodeid)


def _shown(path: Path, config: pytest.Config) -> str:
    return str(path.relative_to(config.rootpath)) if path.is_relative_to(config.rootpath) else str(path)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker(MARKER)
    if marker is None:
        return
    from ._cases import CaseFileError, read_cases

    where = f"@pytest.mark.{MARKER} on {metafunc.definition.name}"
    if len(marker.args) != 1 or marker.kwargs or not isinstance(marker.args[0], (str, os.PathLike)):
        raise pytest.Collector.CollectError(f"{where}: give it one argument, the case file's path")
    if "case" not in metafunc.fixturenames:
        raise pytest.Collector.CollectError(f"{where}: the test needs an argument named `case`")
    path = (metafunc.definition.path.parent / marker.args[0]).resolve()
    try:
        cases = read_cases(path, _shown(path, metafunc.config))
    except CaseFileError as exc:
        raise pytest.Collector.CollectError(f"{exc}\n  (the case file of {where})") from None
    metafunc.parametrize("case", [row for _, row in cases], ids=[case_id for case_id, _ in cases])


def _report_path(config: pytest.Config) -> Path | None:
    path = config.getoption("scorebridge_report")
    return None if path is None else (config.invocation_params.dir / path).resolve()


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workeroutput")


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    rows = config.stash[_RECORDS].rows
    if _is_worker(config):  # the controller merges the rows, then reports
        config.workeroutput[_WORKER_KEY] = rows  # type: ignore[attr-defined]
        return
    path = _report_path(config)
    if path is not None:
        from ._summary import write_report

        write_report(path, rows)


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: called on the controller only
def pytest_testnodedown(node: Any, error: object) -> None:
    rows = getattr(node, "workeroutput", {}).get(_WORKER_KEY, ())  # none from a worker that crashed
    node.config.stash[_RECORDS].rows.extend(rows)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    rows = config.stash[_RECORDS].rows
    path = _report_path(config)
    if _is_worker(config) or not (rows or path):
        return
    terminalreporter.write_sep("=", "scorebridge")
    if rows:
        from ._summary import summary_lines

        for line in summary_lines(rows):
            terminalreporter.write_line(line)
    else:
        terminalreporter.write_line("no scores recorded")
    if path is not None:
        terminalreporter.write_line(f"report: {path} ({len(rows)} scores)")
