"""`scorebridge score FILE --engine ray`: the file scored through Ray Data, on a local Ray or a cluster.

The one module of the core that imports an adapter (`scorebridge_ray`, so Ray):
the CLI imports this module only for `--engine ray`, so without Ray installed
that import fails and the CLI says what to install. A local file is read here,
as the local engine reads it (`read_rows`, so a bad line is the same
"FILE:LINE: problem"), checked for what Arrow can hold, and put in Ray's object
store in blocks sized for the actors (2 an actor at least), owned by this
process: the cluster never needs to see the file, and a lost node takes no
block with it.

- `.parquet`: the columns as typed in the file;
- `.jsonl`/`.ndjson`: each line parsed by Python's `json` (not Ray's JSON
  reader, which guesses types: "01" would become the number 1). A column holds
  one type in Arrow, so a field whose JSON type changes from row to row (a
  string here, a list there) is refused; an object in a field becomes a struct;
- `.csv`: every value a string, an empty cell "", as the local engine reads it.

A path with a scheme (`s3://...`) is read by Ray on the cluster, not checked
here. Each scorer is one `score_dataset` stage on a pool of 1 to N actors (N:
--actors, else the cluster's CPUs over --num-cpus), so a run goes on on the
nodes left when one is lost, and a run that scores no block for
--stall-timeout seconds ends with what Ray reports. `--out` is opened by the
engine-shared `open_out` (its header, --resume, --force) and written as the
blocks come back, in the input's order, by the local engine's own writer
(`_Scoring.keep`), which also counts the summaries; a Parquet `--out` is a part
per block in OUT.parts, made one file however the run ends (a killed run's parts
are made OUT by the next run, before --resume reads it). A scorer's exception is
recorded in the actors and, with --on-error raise, named by its row's line once
the rows before it are written; a grade no rule reads is said once per scorer,
as the local engine says it.

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
import logging
import queue
import shutil
import signal
import sys
import threading
import time
import warnings
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any, Final, cast

import ray
import ray.data

from scorebridge_ray import score_dataset, score_of
from scorebridge_ray._score import MAX_BATCH_SIZE, actors_at_hand, batch_size_for
from scorebridge_ray._ship import ship

from .._protocol.cells import csv_cell
from .._protocol.score import Score, UnreadableLabel
from .._protocol.scorer import Scorer
from .._runner.files import JSONL_SUFFIXES, PARQUET_SUFFIXES, SUFFIXES, RowError, format_of, read_rows
from .._runner.groups import GroupedSummaries
from .._runner.progress import count_rows
from .._runner.scored import LINE, taken_columns, unique_names
from .._runner.store import LockedLines
from .._runner.summary import Summary
from .load import Maker, describe
from .main import DEFAULT_CONCURRENCY, ITEM_FIELDS, UsageError
from .out import PARQUET_KEY, Lines, Prior, ScoredOut, open_out
from .pool import reclaim_terminate
from .score import _interrupted, _Scoring, grade_line

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


class _Blocks:
    """Rows put in Ray's object store as they are read, `size` rows a block (the driver holds one block at a time)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.refs: list[Any] = []
        self.lines: array[int] = array("q")
        self._tables: list[pa.Table] = []
        self._held = 0

    def add(self, table: pa.Table, lines: Sequence[int]) -> None:
        self.lines.extend(lines)
        self._tables.append(table)
        self._held += table.num_rows
        while self._held >= self.size:
            self._put(self.size)

    def _put(self, rows: int) -> None:
        import pyarrow as pa

        whole = (
            pa.concat_tables(self._tables, promote_options="permissive") if len(self._tables) > 1 else self._tables[0]
        )
        self.refs.append(ray.put(whole.slice(0, rows).combine_chunks()))
        rest = whole.slice(rows)
        self._tables = [rest] if rest.num_rows else []
        self._held = rest.num_rows

    def close(self) -> None:
        if self._held:
            self._put(self._held)


