"""An adapter between scorebridge and tally, both ways, built on scorebridge.kit alone."""

import functools

from tally import Check, Verdict

from scorebridge import Scorer
from scorebridge.kit import Rejected, accepted_answers, item_text, note_scorer, presort, recorded

MADE_FROM = "scorebridge_scorer"  # the attribute a check made by to_tally keeps its scorer in


def to_tally(scorer: Scorer) -> Check:
    """A scorebridge scorer as a tally check; a check made by `from_tally` is given back as it was."""
    if not isinstance(scorer, Scorer):
        raise TypeError(f"to_tally: expected a scorebridge Scorer; got {type(scorer).__name__}")
    if isinstance(scorer.fn, _TallyCall):  # a round trip is the identity
        return scorer.fn.check

    def check(row: dict) -> Verdict:
        score = scorer(row.get("prompt"), row.get("response"), row.get("expected"))
        if score.correct is None:  # unscored: tally skips it, as every harness leaves it out
            return Verdict(0.0, score.explanation or "unscored", skipped=True)
        return Verdict(score.value or 0.0, score.failure_kind or "correct")

    check.__name__ = scorer.name
    setattr(check, MADE_FROM, scorer)
    return check


class _TallyCall:
    """The fn of a scorer made by `from_tally`: a tally check called on (item, output, label)."""

    def __init__(self, check: Check, name: str) -> None:
        self.check, self.name = check, name

    def __call__(self, item, output, label):
        answers = accepted_answers(self.name, label)
        text = presort(self.name, output, answers)
        if isinstance(text, Rejected) and text.reported:  # the output says it failed: the check is not asked
            return text.record(self.name, not answers)
        response = "" if isinstance(text, Rejected) else text  # no text: the check judges an empty response
        if not answers:  # no label: unscored, whatever the check would say
            return recorded(self.name, None, response or None, None, unlabelled=True)
        row = {"prompt": item_text(item) or "", "response": response, "expected": list(answers)}
        try:
            verdict = self.check(row)
        except Exception as exc:
            note_scorer(exc, self.name)
            raise
        if verdict.skipped:
            return recorded(self.name, None, response, None, None, verdict.note or None)
        return recorded(self.name, verdict.points >= 1.0, response, None, verdict.points, verdict.note or None)


def from_tally(check: Check, *, name: str | None = None) -> Scorer:
    """A tally check as a scorebridge scorer; a check made by `to_tally` gives its scorer back."""
    made_from = getattr(check, MADE_FROM, None)
    if isinstance(made_from, Scorer) and name in (None, made_from.name):  # a round trip is the identity
        return made_from
    name = name or getattr(check, "__name__", "tally_check")
    call = _TallyCall(check, name)
    return Scorer(name, call, recorded=True, check_label=functools.partial(accepted_answers, name))
