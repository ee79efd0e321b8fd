"""`ScorebridgeScorer`: the MLflow scorer `to_mlflow` makes, a scorebridge scorer run on MLflow's rows."""

from __future__ import annotations

import importlib
import inspect
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict
from functools import lru_cache
from typing import Any, Final, Literal, NamedTuple

from mlflow.entities import AssessmentError, Feedback
from mlflow.exceptions import MlflowException
from mlflow.genai.scorers import Scorer
from mlflow.genai.scorers.base import ScorerKind, SerializedScorer
from mlflow.protos.databricks_pb2 import INVALID_PARAMETER_VALUE
from pydantic import PrivateAttr

import scorebridge as sb
from scorebridge.kit import (
    GRADER_FAILED,
    ScorerContractError,
    element,
    is_builtin,
    note_scorer,
    raised_score,
    rebuild,
    run_sync,
)

from ._native import NATIVE, Row

__all__ = [
    "ERROR_CODE",
    "FAILURE_KIND",
    "LABEL_KEY",
    "Bridge",
    "OnError",
    "Reader",
    "ScorebridgeScorer",
    "feedback",
    "rebuilt",
]

OnError = Literal["raise", "record"]
"""What an exception inside the scorer becomes: MLflow's own scorer error ("raise") or a wrong row ("record")."""

Reader = str | Callable[[Any], Any]
"""How a scorer's item, output or label is read from MLflow's row: a key (or attribute) name, or a function."""

LABEL_KEY: Final = "expected_response"
"""The key of `expectations` that holds the label by default: the one MLflow's built-in judges read."""

FAILURE_KIND: Final = "failure_kind"
"""The key of a Feedback's metadata that holds the Score's failure kind (a string, as MLflow's metadata is)."""

ERROR_CODE: Final = "SCORER_ERROR"
"""The `error_code` of the Feedback of a Score whose failure kind is "error": MLflow's own code for it."""

_SIGNATURE: Final = "(inputs=None, outputs=None, expectations=None, trace=None)"
_FUNCTION: Final = "scorebridge_scorer"
_IDENTIFIER: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def _read(reader: Reader | None, given: Any) -> Any:
    if reader is None:
        return given
    if isinstance(reader, str):
        return element(given, reader)
    return reader(given)


def _label(reader: Reader, expectations: Any) -> Any:
    if isinstance(reader, str):
        # MLflow hands a row without expectations {}; a direct call may give None
        return expectations.get(reader) if isinstance(expectations, Mapping) else None
    return reader({} if expectations is None else expectations)


def _storable(text: str) -> str:
    """`text` as MLflow's store can hold it: a lone surrogate, which UTF-8 cannot encode, written as its escape.

    MLflow writes assessments as UTF-8; one such character in a rationale or a
    metadata value lost the row's assessments (and with them its result table).
    """
    return text if text.isascii() else text.encode("utf-8", "backslashreplace").decode("utf-8")


def _text(value: Any) -> str:
    if isinstance(value, str):
        return _storable(value)
    try:
        return _storable(json.dumps(value, default=repr, ensure_ascii=False))
    except (TypeError, ValueError):  # a circular structure, a key that is not a string
        return _storable(repr(value))


def feedback(score: sb.Score, name: str) -> Feedback | None:
    """The MLflow Feedback of a recorded scorebridge Score; None (no assessment) when it is unscored.

    value: the Score's value (1.0 correct, 0.0 wrong, partial credit its value),
    so MLflow's `{name}/mean` is scorebridge's accuracy; rationale: the
    explanation; metadata: the Score's metadata as strings, and the failure kind
    under "failure_kind". A Score of kind "error" also carries an MLflow error
    (`SCORER_ERROR`, its explanation as the message), shown in `result_df`'s
    `{name}/error_message`; its value 0.0 keeps it in the mean, as wrong.
    An unscored Score whose grader failed ("grader_failed" in its metadata) is
    a Feedback of value None (MLflow leaves it out of the mean too), so the
    row says why and `summarize` counts it apart from the rows with no label.
    """
    if score.correct is None and not (score.metadata and GRADER_FAILED in score.metadata):
        return None
    kind = score.failure_kind
    metadata = {_text(str(k)): _text(v) for k, v in score.metadata.items()} if score.metadata else {}
    explanation = None if score.explanation is None else _storable(score.explanation)
    error = None
    if kind is not None:
        metadata[FAILURE_KIND] = kind
        if kind == "error":
            error = AssessmentError(error_code=ERROR_CODE, error_message=explanation or "the scorer failed")
    return Feedback(name=name, value=score.value, error=error, rationale=explanation, metadata=metadata or None)


