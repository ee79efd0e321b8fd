"""`evaluate()`: `dspy.Evaluate` with a scorebridge scorer, and the scorebridge summary beside DSPy's own score."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Literal, NamedTuple

import dspy

from scorebridge import Score, Scorer, ScorerContractError, Summary
from scorebridge.kit import add_note, is_builtin, label_is_missing, naming_row, raised_score, recorded

from ._metric import ScorerMetric

__all__ = ["Evaluation", "evaluate"]


class Evaluation(NamedTuple):
    """What `evaluate()` gives: DSPy's own result, and scorebridge's count of the same run.

    - `result`: `dspy.Evaluate`'s `EvaluationResult`, untouched: `result.score`
      is DSPy's percentage, the sum of the values over every example of the
      devset (an unlabelled example, or one whose program failed, counts 0, as
      DSPy counts every failure: its `failure_score`);
    - `scores`: one `Score` per example, in the devset's order: the scorer's
      (with `on_error="record"`, a Score with failure kind "error" where it
      raised), or, where DSPy's program raised, a Score with failure kind
      "error";
    - `summary`: `Summary.of(scores)`, the number the other harnesses give:
      accuracy over the scored examples (an unlabelled one is out of it), the
      failure kinds counted.

    `str()` shows both numbers.
    """

    result: Any
    scores: list[Score]
    summary: Summary

    @property
    def dspy_score(self) -> float:
        """DSPy's own score: a percentage over every example of the devset."""
        return float(self.result.score)

    def __str__(self) -> str:
        s = self.summary
        accuracy = "-" if s.accuracy is None else f"{s.accuracy:.3f}"
        kinds = ", ".join(f"{k} {n}" for k, n in s.failure_kinds.items() if n) or "none"
        return (
            f"DSPy Evaluate: {self.dspy_score:g} (percent over all {s.rows} examples)\n"
            f"scorebridge {s.name}: accuracy {accuracy} over {s.scored} scored ({s.correct} correct), "
            f"{s.unscored} unscored; failure kinds: {kinds}"
        )


def evaluate(
    program: Callable[..., Any],
    devset: Sequence[Any],
    scorer: Scorer,
    *,
    output_field: str | None = None,
    label_field: str | None = None,
    item: Callable[[Any], Any] | None = None,
    on_error: Literal["raise", "record"] = "raise",
    **evaluate_options: Any,
) -> Evaluation:
    """Run `dspy.Evaluate(devset=devset, metric=...)(program)` with `scorer`; DSPy's score and scorebridge's.

    The metric is `scorer` as `to_dspy` makes it (`output_field`,
    `label_field` and `item` as there; a scorer brought in with `from_dspy`
    gets DSPy's own example and prediction), but it never raises for an
    unscored example: Evaluate gets its `failure_score` for it, as DSPy counts
    any example it cannot score, while the summary leaves it out of the
    accuracy, as every other harness does. So `evaluation.summary` is the
    number the eval report and the test give, and `evaluation.result.score`
    the one DSPy's optimisers see.

    `evaluate_options` go to `dspy.Evaluate` (`num_threads`,
    `display_progress`, `display_table`, `max_errors`, `failure_score`, ...).

    Every example's label is read as the scorer reads it
    (`Scorer.check_label`) before DSPy runs the program: a label the scorer
    cannot read is a `ScorerContractError` naming the example's index in the
    devset, and no model has been called.

    on_error: with "record", an exception from the scorer is the example's
    Score (wrong, failure kind "error", the exception in its explanation),
    and DSPy gets that Score's value, 0.0, as from any wrong answer. With
    "raise" (the default) it is raised from `evaluate()`, with a note naming
    the example; but DSPy's Evaluate catches every exception of a metric
    (logging it, and counting it toward `max_errors`), so the run goes on to
    its end first: DSPy cannot stop on it. An example whose program raised
    is recorded as an error ("the program raised"), as `benchmark()` records
    an arm that raised.
    """
    if not isinstance(scorer, Scorer):
        raise TypeError(f"evaluate: scorer must be a scorebridge.Scorer; got {type(scorer).__name__}")
    if type(on_error) is not str or on_error not in ("raise", "record"):
        raise ValueError(f"evaluate({scorer.name}): on_error must be 'raise' or 'record'; got {on_error!r:.80}")
    from ._to_dspy import to_dspy

    to_dspy(scorer, output_field=output_field, label_field=label_field, item=item)  # the same argument checks
    metric = ScorerMetric(scorer, output_field, label_field, item, None, True, is_builtin(scorer))
    examples = list(devset)
    _check_labels(metric, examples)
    failure = float(evaluate_options.get("failure_score", 0.0))
    seen: dict[tuple[int, int], Score] = {}
    raised: dict[int, Exception] = {}  # by example: DSPy keeps an empty Prediction, not ours, for a metric that raised
    lock = threading.Lock()

    def recording(gold: Any, pred: Any, trace: Any = None) -> float:
        try:
            score = metric.score(gold, pred)
        except Exception as exc:
            if on_error == "raise":
                with lock:
                    raised.setdefault(id(gold), exc)
                raise
            score = raised_score(scorer.name, exc, metric.label(gold), needs_label=scorer.needs_label)
        with lock:
            seen[id(gold), id(pred)] = score
        return failure if score.value is None else score.value

    recording.__name__ = scorer.name
    try:
        result = dspy.Evaluate(devset=examples, metric=recording, **evaluate_options)(program)
    except Exception as theirs:  # DSPy's own "cancelled due to errors", at max_errors: ours comes first
        _raise_first(raised, examples, theirs)
        raise
    _raise_first(raised, examples, None)
    scores = []
    for gold, pred, _ in result.results:
        score = seen.get((id(gold), id(pred)))
        if score is None:  # the program raised: DSPy never called the metric
            why = "the program raised (DSPy's log has the exception)"
            unlabelled = scorer.needs_label and label_is_missing(metric.label(gold))
            score = recorded(scorer.name, False, None, "error", None, why, None, unlabelled)
        scores.append(score)
    return Evaluation(result, scores, Summary.of(scorer.name, scores))


def _check_labels(metric: ScorerMetric, examples: list[Any]) -> None:
    """Every example's label read as the scorer reads it, before DSPy runs the program (and a model is paid)."""
    check = metric.scorer.check_label
    if check is None:
        return
    for i, gold in enumerate(examples):
        try:
            check(metric.label(gold))
        except ScorerContractError as exc:
            where = f"the label of example {i} of the devset; no model was called"
            raise naming_row(exc, where) from None


def _raise_first(raised: dict[int, Exception], examples: list[Any], cause: BaseException | None) -> None:
    """The scorer's exception on the first example (in the devset's order) where it raised, if any, raised."""
    if not raised:
        return
    i, exc = next((i, raised[id(gold)]) for i, gold in enumerate(examples) if id(gold) in raised)
    add_note(exc, f"while scoring example {i} of the devset (DSPy's Evaluate ran to its end first)")
    raise exc from cause
