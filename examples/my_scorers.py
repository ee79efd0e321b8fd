"""A scorer of your own, usable by name from both command lines.

    scorebridge score data.jsonl --scorer my_scorers.py@within_1pct -S tolerance=0.05
    inspect score --scorer my_scorers.py@within_1pct -S tolerance=0.05 --action overwrite --overwrite LOG.eval

`@scorer` (imported by that name, as Inspect AI's own decorator is) makes it
findable by `inspect score --scorer file.py@name`; the keyword-only parameter
`tolerance` is its option, set with `-S` in both command lines.
"""

from scorebridge import scorer


@scorer
def within_1pct(item, output, label, *, tolerance=0.01):
    """The output is a number within `tolerance` (relative) of the label."""
    try:
        x = float(output)
    except (TypeError, ValueError):
        return {"correct": False, "outcome": None, "failure_kind": "parse_failure"}
    if label is None:  # no label: recorded unscored, whatever we say
        return {"correct": None, "outcome": format(x, "g"), "failure_kind": None}
    y = float(label)
    return {"correct": abs(x - y) <= tolerance * abs(y), "outcome": format(x, "g"), "failure_kind": None}
