"""The kit's helpers for a harness's scorers: `options_of` (identity), `recording` (the reverse on_error),
`body_of` (round trips), `unwrap` (labels and outputs held in a harness's mappings) and `NativeCalls.carrying`.
A harness's score is read by `Scale.read` (tests/test_kit_scale.py)."""

from __future__ import annotations

import asyncio
import functools
import json
import math
from dataclasses import dataclass
from typing import Any

import pytest

import scorebridge as sb
from scorebridge.kit import (
    NativeCalls,
    OptionsError,
    Scorer,
    ask,
    body_of,
    judge,
    options_of,
    recording,
    sync_and_async,
    unwrap,
    verdict,
)

# --- options_of ----------------------------------------------------------------------------------


def make_judge(prompt: str, strict: bool = True, model: Any = None) -> Any:
    """A factory of harness scorers that returns a closure, as openevals' create_llm_as_judge does."""

    def judged(outputs: Any, reference_outputs: Any) -> bool:
        return strict and prompt.format(outputs) == reference_outputs and model is not None

    return judged


@dataclass
class FakeModel:
    responses: list[str]
    temperature: float = 0.0


class Metric:
    def __init__(self, threshold: float = 0.5, *, model: Any = None) -> None:
        self.threshold = threshold
        self._model = model


class Forgetful:
    def __init__(self, threshold: float) -> None:
        self.limit = threshold  # kept under another name: options_of cannot read it back


def test_a_closure_made_alike_has_equal_options_and_other_arguments_other_options() -> None:
    # The identity of a closure-made harness scorer was invisible: a resume ran under another prompt.
    one, again = make_judge("{}!", model=FakeModel(["yes"])), make_judge("{}!", model=FakeModel(["yes"]))
    assert options_of(one) == options_of(again)
    assert options_of(one) != options_of(make_judge("{}?", model=FakeModel(["yes"])))
    assert options_of(one) != options_of(make_judge("{}!", model=FakeModel(["no"])))


def test_a_closure_is_its_function_and_its_cells() -> None:
    found = options_of(make_judge("{}!", strict=False))
    assert found["function"].endswith("make_judge.<locals>.judged")
    assert found["cells"] == {"model": None, "prompt": "{}!", "strict": False}


def test_options_are_json() -> None:
    found = options_of(make_judge("{}!", model=FakeModel(["yes"], 0.5)))
    assert json.loads(json.dumps(found)) == found


def test_a_partial_is_its_function_and_its_arguments() -> None:
    found = options_of(functools.partial(make_judge, "{}!", strict=False))
    assert found == {"function": {"function": f"{__name__}.make_judge"}, "args": ["{}!"], "keywords": {"strict": False}}


def test_an_object_is_its_class_and_the_constructor_arguments_not_at_their_default() -> None:
    found = options_of(Metric(0.7, model=FakeModel(["a"])))
    assert found == {
        "class": f"{__name__}.Metric",
        "arguments": {"threshold": 0.7, "model": {"class": f"{__name__}.FakeModel", "arguments": {"responses": ["a"]}}},
    }
    assert options_of(Metric()) == {"class": f"{__name__}.Metric", "arguments": {}}


def test_a_bound_method_is_its_name_and_its_object() -> None:
    class Grader:
        def __init__(self, level: int) -> None:
            self.level = level

        def grade(self, outputs: Any) -> bool:
            return bool(outputs)

    assert options_of(Grader(2).grade)["of"]["arguments"] == {"level": 2}


def test_a_secret_is_never_written_out() -> None:
    class Secret:
        def __init__(self, value: str) -> None:
            self._value = value

        def get_secret_value(self) -> str:
            return self._value

    found = options_of(make_judge("{}", model=Secret("sk-123")))
    assert "sk-123" not in json.dumps(found) and found["cells"]["model"] == "**********"


def test_an_argument_it_cannot_read_back_is_refused_naming_it() -> None:
    with pytest.raises(OptionsError, match=r"cannot hold model as JSON options: cannot read the argument 'threshold'"):
        options_of(make_judge("{}", model=Forgetful(0.3)))


def test_a_nan_is_refused_naming_its_place() -> None:
    with pytest.raises(OptionsError, match=r"cannot hold model\.temperature as JSON options: nan is not a JSON number"):
        options_of(make_judge("{}", model=FakeModel(["a"], math.nan)))


def test_a_value_that_holds_itself_is_refused() -> None:
    looped: list[Any] = []
    looped.append(looped)
    with pytest.raises(OptionsError, match="holds itself"):
        options_of(make_judge("{}", model=looped))


def test_a_plain_value_is_no_harness_scorer() -> None:
    with pytest.raises(OptionsError, match="expected a harness scorer"):
        options_of("exact_match")


