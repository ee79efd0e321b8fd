"""`python -m scorebridge_promptfoo module:name`: write the promptfoo assertion file of a scorebridge scorer."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from . import assertion

_FILE = '''"""promptfoo Python assertion: scorebridge's {target}, written by python -m scorebridge_promptfoo."""

import sys

sys.path.insert(0, {folder!r})  # where {module} is found

from scorebridge_promptfoo import assertion

get_assert = assertion({target!r}, item={item!r}, label={label!r})
'''


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scorebridge_promptfoo",
        description="Write a promptfoo Python assertion file (type: python, value: file://FILE) that scores "
        "promptfoo's output with a scorebridge scorer.",
    )
    parser.add_argument("scorer", help="the scorer, as module:name (a Scorer, or a function returning one)")
    parser.add_argument("-o", "--out", default=None, help="the file to write (default: assert_NAME.py)")
    parser.add_argument(
        "--item-var",
        default="item",
        help="the test var holding the item (default: item; without it, the other vars are the item)",
    )
    parser.add_argument("--label-var", default="label", help="the test var holding the label (default: label)")
    args = parser.parse_args(argv)
    folder = os.getcwd()
    try:
        assertion(args.scorer, item=args.item_var, label=args.label_var)  # found now, not when promptfoo runs
    except (ImportError, TypeError, ValueError) as exc:
        print(f"python -m scorebridge_promptfoo: {exc}", file=sys.stderr)
        return 2
    module, _, name = args.scorer.partition(":")
    out = args.out or f"assert_{name}.py"
    text = _FILE.format(target=args.scorer, folder=folder, module=module, item=args.item_var, label=args.label_var)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {out}: in promptfoo's config, assert: [{{type: python, value: file://{out}}}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
