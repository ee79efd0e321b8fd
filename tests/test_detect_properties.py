"""Properties of every `detect_*` scorer, over generated inputs of any type."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import scorebridge as sb

SCORERS = [
    sb.detect_includes(),
    sb.detect_includes(case_sensitive=True),
    *(sb.detect_match(location) for location in ("end", "begin", "any", "exact")),
    sb.detect_match(case_sensitive=True),
    sb.detect_pattern(r"(\d+)"),
    sb.detect_pattern(r"\w+", case_sensitive=True),
    sb.detect_pattern(r"(a+)?(b)?(\S+)", all=True),
    *(sb.detect_answer(fmt) for fmt in ("line", "word", "letter")),
    sb.detect_exact(),
    sb.detect_exact(case_sensitive=True),
]
scorers = st.sampled_from(SCORERS)


class Hostile:
    """An object whose public attributes, comparisons and text raise (its repr works, for the report)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise RuntimeError("no attributes here")

    def __repr__(self) -> str:
        return "Hostile()"

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no comparisons here")

    __hash__ = object.__hash__

    def __str__(self) -> str:
        raise RuntimeError("no text here")


class Result:
    """A result object, as an arm returns it."""

    def __init__(self, text: Any, ok: Any = True, failure_kind: Any = None) -> None:
        self.text, self.ok, self.failure_kind = text, ok, failure_kind


texts = st.text() | st.sampled_from(
    ["NOT_IN_DOCUMENT", "ANSWER: B", "The answer is 25", "-5", "3.14", "a" * 5000 + "!"]
)
oddities = st.sampled_from(
    [
        object(),
        Hostile(),
        np.float64("nan"),
        np.int64(5),
        np.bool_(True),
        pd.NA,
        pd.NaT,
        float("inf"),
        Decimal("NaN"),
        Fraction(1, 3),
        1j,
        Ellipsis,
    ]
)
scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.decimals() | texts | st.binary() | oddities
keys = st.sampled_from(["text", "answer", "failure_kind", "ok", "error"]) | st.text(max_size=4)
anything = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(keys, inner, max_size=3)
        | st.builds(Result, inner, inner, inner)
    ),
    max_leaves=8,
)
labels = texts | st.lists(texts, max_size=3)


@settings(max_examples=400, deadline=None)
@given(scorers, anything, anything)
def test_no_input_of_any_type_crashes_a_detect_scorer(scorer: sb.Scorer, output: Any, label: Any) -> None:
    # A recorded Score, or one clear ScorerContractError naming the scorer: never a traceback from deep inside.
    try:
        score = scorer(None, output, label)
    except sb.ScorerContractError as exc:
        assert str(exc).startswith(f"{scorer.name}: ")
    else:
        assert type(score) is sb.Score
        assert score.grade in ("C", "I", "N")


@settings(deadline=None)
@given(scorers, texts, labels)
def test_text_outputs_and_labels_always_give_a_score(scorer: sb.Scorer, output: str, label: Any) -> None:
    score = scorer(None, output, label)
    assert score.grade in ("C", "I", "N")
    if score.correct is not None:  # a wrong output carries a failure kind, a correct one none
        assert (score.failure_kind is None) is score.correct


@settings(deadline=None)
@given(scorers, texts, st.sampled_from(["", " ", "\n\t", "\u00a0", None, ["", "  "]]))
def test_blank_label_never_scores(scorer: sb.Scorer, output: str, label: Any) -> None:
    assert scorer(None, output, label).grade == "N"


class Text(str):
    """A str subclass: it takes the general path, not the str-and-str shortcut."""


@settings(deadline=None)
@given(scorers, texts, texts)
def test_shortcut_for_plain_strings_agrees_with_the_general_path(scorer: sb.Scorer, output: str, label: str) -> None:
    assert scorer(None, output, label) == scorer(None, Text(output), label)


digits = st.text(alphabet="0123456789", min_size=1, max_size=8)
NUMBER_SCORERS = [sb.detect_includes(), sb.detect_match(), sb.detect_match("any")]


@given(st.sampled_from(NUMBER_SCORERS), digits, digits)
def test_a_number_never_matches_inside_a_longer_number(scorer: sb.Scorer, head: str, tail: str) -> None:
    assert scorer(None, f"The answer is {head}{tail}", tail).grade == "I"


@given(st.sampled_from(NUMBER_SCORERS), digits, digits)
def test_a_number_never_matches_inside_a_decimal(scorer: sb.Scorer, whole: str, fraction: str) -> None:
    assert scorer(None, f"The answer is {whole}.{fraction}", fraction).grade == "I"


@given(st.sampled_from(NUMBER_SCORERS), digits)
def test_a_number_is_never_its_negative(scorer: sb.Scorer, number: str) -> None:
    assert scorer(None, f"The answer is -{number}", number).grade == "I"


@given(st.sampled_from(NUMBER_SCORERS), digits)
def test_a_number_standing_alone_matches(scorer: sb.Scorer, number: str) -> None:
    assert scorer(None, f"The answer is {number}.", number).grade == "C"
