"""`_compat`: the private DSPy names the adapter reads on every call, checked, with the public API as fallback."""

from __future__ import annotations

import dspy
import pytest

from scorebridge_dspy import _compat


def test_no_fallback_is_in_use_with_the_supported_dspy() -> None:
    # a release that renames Example._store or _input_keys shows up here first (and in CI's newest-release job)
    assert _compat.FALLBACKS == ()


def test_the_public_fallback_reads_what_the_fast_path_reads() -> None:
    labelled = dspy.Example(question="q", answer="a", dspy_uuid="u").with_inputs("question")
    unmarked = dspy.Example(question="q", answer="a")
    for example in (labelled, unmarked):
        fast_fields, fast_inputs = _compat.fields_and_inputs(example)
        public_fields, public_inputs = _compat._public_fields_and_inputs(example)
        assert (dict(fast_fields), fast_inputs) == (dict(public_fields), public_inputs)
    prediction = dspy.Prediction(answer="a", reasoning="r")
    for example in (labelled, unmarked, prediction):
        assert dict(_compat.fields(example)) == dict(_compat._public_fields(example))


def test_a_prediction_keeps_no_input_names_either_way() -> None:
    prediction = dspy.Prediction(answer="a")
    for read in (_compat.fields_and_inputs, _compat._public_fields_and_inputs):
        with pytest.raises(AttributeError):
            read(prediction)
