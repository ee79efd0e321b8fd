"""Two Ray Datasets scored by score_dataset compare as files do: `scorebridge.compare(ds_old, ds_new)`."""

from __future__ import annotations

from typing import Any

import ray.data

import scorebridge as sb
from scorebridge_ray import score_dataset, summarize


def outputs(new: bool) -> list[dict[str, Any]]:
    rows = []
    for i in range(40):
        right = i % 5 != 0
        if new and i in (1, 2, 3):
            right = False
        if new and i == 0:
            right = True
        rows.append({"id": f"q{i}", "output": "yes" if right else "no", "label": None if i == 39 else "yes"})
    return rows


def test_two_datasets_compare_and_each_side_is_what_summarize_counts() -> None:
    old = score_dataset(ray.data.from_items(outputs(False), override_num_blocks=3), sb.exact()).materialize()
    new = score_dataset(ray.data.from_items(outputs(True), override_num_blocks=2), sb.exact()).materialize()
    compared = sb.compare(old, new)
    assert compared.base == summarize(old, "base") and compared.new == summarize(new, "new")
    assert sorted(f.id for f in compared.regressed) == ["q1", "q2", "q3"]
    assert [f.id for f in compared.improved] == ["q0"]
    assert compared.unscored_pairs == 1
    assert compared.provenance["id"] == "id"
