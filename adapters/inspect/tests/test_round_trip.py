"""Round trips: out to Inspect AI and back changes nothing Inspect can carry.

- scorebridge scorers: `from_inspect(to_inspect(s))` gives the same Score as `s`
  (correct, value, failure_kind, outcome, explanation, metadata).
- Inspect's built-in scorers: `to_inspect(from_inspect(x))` gives the same
  value, answer and reason as `x` (for numeric scorers such as f1, the same
  value as Inspect's metrics read it: a number worth a letter comes back as
  the letter).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai.scorer import Score, Scorer, Target, answer, exact, f1, includes, match, pattern, value_to_float
from inspect_ai.solver import TaskState

import scorebridge as sb
from scorebridge.kit import BUILTINS
from scorebridge_inspect import from_inspect, to_inspect

_FIELDS = ("correct", "value", "failure_kind", "outcome", "explanation", "metadata")

_WORDS = [
    "Paris",
    "paris",
    " PARIS. ",
    "Lyon",
    "42",
    "42.0",
    "1,000",
    "ANSWER: B",
    "answer: paris",
    "NOT_IN_DOCUMENT",
    ".",
]
texts = st.one_of(st.sampled_from(["", "   ", *_WORDS]), st.text(max_size=12))
labels = st.one_of(
    st.none(),
    st.sampled_from(["", *_WORDS]),
    st.text(max_size=8),
    st.lists(st.sampled_from(["", *_WORDS]), min_size=1, max_size=3),
)
targets = st.one_of(st.sampled_from(_WORDS), st.lists(st.sampled_from(_WORDS), min_size=2, max_size=3)).filter(
    lambda t: isinstance(t, str) or len(set(t)) == len(t)
)


def _graded(item: Any, output: Any, label: Any) -> dict[str, Any]:
    """A scorer of one's own: refusals, parse failures, partial credit, explanation and metadata."""
    text = output.strip()
    if not text:
        return {"correct": False, "outcome": None, "failure_kind": "parse_failure", "explanation": "empty"}
    if "NOT_IN" in text:
        return {"correct": None, "outcome": text, "failure_kind": "refusal"}
    answers = label if isinstance(label, list) else [label]
    credit = sum(text.lower() in str(a).lower() for a in answers) / 4
    return {
        "correct": credit > 0,
        "outcome": text,
        "failure_kind": None,
        "value": credit or None,
        "explanation": f"{credit:.2f} of the way",
        "metadata": {"length": len(text), "item": item},
    }


async def _agraded(item: Any, output: Any, label: Any) -> dict[str, Any]:
    await asyncio.sleep(0)
    return _graded(item, output, label)


def _plain_builtins() -> dict[str, sb.Scorer]:
    # every built-in that needs no argument, whichever the core has today
    made = {}
    for name, factory in BUILTINS.items():
        required = [p for p in inspect.signature(factory).parameters.values() if p.default is inspect.Parameter.empty]
        if not required:
            made[name] = factory()
    return made


SCOREBRIDGE_SCORERS = {
    **_plain_builtins(),
    "exact_raw": sb.exact(normalise=False),
    "graded": sb.scorer(_graded),
    "agraded": sb.scorer(_agraded),
}


@pytest.mark.parametrize("name", sorted(SCOREBRIDGE_SCORERS))
@settings(max_examples=60, deadline=None)
@given(item=texts, output=texts, label=labels)
def test_scorebridge_scorer_survives_inspect_and_back(name: str, item: str, output: str, label: Any) -> None:
    original = SCOREBRIDGE_SCORERS[name]
    back = from_inspect(to_inspect(original))
    want, got = original(item, output, label), back(item, output, label)
    assert {f: getattr(got, f) for f in _FIELDS} == {f: getattr(want, f) for f in _FIELDS}


INSPECT_SCORERS: dict[str, Callable[[], Scorer]] = {
    "match": match,
    "match_begin_numeric": lambda: match("begin", numeric=True),
    "includes": includes,
    "pattern": lambda: pattern(r"ANSWER:\s*(\w+)"),
    "answer_word": lambda: answer("word"),
    "exact": exact,
    "f1": f1,
}


def _worth(value: Any) -> float:
    return value_to_float()(value)


@pytest.mark.parametrize("name", sorted(INSPECT_SCORERS))
@settings(max_examples=60, deadline=None)
@given(completion=texts, target=targets)
def test_inspect_scorer_survives_scorebridge_and_back(
    make_state: Callable[..., TaskState], name: str, completion: str, target: str | list[str]
) -> None:
    native = INSPECT_SCORERS[name]()
    through = to_inspect(from_inspect(native))
    state = make_state(completion, input="Capital of France?")

    async def both() -> tuple[Score, Score]:
        return await native(state, Target(target)), await through(state, Target(target))  # type: ignore[return-value]

    want, got = asyncio.run(both())
    assert (got.answer, got.reason) == (want.answer, want.reason)
    if isinstance(want.value, str):
        assert got.value == want.value
    else:
        assert _worth(got.value) == _worth(want.value)
