"""`scorebridge score FILE --engine ray`: the file read and scored through Ray Data, on a local Ray or a cluster.

The one module of the core that imports an adapter (`scorebridge_ray`, so Ray):
the CLI imports this module only for `--engine ray`, so without Ray installed
that import fails and the CLI says what to install. The file is checked here
first, as the local engine reads it (`read_rows`, so a bad line is the same
"FILE:LINE: problem"), then read again by Ray Data:

- `.parquet`: Ray's Parquet reader, the columns as typed in the file;
- `.jsonl`/`.ndjson`: each line parsed by Python's `json` in Ray tasks (not Ray's
  JSON reader, which guesses types: "01" would become the number 1). A column
  holds one type in Arrow, so a field whose JSON type changes from row to row
  (a string here, a list there) is refused; a row without the item's field has
  null there; an object in a field becomes a struct, with every key any row has;
- `.csv`: every value a string, an empty cell "", as the local engine reads it.

A path with a scheme (`s3://...`) is not checked here, only read by Ray.
`--out` gets the rows as the local engine writes them (`line`, the row's fields,
each scorer's `SCORER.FIELD` columns: `scorebridge._runner.scored`), one file
(Parquet, or JSONL by its extension; "-" is JSONL on standard output), written
as the scored rows stream back in the input's order. Several scorers are one
`score_dataset` stage each, so each row is read once. A scorer's exception is
recorded in every actor and, with --on-error raise, named by the first row's
line once the rows are scored (Ray cannot say which line a failed task held);
a grade no rule reads is marked there too, and said once per scorer with the
count and the first line, as the local engine says it. `--group-by`'s groups
are counted per block (`summarize_groups`), a column no row has being the group
`(none)`, as locally.

Ray's `uv run` integration is turned off for this process (unless you set
RAY_ENABLE_UV_RUN_RUNTIME_ENV yourself): under `uv run` it would copy the working
directory for the workers and have each job build a uv environment there.
"""

from __future__ import annotations

import os

os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")  # read when Ray is imported, just below

import argparse
import contextvars
import functools
import json
import sys
import warnings
from array import array
from collections.abc import Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any, Final, cast

import ray
import ray.data

from scorebridge_ray import score_dataset, summarize, summarize_groups
from scorebridge_ray._ship import ship

from .._protocol.cells import csv_cell
from .._protocol.score import Score, UnreadableLabel
from .._protocol.scorer import Scorer
from .._runner.files import JSONL_SUFFIXES, PARQUET_SUFFIXES, SUFFIXES, RowError, format_of, read_rows
from .._runner.groups import GroupedSummaries, parse_group_by
from .._runner.scored import LINE, taken_columns, unique_names
from .._runner.summary import Summary
from .load import describe
from .main import DEFAULT_CONCURRENCY, ITEM_FIELDS
from .score import grade_line

if TYPE_CHECKING:
    import pyarrow as pa
    from ray.data import Dataset

__all__ = ["score_with_ray"]