class Bridge(NamedTuple):
    """What a `ScorebridgeScorer` runs: the scorebridge scorer, how it reads MLflow's row, its `on_error`.

    `trusted`: a fast built-in (exact(), the detect scorers), called at its
    function directly, with no row carried: it reads text and calls no scorer.
    """

    scorer: sb.Scorer
    item: Reader | None
    output: Reader | None
    label: Reader
    on_error: str
    trusted: bool


def _row(bridge: Bridge, inputs: Any, outputs: Any, expectations: Any) -> tuple[Any, Any, Any]:
    """(item, output, label) of MLflow's row, by the bridge's readers; a reader that raises is named."""
    part, given = "label", expectations
    try:
        if type(expectations) is dict and type(bridge.label) is str:  # MLflow's own row: the common case
            label = expectations.get(bridge.label)
        else:
            label = _label(bridge.label, expectations)
        part, given = "item", inputs
        item = inputs if bridge.item is None else _read(bridge.item, inputs)
        part, given = "output", outputs
        output = outputs if bridge.output is None else _read(bridge.output, outputs)
    except Exception as exc:  # MLflow shows str(exc) alone: a bare KeyError said "'answer'"
        raise ScorerContractError(
            f"to_mlflow({bridge.scorer.name}): its {part}= reader raised {exc!r:.200} reading {_text(given)[:200]}"
        ) from exc
    return item, output, label


class ScorebridgeScorer(Scorer):
    """A scorebridge scorer as an MLflow scorer (made by `scorebridge_mlflow.to_mlflow`).

    `scorebridge_scorer` is the scorer it runs. MLflow hands it a row by name
    (`inputs`, `outputs`, `expectations`, `trace`); it reads the item, the
    output and the label from it, scores them, and returns the Score as a
    `Feedback`, or None for an unscored row.
    """

    _bridge: Any = PrivateAttr(default=None)  # a Bridge; one attribute, read once per call

    @property
    def scorebridge_scorer(self) -> sb.Scorer:
        """The scorebridge scorer this MLflow scorer runs."""
        bridge: Bridge = self._bridge
        return bridge.scorer

    @property
    def on_error(self) -> str:
        """What an exception inside the scorer becomes: "raise" or "record"."""
        bridge: Bridge = self._bridge
        return bridge.on_error

    @property
    def kind(self) -> ScorerKind:
        # Serialized as a @scorer function is (its source makes it again), so MLflow registers it as one.
        return ScorerKind.DECORATOR

    def __call__(  # type: ignore[override]  # MLflow passes only the arguments named here
        self, *, inputs: Any = None, outputs: Any = None, expectations: Any = None, trace: Any = None
    ) -> Feedback | None:
        """Score one row of `mlflow.genai.evaluate`: the Score as a Feedback, or None when it is unscored."""
        bridge: Bridge = self._bridge
        scorer = bridge.scorer
        label = None
        try:
            item, output, label = _row(bridge, inputs, outputs, expectations)
            if bridge.trusted:
                score = scorer.fn(item, output, label)
            else:
                token = NATIVE.carry(item, output, label, Row(inputs, outputs, expectations, trace))
                try:
                    score = (
                        run_sync(scorer.acall(item, output, label)) if scorer.is_async else scorer(item, output, label)
                    )
                finally:
                    NATIVE.drop(token)
        except Exception as exc:
            if bridge.on_error == "raise":
                note_scorer(exc, scorer.name)
                raise  # MLflow records it as the row's SCORER_ERROR, left out of the mean
            score = raised_score(scorer.name, exc, label, needs_label=scorer.needs_label)
        return feedback(score, self.name)

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """The scorer serialized as MLflow serializes a `@scorer` function: source that makes it again.

        A built-in scorebridge scorer (`exact()`, the `detect_*` scorers) is made
        again from its name and options; a scorer defined at the top level of an
        importable module, from that module. Any other scorer (one defined in a
        script or a notebook, a closure, a scorer read with functions as readers)
        cannot be made again elsewhere: an MlflowException says why.
        """
        if self._cached_dump is not None:
            return self._cached_dump
        spec = json.dumps(_spec(self), sort_keys=True)
        source = f"from scorebridge_mlflow import rebuilt\nreturn rebuilt({spec!r})(inputs=inputs, outputs=outputs, expectations=expectations, trace=trace)"  # noqa: E501
        serialized = SerializedScorer(
            name=self.name,
            description=self.description,
            aggregations=self.aggregations,  # type: ignore[arg-type]
            is_session_level_scorer=False,
            timeout=self.timeout,
            call_source=source,
            call_signature=_SIGNATURE,
            original_func_name=_FUNCTION,
        )
        self._cached_dump = asdict(serialized)
        return self._cached_dump


