"""`to_inspect(from_inspect(x))`: Inspect's own scorer `x` again, itself or thinly wrapped.

A round trip is an identity: inside Inspect, the scorer that comes back is `x`,
so its Scores, metrics, logged name and arguments and exceptions are `x`'s. Only
options that ask for something else (another name, other metrics,
`on_error="record"`, a `from_inspect(model=...)`) wrap `x`: a registered
scorer that calls `x` on Inspect's own state and target, untouched.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, accuracy, stderr
from inspect_ai.scorer import scorer as inspect_scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import registry_create, registry_info

from scorebridge.kit import note_scorer, raised_score

from ._compat import ACTIVE_MODEL, Metrics, scorer_metrics, scorer_params
from ._from_inspect import InspectCall
from ._score import inspect_score

__all__ = ["inspect_again"]


def _registered(x: Scorer) -> str | None:
    try:
        return registry_info(x).name
    except ValueError:  # a plain async function of (state, target), given to from_inspect
        return None


def _calling(x: Scorer, name: str, call: InspectCall, on_error: str) -> Scorer:
    """An Inspect scorer that awaits `x` on the state and target it is given, with `call`'s model active."""
    model = call.model

    async def score(state: TaskState, target: Target) -> Score | None:
        token = None if model is None or ACTIVE_MODEL is None else ACTIVE_MODEL.set(model)
        try:
            return await x(state, target)
        except Exception as exc:
            if on_error == "raise":
                note_scorer(exc, name)
                raise
            return inspect_score(raised_score(name, exc, target.target))
        finally:
            if token is not None:
                ACTIVE_MODEL.reset(token)  # type: ignore[union-attr]  # set above

    return score


def inspect_again(call: InspectCall, name: str, metrics: Metrics | None, readers: bool, on_error: str) -> Scorer:
    """The Inspect scorer `to_inspect` gives for a `from_inspect` scorer: `x` itself, else `x` thinly wrapped.

    `name` is the name asked for (to_inspect's, else the scorebridge scorer's);
    `readers` is True when `item=` or `output=` was given, which cannot apply to
    `x` (it reads the TaskState itself): a ValueError. The wrapper is registered
    under `name`, with `metrics` (default `x`'s own), and records `x`'s
    arguments as its own, so `inspect score` and eval-retry make it again from
    a log; other arguments make `x` again from its registry name.
    """
    x = call.inspect_scorer
    if readers:
        raise ValueError(
            f"to_inspect({call.name}): item= and output= choose what a scorebridge scorer reads from the "
            f"TaskState; {call.name!r} is the Inspect scorer {x!r:.80}, which reads the state itself"
        )
    registered = _registered(x)
    plain = registered is not None and name == registered.split("/", 1)[-1]
    if plain and metrics is None and on_error == "raise" and call.model is None:
        return x
    params: dict[str, Any] = scorer_params(x) if registered is not None else {}
    if metrics is None:
        metrics = scorer_metrics(x) if registered is not None else [accuracy(), stderr()]
    first = _calling(x, name, call, on_error)

    def factory(**options: Any) -> Scorer:
        if options == params:
            return first
        if registered is None:
            raise ValueError(
                f"to_inspect({call.name}): cannot make the Inspect scorer {x!r:.80} again with the options "
                f"{options!r:.200}: it is not registered (made by a @scorer factory)"
            )
        return _calling(registry_create("scorer", registered, **options), name, call, on_error)

    return inspect_scorer(metrics=metrics, name=name)(factory)(**params)