_JSON_KIND: Final = {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list"}


def _remote(path: str) -> bool:
    return "://" in path


def _json_kind(value: Any) -> str | None:
    if value is None:
        return None
    return _JSON_KIND.get(type(value), "an object")


class _Clash(Exception):
    """Two values Arrow cannot hold in one column: at `path`, `here` (this row's kind) against `before`."""

    def __init__(self, path: str, here: str, before: str) -> None:
        super().__init__(path)
        self.path, self.here, self.before = path, here, before


def _merged(shape: Any, value: Any, path: str) -> Any:
    """What the values at `path` hold so far (`shape`), with `value` added; `_Clash` when Arrow cannot hold both.

    A shape is None (only nulls yet), a kind ("a string", ...), `[shape]` for a list (its elements' shape)
    or `{key: shape}` for an object (every key any of them has: Arrow's struct).
    """
    kind = _json_kind(value)
    if kind is None:
        return shape
    before = shape if shape is None or isinstance(shape, str) else "a list" if isinstance(shape, list) else "an object"
    if before is not None and before != kind:
        raise _Clash(path, kind, before)
    if kind == "a list":
        element = None if shape is None else shape[0]
        for each in value:
            element = _merged(element, each, f"{path}[]")
        return [element]
    if kind == "an object":
        keys: dict[str, Any] = {} if shape is None else shape
        for key, each in value.items():
            keys[key] = _merged(keys.get(key), each, f"{path}.{key}")
        return keys
    return kind


def _check_rows(path: str, fmt: str, needed: list[str]) -> tuple[list[str], array[int]]:
    """Read the file as the local engine does (every line, "FILE:LINE: problem"), and check what Ray needs.

    Every row must have the `needed` fields; in a JSONL file, a field's JSON type
    must not change from row to row (Arrow holds one type per column), nor that
    of the elements of a list in it, or of a key of an object in it, anywhere in
    any row (`[1, {"b": 2}]` cannot be an Arrow list). The names of the fields,
    in order of appearance, and each row's line (for --out's `line` and the
    messages: Ray Data does not keep them).
    """
    fields: dict[str, tuple[Any, int] | None] = {}  # name: (its values' shape, the line it was first seen on)
    lines: array[int] = array("q")
    for line, row in read_rows(path):
        lines.append(line)
        for name in needed:
            if name not in row:
                have = ", ".join(map(str, row)) or "no fields"
                raise RowError(path, line, f"no field {name!r}; the row has {have}")
        if fmt == "csv":  # every value a string
            fields = fields or dict.fromkeys(row)
            continue
        for name, value in row.items():
            seen = fields.get(name)
            try:
                shape = _merged(None if seen is None else seen[0], value, name)
            except _Clash as clash:
                where = f"is {clash.here}" if clash.path == name else f"has {clash.here} at {clash.path}"
                before = (
                    f"{clash.before} on line {seen[1]}"
                    if seen is not None and clash.path == name
                    else (f"{clash.before} there before" + ("" if seen is None else f" (first seen on line {seen[1]})"))
                )
                raise RowError(
                    path,
                    line,
                    f"the field {name!r} {where} here but {before}; Ray Data holds one type per column, and "
                    "in each list and object of one: make them one type, or score the file without --engine ray",
                ) from None
            if shape is not None:
                fields[name] = (shape, line if seen is None else seen[1])
            elif seen is None:
                fields[name] = None
    return list(fields), lines


def _parse_lines(batch: pa.Table) -> pa.Table:
    """JSON lines (the column "text") to a table of their fields, read by Python's `json` (a Ray task)."""
    import pyarrow as pa

    rows = pa.array([json.loads(text) for text in batch.column("text").to_pylist() if text.strip()])
    return pa.Table.from_struct_array(rows) if len(rows) else pa.table({})


def _read(path: str, fmt: str, fields: list[str]) -> Dataset:
    if fmt == "parquet":
        return ray.data.read_parquet(path)
    if fmt == "csv":
        import pyarrow as pa
        import pyarrow.csv as pcsv

        convert = pcsv.ConvertOptions(
            column_types=dict.fromkeys(fields, pa.string()), strings_can_be_null=False, quoted_strings_can_be_null=False
        )
        parse = pcsv.ParseOptions(newlines_in_values=True)
        return ray.data.read_csv(path, convert_options=convert, parse_options=parse)
    lines = ray.data.read_text(path, encoding="utf-8-sig", drop_empty_lines=True)
    return lines.map_batches(_parse_lines, batch_format="pyarrow", batch_size=None)


def _connect(address: str | None) -> None:
    import logging

    # Ray Data logs each dataset's plan and progress at INFO, 20-odd lines a run: the command prints its own summary
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    if ray.is_initialized():
        return
    try:
        ray.init(address=address, logging_level=logging.ERROR)
    except ConnectionError as exc:
        raise RowError(address or "ray.init()", None, f"cannot reach a Ray cluster: {exc}") from None


def _raised(exc: BaseException) -> str:
    """What a scorer raised inside Ray, from Ray's error: the exception's line and notes, without Ray's frames.

    The notes that say where it was raised (the scorer's name, the row of a batch) are left out: the command's
    message names the scorer, and a row of a batch is no line of the file.
    """
    text = str(exc).split("\nThe above exception was the direct cause")[0]
    lines = [line for line in text.splitlines() if line.strip()]
    for i in range(len(lines) - 1, -1, -1):
        if not lines[i].startswith(" ") and ("Error" in lines[i] or "Exception" in lines[i]) and ": " in lines[i]:
            notes = [n for n in lines[i + 1 :] if not n.startswith(("raised inside the ", "at row "))]
            return " ".join([lines[i], *notes])
    return lines[-1] if lines else type(exc).__name__


def _numbered(ds: Dataset, names: Sequence[str], lines: Sequence[int] | None) -> Iterator[pa.Table]:
    """The batches of `ds` in order, each with the rows' `line` first (the file's lines, else 1, 2, ...)."""
    import pyarrow as pa

    done = 0
    for each in ds.iter_batches(batch_format="pyarrow", batch_size=None):
        batch = cast("pa.Table", each)
        n = batch.num_rows
        numbers = lines[done : done + n] if lines is not None else range(done + 1, done + n + 1)
        done += n
        yield _unmarked(batch, names).add_column(0, LINE, pa.array(numbers, type=pa.int64()))


def _write_jsonl(batches: Iterator[pa.Table], f: IO[str]) -> None:
    for batch in batches:
        for row in batch.to_pylist():
            f.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")


def _write(ds: Dataset, names: Sequence[str], lines: Sequence[int] | None, out: str, fmt: str) -> None:
    """The rows of `ds` to one file, as they stream in (the driver holds one batch at a time)."""
    batches = _numbered(ds, names, lines)
    if out == "-":
        _write_jsonl(batches, sys.stdout)
        return
    if fmt == "jsonl":
        with open(out, "w", encoding="utf-8") as f:
            _write_jsonl(batches, f)
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    # the dataset's schema (every block's, unified: a column all null in the first block is typed by the others)
    schema = ds.schema().base_schema.insert(0, pa.field(LINE, pa.int64()))  # not None: the dataset has rows
    with pq.ParquetWriter(out, schema) as writer:
        for batch in batches:
            writer.write_table(batch.cast(schema) if batch.schema != schema else batch)


_RAISED: Final = "scorebridge.raised"
"""The metadata key of a Score recorded for an exception under --on-error raise (found, then reported)."""
_GRADE: Final = "scorebridge.unread_grade"
"""The metadata key of a Score whose scorer returned a grade no rule reads (counted, said once, then dropped)."""
_MARK: Final = "scorebridge."
"""What both keys start with: the text a metadata column is searched for."""

_seen: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("scorebridge_ray_grades", default=None)


def _catch_grades() -> None:
    """In an actor: the core's "unrecognised grade" warnings kept for the call that raised them (`_seen`)."""
    previous = warnings.showwarning
    if getattr(previous, "scorebridge", False):
        return

    def show(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        seen = _seen.get()
        if seen is None or not str(message).startswith("unrecognised grade"):
            previous(message, category, *args, **kwargs)
            return
        seen.append(str(message).removeprefix("unrecognised grade ").partition(";")[0])

    show.scorebridge = True  # type: ignore[attr-defined]
    warnings.filterwarnings("always", message="unrecognised grade", category=UserWarning)
    warnings.showwarning = show


def _marked(score: Score, key: str, said: str) -> Score:
    metadata = {**score.metadata, key: said}
    return Score(score.correct, score.outcome, score.failure_kind, score.value, score.explanation, metadata)


def _marking(shipped: bytes, what: str, record: bool, csv_label: tuple[str, str] | None = None) -> Scorer:
    """In each actor: the shipped scorer, with its exceptions and unreadable grades marked in the metadata.

    An exception is recorded (`raised_score`); under --on-error raise it is also named in `_RAISED`, so the
    driver can name the first row that raised by its line, which Ray cannot (the rows are scored in batches
    on actors, and a failed task names neither). A grade no rule reads is named in `_GRADE`, so the driver
    says it once per scorer with the count and the first line, as the local engine does. The driver drops
    both keys before --out is written. `csv_label` (the file and the label column of a CSV input) makes each
    label a CSV cell, as the local engine's reader gives it, so `label: list[...]` reads a JSON array cell.
    """
    from scorebridge_ray._ship import unpack

    scorer = unpack(shipped, what)
    name = scorer.name
    _catch_grades()

    def error(exc: Exception, label: Any) -> Score:
        if isinstance(exc, UnreadableLabel):  # raised whatever --on-error says (raised_score's rule): named
            return _marked(Score(False, None, "error", 0.0, None, {}), _RAISED, describe(exc))
        score = scorer._raised(exc, label)  # its needs_label decides an unlabelled row's count
        return score if record else _marked(score, _RAISED, describe(exc))

    def given(label: Any) -> Any:  # a CSV input's label as the local engine's reader gives it
        if csv_label is not None and type(label) is str:
            return csv_cell(label, csv_label[0], None, csv_label[1])
        return label

    def read(score: Score, seen: list[str]) -> Score:
        return _marked(score, _GRADE, seen[0]) if seen else score

    fn: Any
    if scorer.is_async:

        async def mark_async(item: Any, output: Any, label: Any) -> Any:
            label = given(label)
            seen: list[str] = []
            _seen.set(seen)
            try:
                return read(await scorer.acall(item, output, label), seen)
            except Exception as exc:
                return error(exc, label)

        fn = mark_async
    else:

        def mark(item: Any, output: Any, label: Any) -> Any:
            label = given(label)
            seen: list[str] = []
            token = _seen.set(seen)
            try:
                return read(scorer(item, output, label), seen)
            except Exception as exc:
                return error(exc, label)
            finally:
                _seen.reset(token)

        fn = mark
    return Scorer(name, fn, scorer.options, recorded=True, fast=scorer.fast)  # a fast one stays inline


def _marks(ds: Dataset, names: Sequence[str], lines: Sequence[int] | None) -> list[tuple[int, str, dict[str, Any]]]:
    """The marked rows of every scorer, in the input's order: (line, scorer's name, the marks)."""
    import pyarrow.compute as pc

    columns = [f"{name}.metadata" for name in names]
    found = []
    done = 0
    for each in ds.select_columns(columns).iter_batches(batch_format="pyarrow", batch_size=None):
        batch = cast("pa.Table", each)
        for name, column in zip(names, columns, strict=True):
            texts = batch.column(column)
            hits = pc.indices_nonzero(pc.fill_null(pc.match_substring(texts, _MARK), False)).to_pylist()
            for i in hits:
                metadata = json.loads(texts[i].as_py())
                marks = {k: v for k, v in metadata.items() if k in (_RAISED, _GRADE)}
                if marks:
                    found.append((lines[done + i] if lines is not None else done + i + 1, name, marks))
        done += batch.num_rows
    found.sort(key=lambda mark: mark[0])
    return found


def _unmarked(batch: pa.Table, names: Sequence[str]) -> pa.Table:
    """A batch with the marks dropped from each scorer's metadata, which is then what the local engine writes."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for name in names:
        column = f"{name}.metadata"
        texts = batch.column(column)
        if not pc.any(pc.fill_null(pc.match_substring(texts, _MARK), False)).as_py():
            continue
        fixed = []
        for text in texts.to_pylist():
            if text is None or _MARK not in text:
                fixed.append(text)
                continue
            metadata = {k: v for k, v in json.loads(text).items() if k not in (_RAISED, _GRADE)}
            fixed.append(json.dumps(metadata, ensure_ascii=False, default=str) if metadata else "{}")
        batch = batch.set_column(batch.schema.get_field_index(column), column, pa.array(fixed, type=pa.string()))
    return batch


def _with_columns(columns: Sequence[str], batch: pa.Table) -> pa.Table:
    """A batch with each of `columns`, null where it has none: the group `(none)`, as the local engine groups
    a row without the field, in a block that lacks it or a file no row of which has it."""
    import pyarrow as pa

    for column in columns:
        if column not in batch.column_names:
            batch = batch.append_column(column, pa.nulls(batch.num_rows))
    return batch


def _summaries(
    ds: Dataset, names: Sequence[str], group_by: Sequence[str]
) -> tuple[list[Summary], list[GroupedSummaries]]:
    """Each scorer's summary, and with `group_by` its summaries by group (whose whole is the summary)."""
    if not group_by:
        return [summarize(ds, name, prefix=f"{name}.") for name in names], []
    every = ds.map_batches(
        functools.partial(_with_columns, group_by), batch_format="pyarrow", batch_size=None, zero_copy_batch=True
    )
    grouped = [summarize_groups(every, group_by, name, prefix=f"{name}.") for name in names]
    return [g.whole for g in grouped], grouped


class _RowFailed(Exception):
    def __init__(self, line: int, problem: str) -> None:
        super().__init__(problem)
        self.line = line
        self.problem = problem


def _said(
    path: str, names: Sequence[str], scorers: Sequence[Scorer], marks: Sequence[tuple[int, str, dict[str, Any]]]
) -> None:
    """The first row that raised (under --on-error raise) as `_RowFailed`; else each scorer's unreadable grades
    said once on stderr, as the local engine says them."""
    by_name = dict(zip(names, scorers, strict=True))
    for line, name, found in marks:
        if _RAISED in found:
            raise _RowFailed(line, f"the scorer {by_name[name].name!r} raised {found[_RAISED]}")
    grades: dict[str, tuple[int, int, str]] = {}
    for line, name, found in marks:
        if _GRADE in found:
            count, first, grade = grades.get(name, (0, line, found[_GRADE]))
            grades[name] = (count + 1, first, grade)
    for name, (count, first, grade) in grades.items():
        print(grade_line(name, count, path, first, grade), file=sys.stderr)


def score_with_ray(
    args: argparse.Namespace, scorers: Scorer | Sequence[Scorer]
) -> tuple[list[Summary], list[GroupedSummaries]]:
    """Score `args.file` with `scorers` through Ray Data; write `args.out` when given; a summary per scorer, and
    with `args.group_by` a `GroupedSummaries` per scorer (else none), as the local engine gives them.

    `args` has `file`, `item_field` (None: the first of "item", "input",
    "question" the data has, else no item), `output_field`, `label_field`,
    `out` (None, "-" for standard output, or a path), `address` (None: start a
    local Ray, or join the cluster `ray.init()` finds) and maybe `input_format`
    (None: the file's extension), `concurrency` (rows an async scorer scores at
    once in each actor; default 16), `on_error` ("raise", the default, or
    "record") and `group_by` (None, or `--group-by`'s columns: a row without
    one, and a column no row has, is the group `(none)`, as locally; a blank
    or repeated name is a ValueError). A file that cannot be read, a missing
    field, a field named like a column --out writes, an unknown format and a
    cluster that cannot be reached raise `RowError` before anything is scored.
    With "raise", a scorer's exception is a `RowError` naming the first row's
    line (in the input's order) and the scorer, once the rows are scored; with
    "record", the row is recorded wrong, failure kind "error". Each summary is
    named after its scorer (`exact`, `exact1` for a second of one name).
    `--out` has the columns the local engine writes (`scorebridge._runner.scored`).
    """
    chosen = [scorers] if isinstance(scorers, Scorer) else list(scorers)
    names = unique_names([s.name for s in chosen])
    group_by = parse_group_by(getattr(args, "group_by", None))
    on_error = getattr(args, "on_error", "raise")
    concurrency = getattr(args, "concurrency", None) or DEFAULT_CONCURRENCY
    path = os.fspath(args.file)
    fmt = getattr(args, "input_format", None) or format_of(path, "the input", SUFFIXES)
    out: str | None = None if args.out is None else os.fspath(args.out)
    out_fmt = "jsonl"
    if out is not None and out != "-":
        out_fmt = format_of(out, "--out", {"jsonl": JSONL_SUFFIXES, "parquet": PARQUET_SUFFIXES})
    needed = [args.output_field, args.label_field] + ([args.item_field] if args.item_field else [])
    lines: Sequence[int] | None = None
    fields: list[str] = []
    if fmt != "parquet" and not _remote(path):
        fields, lines = _check_rows(path, fmt, needed)
    if fmt == "parquet" and not _remote(path) and not os.path.isfile(path):
        raise RowError(path, None, "cannot be read: no such file")

    _connect(args.address)
    ds = _read(path, fmt, fields)
    ds.context.execution_options.preserve_order = True  # this dataset's own setting: --out in the input's order
    schema = ds.schema()
    columns = [] if schema is None else list(schema.names)
    if not columns:
        raise RowError(path, None, "holds no rows")
    for name in needed:
        if name not in columns:
            raise RowError(path, None, f"no field {name!r}; the rows have {', '.join(columns)}")
    taken = taken_columns(columns, names)
    if taken:
        raise RowError(
            path, None, f"the rows have a field named as a column --out writes ({', '.join(taken)}); rename it"
        )
    item = args.item_field or next((f for f in ITEM_FIELDS if f in columns), None)
    scored = ds
    for name, scorer in zip(names, chosen, strict=True):
        shipped = ship(scorer, f"score_dataset({scorer.name})")
        csv_label = (path, args.label_field) if fmt == "csv" else None
        source = functools.partial(_marking, shipped, scorer.name, on_error == "record", csv_label)
        scored = score_dataset(
            scored,
            source,
            output=args.output_field,
            label=args.label_field,
            item=item,
            concurrency=concurrency,
            on_error="record",
            prefix=f"{name}.",
            # each stage is a pool of actors that reserve CPUs: several stages at 1 CPU each would leave a small
            # machine none for reading the file (a 2-core machine hung with two scorers), so they share one
            num_cpus=None if len(chosen) == 1 else 1 / len(chosen),
        )
    try:
        scored = scored.materialize()  # scored once, then checked, written and counted
        _said(path, names, chosen, _marks(scored, names, lines))
        if out is not None:
            _write(scored, names, lines, out, out_fmt)
        return _summaries(scored, names, group_by)
    except _RowFailed as failed:
        raise RowError(path, failed.line, failed.problem) from None
    except ray.exceptions.RayError as exc:
        what = ", ".join(repr(s.name) for s in chosen)
        raise RowError(path, None, f"scoring with {what} failed in Ray: {_raised(exc)}") from None
