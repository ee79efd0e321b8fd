"""`exact()`: seed 000's `hr_scorer_exact`, the default scorer."""

from __future__ import annotations

from typing import Any

from ._record import recorded
from ._score import Score
from ._scorer import Scorer, builtin
from ._text import Rejected, accepted_answers, fold, fold_label, presort

__all__ = ["exact"]


def _keep(text: str) -> str:
    return text


def exact(normalise: bool = True) -> Scorer:
    """The exact scorer: the output's text equals one of the label's accepted answers.

    The text is read and pre-sorted as `presort` says (a failure_kind element,
    `ok` false, no text, NOT_IN_DOCUMENT). A label may hold several accepted
    answers (a list, tuple or set); matching any one is correct. A number in a
    label is compared as written in plain digits: 100000 accepts "100000", not
    "1e+05"; 1e-7 accepts "0.0000001". A label with no accepted answer (None,
    NaN, "", white space) means the item has no label: the Score is unscored.

    With `normalise=True` both sides are folded first: case folded, white space
    (Unicode white space too) trimmed and runs of it made one space. The
    outcome is the output's text as compared. Nothing else is stripped:
    "Paris." is not "Paris" (`detect_exact()` ignores punctuation).
    """
    if not isinstance(normalise, bool):
        raise TypeError(f"exact: normalise must be True or False; got {normalise!r}")
    see, see_label = (fold, fold_label) if normalise else (_keep, _keep)

    def exact_fn(item: Any, output: Any, label: Any) -> Score:
        if (  # the common case, one string against one string, without the general machinery
            normalise
            and type(output) is str
            and type(label) is str
            and (seen := fold(output))
            and label
            and not label.isspace()
            and (len(seen) >= 64 or "ocument" not in seen)
        ):
            return recorded("exact", seen == fold_label(label), seen, None)
        answers = accepted_answers("exact", label)
        text = presort("exact", output, answers)
        if type(text) is Rejected:
            return text.record("exact", not answers)
        seen = see(text)  # type: ignore[arg-type]
        if not answers:
            return recorded("exact", None, seen, None, unlabelled=True)
        for answer in answers:
            if seen == see_label(answer):
                return recorded("exact", True, seen, None)
        return recorded("exact", False, seen, None)

    return builtin("exact", exact_fn, {"normalise": normalise})