def test_a_local_function_that_calls_itself_is_known_by_its_name() -> None:
    def factory(n: int) -> Any:
        def again(outputs: Any) -> Any:
            return again if n else outputs

        return again

    assert options_of(factory(1))["cells"]["n"] == 1


# --- recording and body_of -----------------------------------------------------------------------


class Boom(Exception):
    pass


def _body(item: Any, output: Any, label: Any) -> sb.Score:
    asked = ask("boomy", output, label)
    if isinstance(asked, sb.Score):
        return asked

    def call() -> bool:
        if output == "boom":
            raise Boom("no")
        return output == label

    return judge("boomy", call, lambda found: verdict("boomy", asked, found))


async def _async_body(item: Any, output: Any, label: Any) -> sb.Score:
    await asyncio.sleep(0)
    return _body(item, output, label)


def test_record_makes_an_exception_the_rows_error_score() -> None:
    body = recording("boomy", _body, "record")
    score = Scorer("boomy", sync_and_async(body, is_async=False), recorded=True)("q", "boom", "Paris")
    assert (score.correct, score.failure_kind) == (False, "error") and "Boom" in (score.explanation or "")


def test_record_catches_an_awaited_exception_too() -> None:
    # A hand-written recorder caught only what the call raised, not what awaiting it raised.
    made = Scorer("boomy", sync_and_async(recording("boomy", _async_body, "record"), is_async=True), recorded=True)
    score = asyncio.run(made.acall("q", "boom", "Paris"))
    assert (score.correct, score.failure_kind) == (False, "error")
    assert made("q", "boom", "Paris").failure_kind == "error"


def test_record_leaves_an_unlabelled_raising_row_unscored_unless_the_scorer_needs_no_label() -> None:
    def raising(item: Any, output: Any, label: Any) -> sb.Score:
        raise Boom("x")

    assert recording("s", raising, "record")("q", "a", None).correct is None  # type: ignore[union-attr]
    assert recording("s", raising, "record", needs_label=False)("q", "a", None).correct is False  # type: ignore[union-attr]


def test_record_raises_an_unreadable_label_again() -> None:
    def unreadable(item: Any, output: Any, label: Any) -> sb.Score:
        raise sb.UnreadableLabel("s: cannot read the label")

    with pytest.raises(sb.UnreadableLabel):
        recording("s", unreadable, "record")("q", "a", "b")


def test_raise_gives_the_body_itself() -> None:
    assert recording("s", _body, "raise") is _body


def test_another_on_error_is_refused_naming_the_scorer() -> None:
    with pytest.raises(ValueError, match=r"recording\(boomy\): on_error must be 'raise' or 'record'"):
        recording("boomy", _body, "ignore")  # type: ignore[arg-type]


def test_body_of_finds_the_body_with_or_without_recording() -> None:
    for on_error in ("raise", "record"):
        made = Scorer("boomy", sync_and_async(recording("boomy", _body, on_error), is_async=False), recorded=True)
        assert body_of(made) is _body
    assert body_of(sb.exact()) is None


# --- unwrap --------------------------------------------------------------------------------------


def test_unwrap_reads_the_first_named_key() -> None:
    assert unwrap({"answer": "Paris", "context": "..."}, ("answer", "output")) == "Paris"


def test_unwrap_reads_a_sole_key_of_any_name_when_asked() -> None:
    assert unwrap({"city": "Paris"}, ("answer",), sole=True) == "Paris"
    assert unwrap({"city": "Paris"}, ("answer",)) == {"city": "Paris"}


def test_unwrap_keeps_a_structured_value_structured() -> None:
    assert unwrap({"name": "x", "age": 3}, ("answer",), sole=True) == {"name": "x", "age": 3}


def test_unwrap_makes_an_empty_mapping_no_label() -> None:
    assert unwrap({}, ("answer",)) is None


def test_unwrap_gives_anything_else_back() -> None:
    assert unwrap("Paris", ("answer",)) == "Paris" and unwrap(None, ("answer",)) is None


# --- NativeCalls.carrying ------------------------------------------------------------------------


def test_carrying_carries_for_the_block_and_drops_after() -> None:
    calls: NativeCalls[str] = NativeCalls("test_native")
    item, output, label = object(), object(), object()
    with calls.carrying(item, output, label, "native"):
        assert calls.native(item, output, label) == "native"
    assert calls.native(item, output, label) is None


def test_carrying_drops_when_the_block_raises() -> None:
    calls: NativeCalls[str] = NativeCalls("test_native")
    with pytest.raises(Boom), calls.carrying("i", "o", "l", "native"):
        raise Boom("x")
    assert calls.native("i", "o", "l") is None
