"""A scorer of your own, usable by name from both command lines.

    scorebridge score data.jsonl --scorer my_scorers.py@within_1pct -S tolerance=0.05
    inspect score --scorer my_scorers.py@within_1pct -S tolerance=0.05 --action overwrite --overwrite LOG.eval

`@scorer` (imported by that name, as Inspect AI's own decorator is) makes it
findable by `inspect score --scorer file.py@name`; the keyword-only parameter
`tolerance` is its option, set with `-S` in both command lines.
"""

from scorebridge import scorer


@scorer
def within_1pct(item, output, label: float, *, tolerance=0.01):
    """The output is a number within `tolerance` (relative) of the label.

    `label: float`: scorebridge hands the label over as a number, whether the data
    holds 45.2 or the text "45.2" (a CSV cell, an Inspect AI target); no label at
    all (None, NaN, a blank cell) arrives as None.
    """
    try:
        x = float(output)
    except (TypeError, ValueError):
        return {"correct": False, "outcome": None, "failure_kind": "parse_failure"}
    if label is None:  # no label: recorded unscored, whatever we say
        return {"correct": None, "outcome": format(x, "g"), "failure_kind": None}
    return {"correct": abs(x - label) <= tolerance * abs(label), "outcome": format(x, "g"), "failure_kind": None}
