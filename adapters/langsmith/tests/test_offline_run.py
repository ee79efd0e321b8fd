"""A real offline `langsmith.evaluate` over 20 rows gives the means scorebridge's Summary gives, and sends nothing.

Two rows have no label and one makes the scorer raise. With on_error="record" the raising row counts wrong, as
score_many(on_error="record") counts it; with "raise" LangSmith logs the exception and leaves the row out of its
mean (docs/langsmith.md says so).
"""

from __future__ import annotations

from typing import Any

import langsmith
import pytest
from ls_offline import CONNECTIONS, SESSION, examples, offline_client

import scorebridge as sb
from scorebridge.kit import Summary
from scorebridge_langsmith import to_langsmith

CAPITALS = ["Paris", "Rome", "Madrid", "Berlin", "Lisbon", "Vienna", "Athens", "Dublin", "Oslo", "Bern"] * 2
OUTPUTS = [c if n % 3 else c.lower() for n, c in enumerate(CAPITALS)]
OUTPUTS[7] = "BOOM"  # the scorer raises on this row
LABELS: list[Any] = list(CAPITALS)
LABELS[4] = LABELS[11] = None  # two rows without a label
ROWS = [(f"Capital number {n}?", output, label) for n, (output, label) in enumerate(zip(OUTPUTS, LABELS, strict=True))]


def strict(item: Any, output: Any, label: Any) -> bool:
    if output == "BOOM":
        raise RuntimeError("the grader fell over")
    return bool(output == label)


SCORERS = [sb.scorer(strict), sb.exact()]


def langsmith_means(on_error: str) -> dict[str, float]:
    """LangSmith's own table of the run (`to_pandas`), each feedback key's mean, as LangSmith's UI shows it."""
    evaluators = [to_langsmith(s, on_error=on_error) for s in SCORERS]  # type: ignore[arg-type]
    results = langsmith.evaluate(
        lambda inputs: ROWS[inputs["row"]][1], data=examples(ROWS), evaluators=evaluators, client=offline_client(),
        upload_results=False,
    )  # fmt: skip
    table = results.to_pandas()
    return {s.name: float(table[f"feedback.{s.name}"].mean()) for s in SCORERS}


def test_the_rows_are_as_the_bar_asks() -> None:
    assert len(ROWS) == 20 and LABELS.count(None) == 2 and OUTPUTS.count("BOOM") == 1


def test_recorded_langsmith_means_are_the_summarys_accuracy() -> None:
    means = langsmith_means("record")
    for scorer in SCORERS:
        scores = scorer.score_many([r[0] for r in ROWS], OUTPUTS, LABELS, on_error="record")
        assert means[scorer.name] == pytest.approx(Summary.of(scorer.name, scores).accuracy), scorer.name


def test_raised_langsmith_drops_the_raising_row_from_its_mean() -> None:
    means = langsmith_means("raise")
    kept = [(o, label) for o, label in zip(OUTPUTS, LABELS, strict=True) if label is not None and o != "BOOM"]
    assert means["strict"] == pytest.approx(sum(o == label for o, label in kept) / len(kept))  # 17 rows, not 18
    scores = sb.scorer(strict).score_many(None, OUTPUTS, LABELS, on_error="record")
    assert means["strict"] != pytest.approx(Summary.of("strict", scores).accuracy)


def test_no_request_leaves() -> None:
    langsmith_means("record")
    assert SESSION.sent == [] and CONNECTIONS == []


def test_the_guard_sees_a_request() -> None:
    # the test above would pass if the client never used its session: make sure a request is seen and refused
    client = offline_client()
    with pytest.raises(Exception, match="send nothing"):
        client.read_dataset(dataset_name="anything")
    assert SESSION.sent and SESSION.sent.pop()
