"""The built-in scorers' Inspect Scores are built without pydantic's validation; they are the Scores it builds.

`to_inspect` builds a built-in scorer's Score field by field (2.5 µs of
validation per sample saved, so it is no slower than Inspect's own scorers).
These tests hold it to the Score that `Score(...)` validates: same fields,
same "fields set", same JSON in the log, and as mutable, Score by Score.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai.scorer import Score, ScoreEdit, Target
from inspect_ai.solver import TaskState

import scorebridge as sb
from scorebridge.kit import BUILTINS
from scorebridge_inspect import to_inspect
from scorebridge_inspect._score import FAST_BUILD

_WORDS = ["Paris", "paris", " PARIS. ", "Lyon", "42", "-5", "1,000", "ANSWER: B", "NOT_IN_DOCUMENT", "."]
texts = st.one_of(st.sampled_from(["", "   ", *_WORDS]), st.text(max_size=12))
targets = st.one_of(st.sampled_from(["", *_WORDS]), st.text(max_size=8), st.lists(st.sampled_from(_WORDS), max_size=3))


def _plain_builtins() -> dict[str, sb.Scorer]:
    # every built-in that needs no argument, and detect_pattern with one
    made = {"detect_pattern": BUILTINS["detect_pattern"](r"ANSWER:\s*(\w+)")}
    for name, factory in BUILTINS.items():
        if all(p.default is not inspect.Parameter.empty for p in inspect.signature(factory).parameters.values()):
            made[name] = factory()
    return made


BUILT_INS = _plain_builtins()


def as_ones_own(scorer: sb.Scorer) -> sb.Scorer:
    """The same scorer, wrapped as a scorer of one's own: to_inspect validates its Scores."""
    return sb.scorer(lambda item, output, label: scorer(item, output, label), name=scorer.name)


def fields(score: Score) -> dict[str, tuple[type, str]]:
    """Every field of an Inspect Score, as its type and its JSON: what Inspect and its logs see."""
    return {name: (type(value), json.dumps(value, default=str)) for name, value in score.__dict__.items()}


def test_fast_build_is_in_use_with_the_supported_inspect_ai() -> None:
    # Off only when a newer Inspect AI or pydantic makes Scores differently: then every Score is validated,
    # which is correct but slower, and this test says so.
    assert FAST_BUILD


@pytest.mark.parametrize("name", sorted(BUILT_INS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(completion=texts, target=targets)
def test_builtin_score_is_the_validated_score_of_the_same_scorer_wrapped(
    make_state: Callable[..., TaskState], name: str, completion: str, target: str | list[str]
) -> None:
    fast = asyncio.run(to_inspect(BUILT_INS[name])(make_state(completion), Target(target)))
    validated = asyncio.run(to_inspect(as_ones_own(BUILT_INS[name]))(make_state(completion), Target(target)))
    assert type(fast) is type(validated) is Score
    assert fields(fast) == fields(validated)
    assert fast.model_fields_set == validated.model_fields_set
    assert fast.model_dump_json() == validated.model_dump_json()


def test_unscored_builtin_score_is_nan_as_score_unscored_makes_it(make_state: Callable[..., TaskState]) -> None:
    score = asyncio.run(to_inspect(sb.exact())(make_state("Paris"), Target("")))
    assert math.isnan(score.value)  # type: ignore[arg-type]
    assert score.model_dump_json() == Score.unscored(answer="paris", metadata={"failure_kind": None}).model_dump_json()


def test_builtin_scores_share_nothing_mutable(make_state: Callable[..., TaskState]) -> None:
    # Inspect edits Scores in place (`inspect score`'s edits append to history); two Scores must not share a list
    scorer = to_inspect(sb.exact())
    first, second = (asyncio.run(scorer(make_state("Paris"), Target("Paris"))) for _ in range(2))
    first.history.append(ScoreEdit(value="I"))
    first.metadata["note"] = "x"  # type: ignore[index]
    assert (second.history, second.metadata) == ([], {"failure_kind": None})


def test_builtin_score_is_edited_as_a_validated_one_is(make_state: Callable[..., TaskState]) -> None:
    scores = [
        asyncio.run(to_inspect(scorer)(make_state("Lyon"), Target("Paris")))
        for scorer in (sb.exact(), as_ones_own(sb.exact()))
    ]
    for score in scores:
        score.value = "C"
        score.explanation = "edited"
    fast, validated = scores
    assert (fast.value, fast.explanation) == ("C", "edited")
    assert fast.model_dump_json() == validated.model_dump_json()
    assert fast.model_fields_set == validated.model_fields_set


def test_metadata_key_that_is_not_a_string_is_written_as_one(make_state: Callable[..., TaskState]) -> None:
    # Inspect's Score takes string keys only (a pydantic ValidationError from inside Inspect, else); JSON writes
    # other keys as strings, and so does to_inspect
    odd = sb.scorer(lambda item, output, label: {"correct": True, "metadata": {1: "x", "k": 2}}, name="odd")
    score = asyncio.run(to_inspect(odd)(make_state("x"), Target("x")))
    assert score.metadata == {"1": "x", "k": 2, "failure_kind": None}
