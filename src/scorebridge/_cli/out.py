"""`scorebridge score --out FILE` with either engine: its header, `--resume` and `--force`, and whole lines.

The one place both engines (`score`, `ray_engine`) open `--out`: `open_out(args, scorers)`.

- A file (not "-") starts with a header line, as `benchmark(out=)`'s does (`_runner.store`):
  `{"scorebridge": "score", "format": 1, "scorers": [{"name", "options"}, ...], "input": {"file", "bytes",
  "sha256"}, "fields": {"item", "output", "label", "format"}}`. It says what scored the rows and what they were
  read from, so a resume under other scorers, other options, other fields or another input (by content: its
  size and SHA-256, whatever its name) is refused, naming each difference. `--out -` (standard output) has no
  header: it is a stream for a pipe, never resumed.
- An existing `--out` that holds anything is refused unless `--resume` (score only the input lines it lacks)
  or `--force` (score every row again, the file emptied first) says what to do.
- With `--resume`, the file's rows are read back (`Prior`): every input line it holds is done, except a row
  where a scorer's grader failed (`grader_failed` in a Score's metadata), which is dropped from the file (the
  file rewritten atomically, `LockedLines.replace`) and asked again. An incomplete last line (a kill
  mid-write) is dropped too, so it is scored again, never misread.
- The file is locked for the whole run (one writer), each line appended whole and flushed as it is written,
  fsync'd at most once a second and at the end (`LockedLines`).

A Parquet `--out` (Ray's) holds the header as the schema's `scorebridge` metadata; it is checked and read
back the same way, but never appended to: the Ray engine writes the file again, the kept rows with the new.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from .._protocol.score import Score
from .._protocol.scorer import Scorer
from .._runner.files import RowError
from .._runner.scored import scored_record
from .._runner.store import LockedLines, header_of, scorer_identity, shown_scorer
from .._scorers.model_graded import GRADER_FAILED
from .main import UsageError

__all__ = [
    "KIND",
    "PARQUET_KEY",
    "Lines",
    "Prior",
    "ScoredOut",
    "holds_rows",
    "input_identity",
    "open_out",
    "out_header",
]

KIND: Final = "score"
"""The header's `"scorebridge"` value in a `score --out` file."""

PARQUET_KEY: Final = b"scorebridge"
"""The key of the header (JSON) in a Parquet `--out`'s schema metadata."""

_FORMAT: Final = 1
_STDIN: Final = "<stdin>"


