"""The `scorebridge` command: its parser, and the dispatch to each subcommand's module.

Each subcommand's work lives in a module of its own (`score`, `list`, `demo`),
imported only when that subcommand runs, so `scorebridge --version` and
`scorebridge list` import neither asyncio nor any harness. This module
imports argparse and nothing heavy.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Sequence
from importlib import import_module
from typing import Any, Final

from .._protocol.reading import ITEM_TEXT_FIELDS

DEFAULT_CONCURRENCY: Final = 16
"""--concurrency's default: score_many's (`scorebridge._protocol.scorer.DEFAULT_CONCURRENCY`, which a test compares)."""

__all__ = ["EXIT", "ITEM_FIELDS", "UsageError", "build_parser", "main"]

ITEM_FIELDS: Final = ("item", *ITEM_TEXT_FIELDS)
"""The item's field when --item-field is not given: the first of these a row has (else no item)."""

EXIT: Final = {
    "ok": 0,
    "input": 1,
    "usage": 2,
    "below": 3,
    "interrupted": 130,
    "pipe": 141,
    "terminated": 143,
}
"""The exit statuses, by meaning (the help's epilog says them)."""

_EXIT_STATUSES: Final = """\
exit status:
  0    done (and, with --fail-under, every scorer's accuracy is at or above it)
  1    a file could not be read or written: "FILE:LINE: problem" on stderr
       (a missing or empty file, a malformed row, a missing field, a row the
       scorer refuses or raises on, unless --on-error record)
  2    a usage error: a bad argument, an unknown scorer or option, a scorer
       file that cannot be imported, a missing extra
  3    a scorer's accuracy is below --fail-under (or it scored no row)
  130  interrupted (Ctrl-C); one line says how many rows were written
  141  stdout was closed early (`| head -1`); nothing more is printed
  143  stopped by SIGTERM (a CI job's timeout), as by Ctrl-C
"""


class UsageError(Exception):
    """A usage error found after parsing: printed as "scorebridge COMMAND: message", exit status 2."""


class _Version(argparse.Action):
    """`--version`: the installed distribution's version, read only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        from importlib.metadata import version

        print(f"scorebridge {version('scorebridge')}")
        parser.exit()


def _bar(text: str) -> float:
    """The bar of --fail-under: a finite number, on the summary's scale (0 to 1, or a scorer's own)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number; got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number; got {text!r}")
    return value


def _at_least_one(text: str) -> int:
    """A count for --concurrency: a whole number, at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, at least 1; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number, at least 1; got {text!r}")
    return value


def _above_zero(what: str) -> Any:
    """A parser of a finite number above 0 for an option, `what` naming it in the error ("seconds", "CPUs")."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of {what} above 0; got {text!r}") from None
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"expected a number of {what} above 0; got {text!r}")
        return value

    return parse


_stall = _above_zero("seconds")
"""A duration for --stall-timeout."""
_cpus = _above_zero("CPUs")
"""CPUs for --num-cpus (a fraction allowed)."""


def _seconds(text: str) -> float:
    """A duration for --timeout: a number of seconds above 0, at most a day (`values.seconds`, the core's rule)."""
    from .._protocol.values import seconds

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds; got {text!r}") from None
    try:
        return seconds("--timeout", value)  # type: ignore[return-value]  # never None: none=False
    except (TypeError, ValueError) as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--timeout: timeout must be ")) from None


