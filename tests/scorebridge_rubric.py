"""An adapter between scorebridge and rubric, both ways, written from docs/adapters.md and scorebridge.kit alone."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from rubric import Result

from scorebridge import Score, Scorer
from scorebridge.kit import accepted_answers, ask, is_async, judge_each, scale, sync_and_async, verdict


@dataclasses.dataclass(frozen=True)
class ScorerGrader:
    """A scorebridge scorer as a rubric grader (`to_rubric`)."""

    scorer: Scorer

    def grade(self, response: Any, reference: Any) -> Result:
        score = self.scorer(None, response, reference)
        if score.correct is None:  # unscored: rubric leaves it out
            return Result(None, score.explanation or "unscored")
        return Result(score.value, score.failure_kind or "correct")


def to_rubric(scorer: Scorer) -> Any:
    """A scorebridge scorer as a rubric grader; a scorer made by `from_rubric` gives its grader back."""
    if not isinstance(scorer, Scorer):
        raise TypeError(f"to_rubric: expected a scorebridge Scorer; got {type(scorer).__name__}")
    body = getattr(scorer.fn, "body", None)
    return body.grader if isinstance(body, _RubricCall) else ScorerGrader(scorer)


class _RubricCall:
    """The body of a scorer made by `from_rubric`: the grader asked once per accepted answer."""

    def __init__(self, grader: Any, name: str) -> None:
        self.grader, self.name = grader, name

    def __call__(self, item: Any, output: Any, label: Any) -> Any:
        asked = ask(self.name, output, label)
        if isinstance(asked, Score):
            return asked
        return judge_each(  # rubric takes one reference: asked once per answer until one is correct
            self.name,
            asked,
            lambda reference: self.grader.grade(asked.text, reference),
            lambda result: self.verdict(asked, result),
        )

    def verdict(self, asked: Any, result: Result) -> Score:
        if result.score is None:
            return verdict(self.name, asked, None, explanation=result.reason or None)
        correct, value = scale(self.name).read(self.name, result.score)  # 0-1: a rubric declares no other range
        return verdict(self.name, asked, correct, value=value, explanation=result.reason or None)


def _arguments(grader: Any) -> dict[str, Any]:
    """A grader's own arguments (its dataclass fields): its options, so a resume under others is refused."""
    if not dataclasses.is_dataclass(grader):
        return {}
    return {f.name: getattr(grader, f.name) for f in dataclasses.fields(grader)}


def from_rubric(grader: Any, *, name: str | None = None) -> Scorer:
    """A rubric grader as a scorebridge scorer; a grader made by `to_rubric` gives its scorer back."""
    if isinstance(grader, ScorerGrader) and name in (None, grader.scorer.name):
        return grader.scorer
    if not callable(getattr(grader, "grade", None)):
        raise TypeError(f"from_rubric: expected a rubric grader; got {type(grader).__name__}")
    name = name or type(grader).__name__
    options = _arguments(grader)

    def factory(**chosen: Any) -> Scorer:
        return from_rubric(dataclasses.replace(grader, **chosen), name=name)

    fn = sync_and_async(_RubricCall(grader, name), is_async=is_async(grader.grade))
    return Scorer(
        name,
        fn,
        options,
        factory=factory if options else None,
        recorded=True,
        check_label=functools.partial(accepted_answers, name),
    )