def _table(fmt: str, rows: list[dict[str, Any]], fields: Sequence[str]) -> pa.Table:
    """Rows read by `read_rows` as one Arrow table: a JSONL row's values typed as Arrow infers them, a CSV's text."""
    import pyarrow as pa

    if fmt == "csv":
        return pa.table({name: pa.array([row.get(name) for row in rows], pa.string()) for name in fields})
    return pa.Table.from_struct_array(pa.array(rows))  # every row has a field: the output's, at least


def _read_here(path: str, fmt: str, needed: list[str], size: int, done: Lines | None) -> _Blocks:
    """The file read here, as the local engine reads it (every line, "FILE:LINE: problem"), checked for what
    Ray needs, and put in Ray's object store in blocks of `size` rows, the lines `done` holds left out.

    Every row must have the `needed` fields; in a JSONL file, a field's JSON type
    must not change from row to row (Arrow holds one type per column), nor that
    of the elements of a list in it, or of a key of an object in it, anywhere in
    any row (`[1, {"b": 2}]` cannot be an Arrow list). The blocks keep each
    row's line (for --out's `line` and the messages: Ray Data does not keep them).
    The blocks are owned by this process, so a node that is lost takes none of them.
    """
    blocks = _Blocks(size)
    if fmt == "parquet":
        _parquet_here(path, blocks, done)
        return blocks
    fields: dict[str, tuple[Any, int] | None] = {}  # name: (its values' shape, the line it was first seen on)
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    for line, row in read_rows(path):
        for name in needed:
            if name not in row:
                have = ", ".join(map(str, row)) or "no fields"
                raise RowError(path, line, f"no field {name!r}; the row has {have}")
        if fmt == "csv":  # every value a string
            fields = fields or dict.fromkeys(row)
        else:
            _check_shapes(path, line, row, fields)
        if done is not None and line in done:
            continue
        rows.append(row)
        lines.append(line)
        if len(rows) == size:
            blocks.add(_table(fmt, rows, list(fields)), lines)
            rows, lines = [], []
    if rows:
        blocks.add(_table(fmt, rows, list(fields)), lines)
    blocks.close()
    return blocks


def _check_shapes(path: str, line: int, row: dict[str, Any], fields: dict[str, tuple[Any, int] | None]) -> None:
    """`RowError` when a value of `row` has another JSON type than the same field's before (`fields`, updated)."""
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


def _parquet_here(path: str, blocks: _Blocks, done: Lines | None) -> None:
    """A local Parquet file's rows in `blocks`, with their types as in the file; a row's line is its number."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        source = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow's errors: not Parquet, cut short
        raise RowError(path, None, f"cannot be read as Parquet ({exc})") from None
    number = 0
    for batch in source.iter_batches(batch_size=blocks.size):
        table = pa.Table.from_batches([batch])
        lines = range(number + 1, number + 1 + table.num_rows)
        number += table.num_rows
        if done is not None:
            kept = [i for i, line in enumerate(lines) if line not in done]
            table, lines = table.take(kept), [lines[i] for i in kept]  # type: ignore[assignment]
        blocks.add(table, lines)
    blocks.close()


def _parse_lines(batch: pa.Table) -> pa.Table:
    """JSON lines (the column "text") to a table of their fields, read by Python's `json` (a Ray task)."""
    import pyarrow as pa

    rows = pa.array([json.loads(text) for text in batch.column("text").to_pylist() if text.strip()])
    return pa.Table.from_struct_array(rows) if len(rows) else pa.table({})


def _read(path: str, fmt: str) -> Dataset:
    """A file the cluster reads (a URI: `s3://...`), by Ray Data (a CSV file's types as Ray guesses them), JSONL
    parsed by Python's `json` in Ray tasks."""
    if fmt == "parquet":
        return ray.data.read_parquet(path)
    if fmt == "csv":
        import pyarrow.csv as pcsv

        convert = pcsv.ConvertOptions(strings_can_be_null=False, quoted_strings_can_be_null=False)
        parse = pcsv.ParseOptions(newlines_in_values=True)
        return ray.data.read_csv(path, convert_options=convert, parse_options=parse)
    lines = ray.data.read_text(path, encoding="utf-8-sig", drop_empty_lines=True)
    return lines.map_batches(_parse_lines, batch_format="pyarrow", batch_size=None)


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


