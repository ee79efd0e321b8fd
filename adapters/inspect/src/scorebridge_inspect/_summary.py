"""`summarize()`: the scorebridge Summary of one scorer in an Inspect AI eval log, the grader's failures apart."""

from __future__ import annotations

import os
from typing import Any

from inspect_ai.log import EvalLog, read_eval_log

from scorebridge.kit import Summary, recorded

from ._score import read_score

__all__ = ["summarize"]


def _names(log: EvalLog) -> list[str]:
    """The scorers of the log: its results' (in order), else those its samples were scored by."""
    if log.results is not None and log.results.scores:
        return list(dict.fromkeys(score.name for score in log.results.scores))
    return list(dict.fromkeys(name for sample in log.samples or () for name in sample.scores or {}))


def summarize(log: EvalLog | str | os.PathLike[str], name: str | None = None, *, threshold: float = 1.0) -> Summary:
    """The scorebridge Summary of the scorer `name` in an Inspect AI eval log (an `EvalLog` or its file).

    Inspect hands its metrics only the scored samples (an unscored, NaN,
    Score is left out of every metric and counted in `unscored_samples`, one
    number), so no metric can tell a grader's failure from a sample with no
    label. This reads each sample's Score as `from_inspect` reads one: a
    Score `to_inspect` wrote keeps its failure kind; an unscored one whose
    grader failed (scorebridge's `metadata["grader_failed"]`, or Inspect's
    own reason `grader_failed`) is counted in `Summary.grader_failed`;
    `threshold` decides for the numbers of other scorers, as in
    `from_inspect`. Each sample of each epoch is one row (Inspect's metrics
    reduce the epochs first); a sample with no Score of that name is
    unscored. `name` may be left out when the log has one scorer. A log
    read without its samples (`header_only`), or a name it has no scorer
    of, is a `ValueError` saying so.
    """
    if not isinstance(log, EvalLog):
        log = read_eval_log(os.fspath(log))
    if log.samples is None:
        raise ValueError("summarize: the eval log holds no samples (read it without header_only=True)")
    names = _names(log)
    if name is None:
        if len(names) != 1:
            raise ValueError(f"summarize: the log has {len(names)} scorers {names}; name the one to summarize")
        name = names[0]
    elif name not in names:
        raise ValueError(f"summarize: the log has no scorer named {name!r}; it has {names}")
    rows = []
    for sample in log.samples:
        given: Any = (sample.scores or {}).get(name)
        if given is None:
            rows.append(recorded(name, None, None, None))
            continue
        read = read_score(name, given, threshold)
        rows.append(
            recorded(
                name,
                read.correct,
                given.answer,
                read.kind,
                read.value,
                metadata=read.metadata,
                unlabelled=read.correct is None,  # unscored, a kind kept (an unlabelled row's) included
            )
        )
    return Summary.of(name, rows)
