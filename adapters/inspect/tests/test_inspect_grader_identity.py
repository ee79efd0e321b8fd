"""inspect_grader's identity in a grader cache: the model and its GenerateConfig, so settings never share replies."""

from __future__ import annotations

from inspect_ai.model import GenerateConfig, ModelOutput, get_model

from scorebridge.kit import grader_identity
from scorebridge_inspect import inspect_grader


def _model() -> object:
    output = ModelOutput.from_content("mockllm/model", "GRADE: C")
    return get_model("mockllm/model", custom_outputs=[output])


def test_the_identity_names_the_model_and_its_settings() -> None:
    cold = grader_identity(inspect_grader(_model(), config=GenerateConfig(temperature=0.0)))  # type: ignore[arg-type]
    warm = grader_identity(inspect_grader(_model(), config=GenerateConfig(temperature=1.0)))  # type: ignore[arg-type]
    assert "mockllm/model" in cold and '"temperature":0.0' in cold and cold != warm