DEFAULT_STALL_TIMEOUT: Final = 300.0
"""--stall-timeout's default: seconds with no block scored before the run ends with what Ray reports."""

_EXCLUDED: Final = (
    ".git",
    ".venv",
    "venv",
    "__pycache__",
    "node_modules",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
)
"""Never shipped with a scorer file's folder: environments and caches (the input and --out are left out too)."""


def _scorer_folder(specs: Sequence[str]) -> str | None:
    """The folder of the first scorer named by a file (`file.py@name`), which is shipped to the workers."""
    for spec in specs:
        if "@" in spec or spec.endswith(".py"):
            path = spec.rpartition("@")[0] if "@" in spec else spec
            return os.path.dirname(os.path.abspath(path))
    return None


def _runtime_env(args: argparse.Namespace, path: str, out: str | None) -> dict[str, Any]:
    """The job's runtime env: --working-dir and --py-modules; else the folder of a scorer file of yours, without
    the input, --out, environments and caches (so a helper module beside the scorer imports on every worker)."""
    env: dict[str, Any] = {}
    modules = getattr(args, "py_modules", None)
    if modules:
        env["py_modules"] = [os.path.abspath(m) for m in modules]
    working_dir = getattr(args, "working_dir", None)
    folder = os.path.abspath(working_dir) if working_dir else _scorer_folder(getattr(args, "scorers", None) or ())
    if folder is None:
        return env
    for flag, given in (("--working-dir", working_dir), ("--py-modules", modules and modules[0])):
        if given and not os.path.exists(given):
            raise UsageError(f"{flag} {given}: no such file or folder")
    env["working_dir"] = folder
    inside = [p for p in (path, out) if p and p != "-" and os.path.abspath(p).startswith(os.path.join(folder, ""))]
    left_out = [*_EXCLUDED, *("/" + os.path.relpath(os.path.abspath(p), folder) for p in inside)]
    if out and out != "-":
        left_out.append("/" + os.path.relpath(os.path.abspath(out) + _PARTS, folder))
    env["excludes"] = left_out
    return env


def _errors_on_stderr() -> None:
    """Ray's error messages to the driver (an actor that died, a task retried), which Ray prints on stdout, said
    on stderr instead, each message's first line once."""
    from ray._private import worker

    previous = worker.print_to_stdstream
    if getattr(previous, "scorebridge", False):
        return
    said: set[str] = set()

    def show(data: dict[str, Any], ignore_prefix: bool) -> None:
        if data.get("pid") != "raylet" or data.get("is_err"):
            previous(data, ignore_prefix)
            return
        for text in data.get("lines") or ():
            first = next((line.strip() for line in str(text).splitlines() if line.strip()), "")
            if first and first not in said:
                said.add(first)
                print(f"scorebridge score: Ray says: {first[:300]}", file=sys.stderr)

    show.scorebridge = True  # type: ignore[attr-defined]
    worker.print_to_stdstream = show


def _connect(address: str | None, env: dict[str, Any]) -> dict[str, Any] | None:
    """Ray started or joined, with `env` for the job; the runtime env the actors need besides (Ray running
    already in this process), or None. Ray's logs stay off stdout (log_to_driver=False)."""
    import logging

    from scorebridge_ray._env import job_env

    # Ray Data logs each dataset's plan and progress at INFO, 20-odd lines a run: the command prints its own summary
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    _errors_on_stderr()
    if address and address.startswith("ray://"):
        try:
            import_module("ray.util.client")
            import_module("grpc")
        except ImportError:
            raise UsageError(
                f'--address {address}: Ray Client (ray://) needs ray[client]: pip install "scorebridge[ray-client]"'
            ) from None
    try:
        return job_env("--engine ray", env, address=address, logging_level=logging.ERROR, log_to_driver=False)
    except ConnectionError as exc:
        raise RowError(address or "ray.init()", None, f"cannot reach a Ray cluster: {exc}") from None
    except ValueError as exc:
        raise UsageError(str(exc).removeprefix("--engine ray: ")) from None
    finally:
        reclaim_terminate()  # ray.init put its own SIGTERM handler in place of the run's


