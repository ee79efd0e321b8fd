"""`to_verl()` and `from_verl()`: scorers and verl's `compute_score` reward functions, both ways, without verl."""

from __future__ import annotations

import functools
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final

from scorebridge import FAILURE_KINDS, Score, Scorer, ScorerContractError
from scorebridge.kit import (
    Ask,
    ask,
    element,
    is_async,
    is_bool,
    is_number,
    item_text_for,
    judge_each,
    raised_score,
    sync_and_async,
    verdict,
)

from ._asking import reward_value
from ._batch import OnError

__all__ = ["VerlBatchReward", "VerlCall", "VerlReward", "from_verl", "to_verl"]

_SCORE: Final = "score"
_KIND: Final = "failure_kind"
_PRED: Final = "pred"
_KEYS: Final = (_SCORE, "acc", _PRED, _KIND, "scored")


def _score_dict(score: Score) -> dict[str, Any]:
    # Always the same keys and types: verl collects each key over a batch into one array and logs the numeric
    # ones (mean@N and best@N in validation); a string key is kept for the generations dump only.
    scored = score.correct is not None
    return {
        _SCORE: score.value if score.value is not None else 0.0,
        "acc": 1.0 if score.correct else 0.0,
        _PRED: score.outcome or "",
        _KIND: score.failure_kind or "",
        "scored": 1.0 if scored else 0.0,
    }


