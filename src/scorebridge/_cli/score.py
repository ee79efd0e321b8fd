"""`scorebridge score`: score a file of outputs row by row, stream the scored rows, print the one summary.

The rows are read, scored and written one at a time, so memory stays flat
however long the file is; the summary is counted on the way
(`Summary.of`). Everything that can be checked before scoring is: the scorer
and its options, the input's first row, the output file.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import sys
from collections.abc import Iterator, Mapping
from importlib import import_module
from typing import IO, TYPE_CHECKING, Any

from .._protocol.score import Score, ScorerContractError
from .._protocol.scorer import Scorer
from .._runner.files import RowError, read_rows, read_stream
from .._runner.progress import stderr_is_terminal
from .._runner.summary import Summaries, Summary
from .load import describe, load_scorer
from .main import EXIT, ITEM_FIELDS, UsageError

if TYPE_CHECKING:
    from tqdm import tqdm

__all__ = ["json_line", "run"]

STDIN = "<stdin>"
"""How standard input is named in errors ("<stdin>:3: problem")."""


def _finite(value: Any) -> Any:
    """`value` as standard JSON holds it, in lists and dicts at any depth: NaN as None, an infinity as its text.

    NaN is None because a NaN label is no label, as null is; an infinity is "inf" or "-inf", the text a
    scorer compares it as (`plain_digits`), so the file says what the row was scored against.
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None if math.isnan(value) else repr(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def json_line(path: str, line: int, row: Mapping[str, Any], score: Score) -> str:
    """One line of `--out`: `{"line", "row", "score"}` as standard JSON, with a newline.

    A NaN in the row (JSON's non-standard `NaN`, which the reader accepts) is
    written as null, an infinity as "inf" or "-inf": standard JSON has no such
    number. A value JSON cannot hold (a Parquet timestamp, bytes) is written as
    its `str`.
    """
    record = {"line": line, "row": row, "score": score.as_dict()}
    try:
        return json.dumps(record, default=str, allow_nan=False) + "\n"
    except ValueError:  # a NaN or an infinity
        pass
    except RecursionError:
        raise RowError(path, line, "cannot be written as JSON: nested too deeply") from None
    try:
        return json.dumps(_finite(record), default=str, allow_nan=False) + "\n"
    except (ValueError, RecursionError) as exc:
        raise RowError(path, line, f"cannot be written as JSON ({exc})") from None


class _Scoring:
    """One local run: the rows in, the scored rows out, and how far it got."""

    def __init__(self, args: argparse.Namespace, scorer: Scorer, name: str) -> None:
        self.args = args
        self.scorer = scorer
        self.name = name
        self.out: IO[str] | None = None
        self.bar: tqdm[Any] | None = None
        self.scored = 0
        self.written = 0

    def _field(self, line: int, row: Mapping[str, Any], field: str) -> Any:
        if field not in row:
            fields = ", ".join(map(str, row)) or "no fields"
            raise RowError(self.name, line, f"no field {field!r}; the row has {fields}")
        return row[field]

    def _score(self, line: int, row: Mapping[str, Any]) -> Score:
        args, scorer = self.args, self.scorer
        item_field = args.item_field or next((f for f in ITEM_FIELDS if f in row), None)
        item = None if item_field is None else self._field(line, row, item_field)
        output = self._field(line, row, args.output_field)
        label = self._field(line, row, args.label_field)
        try:
            return scorer(item, output, label)
        except ScorerContractError as exc:
            raise RowError(self.name, line, str(exc)) from None
        except RecursionError:
            raise RowError(self.name, line, f"the scorer {scorer.name!r} cannot read it: nested too deeply") from None
        except Exception as exc:
            raise RowError(self.name, line, f"the scorer {scorer.name!r} raised {describe(exc)}") from None

    def scores(self, rows: Iterator[tuple[int, dict[str, Any]]]) -> Iterator[Score]:
        """Score each row, write it to `--out` at once, and give its Score (to be counted)."""
        for line, row in rows:
            score = self._score(line, row)
            self.scored += 1
            if self.out is not None:
                self.out.write(json_line(self.name, line, row, score))
                self.written += 1
            if self.bar is not None:
                self.bar.update()
            yield score

    def close(self) -> None:
        """Close the progress bar and `--out` (flushing the rows written); again does nothing."""
        bar, out, self.bar, self.out = self.bar, self.out, None, None
        if bar is not None:
            bar.close()
        if out is not None and out is not sys.stdout:
            out.close()


def _rows(args: argparse.Namespace) -> Iterator[tuple[int, dict[str, Any]]]:
    if args.file == "-":
        if args.input_format == "parquet":
            raise UsageError("Parquet cannot be read from standard input (it is read by seeking); name the file")
        return read_stream(STDIN, sys.stdin.buffer, args.input_format or "jsonl")
    return read_rows(args.file, args.input_format)


def _check_out(args: argparse.Namespace) -> None:
    """Refuse an `--out` that cannot be written, before any row is scored."""
    out: str | None = args.out
    if out is None or out == "-":
        return
    if args.engine == "local" and out.lower().endswith(".parquet"):
        raise UsageError("--out: this engine writes JSONL; Parquet is written by --engine ray")
    if os.path.isdir(out):
        raise RowError(out, None, "cannot be written: it is a folder")
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder):
        raise RowError(out, None, f"cannot be written: no folder {folder}")
    if args.file != "-" and os.path.exists(out) and os.path.exists(args.file) and os.path.samefile(out, args.file):
        raise UsageError(f"--out {out} is the input file; it would be overwritten")