_PARTS: Final = ".parts"
"""What a Parquet --out's folder of finished blocks is named after the file (`scored.parquet.parts`)."""


class _Parts:
    """A Parquet --out written as blocks finish: each block a part in OUT.parts (with the header, so a killed
    run's parts can be made OUT by the next run), then, when the run ends in any way, the rows OUT held and
    kept (`prior.done`, on a resume) and the parts made OUT, one file. The folder is held (locked) meanwhile."""

    def __init__(self, out: str, header: Mapping[str, Any] | None, prior: Prior) -> None:
        self.out = out
        self.folder = out + _PARTS
        self.metadata = None if header is None else {PARQUET_KEY: json.dumps(header).encode("utf-8")}
        self.prior = prior
        os.makedirs(self.folder, exist_ok=True)
        self._held = _hold(self.folder, out)  # a killed run's parts were made OUT (`_fold_parts`): none left
        self.count = 0

    def write(self, table: pa.Table) -> None:
        import pyarrow.parquet as pq

        part = os.path.join(self.folder, f"part-{self.count:06d}.parquet")
        pq.write_table(table.replace_schema_metadata(self.metadata), part + ".partial")
        os.replace(part + ".partial", part)  # a part is whole, or absent
        self.count += 1

    def close(self) -> None:
        """OUT made of the kept rows and the parts (none: OUT as it was), the parts removed."""
        done = self.prior.done
        kept = self.out if self.prior.kept else None
        _join(self.out, self.metadata, kept, lambda line: line in done, _part_files(self.folder))
        self._held.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def _part_files(folder: str) -> list[str]:
    return [os.path.join(folder, f) for f in sorted(os.listdir(folder)) if f.endswith(".parquet")]


def _hold(folder: str, out: str) -> LockedLines:
    """The lock of a Parquet --out's parts, taken: a `RowError` when another run holds it."""
    try:
        return LockedLines(os.path.join(folder, ".writer"), "another")
    except RuntimeError:
        raise RowError(
            out, None, "is being written by another process (a run still going): wait for it, or give another --out"
        ) from None