class Lines:
    """A set of input lines (positive ints), one bit a line: a million lines in 125 kB, where a set takes 60 MB."""

    __slots__ = ("_bits", "count")

    def __init__(self) -> None:
        self._bits = bytearray()
        self.count = 0

    def add(self, line: int) -> None:
        byte, bit = divmod(line, 8)
        if byte >= len(self._bits):
            self._bits.extend(bytes(byte - len(self._bits) + 1 + len(self._bits) // 2))
        if not self._bits[byte] >> bit & 1:
            self._bits[byte] |= 1 << bit
            self.count += 1

    def __contains__(self, line: object) -> bool:
        if type(line) is not int or line < 0:
            return False
        byte, bit = divmod(line, 8)
        return byte < len(self._bits) and bool(self._bits[byte] >> bit & 1)

    def __len__(self) -> int:
        return self.count


def input_identity(path: str) -> dict[str, Any]:
    """What the header records of the input: its name (shown in messages), and its size and SHA-256 (compared).

    Standard input, and a path with a scheme (`s3://...`, read by Ray), are recorded by name only.
    """
    if path == _STDIN or "://" in path:
        return {"file": path}
    digest = hashlib.sha256()
    size = 0
    try:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
                size += len(chunk)
    except OSError as exc:
        raise RowError(path, None, f"cannot be read: {exc.strerror or exc}") from None
    return {"file": path, "bytes": size, "sha256": digest.hexdigest()}


def out_header(args: argparse.Namespace, scorers: Sequence[Scorer]) -> dict[str, Any]:
    """The header of `args.out` for a run of `scorers` on `args.file` with `args`' fields."""
    name = _STDIN if args.file == "-" else os.fspath(args.file)
    fields = {
        "item": args.item_field,
        "output": args.output_field,
        "label": args.label_field,
        "format": getattr(args, "input_format", None),
    }
    return {
        "scorebridge": KIND,
        "format": _FORMAT,
        "scorers": [scorer_identity(s) for s in scorers],
        "input": input_identity(name),
        "fields": fields,
    }


def _input_text(identity: Mapping[str, Any]) -> str:
    if "sha256" not in identity:
        return str(identity.get("file"))
    return f"{identity.get('file')} ({identity.get('bytes'):,} bytes, SHA-256 {str(identity.get('sha256'))[:12]})"


def _fields_text(fields: Mapping[str, Any]) -> str:
    item = fields.get("item") or "the first of item, input, question"
    shown = f"output {fields.get('output')}, label {fields.get('label')}, item {item}"
    return shown + (f", --input-format {fields['format']}" if fields.get("format") else "")


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _differences(held: Mapping[str, Any], wanted: Mapping[str, Any]) -> list[str]:
    """What differs between the header of a file (`held`) and this run's (`wanted`), in words; [] when none."""
    said = []
    scorers = held.get("scorers")
    if scorers != wanted["scorers"]:
        before = ", ".join(shown_scorer(s) if isinstance(s, Mapping) else repr(s) for s in scorers or [])
        now = ", ".join(shown_scorer(s) for s in wanted["scorers"])
        said.append(f"its rows were scored by {before}; this run scores with {now}")
    source = _mapping(held.get("input"))
    here = wanted["input"]
    if (source.get("bytes"), source.get("sha256")) != (here.get("bytes"), here.get("sha256")):
        said.append(f"they were read from {_input_text(source)}; this run reads {_input_text(here)}")
    fields = _mapping(held.get("fields"))
    if dict(fields) != wanted["fields"]:
        said.append(f"they were read with {_fields_text(fields)}; this run reads {_fields_text(wanted['fields'])}")
    return said


class Prior:
    """What an `--out` held when the run began: the input lines done, and those asked again.

    `done`: the input lines with a row in the file (kept). `redo`: the lines whose row a grader failed on,
    dropped from the file to be scored again. `kept` is `len(done)`.
    """

    __slots__ = ("done", "redo")

    def __init__(self) -> None:
        self.done = Lines()
        self.redo = Lines()

    @property
    def kept(self) -> int:
        return len(self.done)


def _grader_failed(scores: Mapping[str, Score]) -> bool:
    return any(GRADER_FAILED in score.metadata for score in scores.values())


class ScoredOut:
    """An open, locked `--out` file: its header, what it held (`prior`), and whole lines appended."""

    def __init__(self, path: str, header: dict[str, Any], lines: LockedLines | None) -> None:
        self.path = path
        self.header = header
        self.prior = Prior()
        self.written = 0  # lines appended by this run
        self._lines = lines

    def rows(self) -> Iterator[tuple[int, dict[str, Any], dict[str, Score]]]:
        """The rows the file held when the run began and kept (`prior.done`): `(line, row, {scorer: Score})`,
        read again from the file, each input line once, for the summary to count the whole file."""
        if self._lines is None:
            from .._runner.scored import read_scored

            seen = Lines()
            for line, row, scores in read_scored(self.path):
                if line in self.prior.done and line not in seen:
                    seen.add(line)
                    yield line, row, scores
            return
        seen = Lines()
        first = True
        for number, record in self._lines.lines():
            if first:
                first = False
                continue
            line, row, scores = scored_record(self.path, number, record)
            if line in self.prior.done and line not in seen:
                seen.add(line)
                yield line, row, scores

    def write(self, text: str) -> None:
        """Append one row's line (`score.json_line`), whole, flushed."""
        if self._lines is None:
            raise ValueError(f"{self.path}: a Parquet --out is written whole, by the Ray engine")
        self._lines.append(text.encode("utf-8"))
        self.written += 1

    def batch(self, most: float = math.inf, wait: float = math.inf) -> contextlib.AbstractContextManager[None]:
        """The rows written while it lasts go to the file together: `most` at a time, or those written within
        `wait` seconds of the first held, the rest at its end (`LockedLines.batch`)."""
        return contextlib.nullcontext() if self._lines is None else self._lines.batch(most, wait)

    def close(self) -> None:
        """fsync and close the file, dropping the lock; again does nothing."""
        if self._lines is not None:
            self._lines.close()

    # --- opening -----------------------------------------------------------------------------

    def _resume_jsonl(self, wanted: dict[str, Any]) -> None:
        lines = self._lines
        assert lines is not None
        records = lines.lines(stacklevel=4)
        try:
            number, first = next(records)
        except StopIteration:  # nothing but blank lines, or an incomplete line: a new file
            lines.append(_header_line(wanted))
            return
        self._check(number, first, wanted)
        prior = self.prior
        for number, record in records:
            line, _, scores = scored_record(self.path, number, record)
            if _grader_failed(scores):
                prior.redo.add(line)
            else:
                prior.done.add(line)
        redo = prior.redo
        if len(redo):  # the rows to ask again leave the file, which then holds each line once
            lines.replace(self._kept_lines(redo))

    def _kept_lines(self, redo: Lines) -> Iterator[bytes]:
        assert self._lines is not None
        first = True
        for number, record in self._lines.lines():
            if first:
                first = False
            elif scored_record(self.path, number, record)[0] in redo:
                continue
            yield json.dumps(record).encode("utf-8") + b"\n"

    def _resume_parquet(self, wanted: dict[str, Any]) -> None:
        from importlib import import_module

        from .._runner.scored import read_scored

        try:
            metadata = import_module("pyarrow.parquet").ParquetFile(self.path).schema_arrow.metadata or {}
            header = json.loads(metadata[PARQUET_KEY])
        except KeyError:
            header = {}
        except Exception as exc:  # pyarrow's errors: not Parquet, cut short
            raise RowError(self.path, None, f"not a readable Parquet file ({exc})") from None
        self._check(None, header, wanted)
        for line, _, scores in read_scored(self.path):
            (self.prior.redo if _grader_failed(scores) else self.prior.done).add(line)

    def _check(self, number: int | None, header: Mapping[str, Any], wanted: dict[str, Any]) -> None:
        try:
            header_of(self.path, number or 1, header, KIND, ("scorers", list), "no header")
        except RowError as exc:
            if exc.problem != "no header":
                raise
            raise UsageError(
                f"--resume: {self.path} does not start with the header scorebridge score writes (it names the "
                "scorers and the input), so it cannot be resumed: --force scores every row again and overwrites it"
            ) from None
        differences = _differences(header, wanted)
        if differences:
            raise UsageError(
                f"--resume: {self.path} cannot be resumed by this run: {'; '.join(differences)}. Resume with the "
                "same scorers, options, fields and input, give another --out, or --force to score again and "
                "overwrite it"
            )


def _header_line(header: Mapping[str, Any]) -> bytes:
    return json.dumps(header).encode("utf-8") + b"\n"


def holds_rows(args: argparse.Namespace) -> bool:
    """Whether `args.out` is a file that holds anything; a `UsageError` ("use --resume or --force") when it does
    and neither `args.resume` nor `args.force` says what to do with it."""
    out = args.out
    held = out not in (None, "-") and os.path.exists(out) and os.path.getsize(out) > 0
    if held and not getattr(args, "resume", False) and not getattr(args, "force", False):
        raise UsageError(
            f"--out {out} already exists and holds rows: use --resume to score only the rows it lacks, "
            "or --force to score every row again and overwrite it"
        )
    return held


def open_out(args: argparse.Namespace, scorers: Sequence[Scorer]) -> ScoredOut | None:
    """Open `args.out` for a run of `scorers`: None without one, or for "-" (standard output, written by the caller).

    `args` has `out`, `file`, the fields (`item_field`, `output_field`, `label_field`, maybe `input_format`),
    `resume` and `force`. A file that holds anything needs `--resume` or `--force` (else a `UsageError`:
    "use --resume or --force"); `--resume` checks its header against this run's (a `UsageError` naming each
    difference) and reads what it holds into `ScoredOut.prior`; `--force` empties it. A JSONL file gets the
    header when it is new or emptied. Another process writing it, and a line that is not a row `score --out`
    wrote, are a `RowError`. Call it before any row is scored; `close()` the result.
    """
    resume, force = getattr(args, "resume", False), getattr(args, "force", False)
    out: str | None = None if args.out is None else os.fspath(args.out)
    if out is None or out == "-":
        if resume or force:
            flag = "--resume" if resume else "--force"
            raise UsageError(f"{flag} is for an --out file" + ("" if out is None else ", not standard output"))
        return None
    if resume and args.file == "-":
        raise UsageError("--resume needs the input as a named file: standard input cannot be told to be the same")
    held = holds_rows(args)
    header = out_header(args, scorers)
    parquet = out.lower().endswith((".parquet", ".pq"))
    busy = f"{out}: is being written by another process (a run still going): wait for it, or give another --out"
    try:
        lines = LockedLines(out, busy) if not parquet or held else None
    except RuntimeError as exc:
        raise RowError(out, None, str(exc).removeprefix(f"{out}: ")) from None
    except OSError as exc:
        raise RowError(out, None, f"cannot be written: {exc.strerror or exc}") from None
    if parquet and lines is not None:
        lines.close()  # the lock was taken only to find a writer; Ray's engine writes a Parquet file whole
        lines = None
    opened = ScoredOut(out, header, lines)
    try:
        if held and resume:
            if parquet:
                opened._resume_parquet(header)
            else:
                opened._resume_jsonl(header)
        elif lines is not None:
            lines.truncate()
            lines.append(_header_line(header))
    except BaseException:
        opened.close()
        raise
    return opened
