"""`evaluate()`: `dspy.Evaluate` with a scorebridge scorer, and the scorebridge summary beside DSPy's own score."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import dspy

from scorebridge import Score, Scorer, Summary
from scorebridge.kit import is_builtin, label_is_missing, raised_score, recorded

from ._metric import ScorerMetric

__all__ = ["Evaluation", "evaluate"]


class Evaluation(NamedTuple):
    """What `evaluate()` gives: DSPy's own result, and scorebridge's count of the same run.

    - `result`: `dspy.Evaluate`'s `EvaluationResult`, untouched: `result.score`
      is DSPy's percentage, the sum of the values over every example of the
      devset (an unlabelled example, or one whose program failed, counts 0, as
      DSPy counts every failure: its `failure_score`);
    - `scores`: one `Score` per example, in the devset's order: the scorer's,
      or, where DSPy's program raised, a Score with failure kind "error";
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
    An exception from the scorer is DSPy's to handle, as in any metric: it
    logs it, counts it toward `max_errors`, and the example gets
    `failure_score`; here it is also recorded, failure kind "error", with the
    exception in the explanation. An example whose program raised is
    recorded the same way ("the program raised").
    """
    if not isinstance(scorer, Scorer):
        raise TypeError(f"evaluate: scorer must be a scorebridge.Scorer; got {type(scorer).__name__}")
    from ._to_dspy import to_dspy

    to_dspy(scorer, output_field=output_field, label_field=label_field, item=item)  # the same argument checks
    metric = ScorerMetric(scorer, output_field, label_field, item, None, True, is_builtin(scorer))
    failure = float(evaluate_options.get("failure_score", 0.0))
    seen: dict[tuple[int, int], Score] = {}
    raised: dict[int, Score] = {}  # by example: DSPy keeps an empty Prediction, not ours, for a metric that raised
    lock = threading.Lock()

    def recording(gold: Any, pred: Any, trace: Any = None) -> float:
        try:
            score = metric.score(gold, pred)
        except Exception as exc:
            label = metric.label(gold)
            with lock:
                raised[id(gold)] = raised_score(scorer.name, exc, label)
            raise
        with lock:
            seen[id(gold), id(pred)] = score
        return failure if score.value is None else score.value

    recording.__name__ = scorer.name
    result = dspy.Evaluate(devset=list(devset), metric=recording, **evaluate_options)(program)
    scores = []
    for gold, pred, _ in result.results:
        score = seen.get((id(gold), id(pred))) or raised.get(id(gold))
        if score is None:  # the program raised: DSPy never called the metric
            why = "the program raised (DSPy's log has the exception)"
            score = recorded(scorer.name, False, None, "error", None, why, None, label_is_missing(metric.label(gold)))
        scores.append(score)
    return Evaluation(result, scores, Summary.of(scorer.name, scores))