def _join(out: str, metadata: Mapping[bytes, bytes] | None, first: str | None, keep: Any, parts: Sequence[str]) -> None:
    """`first`'s rows whose line `keep(line)` keeps, then every row of `parts`, written as `out` (one Parquet
    file with `metadata`, its schema the files' unified), whole or not at all; `out` left as it is when that
    would change nothing (no parts, and `first`, being `out`, kept whole) or there is nothing to write."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = []
    if first is not None:
        table = pq.read_table(first)
        kept = table.filter(pa.array([keep(line) for line in table.column(LINE).to_pylist()], pa.bool_()))
        if not parts and first == out and kept.num_rows == table.num_rows:
            return
        tables.append(kept)
    tables += [pq.read_table(f) for f in parts]
    if not tables:
        return
    tables = [t.replace_schema_metadata(None) for t in tables]
    schema = pa.unify_schemas([t.schema for t in tables], promote_options="permissive").with_metadata(metadata)
    with pq.ParquetWriter(out + ".partial", schema) as writer:
        for table in tables:
            writer.write_table(table.cast(schema) if table.schema != schema.remove_metadata() else table)
    os.replace(out + ".partial", out)


def _fold_parts(out: str) -> None:
    """The parts a killed run left in OUT.parts made OUT, with the rows OUT held that no part has again, so that
    the run about to start finds them as it finds a finished OUT (`--resume` skips them; without it or
    `--force`, OUT is refused as holding rows). A run still writing them is a `RowError`."""
    import pyarrow.parquet as pq

    folder = out + _PARTS
    if not os.path.isdir(folder):
        return
    held = _hold(folder, out)
    try:
        parts = _part_files(folder)
        if parts:
            again = Lines()
            for part in parts:
                for line in pq.read_table(part, columns=[LINE]).column(LINE).to_pylist():
                    again.add(line)
            metadata = pq.read_schema(parts[0]).metadata
            first = out if os.path.exists(out) else None
            _join(out, metadata, first, lambda line: line not in again, parts)
    finally:
        held.close()
    shutil.rmtree(folder, ignore_errors=True)


class _Stalled(Exception):
    """No block was scored for the stall timeout: what Ray says of the cluster, in words."""


class _Watch:
    """The scored blocks as Ray gives them, read in a thread of their own, so a run that makes no progress is
    ended (after `stall` seconds with no block: `_Stalled`, with what Ray reports), and a node Ray loses is
    said once on stderr. `stop()` ends the reading however the run ends (the rest not read: Ray Data's
    execution is shut down, its actors freed), at the next block Ray gives."""

    _END: Final = object()

    def __init__(self, batches: Iterable[Any], stall: float) -> None:
        self.stall = stall
        self.warnings: list[str] = []
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=4)  # the driver holds a few blocks at a time
        self._stopped = threading.Event()
        self._lost: set[str] = set()
        self._handler = _Kept(self.warnings)
        logging.getLogger("ray.data").addHandler(self._handler)
        self._thread = threading.Thread(target=self._read, args=(batches,), name="scorebridge-ray", daemon=True)
        self._thread.start()

    def _read(self, batches: Iterable[Any]) -> None:
        blocks = iter(batches)
        try:
            for batch in blocks:
                if not self._put(batch):
                    return
            self._put(self._END)
        except BaseException as exc:
            self._put(exc)
        finally:
            # a run that ended before its last block (stopped, failed, stalled) leaves Ray Data's iterator
            # unfinished, its actors held: closing it lets Ray Data shut the execution down
            close = getattr(blocks, "close", None)
            if close is not None:
                close()

    def _put(self, got: Any) -> bool:
        """`got` handed to the run, unless it stopped (then False)."""
        while not self._stopped.is_set():
            try:
                self._queue.put(got, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def stop(self) -> None:
        """No more blocks wanted: the reading thread ends, and closes Ray Data's iterator."""
        self._stopped.set()

    def __iter__(self) -> Iterator[pa.Table]:
        last = checked = time.monotonic()
        try:
            while True:
                if time.monotonic() - checked > 2.0:  # Ray's table of nodes, every 2 s
                    self._nodes()
                    checked = time.monotonic()
                try:
                    got = self._queue.get(timeout=min(2.0, self.stall))
                except queue.Empty:
                    if time.monotonic() - last > self.stall:
                        self._nodes()
                        raise _Stalled(self._report()) from None
                    continue
                if got is self._END:
                    return
                if isinstance(got, BaseException):
                    raise got
                last = time.monotonic()
                yield cast("pa.Table", got)
        finally:
            logging.getLogger("ray.data").removeHandler(self._handler)

    def _nodes(self) -> None:
        """Each node Ray has lost since the run began, said once on stderr."""
        try:
            nodes = _nodes()
        except Exception:  # the cluster cannot be asked: the stall timeout decides
            return
        for node in nodes:
            name = f"{node.get('NodeManagerAddress')} (node {str(node.get('NodeID'))[:8]})"
            if not node.get("Alive") and node.get("NodeID") not in self._lost and name not in _LOST_BEFORE:
                self._lost.add(str(node.get("NodeID")))
                print(
                    f"scorebridge score: Ray lost the node {name}; its actors' blocks are scored again on "
                    "the nodes left",
                    file=sys.stderr,
                )

    def _report(self) -> str:
        said = [f"no block was scored in {self.stall:g} s (--stall-timeout)"]
        try:
            total, free = _resources()
            said.append(
                f"Ray reports {free.get('CPU', 0):g} of the cluster's {total.get('CPU', 0):g} CPUs free on "
                f"{sum(1 for n in _nodes() if n.get('Alive'))} live node(s)"
            )
        except Exception as exc:
            said.append(f"Ray cannot be asked about the cluster ({exc})")
        if self._lost:
            said.append(f"{len(self._lost)} node(s) were lost during the run")
        if self.warnings:
            said.append(f"Ray Data's last warning: {self.warnings[-1]}")
        return "; ".join(said)


