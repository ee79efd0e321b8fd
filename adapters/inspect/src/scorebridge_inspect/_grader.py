"""`inspect_grader()`: an Inspect AI model as the grader of `model_graded_qa()` and `model_graded_fact()`."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from inspect_ai.model import GenerateConfig, Model, get_model

__all__ = ["inspect_grader"]


class _InspectGrader:
    """An async grader: the prompt goes to an Inspect AI model, its completion comes back."""

    __slots__ = ("config", "model")

    model: Model
    config: GenerateConfig

    def __init__(self, model: Model, config: GenerateConfig) -> None:
        object.__setattr__(self, "model", model)
        object.__setattr__(self, "config", config)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"an Inspect AI grader is immutable; cannot set {name!r}")

    def __repr__(self) -> str:
        return f"inspect_grader({str(self.model)!r})"

    def grader_identity(self) -> str:
        """What a `scorebridge.GraderCache` knows this grader's replies by: the model's name, its base URL
        and the GenerateConfig's settings (temperature, max_tokens, ...)."""
        settings = self.config.model_dump_json(exclude_none=True)
        return f"inspect {self.model} {getattr(self.model.api, 'base_url', None)} {settings}"

    async def __call__(self, prompt: str) -> str:
        """The model's reply to `prompt` (its completion); a refusal it reports as an error raises."""
        output = await self.model.generate(prompt, config=self.config)
        if output.error:
            raise RuntimeError(f"the grader model {self.model} gave no reply: {output.error}")
        return output.completion


def inspect_grader(
    model: str | Model, *, config: GenerateConfig | None = None
) -> Callable[[str], Coroutine[Any, Any, str]]:
    """A grader for `model_graded_qa()`/`model_graded_fact()` that asks an Inspect AI model.

    `model` is a model name ("openai/gpt-4o", read by `get_model` now, so a
    missing provider or key fails here and not in the middle of an eval) or
    a `Model`, e.g. `get_model("mockllm/model", custom_outputs=[...])` for
    offline tests (set `usage` on every `ModelOutput`, or mockllm tries to
    download a tokenizer). `config` is the `GenerateConfig` of every grading
    call (e.g. `GenerateConfig(temperature=0)`); Inspect's defaults when None.

    The grader is async: a scorer built on it grades concurrently in
    `score_many` and inside Inspect AI, where the model's own
    `max_connections` bounds the calls. It returns the model's completion;
    an output with an error (a refusal the provider reports) raises, which
    the scorer records as the grader's failure.
    """
    if isinstance(model, str):
        if not model or model.isspace():
            raise ValueError("inspect_grader: model must name a model, e.g. 'openai/gpt-4o'; got a blank string")
        model = get_model(model)
    elif not isinstance(model, Model):
        raise TypeError(
            f"inspect_grader: model must be a model name or an Inspect AI Model; got {type(model).__name__}"
        )
    if config is None:
        config = GenerateConfig()
    elif not isinstance(config, GenerateConfig):
        raise TypeError(f"inspect_grader: config must be a GenerateConfig or None; got {type(config).__name__}")
    return _InspectGrader(model, config)