# `Scorer.run` reads the signature of `__call__` on every call, to pass only the arguments it names; given
# once here, as MLflow gives its @scorer functions', it is not worked out again for every row.
ScorebridgeScorer.__call__.__signature__ = inspect.signature(ScorebridgeScorer.__call__)  # type: ignore[attr-defined]


def _cannot(scorer: ScorebridgeScorer, why: str) -> MlflowException:
    return MlflowException(  # MLflow's INVALID_PARAMETER_VALUE, as its own serialization errors are
        error_code=INVALID_PARAMETER_VALUE,
        message=f"to_mlflow({scorer.scorebridge_scorer.name}) cannot be serialized (register(), monitoring): "
        f"{why}. MLflow runs it in evaluate() as it is; to register one, use a built-in scorebridge scorer, "
        "or a scorer defined at the top level of a module the monitoring job can import, with key names "
        "(not functions) for item=, output= and label=",
    )


def _where(scorer: sb.Scorer) -> str | None:
    """'module:name' of a scorer defined at the top level of an importable module; None for any other."""
    fn = scorer.fn
    module, name = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(name, str) or module == "__main__" or "<" in name:
        return None
    try:
        found = importlib.import_module(module)
    except Exception:
        return None
    for attr in (name, scorer.name):
        if getattr(found, attr, None) is scorer:
            return f"{module}:{attr}"
    return None


def _spec(mlflow_scorer: ScorebridgeScorer) -> dict[str, Any]:
    scorer = mlflow_scorer.scorebridge_scorer
    spec: dict[str, Any] = {"name": mlflow_scorer.name, "on_error": mlflow_scorer.on_error}
    for part in ("item", "output", "label"):
        reader = getattr(mlflow_scorer._bridge, part)
        if reader is not None and not isinstance(reader, str):
            raise _cannot(mlflow_scorer, f"its {part}= is a function, which MLflow cannot store")
        spec[part] = reader
    if is_builtin(scorer):
        try:
            json.dumps(dict(scorer.options))
        except (TypeError, ValueError):
            raise _cannot(mlflow_scorer, f"its options {dict(scorer.options)!r:.120} are not JSON") from None
        spec["builtin"], spec["options"] = scorer.name, dict(scorer.options)
    elif (where := _where(scorer)) is not None:
        spec["import"] = where
    else:
        raise _cannot(
            mlflow_scorer,
            f"the scorer {scorer.name!r} is neither a built-in nor found at the top level of an importable module "
            "(defined in a script, a notebook or a function)",
        )
    return spec


@lru_cache(maxsize=256)
def rebuilt(spec: str) -> ScorebridgeScorer:
    """The MLflow scorer a serialized `to_mlflow` scorer stands for, made again (once) from its JSON spec.

    This is what the source MLflow stores for a registered `to_mlflow` scorer calls.
    """
    from ._to_mlflow import to_mlflow  # the module that imports this one

    found = json.loads(spec)
    if "builtin" in found:
        scorer = rebuild(found["builtin"], found["options"])
    else:
        module, _, attr = str(found["import"]).partition(":")
        if not _IDENTIFIER.match(module) or not attr.isidentifier():
            raise MlflowException(
                f"a serialized scorebridge scorer names {found['import']!r}", error_code=INVALID_PARAMETER_VALUE
            )
        scorer = getattr(importlib.import_module(module), attr)
    made = to_mlflow(
        scorer,
        name=found["name"],
        item=found["item"],
        output=found["output"],
        label=found["label"],
        on_error=found["on_error"],
    )
    if not isinstance(made, ScorebridgeScorer):  # a from_mlflow scorer is not serialized here: never
        raise MlflowException(f"a serialized scorebridge scorer made {made!r:.80}", error_code=INVALID_PARAMETER_VALUE)
    return made