def _nodes() -> list[dict[str, Any]]:
    """Ray's table of the cluster's nodes (`ray.nodes()`), dead ones included."""
    return cast("list[dict[str, Any]]", ray.nodes())  # type: ignore[no-untyped-call]


def _resources() -> tuple[dict[str, float], dict[str, float]]:
    """The cluster's resources, and those free now."""
    return ray.cluster_resources(), ray.available_resources()  # type: ignore[no-untyped-call]


_LOST_BEFORE: set[str] = set()
"""The nodes dead before this run began (not its news)."""


class _Kept(logging.Handler):
    """Ray Data's warnings, kept (the last is named when a run stalls), and not printed."""

    def __init__(self, kept: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.kept = kept

    def emit(self, record: logging.LogRecord) -> None:
        self.kept.append(record.getMessage().splitlines()[0][:300])


def _ship_each(chosen: Sequence[Scorer], makers: Sequence[Maker | None]) -> list[bytes]:
    """Each scorer (or the call that makes it on each worker) pickled for the workers, before anything starts."""
    shipped = []
    for scorer, maker in zip(chosen, makers, strict=True):
        try:
            shipped.append(ship(maker or scorer, f"--scorer {scorer.name}"))
        except TypeError as exc:
            cause = exc.__cause__ or exc
            raise UsageError(
                f"--scorer {scorer.name} cannot be sent to the Ray workers: it cannot be pickled ({cause}). Name "
                "a function that makes it instead, path/to/file.py@make_scorer or package.module:make_scorer: each "
                "worker calls it, so a grader's client is opened there"
            ) from None
    return shipped


def score_with_ray(
    args: argparse.Namespace,
    scorers: Scorer | Sequence[Scorer],
    makers: Sequence[Maker | None] | None = None,
) -> tuple[list[Summary], list[GroupedSummaries]] | int:
    """Score `args.file` with `scorers` through Ray; write `args.out` as blocks are scored; a summary per scorer,
    and with `args.group_by` a `GroupedSummaries` per scorer (else none), as the local engine gives them; or
    the exit status of an interrupted run (Ctrl-C, SIGTERM), whose finished blocks are in `--out`.

    `args` has `file`, `item_field` (None: the first of "item", "input",
    "question" the data has, else no item), `output_field`, `label_field`,
    `out` (None, "-" for standard output, or a path), `address` (None: start a
    local Ray, or join the cluster `ray.init()` finds) and maybe `input_format`
    (None: the file's extension), `concurrency` (rows an async scorer scores at
    once in each actor; default 16), `on_error` ("raise", the default, or
    "record"), `group_by`, `actors` (the most actors a scorer's pool has;
    default the cluster's CPUs over `num_cpus`), `num_cpus` (CPUs an actor
    reserves; default 1, shared by several scorers), `batch_size` (rows a
    block; default the rows split over the actors, 2 blocks an actor),
    `working_dir`, `py_modules`, `stall_timeout`, `resume` and `force`.
    `makers`: for each scorer, the call that makes it on each worker (a
    factory with its options), or None to send the scorer itself.

    A file that cannot be read, a missing field, a field named like a column
    --out writes, an unknown format and a cluster that cannot be reached raise
    `RowError` before anything is scored; a scorer that cannot be pickled a
    `UsageError`. With "raise", a scorer's exception is a `RowError` naming
    the first row's line and the scorer, once the rows before it are written;
    with "record", the row is recorded wrong, failure kind "error". A run in
    which no block is scored for `stall_timeout` seconds (default 300) ends
    with a `RowError` saying what Ray reports of the cluster.
    """
    from .main import build_parser

    defaults = vars(build_parser().parse_args(["score", "-", "--scorer", "exact"]))  # what the command's are
    args = argparse.Namespace(**{**defaults, **vars(args)})
    chosen = [scorers] if isinstance(scorers, Scorer) else list(scorers)
    makers = list(makers) if makers is not None else [None] * len(chosen)
    names = unique_names([s.name for s in chosen])
    on_error = getattr(args, "on_error", "raise")
    concurrency = getattr(args, "concurrency", None) or DEFAULT_CONCURRENCY
    remote = _remote(os.fspath(args.file))
    path = os.fspath(args.file) if remote else os.path.abspath(args.file)  # the workers' folder is not this one
    fmt = getattr(args, "input_format", None) or format_of(path, "the input", SUFFIXES)
    out: str | None = None if args.out is None else os.fspath(args.out)
    out_fmt = "jsonl"
    if out is not None and out != "-":
        out_fmt = format_of(out, "--out", {"jsonl": JSONL_SUFFIXES, "parquet": PARQUET_SUFFIXES})
    needed = [args.output_field, args.label_field] + ([args.item_field] if args.item_field else [])
    if not remote and not os.path.isfile(path):
        raise RowError(args.file, None, "cannot be read: no such file")
    shipped = _ship_each(chosen, makers)
    env = _runtime_env(args, path, out)
    if out is not None and out_fmt == "parquet":
        _fold_parts(out)  # a killed run's parts: OUT holds their rows, which --resume skips
    written = open_out(args, chosen) if out is not None else None
    run = _Scoring(args, chosen, args.file)
    try:
        return _run(args, run, chosen, names, shipped, env, path, fmt, needed, written, out_fmt, on_error, concurrency)
    finally:
        if written is not None:
            written.close()


def _run(
    args: argparse.Namespace,
    run: _Scoring,
    chosen: Sequence[Scorer],
    names: Sequence[str],
    shipped: Sequence[bytes],
    env: dict[str, Any],
    path: str,
    fmt: str,
    needed: list[str],
    written: ScoredOut | None,
    out_fmt: str,
    on_error: str,
    concurrency: int,
) -> tuple[list[Summary], list[GroupedSummaries]] | int:
    kept = 0
    done: Lines | None = None
    if written is not None and written.prior.kept:
        kept = written.prior.kept
        done = written.prior.done
        run.resumed(written)
    for_actors = _connect(args.address, env)
    _LOST_BEFORE.update(
        f"{n.get('NodeManagerAddress')} (node {str(n.get('NodeID'))[:8]})" for n in _nodes() if not n.get("Alive")
    )
    each = getattr(args, "num_cpus", None)
    if each is None:
        # each stage is a pool of actors that reserve CPUs: several stages at 1 CPU each would leave a small
        # machine none for the others (a 2-core machine hung with two scorers), so they share one
        each = 1.0 / len(chosen)
    most = getattr(args, "actors", None) or actors_at_hand(None, each * len(chosen))
    lines: Sequence[int] | None = None
    if _remote(path):
        ds = _read(path, fmt)
        size = getattr(args, "batch_size", None) or MAX_BATCH_SIZE
        ds = ds.repartition(target_num_rows_per_block=size)
    else:
        total = count_rows(path, fmt) or 0
        size = getattr(args, "batch_size", None) or batch_size_for(max(1, total - kept), most)
        blocks = _read_here(path, fmt, needed, size, done)
        if not blocks.refs:
            if kept:
                return run.summaries(), run.grouped_summaries()
            raise RowError(args.file, None, "holds no rows")
        lines = blocks.lines
        ds = ray.data.from_arrow_refs(blocks.refs)
    ds.context.execution_options.preserve_order = True  # this dataset's own setting: --out in the input's order
    schema = ds.schema()
    columns = [] if schema is None else list(schema.names)
    if not columns:
        raise RowError(args.file, None, "holds no rows")
    for name in needed:
        if name not in columns:
            raise RowError(args.file, None, f"no field {name!r}; the rows have {', '.join(columns)}")
    taken = taken_columns(columns, names)
    if taken:
        raise RowError(
            args.file, None, f"the rows have a field named as a column --out writes ({', '.join(taken)}); rename it"
        )
    item = args.item_field or next((f for f in ITEM_FIELDS if f in columns), None)
    scored = ds
    for name, scorer, sent in zip(names, chosen, shipped, strict=True):
        csv_label = (path, args.label_field) if fmt == "csv" else None
        source = functools.partial(_marking, sent, scorer.name, on_error == "record", csv_label)
        scored = score_dataset(
            scored,
            source,
            output=args.output_field,
            label=args.label_field,
            item=item,
            concurrency=concurrency,
            actors=(1, most),  # 1: a run goes on on the nodes left when one is lost
            batch_size=size,
            num_cpus=each,
            on_error="record",
            prefix=f"{name}.",
            runtime_env=for_actors,
        )
    parts = (
        _Parts(written.path, written.header, written.prior) if written is not None and out_fmt == "parquet" else None
    )
    if args.out == "-":
        run.out = sys.stdout
    elif parts is None:
        run.out = written
    stall = getattr(args, "stall_timeout", None) or DEFAULT_STALL_TIMEOUT
    try:
        watch = _Watch(scored.iter_batches(batch_format="pyarrow", batch_size=None), stall)
        try:
            grades = _write(run, watch, names, columns, lines, parts)
        finally:
            watch.stop()
            if parts is not None:  # however the run ends, OUT holds every finished block: --resume goes on
                parts.close()
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (`terminate_as_interrupt`, around the whole run)
        run.close()
        return _interrupted(args, run, kept, getattr(exc, "signum", signal.SIGINT))
    except _Stalled as stalled:
        raise RowError(args.file, None, f"scoring stopped: {stalled}") from None
    except _RowFailed as failed:
        raise RowError(args.file, failed.line, failed.problem) from None
    except ray.exceptions.RayError as exc:
        what = ", ".join(repr(s.name) for s in chosen)
        raise RowError(args.file, None, f"scoring with {what} failed in Ray: {_raised(exc)}") from None
    run.close()
    for name, (count, first, grade) in grades.items():
        print(grade_line(name, count, args.file, first, grade), file=sys.stderr)
    return run.summaries(), run.grouped_summaries()


class _RowFailed(Exception):
    def __init__(self, line: int, problem: str) -> None:
        super().__init__(problem)
        self.line = line
        self.problem = problem


def _write(
    run: _Scoring,
    batches: Iterable[pa.Table],
    names: Sequence[str],
    columns: Sequence[str],
    lines: Sequence[int] | None,
    parts: _Parts | None,
) -> dict[str, tuple[int, int, str]]:
    """Each scored batch's rows counted and written (`--out` as JSONL, or its Parquet parts), in the input's
    order; the unreadable grades per scorer (count, first line, grade). The first row that raised (under
    --on-error raise) is `_RowFailed`, once the rows before it are written."""
    grades: dict[str, tuple[int, int, str]] = {}
    done = 0
    for batch in batches:
        n = batch.num_rows
        numbers = lines[done : done + n] if lines is not None else range(done + 1, done + n + 1)
        done += n
        fields = [c for c in batch.column_names if c in columns]
        rows = batch.select(fields).to_pylist()
        records = batch.to_pylist()
        for line, row, record in zip(numbers, rows, records, strict=True):
            scores = []
            for name in names:
                score = score_of(record, prefix=f"{name}.")
                said = score.metadata.get(_RAISED)
                if said is not None:
                    if parts is not None:
                        parts.write(_numbered(batch.slice(0, numbers.index(line)), names, numbers))
                        run.written += numbers.index(line)
                    raise _RowFailed(line, f"the scorer {name!r} raised {said}")
                grade = score.metadata.get(_GRADE)
                if grade is not None:
                    count, first, seen = grades.get(name, (0, line, grade))
                    grades[name] = (count + 1, first, seen)
                    metadata = {k: v for k, v in score.metadata.items() if k != _GRADE}
                    score = Score(
                        score.correct, score.outcome, score.failure_kind, score.value, score.explanation, metadata
                    )
                scores.append(score)
            run.keep(line, row, scores)
        if parts is not None:
            parts.write(_numbered(batch, names, numbers))
            run.written += n
    return grades


def _numbered(batch: pa.Table, names: Sequence[str], numbers: Sequence[int]) -> pa.Table:
    """A batch with the marks dropped and the rows' `line` first: a Parquet part as --out holds it."""
    import pyarrow as pa

    return _unmarked(batch, names).add_column(0, LINE, pa.array(list(numbers)[: batch.num_rows], type=pa.int64()))
