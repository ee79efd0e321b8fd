"""Scorers as assertions: `assert_scored` for one output, `assert_accuracy` for a batch, and their async twins."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from scorebridge import Score, Scorer, ScorerContractError
from scorebridge.kit import Summary, is_number

from ._messages import accuracy_message, score_message
from ._recorder import ascore_batch, note, require_scorer, score_batch, score_one, score_one_async

__all__ = ["assert_accuracy", "assert_accuracy_async", "assert_scored", "assert_scored_async"]


def _bare(exc: ScorerContractError) -> ScorerContractError:
    """`exc` without scorebridge's frames: its message names the scorer and what it could not read, and pytest
    would print the source of every frame between the test and the check that raised it (40-odd lines)."""
    return exc.with_traceback(None)


def _check_one(scorer: Scorer, score: Score, output: Any, label: Any, item: Any) -> Score:
    __tracebackhide__ = True
    note(scorer, [score])
    if score.correct is not True:
        raise AssertionError(score_message(scorer, score, output, label, item))
    return score


def assert_scored(scorer: Scorer, output: Any, label: Any, item: Any = None) -> Score:
    """Assert that `scorer` scores `output` correct against `label`; return the Score.

    Note the order: output, label, then the optional item (a `Scorer` itself is
    called as `scorer(item, output, label)`). The test fails with an
    `AssertionError` when the Score is wrong, and also when it is unscored
    (correct None): an item with no label, or a scorer that could not tell, is
    not a pass. The message names the scorer and shows the output, the label
    (and the item when one is given), each cut to 200 characters with the
    whole length, then the outcome, the failure kind and the explanation.

    Inside a pytest run with the plugin, the Score is recorded (pass or fail)
    for the run's summary and `--scorebridge-report`. An exception raised by
    the scorer propagates, with a note naming it; in a test of
    `@pytest.mark.scorebridge_cases` whose on_error is "record" (the marker's
    `on_error=`, or the ini option `scorebridge_on_error`), it is the Score
    instead (wrong, failure kind "error"), recorded, and the test fails on it.

    Raises:
        TypeError: `scorer` is not a `scorebridge.Scorer`.
    """
    __tracebackhide__ = True
    try:
        score = score_one(require_scorer("assert_scored", scorer), item, output, label)
    except ScorerContractError as exc:
        raise _bare(exc)  # noqa: B904 (its cause is kept)
    return _check_one(scorer, score, output, label, item)


async def assert_scored_async(scorer: Scorer, output: Any, label: Any, item: Any = None) -> Score:
    """The async twin of `assert_scored`: awaits `scorer.acall`, so an async scorer runs in this loop."""
    __tracebackhide__ = True
    try:
        score = await score_one_async(require_scorer("assert_scored_async", scorer), item, output, label)
    except ScorerContractError as exc:
        raise _bare(exc)  # noqa: B904 (its cause is kept)
    return _check_one(scorer, score, output, label, item)


def _at_least(where: str, at_least: Any) -> float:
    if not is_number(at_least):
        raise TypeError(f"{where}: at_least must be a number from 0 to 1; got {type(at_least).__name__}")
    if math.isnan(at_least) or not 0.0 <= at_least <= 1.0:
        raise ValueError(f"{where}: at_least must be a number from 0 to 1; got {at_least!r}")
    return float(at_least)


def _check_many(
    scorer: Scorer, scores: list[Score], outputs: list[Any], labels: list[Any], at_least: float
) -> list[Score]:
    __tracebackhide__ = True
    note(scorer, scores)
    accuracy = Summary.of(scorer.name, scores).accuracy
    if accuracy is None or accuracy < at_least:
        raise AssertionError(accuracy_message(scorer.name, scores, outputs, labels, at_least))
    return scores


def assert_accuracy(
    scorer: Scorer,
    outputs: Iterable[Any],
    labels: Iterable[Any],
    items: Iterable[Any] | None = None,
    at_least: float = 0.9,
) -> list[Score]:
    """Assert that `scorer` scores at least `at_least` of `outputs` correct; return the Scores.

    Accuracy is counted as everywhere in scorebridge (`scorebridge.Summary`):
    the mean value of the scored outputs (1 correct, 0 wrong, partial credit
    its value), so 7 of 10 correct is 0.7. Unscored outputs (an item with no
    label, or a scorer that could not tell) are left out, and reported. When
    nothing at all is scored the assertion fails. `at_least` is a share from
    0 to 1, compared as `accuracy >= at_least`. The scoring is `scorer.score_many` (an async scorer scores
    up to 16 outputs at once).

    The failure message gives the accuracy against `at_least`, the unscored
    indices, the counts per failure kind and a table of the wrong ones (index,
    output, label, failure kind, explanation; cells cut to 40 characters, the
    first 50 rows). Inside a pytest run with the plugin every Score is
    recorded, whatever the verdict.

    Raises:
        TypeError: `scorer` is not a `scorebridge.Scorer`, or `at_least` is not a number.
        ValueError: `at_least` is outside 0 to 1, or the lengths differ (from `score_many`).
    """
    __tracebackhide__ = True
    threshold = _at_least("assert_accuracy", at_least)
    outs, labs = list(outputs), list(labels)
    try:
        scores = score_batch(require_scorer("assert_accuracy", scorer), items, outs, labs)
    except ScorerContractError as exc:
        raise _bare(exc)  # noqa: B904 (its cause is kept)
    return _check_many(scorer, scores, outs, labs, threshold)


async def assert_accuracy_async(
    scorer: Scorer,
    outputs: Iterable[Any],
    labels: Iterable[Any],
    items: Iterable[Any] | None = None,
    at_least: float = 0.9,
) -> list[Score]:
    """The async twin of `assert_accuracy`: awaits `scorer.ascore_many` in this loop."""
    __tracebackhide__ = True
    threshold = _at_least("assert_accuracy_async", at_least)
    outs, labs = list(outputs), list(labels)
    try:
        scores = await ascore_batch(require_scorer("assert_accuracy_async", scorer), items, outs, labs)
    except ScorerContractError as exc:
        raise _bare(exc)  # noqa: B904 (its cause is kept)
    return _check_many(scorer, scores, outs, labs, threshold)
