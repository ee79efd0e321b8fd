"""Every private Inspect AI and pydantic name the adapter relies on, each checked here when imported.

Inspect AI releases often, and its private modules change without notice. Each
name below is taken inside a check that it still does what the adapter needs;
when it does not (the name is gone, or behaves otherwise), a public-API fallback
is used, slower or narrower, but never wrong:

- the Inspect Score of a built-in, built without validation: pydantic's
  instance layout (`__pydantic_fields_set__`, ...); else `Score(...)`, validated;
- the active model while `from_inspect(model=...)` scores:
  `inspect_ai.model._model.active_model_context_var`; else none, and
  `from_inspect(model=...)` is a clear error (give the scorer its own model);
- choices marked as the `multiple_choice()` solver marks them:
  `inspect_ai.solver._multiple_choice.parse_answers` and
  `set_choices_based_on_generated_response`; else our own reading of the last
  "ANSWER: X", marked with the public `Choices.mark_choice`;
- the arguments a scorer was made with: `inspect_ai._util.registry.registry_params`;
  else none are recorded;
- a scorer's own metrics: `inspect_ai.scorer._scorer.scorer_metrics`; else the
  "metrics" entry of the public `registry_info(scorer).metadata`.

`FALLBACKS` names the fallbacks in use (empty for the supported Inspect AI; a test
says so, so a release that breaks one is noticed).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, Final

from inspect_ai.model import Model, ModelName, ModelOutput
from inspect_ai.scorer import Metric, Score, Scorer, accuracy, stderr
from inspect_ai.solver import TaskState
from inspect_ai.util import registry_info
from pydantic import BaseModel

__all__ = [
    "ACTIVE_MODEL",
    "FALLBACKS",
    "Build",
    "Metrics",
    "fast_score",
    "mark_choices",
    "scorer_metrics",
    "scorer_params",
    "validated_score",
]

_fallbacks: list[str] = []

# --- the Inspect Score without validation ---------------------------------------------------

Build = Callable[[Any, "str | None", "str | None", "str | None", "dict[str, Any]"], Score]
"""`(value, answer, explanation, reason, metadata) -> Score`."""

_SET: Final = {"value", "answer", "explanation", "reason", "metadata"}  # what a validated Score says was set


def validated_score(
    value: Any, answer: str | None, explanation: str | None, reason: str | None, metadata: dict[str, Any]
) -> Score:
    """An Inspect Score made the public way: pydantic validates every field (about 2.5 µs)."""
    return Score(value=value, answer=answer, explanation=explanation, reason=reason, metadata=metadata)


def _layout() -> type[BaseModel] | None:
    """Score's instance layout (BaseModel's slots and a weak reference) with object's own attribute setting.

    Object's stores a slot directly, pydantic's goes through Python. An instance is
    filled in, then made a Score. None when this pydantic cannot make such a class.
    """
    try:

        class _Unvalidated(BaseModel):
            __slots__ = ("__weakref__",)
            __setattr__ = object.__setattr__
            __delattr__ = object.__delattr__

    except TypeError:  # a BaseModel with a weak reference of its own, say
        return None
    return _Unvalidated


_Unvalidated: Final = _layout()
_new = object.__new__


def _unvalidated(
    value: Any, answer: str | None, explanation: str | None, reason: str | None, metadata: dict[str, Any]
) -> Score:
    s = _new(_Unvalidated)  # type: ignore[arg-type]
    s.__dict__ = {
        "value": value,
        "answer": answer,
        "explanation": explanation,
        "reason": reason,
        "metadata": metadata,
        "history": [],
    }
    s.__pydantic_fields_set__ = _SET.copy()
    s.__pydantic_extra__ = None
    s.__pydantic_private__ = None
    s.__class__ = Score
    return s  # type: ignore[return-value]  # made a Score just above


def _same(a: Score, b: Score) -> bool:
    """The same Score to Inspect: same class, fields (and their types), fields-set, extras and JSON."""
    return (
        type(a) is type(b)
        and a.__dict__.keys() == b.__dict__.keys()
        and all(type(a.__dict__[k]) is type(b.__dict__[k]) for k in a.__dict__)
        and a.model_fields_set == b.model_fields_set
        and a.__pydantic_extra__ == b.__pydantic_extra__
        and a.__pydantic_private__ == b.__pydantic_private__
        and a.model_dump_json() == b.model_dump_json()
    )


def _fast_build() -> Build | None:
    """`_unvalidated` when it makes the very Scores that validation makes, else None."""
    samples: list[tuple[Any, str | None, str | None, str | None, dict[str, Any]]] = [
        ("C", "the capital is paris.", "the output contains 'paris'", None, {"matched": "paris", "failure_kind": None}),
        ("I", None, "the output is empty", "invalid_response_format", {"failure_kind": "parse_failure"}),
        ("I", None, None, "scoring_failed", {"failure_kind": "error"}),
        ("P", "b", None, None, {"failure_kind": "wrong"}),
        (0.25, "x", "y", "refusal", {"failure_kind": "refusal", "n": 1}),
        (float("nan"), "42", "captured '42'", None, {"groups": ["42", None], "failure_kind": None}),
    ]
    if _Unvalidated is None or Score.__pydantic_post_init__ is not None or Score.model_config.get("extra") == "allow":
        return None
    try:
        same = all(_same(_unvalidated(*args), validated_score(*args)) for args in samples)
    except TypeError:  # the layout changed: __class__ assignment refused
        return None
    return _unvalidated if same else None


fast_score: Final = _fast_build()
"""The built-ins' Inspect Score built without validation, or None when it would not be the validated Score."""
if fast_score is None:
    _fallbacks.append("fast_score")