def _open_out(args: argparse.Namespace) -> IO[str] | None:
    if args.out is None:
        return None
    if args.out == "-":
        return sys.stdout
    try:
        return open(args.out, "w", encoding="utf-8")
    except OSError as exc:
        raise RowError(args.out, None, f"cannot be written: {exc.strerror or exc}") from None


def _interrupted(args: argparse.Namespace, run: _Scoring) -> int:
    if args.out is None:
        where = "nothing written (no --out)"
    else:
        to = "stdout" if args.out == "-" else args.out
        where = f"{run.written} row{'' if run.written == 1 else 's'} written to {to}"
    print(f"scorebridge score: interrupted after {run.scored} scored rows; {where}", file=sys.stderr)
    return EXIT["interrupted"]


def _local(args: argparse.Namespace, scorer: Scorer) -> Summary | int:
    name = STDIN if args.file == "-" else args.file
    rows = _rows(args)
    first = next(rows)  # a missing, empty or unreadable input is found before --out is opened
    run = _Scoring(args, scorer, name)
    try:
        run.out = _open_out(args)
        if stderr_is_terminal():
            from tqdm import tqdm

            run.bar = tqdm(desc="scoring", unit=" rows", file=sys.stderr, mininterval=0.25, delay=0.5, leave=False)
        return Summary.of(scorer.name, run.scores(itertools.chain([first], rows)))
    except KeyboardInterrupt:
        run.close()
        return _interrupted(args, run)
    finally:
        run.close()


def _with_ray(args: argparse.Namespace, scorer: Scorer) -> Summary:
    if args.file == "-":
        raise UsageError("--engine ray reads files, not standard input")
    try:
        engine = import_module(f"{__package__}.ray_engine")
    except ImportError as exc:
        raise UsageError(f'--engine ray needs Ray: pip install "scorebridge[ray]" ({exc})') from None
    summary: Summary = engine.score_with_ray(args, scorer)
    return summary


def _report(args: argparse.Namespace, scorer: Scorer, summary: Summary) -> int:
    to = sys.stderr if args.out == "-" else sys.stdout
    if args.format == "json":
        print(json.dumps(summary.as_dict()), file=to)
    else:
        name = STDIN if args.file == "-" else args.file
        print(f"{name}: {summary.rows} row{'' if summary.rows == 1 else 's'} scored with {scorer!r}", file=to)
        print(Summaries([summary], kind="scorer"), file=to)
    bar = args.fail_under
    if bar is not None and (summary.accuracy is None or summary.accuracy < bar):
        figure = (
            "no row was scored, so there is no accuracy"
            if summary.accuracy is None
            else f"accuracy {summary.accuracy:.4f} over {summary.scored} scored rows"
        )
        print(f"scorebridge score: {figure}: below --fail-under {bar:g}", file=sys.stderr)
        return EXIT["below"]
    return EXIT["ok"]


def run(args: argparse.Namespace) -> int:
    """Run `scorebridge score`; the exit status (usage and file errors are raised for `main` to report)."""
    if args.engine != "ray" and args.address is not None:
        raise UsageError("--address is for --engine ray")
    scorer = load_scorer(args.scorer, args.options)
    _check_out(args)
    outcome = _with_ray(args, scorer) if args.engine == "ray" else _local(args, scorer)
    if isinstance(outcome, int):
        return outcome
    return _report(args, scorer, outcome)
