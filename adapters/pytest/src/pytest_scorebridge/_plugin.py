"""The pytest plugin, loaded through the `pytest11` entry point `scorebridge`.

It adds the marker `scorebridge_cases`, the fixture `scorebridge_record`, the
option `--scorebridge-report PATH`, the ini option `scorebridge_on_error` and a
"scorebridge" section at the end of a run that recorded scores. Loading it imports only this module and `_state`
(standard library); scorebridge itself is imported when a test uses it, so a
run that does not pays nothing but a few no-op hook calls.

Under pytest-xdist each worker hands its rows to the controller through
`config.workeroutput`, as one JSON text of ASCII only (`_state.pack`: any
`str` travels, a lone surrogate too); the controller merges them as each
worker goes down (`pytest_testnodedown`), then prints the summary and writes
the report.

Scores are never lost silently: a report that cannot be written, or a worker
whose scores did not arrive, is named at the end of the run (in the
"scorebridge" section, and on stderr), and a run that would have passed exits
with status 3 (pytest's "internal error") instead.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ._state import Records, active, pack, pop, push, set_on_error, unpack

if TYPE_CHECKING:
    from ._recorder import Recorder

MARKER = "scorebridge_cases"
_RECORDS = pytest.StashKey[Records]()
_PROBLEMS = pytest.StashKey[list[str]]()  # scores that were lost, and why: reported at the end
_LINES = pytest.StashKey[list[str]]()  # the summary, made when the session finishes
_WORKER_KEY = "scorebridge_rows"  # the worker's rows, packed
_WORKER_ERROR = "scorebridge_error"  # why a worker could not pack them
_ON_ERROR = "scorebridge_on_error"  # the ini option: what a scorer's exception does in a case test
_ON_ERRORS = ("raise", "record")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        _ON_ERROR,
        "what an exception raised by a scorer does in a test of @pytest.mark.scorebridge_cases: 'raise' "
        "(the default: the test errors) or 'record' (the case's Score is wrong with failure kind 'error'); "
        "the marker's on_error= wins",
        default="raise",
    )
    group = parser.getgroup("scorebridge", "scorebridge scores")
    group.addoption(
        "--scorebridge-report",
        metavar="PATH",
        default=None,
        help="write every score recorded in the run to PATH as JSONL, one score a line "
        "(test node id, scorer, the Score's fields)",
    )
    group.addoption(
        "--scorebridge-group-by",
        action="append",
        default=[],
        metavar="FIELD",
        help="in the scorebridge summary, a line per group of scores whose test's case (a row of a "
        "scorebridge_cases file) has the same FIELD (repeat it, or a comma list), then the whole",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(path, on_error=None): run the test once per case in a JSONL or CSV file (path relative to "
        "the test file); each case, a dict of the row, is the test's `case` argument; ids from an `id` column. "
        f"on_error='record': a scorer's exception in the test is the case's error Score (default: {_ON_ERROR}).",
    )
    _on_error_option(config)
    path = _report_path(config)
    if path is not None and path.is_dir():
        raise pytest.UsageError(f"--scorebridge-report: {path} is a folder; give the path of a file")
    records = Records()
    records.group_by = _group_by(config)
    config.stash[_RECORDS] = records
    config.stash[_PROBLEMS] = []
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
        records.case = None


def pytest_runtest_setup(item: pytest.Item) -> None:
    records = active()
    callspec = getattr(item, "callspec", None)
    if records is not None and records.group_by and callspec is not None:
        case = callspec.params.get("case")
        records.case = case if isinstance(case, dict) else None


def _group_by(config: pytest.Config) -> tuple[str, ...]:
    names: list[str] = []
    for given in config.getoption("scorebridge_group_by") or []:
        for name in given.split(","):
            if not name.strip():
                raise pytest.UsageError(f"--scorebridge-group-by: a blank field name in {given!r}")
            names.append(name.strip())
    return tuple(dict.fromkeys(names))


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
    if len(marker.args) != 1 or not isinstance(marker.args[0], (str, os.PathLike)):
        raise pytest.Collector.CollectError(f"{where}: give it one argument, the case file's path")
    unknown = sorted(set(marker.kwargs) - {"on_error"})
    if unknown:
        raise pytest.Collector.CollectError(f"{where}: it takes the case file's path and on_error=; got {unknown[0]}=")
    on_error = marker.kwargs.get("on_error")
    if on_error is not None and (type(on_error) is not str or on_error not in _ON_ERRORS):
        raise pytest.Collector.CollectError(f"{where}: on_error must be 'raise' or 'record'; got {on_error!r:.80}")
    if "case" not in metafunc.fixturenames:
        raise pytest.Collector.CollectError(f"{where}: the test needs an argument named `case`")
    path = (metafunc.definition.path.parent / marker.args[0]).resolve()
    try:
        cases = read_cases(path, _shown(path, metafunc.config))
    except CaseFileError as exc:
        raise pytest.Collector.CollectError(f"{exc}\n  (the case file of {where})") from None
    metafunc.parametrize("case", [row for _, row in cases], ids=[case_id for case_id, _ in cases])


def _on_error_option(config: pytest.Config) -> str:
    value = str(config.getini(_ON_ERROR)).strip()
    if value not in _ON_ERRORS:
        raise pytest.UsageError(f"{_ON_ERROR}: must be 'raise' or 'record'; got {value!r}")
    return value


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    # A case test's on_error while its body runs: its marker's, else the ini option's
    marker = item.get_closest_marker(MARKER)
    if marker is None:
        yield
        return
    before = set_on_error(marker.kwargs.get("on_error") or _on_error_option(item.config))
    try:
        yield
    finally:
        set_on_error(before)


def _report_path(config: pytest.Config) -> Path | None:
    path = config.getoption("scorebridge_report")
    return None if path is None else (config.invocation_params.dir / path).resolve()


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workeroutput")


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    rows = config.stash[_RECORDS].rows
    problems = config.stash[_PROBLEMS]
    if _is_worker(config):  # the controller merges the rows, then reports
        try:
            config.workeroutput[_WORKER_KEY] = pack(rows)  # type: ignore[attr-defined]
        except Exception as exc:  # told to the controller, which fails the run
            config.workeroutput[_WORKER_ERROR] = f"{len(rows)} scores could not be sent: {exc!r:.300}"  # type: ignore[attr-defined]
        return
    from ._summary import summary_lines, write_report

    path = _report_path(config)
    if path is not None:
        try:
            write_report(path, rows)
        except Exception as exc:
            problems.append(f"the report {path} could not be written ({len(rows)} scores are not in it): {exc!r:.300}")
    try:
        config.stash[_LINES] = summary_lines(rows, config.stash[_RECORDS].group_by) if rows else []
    except Exception as exc:  # made here, not in the terminal summary, so that it can fail the run
        problems.append(f"the summary of {len(rows)} scores could not be made: {exc!r:.300}")
    if problems:
        import sys

        for problem in problems:
            sys.stderr.write(f"scorebridge: {problem}\n")
        if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: called on the controller only
def pytest_testnodedown(node: Any, error: object) -> None:
    config = node.config
    output = getattr(node, "workeroutput", None) or {}
    name = getattr(getattr(node, "gateway", None), "id", "a worker")
    packed = output.get(_WORKER_KEY)
    if packed is None:  # a worker that crashed, or one that could not pack its rows
        why = output.get(_WORKER_ERROR) or "it went down without sending them"
        config.stash[_PROBLEMS].append(f"the scores of the xdist worker {name} are missing: {why}")
        return
    try:
        config.stash[_RECORDS].rows.extend(unpack(packed))
    except Exception as exc:
        config.stash[_PROBLEMS].append(f"the scores of the xdist worker {name} could not be read: {exc!r:.300}")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    rows = config.stash[_RECORDS].rows
    problems = config.stash[_PROBLEMS]
    path = _report_path(config)
    if _is_worker(config) or not (rows or path or problems):
        return
    terminalreporter.write_sep("=", "scorebridge")
    if rows:
        for line in config.stash.get(_LINES, []):
            terminalreporter.write_line(line)
    else:
        terminalreporter.write_line("no scores recorded")
    for problem in problems:
        terminalreporter.write_line(f"ERROR: {problem}", red=True)
    if path is not None and not any(p.startswith(f"the report {path} ") for p in problems):
        terminalreporter.write_line(f"report: {path} ({len(rows)} scores)")