# --- the active model ----------------------------------------------------------------------


def _active_model() -> ContextVar[Model | None] | None:
    try:
        from inspect_ai.model._model import active_model as read
        from inspect_ai.model._model import active_model_context_var as var
    except ImportError:
        return None
    if not isinstance(var, ContextVar):
        return None
    marker: Any = object()
    token = var.set(marker)
    try:
        seen = read()
    finally:
        var.reset(token)
    return var if seen is marker else None


ACTIVE_MODEL: Final = _active_model()
"""The context variable Inspect reads its active model from (`get_model()` with no name), or None."""
if ACTIVE_MODEL is None:
    _fallbacks.append("ACTIVE_MODEL")

# --- choices marked from the output --------------------------------------------------------

_ANSWER: Final = re.compile(r"ANSWER\s*:\s*([A-Za-z\d ,]+)", re.IGNORECASE)


def _our_marking(state: TaskState, several: bool) -> None:
    """The choices the output's last "ANSWER: X" names marked correct, the others not (letters A, B, ...)."""
    found = _ANSWER.findall(state.output.completion)
    letters = found[-1].strip().rstrip(".").upper().replace(" AND ", ",").replace(" ", "") if found else ""
    picked = {token for token in letters.split(",") if token} if several else {letters}
    if several and not all(len(token) == 1 for token in picked):
        picked = set(letters.replace(",", ""))
    if not several and len(letters) != 1:
        picked = set()
    for i in range(len(state.choices)):
        state.choices.mark_choice(i, chr(ord("A") + i) in picked)


def _inspect_marking() -> Callable[[TaskState, bool], None] | None:
    try:
        from inspect_ai.solver._multiple_choice import parse_answers, set_choices_based_on_generated_response
    except ImportError:
        return None

    def mark(state: TaskState, several: bool) -> None:
        set_choices_based_on_generated_response(state, parse_answers(state, several))

    return mark


def _marks(mark: Callable[[TaskState, bool], None], completion: str, several: bool) -> list[bool | None] | None:
    state = TaskState(
        ModelName("none/none"),
        "check",
        1,
        "Which?",
        [],
        choices=["one", "two", "three"],
        output=ModelOutput.from_content("none/none", completion),
        sample_uuid="check",
    )
    try:
        mark(state, several)
    except Exception:  # a helper that changed its signature
        return None
    return [choice.correct for choice in state.choices]


# what the multiple_choice() solver marks for an output, on three choices
MARKING_CASES: Final = (
    ("ANSWER: B", False, [False, True, False]),
    ("So the ANSWER: C.", False, [False, False, True]),
    ("ANSWER: A, C", True, [True, False, True]),
    ("ANSWER: A, C", False, [False, False, False]),
    ("no answer", False, [False, False, False]),
)


def _checked_marking() -> Callable[[TaskState, bool], None]:
    mark = _inspect_marking()
    if mark is None or any(_marks(mark, text, several) != want for text, several, want in MARKING_CASES):
        _fallbacks.append("mark_choices")
        return _our_marking
    return mark


mark_choices: Final = _checked_marking()
"""`mark_choices(state, several)`: mark `state.choices` from its output, as the `multiple_choice()` solver does."""

# --- what a registered scorer was made with ------------------------------------------------

Metrics = Sequence[Metric | Mapping[str, Sequence[Metric]]] | Mapping[str, Sequence[Metric]]
"""Inspect metrics, as `@scorer` takes them: a list (of metrics, or dicts of them) or a dict."""


def _checked_params() -> Callable[[object], dict[str, Any]] | None:
    try:
        from inspect_ai._util.registry import registry_params
        from inspect_ai.scorer import match
    except ImportError:
        return None
    try:
        ok = registry_params(match(location="begin")) == {"location": "begin"}
    except Exception:
        return None
    return registry_params if ok else None


_params: Final = _checked_params()
if _params is None:
    _fallbacks.append("scorer_params")


def scorer_params(scorer: Scorer) -> dict[str, Any]:
    """The arguments a registered scorer was made with, as Inspect records them in a log ({} if unknown)."""
    if _params is None:
        return {}
    try:
        return dict(_params(scorer))
    except ValueError:  # not made by a @scorer factory
        return {}


def _checked_metrics() -> Callable[[Scorer], Metrics] | None:
    try:
        from inspect_ai.scorer import f1
        from inspect_ai.scorer._scorer import scorer_metrics as metrics_of
    except ImportError:
        return None
    try:
        ok = [registry_info(m).name for m in metrics_of(f1())] == ["inspect_ai/mean", "inspect_ai/stderr"]
    except Exception:
        return None
    return metrics_of if ok else None


_metrics: Final = _checked_metrics()
if _metrics is None:
    _fallbacks.append("scorer_metrics")


def scorer_metrics(scorer: Scorer) -> Metrics:
    """A registered scorer's own metrics (accuracy and stderr when it declares none Inspect can read)."""
    if _metrics is not None:
        return _metrics(scorer)
    found = registry_info(scorer).metadata.get("metrics")
    return found if isinstance(found, (Sequence, Mapping)) else [accuracy(), stderr()]


FALLBACKS: Final = tuple(_fallbacks)
"""The fallbacks in use, by the name above: empty when every private name checked out."""
