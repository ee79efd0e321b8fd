"""`scorebridge compare BASE NEW`: two scored runs, item by item, with a status for CI.

The parser is made here (`add_parser`, called by `main.build_parser`) with
argparse alone; the comparison itself (`scorebridge._runner.compare`) is
imported only when the subcommand runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Final

from .main import EXIT, UsageError

__all__ = ["add_parser", "run"]

FAIL_ON_REGRESSION: Final = """\
--fail-on-regression [N]
  exit with status 3 when the new run is a regression: a significant drop
  (McNemar's exact p < 0.05, more items regressed than improved) or more than
  N regressed items. N is 0 unless given, so the bare flag fails on any
  regressed item; --fail-on-regression=significant fails on a significant
  drop only. Write it after the files, or as --fail-on-regression=N.
"""

_STATUSES: Final = f"""\
{FAIL_ON_REGRESSION}
exit status:
  0    compared (and, with --fail-on-regression, no regression)
  1    a file could not be read: "FILE:LINE: problem" on stderr (not a scored
       file, a row without the id, an id twice on one side)
  2    a usage error
  3    a regression, with --fail-on-regression: the reason on stderr
"""


def _limit(text: str) -> int | None:
    """N of --fail-on-regression: a count of regressed items, or "significant" (None: no count)."""
    if text == "significant":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a count of regressed items or 'significant'; got {text!r} "
            "(put --fail-on-regression after the files, or write --fail-on-regression=N)"
        ) from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a count of at least 0; got {text!r}")
    return value


def _show(text: str) -> int | None:
    if text == "all":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a count or 'all'; got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a count of at least 0; got {text!r}")
    return value


def add_group_by(p: argparse.ArgumentParser) -> None:
    """--group-by, as `score` and `compare` take it."""
    p.add_argument(
        "--group-by",
        action="append",
        default=[],
        metavar="COLUMN",
        help="a summary line per group of rows with the same value of COLUMN (repeat it, or give a comma list, "
        "for groups of several columns), then the whole",
    )


def add_show(p: argparse.ArgumentParser, what: str) -> None:
    """--show N (or 'all'), default 20, as `score` and `compare` take it; `what` says what it cuts."""
    p.add_argument("--show", type=_show, default=20, metavar="N", help=f"{what} (default: 20)")


def add_report(p: argparse.ArgumentParser) -> None:
    """--report, as `score` and `compare` take it."""
    p.add_argument(
        "--report",
        metavar="PATH",
        help="also write the results as one self-contained HTML page (charts, tables, provenance; "
        "opens offline, prints well)",
    )


def check_report(path: str) -> None:
    """Refuse a `--report` path that cannot be written (a folder, or in no folder), before any work: a `RowError`."""
    import os

    from .._runner.files import RowError

    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path) or not os.path.isdir(folder):
        problem = "it is a folder" if os.path.isdir(path) else f"no folder {folder}"
        raise RowError(path, None, f"cannot be written: {problem}")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds; got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0; got {text!r}")
    return value


def add_progress(p: argparse.ArgumentParser) -> None:
    """--progress-interval, as `score` takes it."""
    p.add_argument(
        "--progress-interval",
        type=_seconds,
        metavar="SECONDS",
        help="where stderr is no terminal (a CI log): a progress line every SECONDS (default: 10), and one at the "
        "end of a run that printed any",
    )


def add_parser(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `compare` subcommand's parser."""
    p = subcommands.add_parser(
        "compare",
        help="compare two scored runs item by item: paired difference, McNemar's test, regressed and improved items",
        description="Pair the rows of two scored runs (what `scorebridge score --out` or benchmark(out=...) "
        "writes, JSONL or Parquet) by an id and print each side's summary, the paired difference in accuracy "
        "with its 95% interval, McNemar's exact test on the flips, and the regressed and improved items.",
        epilog=_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("base", help="the run compared against (a .jsonl/.ndjson or .parquet file)")
    p.add_argument("new", help="the new run")
    p.add_argument(
        "--id",
        action="append",
        default=[],
        metavar="COLUMN",
        help="the column pairing the rows (default: a benchmark record's item id; else the row's id, else its "
        "item, input or question, else its line); once for both files, or twice: base's, new's",
    )
    p.add_argument(
        "--arm",
        action="append",
        default=[],
        metavar="ARM",
        help="for benchmark files of several arms: the arm to compare (once for both files, or twice: base's, new's)",
    )
    p.add_argument(
        "--scorer",
        action="append",
        default=[],
        metavar="NAME",
        help="compare only this scorer (default: each scorer whose scores both files hold, a section each; two "
        "files of one scorer each, whatever their names); once for both files, or twice: base's, then new's, "
        "when their names differ",
    )
    p.add_argument("--output-field", default="output", metavar="F", help="the output's field (default: output)")
    add_group_by(p)
    add_show(p, "list at most N items of each kind (regressed, improved, one side only); 'all' for every one")
    p.add_argument(
        "--fail-on-regression",
        nargs="?",
        type=_limit,
        const=0,
        default=False,
        metavar="N",
        help="exit with status 3 on a significant drop or more than N regressed items (N: 0; 'significant': "
        "a significant drop only)",
    )
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help="the comparison as text (the default) or JSON"
    )
    add_report(p)
    p.set_defaults(module="compare")


def _lean_arrow() -> None:
    """Arrow's allocator, for this process: the system's, which gives a decoded row group's memory back at once
    (the default pool keeps it, and the peak of reading two Parquet files was about twice as high)."""
    try:
        from importlib import import_module

        pa = import_module("pyarrow")
        pa.set_memory_pool(pa.system_memory_pool())
    except Exception:  # no pyarrow: the reader says what to install
        pass


def _one_or_two(option: str, given: list[str]) -> str | tuple[str, str] | None:
    """An option given once (both files) or twice (base's, then new's)."""
    if len(given) > 2:
        raise UsageError(f"{option} is given once (both files) or twice (base's, then new's)")
    return given[0] if len(given) == 1 else (given[0], given[1]) if given else None


def run(args: argparse.Namespace) -> int:
    """Run `scorebridge compare`; the exit status."""
    from .._runner.compare import (
        compare_scorers,
        comparisons_dict,
        comparisons_lines,
        comparisons_regression,
        write_comparisons,
    )

    if args.report:
        check_report(args.report)
    if any(str(path).lower().endswith((".parquet", ".pq")) for path in (args.base, args.new)):
        _lean_arrow()
    try:
        results = compare_scorers(
            args.base,
            args.new,
            id=_one_or_two("--id", args.id),
            arm=_one_or_two("--arm", args.arm),
            scorer=_one_or_two("--scorer", args.scorer),
            group_by=args.group_by or None,
            output_field=args.output_field,
        )
    except ValueError as exc:
        from .._runner.files import RowError

        if isinstance(exc, RowError):
            raise
        raise UsageError(getattr(exc, "cli", str(exc)).removeprefix("compare: ")) from None
    gate = args.fail_on_regression
    if args.report:
        write_comparisons(results, args.report, fail_on_regression=gate)
    if args.format == "json":
        print(json.dumps(comparisons_dict(results, show=args.show, fail_on_regression=gate), default=str))
    else:
        print("\n".join(comparisons_lines(results, show=args.show)))
        if args.report:
            print(f"report: {args.report}")
    if gate is not False:
        reason = comparisons_regression(results, gate)
        if reason is not None:
            print(f"scorebridge compare: a regression: {reason}", file=sys.stderr)
            return EXIT["below"]
    return EXIT["ok"]