def _option(text: str) -> tuple[str, str]:
    """`key=value` for -S, split at the first "="; the value is read as YAML later (`options.read_options`)."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected key=value; got {text!r}")
    return key, value


def _add_score(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subcommands.add_parser(
        "score",
        help="score a file of outputs with a scorer (built in, or yours) and print the summary",
        description="Score every row of a JSONL, CSV or Parquet file with a scorer, then print the number "
        "scored, the accuracy with its 95% Wilson interval, and the failure kinds.",
        epilog=_EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "file",
        help="a .jsonl/.ndjson, .csv or .parquet file (Parquet needs pyarrow), one output per row; "
        "- reads standard input (JSONL unless --input-format says otherwise)",
    )
    p.add_argument(
        "--scorer",
        dest="scorers",
        action="append",
        required=True,
        metavar="SCORER",
        help="a built-in scorer's name (see `scorebridge list`), path/to/file.py@name (a Scorer), or "
        "package.module:name (a Scorer, or a function that returns one); give it again to score with several "
        "scorers in one pass, each with its own summary line",
    )
    p.add_argument(
        "-S",
        dest="options",
        action="append",
        type=_option,
        default=[],
        metavar="KEY=VALUE",
        help="a scorer option, read as Inspect AI reads -S: the value is YAML (true, yes, 3, 1.5, [a, b], null), "
        "a plain text with commas is a list (a,b), and a dash in the key is an underscore; with several "
        "--scorer, it goes to every scorer that has that option",
    )
    p.add_argument(
        "--item-field",
        metavar="F",
        help=f"the item's field (default: the first of {', '.join(ITEM_FIELDS)} a row has, else no item)",
    )
    p.add_argument("--output-field", default="output", metavar="F", help="the output's field (default: output)")
    p.add_argument("--label-field", default="label", metavar="F", help="the label's field (default: label)")
    p.add_argument(
        "--input-format",
        choices=("jsonl", "csv", "parquet"),
        help="the format of FILE (default: by its extension; JSONL for -)",
    )
    p.add_argument(
        "--out",
        metavar="PATH",
        help='write each row as it was read, with its "line" and each scorer\'s Score in columns "SCORER.correct", '
        '"SCORER.value", "SCORER.grade", ... (docs/cli.md), as JSONL in the input\'s order as the rows are scored, '
        "after a header line naming the scorers and the input; each line is flushed as it is written, the file "
        "fsync'd once a second; - writes them to stdout, without the header (the summary then goes to stderr)",
    )
    again = p.add_mutually_exclusive_group()
    again.add_argument(
        "--resume",
        action="store_true",
        help="--out exists: score only the rows it lacks (and those whose grader failed), with the same scorers, "
        "options, fields and input (else refused, naming the difference); the summary counts the whole file",
    )
    again.add_argument("--force", action="store_true", help="--out exists: score every row again, overwriting it")
    p.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="the summary as a table (text, the default) or as one line of JSON",
    )
    p.add_argument(
        "--fail-under",
        type=_bar,
        metavar="ACCURACY",
        help="exit with status 3 when a scorer's accuracy is below ACCURACY, on the summary's own scale (0 to 1, "
        "or the mean value of a scorer on a scale of its own), or when it scored no row",
    )
    p.add_argument(
        "--concurrency",
        type=_at_least_one,
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help=f"score up to N rows at once with scorers that wait (async ones on one event loop, sync ones on "
        f"threads; the fast built-ins run inline); --out stays in the input's order (default: {DEFAULT_CONCURRENCY})",
    )
    p.add_argument(
        "--on-error",
        choices=("raise", "record"),
        default="raise",
        help="a scorer that raises: stop with the file's line and the exception (raise, the default), or record "
        "the row wrong, failure kind error, and go on (record)",
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        metavar="S",
        help="seconds a scorer may take on one row; a row past it has raised a TimeoutError (see --on-error). "
        "A sync scorer's call cannot be stopped: its thread is left to finish on its own (default: no limit)",
    )
    p.add_argument(
        "--on-bad-row",
        choices=("stop", "record", "skip"),
        default="stop",
        help="a row that cannot be read or scored as given (bad JSON, a missing field, a label the scorer cannot "
        "read): stop with FILE:LINE (stop, the default), write it as an error naming its line and count it "
        "wrong (record), or leave it out, naming it on stderr (skip); the summary says how many were bad",
    )
    p.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="where to score: in this process (local, the default) or on a Ray cluster "
        '(pip install "scorebridge[ray]")',
    )
    p.add_argument(
        "--address",
        metavar="ADDRESS",
        help="with --engine ray: the cluster's address, HOST:PORT or ray://HOST:10001 (Ray Client: pip install "
        '"scorebridge[ray-client]"); default: Ray\'s own (RAY_ADDRESS, a cluster on this machine, else a new one)',
    )
    p.add_argument(
        "--actors",
        type=_at_least_one,
        metavar="N",
        help="with --engine ray: the most actors each scorer's pool has (default: the cluster's CPUs over "
        "--num-cpus); the pool can shrink to 1, so a run goes on when a node is lost",
    )
    p.add_argument(
        "--num-cpus",
        type=_cpus,
        metavar="X",
        help="with --engine ray: the CPUs each actor reserves, a fraction for a scorer that waits on a grader "
        "(default: 1, shared by several --scorer)",
    )
    p.add_argument(
        "--batch-size",
        type=_at_least_one,
        metavar="N",
        help="with --engine ray: rows a block (an actor's call); default: the rows split over the actors, 2 "
        "blocks an actor at least, at most 1,024 rows a block",
    )
    p.add_argument(
        "--working-dir",
        metavar="DIR",
        help="with --engine ray: a folder every worker gets a copy of and imports from (Ray's job-level "
        "runtime env); default: the folder of a path/to/file.py scorer, without the input and --out",
    )
    p.add_argument(
        "--py-modules",
        action="append",
        metavar="PKG",
        help="with --engine ray: a package folder (or .whl) of yours every worker can import; give it again for more",
    )
    p.add_argument(
        "--stall-timeout",
        type=_stall,
        metavar="S",
        help="with --engine ray: end the run with what Ray reports of the cluster when no block has been scored "
        "for S seconds, as when a lost node leaves too few CPUs (default: 300)",
    )
    from .compare import add_group_by, add_progress, add_report, add_show  # the options `compare` shares

    add_group_by(p)
    add_report(p)
    add_show(
        p, "with --report: the page lists at most N failing rows of each scorer, shortest first; 'all' for every one"
    )
    add_progress(p)
    p.set_defaults(module="score")


def _add_list(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subcommands.add_parser(
        "list",
        help="list the built-in scorers and their options",
        description="List the built-in scorers: their options with the defaults, and what each checks.",
    )
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help="a readable list (text, the default) or JSON"
    )
    p.set_defaults(module="list")


def _add_demo(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subcommands.add_parser(
        "demo",
        help="one set of outputs, three scorers, eight harnesses (plain Python, benchmark(), Inspect AI, DSPy, "
        "pytest, MLflow, pydantic-evals, a TRL reward), side by side; exits 1 if any two harnesses disagree",
        description="Runs three scorers through eight harnesses, for real and offline, and checks that they agree. "
        "MLflow's sqlite store is kept in the cache folder, made on the first run: $XDG_CACHE_HOME/scorebridge/demo "
        "(by default ~/.cache/scorebridge/demo; on macOS ~/Library/Caches/scorebridge/demo, on Windows "
        "%LOCALAPPDATA%\\scorebridge\\Cache\\demo). Deleting that folder loses nothing: the next run makes it again.",
    )
    p.add_argument("--json", action="store_true", help="print the cases and every harness's verdicts as JSON")
    p.set_defaults(module="demo")


def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="scorebridge",
        description="Write a scorer once, run it in every eval harness.",
        epilog=_EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    subcommands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    from .compare import add_parser as _add_compare  # here: compare imports this module

    for add in (_add_demo, _add_score, _add_list, _add_compare):
        add(subcommands)
    return parser


def _quiet_stdout() -> None:
    """stdout's reader went away: send what is left to /dev/null, so Python's own flush at exit is quiet too."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real stdout (a test's capture)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `scorebridge` command with `argv` (default: the process's arguments); the exit status."""
    from .._runner.files import RowError

    args = build_parser().parse_args(argv)
    try:
        run = import_module(f"{__package__}.{args.module}").run
        status: int = run(args)
        sys.stdout.flush()
        return status
    except UsageError as exc:
        print(f"scorebridge {args.command}: {exc}", file=sys.stderr)
        return EXIT["usage"]
    except RowError as exc:
        print(exc, file=sys.stderr)
        return EXIT["input"]
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT["pipe"]
    except KeyboardInterrupt as exc:
        import signal

        signum = getattr(exc, "signum", signal.SIGINT)  # SIGTERM raises it too while `score` runs (`_cli.pool`)
        by = "" if signum == signal.SIGINT else f" by {signal.Signals(signum).name}"
        print(f"scorebridge {args.command}: interrupted{by}", file=sys.stderr)
        return EXIT["interrupted"] if signum == signal.SIGINT else EXIT["terminated"]
