"""Every private DSPy name the adapter relies on, each checked here when imported.

DSPy's `Example` keeps its fields in the dict `_store` (its own `dspy_*` fields
too, which `keys()` hides) and its input field names in `_input_keys` (None
before `with_inputs`). `to_dspy` reads both on every call: directly, that is
several times faster than the public `items()`/`inputs()`, which copy.

When, at import, an Example built the public way does not show its fields and
inputs there (a DSPy release that renamed them, say), the public API is used
instead: `items(include_dspy=True)` and `inputs().keys()`, slower but right.
`FALLBACKS` names the fallbacks in use (empty for the supported DSPy; a test
says so, so a release that breaks one is noticed).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Collection, Mapping
from typing import Any, Final

import dspy

__all__ = ["FALLBACKS", "fields", "fields_and_inputs"]


def _public_fields(example: Any) -> Mapping[str, Any]:
    return dict(example.items(include_dspy=True))


def _public_fields_and_inputs(example: Any) -> tuple[Mapping[str, Any], Collection[str] | None]:
    if isinstance(example, dspy.Prediction):
        raise AttributeError("a Prediction keeps no input names")  # as the fast path says it
    try:
        inputs: Collection[str] | None = set(example.inputs().keys(include_dspy=True))
    except ValueError:  # with_inputs was never called
        inputs = None
    return _public_fields(example), inputs


def _store_is_the_fields() -> bool:
    try:
        labelled = dspy.Example(question="q", answer="a", dspy_uuid="u").with_inputs("question")
        unmarked = dspy.Example(question="q")
        prediction = dspy.Prediction(answer="a")
        return (
            labelled._store == {"question": "q", "answer": "a", "dspy_uuid": "u"}
            and labelled._input_keys == {"question"}
            and unmarked._input_keys is None
            and prediction._store == {"answer": "a"}
        )
    except Exception:  # AttributeError: the names are gone
        return False


_FAST: Final = _store_is_the_fields()

fields: Final[Callable[[Any], Mapping[str, Any]]] = operator.attrgetter("_store") if _FAST else _public_fields
"""`fields(example)`: an Example's (or a Prediction's) fields by name, `dspy_*` ones too. Do not change it."""

fields_and_inputs: Final[Callable[[Any], tuple[Mapping[str, Any], Collection[str] | None]]] = (
    operator.attrgetter("_store", "_input_keys") if _FAST else _public_fields_and_inputs
)
"""`fields_and_inputs(example)`: its fields, and its input field names (None before `with_inputs`).
AttributeError for a `Prediction`, which keeps no input names (one C call on the hot path: catch it there)."""

FALLBACKS: Final = () if _FAST else ("fields",)
"""The fallbacks in use: empty when every private name checked out."""
