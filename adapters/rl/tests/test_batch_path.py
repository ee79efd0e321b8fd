"""`to_trl(exact())` scores a batch without a Score per completion: the same values and kinds as `exact()`."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rl_calls import TRLLogs

import scorebridge as sb
from scorebridge_rl import to_trl

EXACT = sb.exact()

AWKWARD: list[tuple[Any, Any]] = [
    ("Paris", "Paris"),
    ("  paris\u00a0", "PARIS"),
    ("Straße", "STRASSE"),
    ("New  York", "new york"),
    ("", "Paris"),
    ("   ", "Paris"),
    ("Paris", ""),
    ("Paris", "  "),
    ("Paris", None),
    ("Paris", ["Lyon", "Paris"]),
    ("Paris", ()),
    ("NOT_IN_DOCUMENT", "Paris"),
    ("**not in document.**", "NOT_IN_DOCUMENT"),
    ("the document says Paris", "the document says paris"),
    (42, "42"),
    ("42", 42),
    ("1e-7", 1e-7),
    (None, "Paris"),
    ({"answer": "Paris"}, "Paris"),
    ({"failure_kind": "refusal"}, "Paris"),
    ({"ok": False, "error": "timeout"}, "Paris"),
    ("x" * 100 + " document", "x" * 100 + " DOCUMENT"),
]


def kinds_and_values(outputs: list[Any], labels: list[Any]) -> tuple[list[Any], list[Any]]:
    logs = TRLLogs()
    reward = to_trl(EXACT)
    values = reward(prompts=None, completions=outputs, solution=labels, log_extra=logs.log_extra)
    return values, logs.extra["exact/failure_kind"]


def expected(outputs: list[Any], labels: list[Any]) -> tuple[list[Any], list[Any]]:
    scores = [EXACT(None, o, lab) for o, lab in zip(outputs, labels, strict=True)]
    return [s.value for s in scores], [s.failure_kind for s in scores]


def test_the_batch_path_gives_exacts_own_values_and_kinds_on_awkward_rows() -> None:
    outputs, labels = [o for o, _ in AWKWARD], [lab for _, lab in AWKWARD]
    assert kinds_and_values(outputs, labels) == expected(outputs, labels)


texts = st.text(alphabet=st.sampled_from(list("aAbB ßSs\u00a0\t\nİi.ocumentDOCUMENT_")), max_size=24)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(texts, st.one_of(texts, st.none(), st.lists(texts, max_size=2))), min_size=1, max_size=8))
def test_the_batch_path_gives_exacts_own_values_and_kinds_on_any_text(pairs: list[tuple[str, Any]]) -> None:
    outputs, labels = [o for o, _ in pairs], [lab for _, lab in pairs]
    assert kinds_and_values(outputs, labels) == expected(outputs, labels)


def test_exact_without_normalising_is_scored_by_the_scorer_itself() -> None:
    strict = sb.exact(normalise=False)
    assert to_trl(strict)(prompts=["q", "q"], completions=["paris", "Paris"], solution=["Paris", "Paris"]) == [0.0, 1.0]
