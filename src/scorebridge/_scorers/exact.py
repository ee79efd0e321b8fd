"""`exact()`: the hr package's `hr_scorer_exact`, the default scorer."""

from __future__ import annotations

from .._protocol.reading import fold, fold_label, keep
from .._protocol.record import recorded
from .._protocol.remake import remade_from_options
from .._protocol.score import Score
from .._protocol.scorer import Scorer
from .text import text_scorer

__all__ = ["exact"]


@remade_from_options
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
    see, see_label = (fold, fold_label) if normalise else (keep, keep)

    def compare(text: str, answers: tuple[str, ...]) -> Score:
        seen = see(text)
        if not answers:
            return recorded("exact", None, seen, None, unlabelled=True)
        for answer in answers:
            if seen == see_label(answer):
                return recorded("exact", True, seen, None)
        return recorded("exact", False, seen, None)

    return text_scorer("exact", compare, {"normalise": normalise}, exact)