class VerlReward:
    """The `compute_score` function `to_verl` gives:
    `compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs) -> dict`.

    verl's reward managers call it one response at a time, by keyword.
    `scorer` is the scorebridge scorer it runs.
    """

    def __init__(self, scorer: Scorer, on_error: OnError) -> None:
        self.scorer, self.on_error = scorer, on_error
        self.__name__ = self.__qualname__ = "compute_score"

    def __repr__(self) -> str:
        return f"<to_verl compute_score of {self.scorer!r}>"

    def __call__(
        self,
        data_source: Any = None,
        solution_str: Any = None,
        ground_truth: Any = None,
        extra_info: Any = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        try:
            score = self.scorer(extra_info, solution_str, ground_truth)
        except Exception as exc:
            if self.on_error == "raise":
                raise
            score = raised_score(self.scorer.name, exc, ground_truth, needs_label=self.scorer.needs_label)
        return _score_dict(score)


class AsyncVerlReward(VerlReward):
    """The `compute_score` of an async scorer: verl's async reward loop awaits it."""

    async def __call__(  # type: ignore[override]
        self,
        data_source: Any = None,
        solution_str: Any = None,
        ground_truth: Any = None,
        extra_info: Any = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        try:
            score = await self.scorer.acall(extra_info, solution_str, ground_truth)
        except Exception as exc:
            if self.on_error == "raise":
                raise
            score = raised_score(self.scorer.name, exc, ground_truth, needs_label=self.scorer.needs_label)
        return _score_dict(score)


class VerlBatchReward(VerlReward):
    """The `compute_score` function `to_verl(batch=True)` gives, for verl's batch reward manager:
    `compute_score(data_sources, solution_strs, ground_truths, extra_infos, **kwargs) -> list[dict]`.

    The batch is scored with `Scorer.score_many`: `concurrency` responses at a
    time for a scorer that waits (an async or a blocking grader), inline for a
    fast one.
    """

    def __init__(self, scorer: Scorer, on_error: OnError, concurrency: int) -> None:
        super().__init__(scorer, on_error)
        self.concurrency = concurrency

    def __call__(  # type: ignore[override]
        self,
        data_sources: Sequence[Any] | None = None,
        solution_strs: Sequence[Any] | None = None,
        ground_truths: Sequence[Any] | None = None,
        extra_infos: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> list[dict[str, Any]]:
        if solution_strs is None or ground_truths is None:
            raise TypeError(
                f"to_verl({self.scorer.name}, batch=True): called without solution_strs and ground_truths, "
                "as verl's batch reward manager calls it; to_verl(scorer) is the one-response function"
            )
        items = list(extra_infos) if extra_infos is not None else None
        scores = self.scorer.score_many(
            items, solution_strs, ground_truths, concurrency=self.concurrency, on_error=self.on_error
        )
        return [_score_dict(score) for score in scores]


def to_verl(
    scorer: Scorer,
    *,
    on_error: OnError = "record",
    batch: bool = False,
    concurrency: int = 16,
    timeout: float | None = None,
) -> Callable[..., Any]:
    """A `compute_score` function for verl's `custom_reward_function` that scores each response with `scorer`.

    verl calls `compute_score(data_source=, solution_str=, ground_truth=,
    extra_info=)` for each response: the scorer gets the response text as
    the output, `ground_truth` as the label and `extra_info` as the item (verl's
    data preparation puts the question there: `item_text` reads its
    "question"). It returns a dict, whose keys verl logs beside the reward:

    - "score": the Score's value (0.0 when unscored: verl has no way to leave a
      response out);
    - "acc": 1.0 when correct, else 0.0; "scored": 1.0, or 0.0 when unscored;
    - "pred": the outcome (the answer as compared; "" when none);
    - "failure_kind": the failure kind, "" when none.

    With `on_error="record"` (the default) a scorer that raises gives score
    0.0, failure kind "error", and the run goes on (verl would call a raising
    function a second time, then stop). With "raise" it propagates. An async
    scorer gives an async function (verl's async reward loop awaits it).
    Nothing of verl is imported. `from_verl(to_verl(s))` is `s`. Save it in a
    file of yours as `compute_score = to_verl(scorer)` and point
    `custom_reward_function.path` at that file.

    With `batch=True` the function takes verl's batch reward manager's
    convention instead (`reward_manager: batch`): `compute_score(data_sources=,
    solution_strs=, ground_truths=, extra_infos=)`, one dict per response, the
    batch scored with `Scorer.score_many`, `concurrency` at a time (a
    model-graded scorer asks its grader about the responses side by side,
    where the one-response function asks about one after another).

    timeout: seconds the scorer may take on one response (None, the default: no
    limit), as `Scorer.with_timeout` gives it (verl has no limit of its own
    for a reward function): a call past it has raised a `scorebridge.ScorerTimeout` (a
    TimeoutError), recorded or raised as `on_error` says. A sync scorer's call
    past it is abandoned on its thread, still running (Python cannot stop a
    thread).
    """
    if not isinstance(scorer, Scorer):
        raise TypeError(f"to_verl: expected a scorebridge Scorer; got {type(scorer).__name__}")
    if timeout is not None:
        scorer = scorer.with_timeout(timeout)
    call = made_by_from_verl(scorer)
    if call is not None:
        return call.compute_score  # a round trip is the identity
    if on_error not in ("raise", "record"):
        raise ValueError(f"to_verl({scorer.name}): on_error must be 'raise' or 'record'; got {on_error!r:.80}")
    if batch not in (True, False):
        raise TypeError(f"to_verl({scorer.name}): batch must be True or False; got {batch!r:.80}")
    if type(concurrency) is not int or concurrency < 1:
        raise ValueError(f"to_verl({scorer.name}): concurrency must be a whole number, at least 1; got {concurrency!r}")
    if batch:
        return VerlBatchReward(scorer, on_error, concurrency)
    return (AsyncVerlReward if scorer.is_async else VerlReward)(scorer, on_error)


class VerlCall:
    """What a scorer made by `from_verl` runs (its fn's `body`): the verl function called on one response."""

    def __init__(self, compute_score: Callable[..., Any], name: str, threshold: float, data_source: Any) -> None:
        self.compute_score, self.name, self.threshold, self.data_source = compute_score, name, threshold, data_source

    def __repr__(self) -> str:
        return f"from_verl({getattr(self.compute_score, '__name__', type(self.compute_score).__name__)})"

    def _kwargs(self, item: Any, text: str, ground_truth: str | None) -> dict[str, Any]:
        data_source = self.data_source if self.data_source is not None else element(item, "data_source")
        if isinstance(item, Mapping):
            extra_info = dict(item)
        else:
            question = item_text_for(self.name, item)
            extra_info = {"question": question} if question else {}
        return {
            "data_source": data_source,
            "solution_str": text,
            "ground_truth": ground_truth,
            "extra_info": extra_info,
        }

    def _score(self, asked: Ask, result: Any) -> Score:
        what = "compute_score"
        if not isinstance(result, Mapping):
            value = reward_value(self.name, result, what)
            return verdict(self.name, asked, None if value is None else value >= self.threshold, value=value)
        if _SCORE not in result:
            raise ScorerContractError(f"{self.name}: compute_score returned a dict without 'score': {result!r:.120}")
        value = reward_value(self.name, result[_SCORE], what)
        kind = result.get(_KIND)
        kind = kind if isinstance(kind, str) and kind in FAILURE_KINDS and kind != "wrong" else None
        pred = result.get(_PRED)
        outcome = pred if isinstance(pred, str) and pred else None
        if outcome is None and is_number(pred) and not is_bool(pred):
            outcome = str(pred)
        if result.get("scored") == 0.0 and kind is None and value == 0.0:
            value = None  # to_verl's own unscored response
        correct = None if value is None else value >= self.threshold
        metadata = {str(k): v for k, v in result.items() if k not in _KEYS}
        return verdict(
            self.name,
            asked,
            correct,
            value=value,
            outcome=outcome,
            metadata=metadata or None,
            failure_kind=kind if correct is False else None,
        )

    def __call__(self, item: Any, output: Any, label: Any) -> Score | Awaitable[Score]:
        asked = ask(self.name, output, label)
        if type(asked) is Score:
            return asked
        judged: Score | Awaitable[Score] = judge_each(
            self.name,
            asked,
            lambda truth: self.compute_score(**self._kwargs(item, asked.text, truth)),
            lambda result: self._score(asked, result),
        )
        return judged


def made_by_from_verl(scorer: Scorer) -> VerlCall | None:
    """The `VerlCall` a scorer made by `from_verl` runs, or None for any other scorer."""
    body = getattr(scorer.fn, "body", None)
    return body if isinstance(body, VerlCall) else None


def from_verl(
    compute_score: Callable[..., Any],
    *,
    threshold: float = 1.0,
    data_source: str | None = None,
    name: str | None = None,
) -> Scorer:
    """A scorer that calls a verl-style `compute_score(data_source, solution_str, ground_truth, extra_info)`.

    The function is called by keyword, as verl's reward managers call it: the
    output's text as `solution_str`, the label as `ground_truth`, the item as
    `extra_info` (a mapping item itself, copied; else `{"question": its text}`),
    and `data_source` (default: the item's "data_source" element, else None).
    It returns a float, or a dict with "score" (other keys are the Score's
    metadata; a "failure_kind" key that is one of the six kinds is the kind of
    a wrong Score, a "pred" key its outcome). The score is the value, correct
    when at least `threshold` (1.0; gsm8k's scores are 1.0 and its
    `format_score`). A row with no label is unscored without calling the
    function (verl always has a ground truth); an output that reports its own
    failure is recorded so. An exception propagates with a note naming the
    scorer. Nothing of verl is imported: a function of verl's own
    (`verl.utils.reward_score.gsm8k.compute_score`) needs verl installed to be
    imported, nothing more. `to_verl(from_verl(f))` is `f`.
    """
    if not callable(compute_score):
        raise TypeError(f"from_verl: compute_score must be callable; got {type(compute_score).__name__}")
    if isinstance(compute_score, VerlReward) and name in (None, compute_score.scorer.name):
        return compute_score.scorer  # a round trip is the identity
    inner = compute_score
    while isinstance(inner, functools.partial):
        inner = inner.func
    given = getattr(inner, "__name__", None)
    if name is None:
        module = (getattr(inner, "__module__", None) or "").rsplit(".", 1)[-1]
        name = given if isinstance(given, str) and given not in ("compute_score", "<lambda>") else module
        name = name if name and name != "__main__" else "compute_score"
    if not isinstance(name, str) or not name.strip():
        raise TypeError(f"from_verl: name must be a non-blank string; got {name!r:.80}")
    if is_bool(threshold) or not is_number(threshold) or not math.isfinite(threshold):
        raise ValueError(f"from_verl({name}): threshold must be a finite number; got {threshold!r:.80}")
    call = VerlCall(compute_score, name, float(threshold), data_source)
    fn = sync_and_async(call, is_async=is_async(compute_score))
    return Scorer(name, fn, {"threshold": float(threshold), "data_source": data_source}, recorded=True)
