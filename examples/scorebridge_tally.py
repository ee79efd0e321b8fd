"""An adapter between scorebridge and tally, both ways, built on scorebridge.kit alone."""

import functools

from tally import Check, Verdict

from scorebridge import Score, Scorer
from scorebridge.kit import accepted_answers, ask, is_async, item_text_for, judge, scale, sync_and_async, verdict

MADE_FROM = "scorebridge_scorer"  # the attribute a check made by to_tally keeps its scorer in


def to_tally(scorer: Scorer) -> Check:
    """A scorebridge scorer as a tally check; a check made by `from_tally` is given back as it was."""
    if not isinstance(scorer, Scorer):
        raise TypeError(f"to_tally: expected a scorebridge Scorer; got {type(scorer).__name__}")
    body = getattr(scorer.fn, "body", None)
    if isinstance(body, _TallyCall):  # a round trip is the identity
        return body.check

    def check(row: dict) -> Verdict:
        score = scorer(row.get("prompt"), row.get("response"), row.get("expected"))
        if score.correct is None:  # unscored: tally skips it, as every harness leaves it out
            return Verdict(0.0, score.explanation or "unscored", skipped=True)
        return Verdict(score.value or 0.0, score.failure_kind or "correct")

    check.__name__ = scorer.name
    setattr(check, MADE_FROM, scorer)
    return check


class _TallyCall:
    """The body of a scorer made by `from_tally`: a tally check called on (item, output, label)."""

    def __init__(self, check: Check, name: str) -> None:
        self.check, self.name = check, name
        self.scale = scale(name)  # tally's points are 0-1: it declares no other range

    def __call__(self, item, output, label):
        asked = ask(self.name, output, label)  # a finished Score, or what to hand the check
        if isinstance(asked, Score):
            return asked
        row = {"prompt": item_text_for(self.name, item), "response": asked.text, "expected": list(asked.answers)}
        return judge(self.name, lambda: self.check(row), lambda found: self.verdict(asked, found))

    def verdict(self, asked, found: Verdict):
        if found.skipped:
            return verdict(self.name, asked, None, explanation=found.note or None)
        correct, value = self.scale.read(self.name, found.points)  # correct at 1; outside 0-1 a contract error
        return verdict(self.name, asked, correct, value=value, explanation=found.note or None)


def from_tally(check: Check, *, name: str | None = None) -> Scorer:
    """A tally check as a scorebridge scorer; a check made by `to_tally` gives its scorer back."""
    made_from = getattr(check, MADE_FROM, None)
    if isinstance(made_from, Scorer) and name in (None, made_from.name):  # a round trip is the identity
        return made_from
    if name is None:
        name = getattr(check, "__name__", "<lambda>")
        name = "tally_check" if name == "<lambda>" else name  # a lambda has no name
    fn = sync_and_async(_TallyCall(check, name), is_async=is_async(check))  # async when the check is
    return Scorer(name, fn, recorded=True, check_label=functools.partial(accepted_answers, name))
