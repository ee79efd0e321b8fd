"""The `scorebridge` command: the `demo`, `score` a file of outputs with a built-in scorer, `list` the built-in scorers.

Each subcommand is an `add_NAME(subcommands)` function that adds its parser
and sets `run`, a function of the parsed arguments returning the exit status.
A subcommand whose work is large lives in a module of its own, imported only
when it runs (so `scorebridge list` never imports a harness).

Exit status: 0 done; 1 the input could not be read (a missing or malformed
file, a row a scorer cannot read), with "FILE:LINE: problem" on stderr; 2 a
usage error (argparse's own, an unknown scorer or option).
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from .._protocol.score import Score, ScorerContractError
from .._protocol.scorer import Scorer
from .._runner.files import RowError, read_rows
from .._runner.summary import Summaries, Summary

__all__ = ["build_parser", "main"]

ITEM_FIELDS: Final = ("item", "input", "question")
"""The item's field when --item-field is not given: the first of these a row has (else no item)."""

Run = Callable[[argparse.Namespace], int]


class _Usage(Exception):
    """A usage error found after parsing (exit status 2)."""


def _option(text: str) -> tuple[str, str]:
    """`key=value` for -S, split at the first "="; the value is read once the scorer is known (`_value`)."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected key=value; got {text!r}")
    return key.strip(), value


def _takes_text(factory: Callable[..., Scorer], key: str) -> bool:
    """True when the factory's parameter `key` is text: a str default, or `str` in its annotation."""
    param = inspect.signature(factory).parameters.get(key)
    if param is None:
        return False
    if isinstance(param.default, str):
        return True
    if param.annotation is param.empty:
        return False
    # annotations are text under `from __future__ import annotations`; "str", "str | None" ...
    hint = param.annotation if isinstance(param.annotation, str) else inspect.formatannotation(param.annotation)
    return "str" in (part.strip() for part in hint.split("|"))


def _value(factory: Callable[..., Scorer], key: str, text: str) -> Any:
    """The value of -S key=text: the text as typed for a text option, else JSON when it parses, else the text.

    So `pattern=123` is the pattern "123", not the number 123, while
    `normalise=false` is False and `timeout=2.5` is 2.5.
    """
    if _takes_text(factory, key):
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _signature(factory: Callable[..., Scorer]) -> str:
    parts = []
    for p in inspect.signature(factory).parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
        elif p.kind is p.VAR_KEYWORD:
            parts.append(f"**{p.name}")
        elif p.default is p.empty:
            parts.append(p.name)
        else:
            parts.append(f"{p.name}={p.default!r}")
    return ", ".join(parts)


def _make_scorer(name: str, texts: Mapping[str, str]) -> Scorer:
    from .._scorers.builtins import BUILTINS

    factory = BUILTINS.get(name)
    if factory is None:
        raise _Usage(f"unknown scorer {name!r}; the built-in scorers are: {', '.join(sorted(BUILTINS))}")
    options = {key: _value(factory, key, text) for key, text in texts.items()}
    try:
        inspect.signature(factory).bind(**options)
    except TypeError as exc:
        raise _Usage(f"{name}: {exc}; its options are ({_signature(factory)})") from None
    try:
        return factory(**options)
    except (TypeError, ValueError) as exc:
        raise _Usage(str(exc)) from None


def _field(path: str, line: int, row: Mapping[str, Any], field: str) -> Any:
    if field not in row:
        raise RowError(path, line, f"no field {field!r}; the row has {', '.join(map(str, row)) or 'no fields'}")
    return row[field]


def _score_rows(args: argparse.Namespace, scorer: Scorer) -> list[tuple[int, dict[str, Any], Score]]:
    path: str = args.file
    scored = []
    for line, row in read_rows(path):
        item_field = args.item_field or next((f for f in ITEM_FIELDS if f in row), None)
        item = None if item_field is None else _field(path, line, row, item_field)
        output = _field(path, line, row, args.output_field)
        label = _field(path, line, row, args.label_field)
        try:
            score = scorer(item, output, label)
        except ScorerContractError as exc:
            raise RowError(path, line, str(exc)) from None
        scored.append((line, row, score))
    return scored


