"""The skeleton of the built-in text scorers: the label read and the output pre-sorted, then a comparison."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from .._protocol.reading import Rejected, accepted_answers, presort
from .._protocol.score import Score, ScorerContractError
from .._protocol.scorer import Scorer

__all__ = ["Compare", "text_scorer"]

Compare = Callable[[str, tuple[str, ...]], Score]
"""A text scorer's own part: the output's text and the accepted answers (maybe none) to a recorded Score."""


def text_scorer(
    name: str, compare: Compare, options: Mapping[str, Any], factory: Callable[..., Scorer], *, fast: bool = True
) -> Scorer:
    """A built-in text scorer: the label is read and the output pre-sorted here, `compare` does the rest.

    `exact()` and every `detect_*` scorer are made this way, so they read outputs
    and labels alike. An output or label whose own methods raise (an `==` that
    fails, say) is a `ScorerContractError` naming the scorer. `factory` is the
    public function that made the scorer, so it can be made again from `options`.
    `fast` is False for a comparison that may wait (`detect_pattern`'s regex
    deadline): see `Scorer.fast`.
    """

    def text_fn(item: Any, output: Any, label: Any) -> Score:
        if (  # the common case, one string against one string, without the general machinery
            type(output) is str
            and type(label) is str
            and output
            and label
            and not output.isspace()
            and not label.isspace()
            and (len(output) >= 64 or "ocument" not in output.lower())  # is_not_in_document's cheap half
        ):
            return compare(output, (label,))
        try:
            answers = accepted_answers(name, label)
            text = presort(name, output, answers)
        except ScorerContractError:
            raise
        except Exception as exc:
            raise ScorerContractError(f"{name}: cannot read the output or the label: {exc!r:.200}") from exc
        if type(text) is Rejected:
            return text.record(name, not answers)
        return compare(text, answers)  # type: ignore[arg-type]

    return Scorer(
        name,
        text_fn,
        options,
        factory=factory,
        recorded=True,
        fast=fast,
        check_label=functools.partial(accepted_answers, name),
    )
