"""`failure_kinds()`: an Inspect AI metric that counts the failure kinds, so `inspect eval` shows them."""

from __future__ import annotations

from inspect_ai.scorer import Metric, SampleScore, accuracy, metric, stderr

from scorebridge import FAILURE_KINDS

from ._reasons import FAILURE_KIND

__all__ = ["default_metrics", "failure_kinds"]


def failure_kinds() -> Metric:
    """How many scored samples were wrong for each of the six failure kinds (zeros included).

    It reads `metadata["failure_kind"]`, which `to_inspect` writes on every
    Score, and counts as `scorebridge.Summary` counts: the scored samples only
    (Inspect leaves an unscored, NaN, sample out of every metric, so its kept
    kind is not seen here either). With several epochs a sample counts once,
    with the kind of its first epoch (Inspect keeps the first metadata when it
    reduces). A Score from elsewhere, with no such key, counts under no kind.
    """

    def count(scores: list[SampleScore]) -> dict[str, int]:
        counts: dict[str, int] = dict.fromkeys(FAILURE_KINDS, 0)
        for sample in scores:
            kind = (sample.score.metadata or {}).get(FAILURE_KIND)
            if kind in counts:
                counts[kind] += 1
        return counts

    return count


# Registered as "scorebridge/failure_kinds", as the built-in scorers are "scorebridge/NAME": Inspect finds a
# name with that prefix through our entry point (named scorebridge), so `inspect score` can make it again
# from a log. (Inspect prefixes the name of the installed package the function's module belongs to.)
failure_kinds.__module__ = "scorebridge"
failure_kinds = metric(failure_kinds)


def default_metrics() -> list[Metric]:
    """The metrics of a scorebridge scorer in Inspect unless you give others: accuracy(), stderr() and
    failure_kinds(). Give `metrics=[accuracy(), stderr()]` to leave the failure kinds out."""
    return [accuracy(), stderr(), failure_kinds()]
