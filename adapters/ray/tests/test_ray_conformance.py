"""The Ray adapter passes scorebridge's conformance suite (`scorebridge.kit.testing`) on a real local Ray.

Ray has the forward direction only (a scorebridge scorer scores a Ray Dataset's rows): the suite checks that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
import ray.data

from scorebridge import Scorer
from scorebridge.kit import item_text
from scorebridge.kit.testing import Adapter, Check, Row, checks
from scorebridge_ray import score_dataset


def _row(n: int, row: Row) -> dict[str, Any]:
    # An Arrow column holds one type: an item as its text, a label as a list of accepted answers (None: no label)
    item, output, label = row
    return {"i": n, "item": item_text(item), "output": output, "label": [label] if isinstance(label, str) else label}


def run(job: tuple[Scorer, str], rows: list[Row]) -> Sequence[float | None]:
    """score_dataset over the rows (one column each for item, output, label); each row's value column."""
    scorer, on_error = job
    ds = ray.data.from_items([_row(n, r) for n, r in enumerate(rows)])
    scored = score_dataset(ds, scorer, item="item", on_error=on_error)  # type: ignore[arg-type]
    return [row["value"] for row in sorted(scored.take_all(), key=lambda row: row["i"])]


# Ray's on_error is score_dataset's: "the harness scorer" is the scorer with the on_error to run it with
RAY = Adapter(
    "ray",
    to_harness=lambda scorer: (scorer, "raise"),
    run=run,
    to_recording=lambda scorer: (scorer, "record"),
    carries_objects=False,  # an Arrow column holds one type: the outputs are text
)


@pytest.mark.parametrize("check", checks(RAY), ids=str)
def test_the_ray_adapter_conforms(check: Check) -> None:
    check()
