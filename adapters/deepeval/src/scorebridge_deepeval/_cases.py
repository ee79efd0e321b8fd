"""The one mapping between a scorebridge row (item, output, label) and a deepeval `LLMTestCase`, both ways.

- `as_test_case(item, output, label)`: `input` is the item's text (its `input` or
  `question` field), `actual_output` the output's text (a structured output as
  its JSON: deepeval holds text), `expected_output` a text label; a label
  deepeval cannot hold as text (several accepted answers, a number, a mapping)
  rides whole in the case's `metadata["label"]`. `context` and
  `retrieval_context` come from the item's fields of those names (a text is a
  list of one);
- `row_of(case)`: the row back: the item as `input`, or `{"input", "context",
  "retrieval_context"}` when the case has context; the label from
  `metadata["label"]` when the case holds one there, else `expected_output`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from deepeval.test_case import LLMTestCase

from scorebridge.kit import ScorerContractError, element, item_text, label_is_missing

__all__ = ["CONTEXT", "LABEL", "as_test_case", "row_of"]

CONTEXT: Final = ("context", "retrieval_context")
"""The test case's context fields, held under item fields of the same names unless told otherwise."""
LABEL: Final = "label"
"""The key of a case's `metadata` that holds a label deepeval cannot hold as text, whole."""


def _texts(value: Any) -> list[Any] | None:
    if value is None:
        return None
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]


def as_text(output: Any) -> str | None:
    """An output as deepeval's `actual_output` holds it: text as it is; a structured one as its JSON."""
    if output is None or isinstance(output, str):
        return output
    try:
        return json.dumps(output, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(output)


def as_test_case(
    item: Any,
    output: Any,
    label: Any,
    *,
    context_field: str = "context",
    retrieval_context_field: str = "retrieval_context",
    name: str | None = None,
) -> LLMTestCase:
    """The deepeval test case of a scorebridge row (the rules in this module's docstring).

    Raises `ScorerContractError` for a row deepeval cannot hold (an item whose
    text cannot be read, a context that is not text).
    """
    held = isinstance(item, Mapping)
    if label_is_missing(label):
        label, metadata = None, None
    elif isinstance(label, str):
        metadata = None
    else:
        label, metadata = None, {LABEL: label}
    try:
        return LLMTestCase(
            input=item_text(item) or "", actual_output=as_text(output), expected_output=label, metadata=metadata,
            name=name, context=_texts(element(item, context_field)) if held else None,
            retrieval_context=_texts(element(item, retrieval_context_field)) if held else None,
        )  # fmt: skip
    except Exception as exc:  # pydantic's ValidationError; an item whose text cannot be read
        raise ScorerContractError(f"cannot make a deepeval test case of the row: {exc!s:.300}") from None


def row_of(case: LLMTestCase) -> tuple[Any, Any, Any]:
    """The scorebridge row (item, output, label) of a deepeval test case (the rules in this module's docstring)."""
    held = {field: getattr(case, field) for field in CONTEXT if getattr(case, field, None)}
    item = {"input": case.input, **held} if held else case.input
    metadata = case.metadata
    label = metadata[LABEL] if isinstance(metadata, Mapping) and LABEL in metadata else case.expected_output
    return item, case.actual_output, label