def _write_scored(path: str, scored: list[tuple[int, dict[str, Any], Score]]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for line, row, score in scored:
            f.write(json.dumps({"line": line, "row": row, "score": score.as_dict()}, default=str) + "\n")


def _run_score(args: argparse.Namespace) -> int:
    scorer = _make_scorer(args.scorer, dict(args.options))
    scored = _score_rows(args, scorer)
    if args.out is not None:
        _write_scored(args.out, scored)
    print(f"{args.file}: {len(scored)} row{'' if len(scored) == 1 else 's'} scored with {scorer!r}")
    print(Summaries([Summary.of(scorer.name, (s for _, _, s in scored))], kind="scorer"))
    return 0


def add_score(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`scorebridge score FILE --scorer NAME [-S key=value ...] [--*-field F] [--out PATH]`."""
    p = subcommands.add_parser(
        "score",
        help="score a JSONL or CSV file of outputs with a built-in scorer and print the summary",
        description="Score every row of a JSONL or CSV file (by extension) with a built-in scorer, "
        "then print the number scored, the accuracy with its 95%% Wilson interval and the failure kinds.",
    )
    p.add_argument("file", help="a .jsonl/.ndjson or .csv file, one output per row")
    p.add_argument("--scorer", required=True, metavar="NAME", help="a built-in scorer (see `scorebridge list`)")
    p.add_argument(
        "-S",
        dest="options",
        action="append",
        type=_option,
        default=[],
        metavar="KEY=VALUE",
        help="a scorer option; the value is text as typed for a text option (pattern=123), "
        "else JSON when it parses (true, 3, [1, 2]), else text",
    )
    p.add_argument(
        "--item-field",
        metavar="F",
        help=f"the item's field (default: the first of {', '.join(ITEM_FIELDS)} a row has, else no item)",
    )
    p.add_argument("--output-field", default="output", metavar="F", help="the output's field (default: output)")
    p.add_argument("--label-field", default="label", metavar="F", help="the label's field (default: label)")
    p.add_argument("--out", metavar="PATH", help='write each row and its score as JSONL: {"line", "row", "score"}')
    p.set_defaults(run=_run_score)


def _run_list(args: argparse.Namespace) -> int:
    from .._scorers.builtins import BUILTINS

    for name in sorted(BUILTINS):
        factory = BUILTINS[name]
        print(f"{name}({_signature(factory)})")
        doc = inspect.getdoc(factory)
        if doc:
            print(f"    {doc.splitlines()[0]}")
    print("\nUse one with: scorebridge score FILE --scorer NAME -S option=value")
    return 0


def add_list(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`scorebridge list`."""
    p = subcommands.add_parser("list", help="list the built-in scorers and their options")
    p.set_defaults(run=_run_list)


def _run_demo(args: argparse.Namespace) -> int:
    from .demo import main as demo

    return demo(as_json=args.json)


def add_demo(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`scorebridge demo [--json]`."""
    p = subcommands.add_parser(
        "demo",
        help="one set of outputs, three scorers, five harnesses (plain Python, benchmark(), Inspect AI, DSPy, "
        "pytest), side by side; exits 1 if any two harnesses disagree",
    )
    p.add_argument("--json", action="store_true", help="print the cases and every harness's verdicts as JSON")
    p.set_defaults(run=_run_demo)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="scorebridge", description="Write a scorer once, run it in every eval harness."
    )
    subcommands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (add_demo, add_score, add_list):
        add(subcommands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `scorebridge` command with `argv` (default: the process's arguments); the exit status."""
    args = build_parser().parse_args(argv)
    run: Run = args.run
    try:
        return run(args)
    except _Usage as exc:
        print(f"scorebridge {args.command}: {exc}", file=sys.stderr)
        return 2
    except RowError as exc:
        print(exc, file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"scorebridge {args.command}: {exc}", file=sys.stderr)
        return 1
