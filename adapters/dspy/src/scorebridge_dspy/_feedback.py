"""The feedback text GEPA's reflection model reads: one Score and its label as one line."""

from __future__ import annotations

from typing import Any, Final

from scorebridge import Score
from scorebridge.kit import element, is_missing, is_number, plain_digits

__all__ = ["feedback_text"]

_QUOTE_LIMIT: Final = 200  # characters of one output or label quoted in feedback
_ANSWERS_LIMIT: Final = 5  # accepted answers of one label quoted in feedback


def _quoted(x: Any) -> str:
    """A value as feedback quotes it: numbers in plain digits, the rest as Python writes it, cut at 200 characters."""
    if is_number(x):
        return plain_digits(x)
    if not isinstance(x, str):
        text = repr(x)
        return text if len(text) <= _QUOTE_LIMIT else f"{text[:_QUOTE_LIMIT]}... (cut; {len(text)} characters in all)"
    if len(x) > _QUOTE_LIMIT:
        return f"{x[:_QUOTE_LIMIT]!r} (cut; {len(x)} characters in all)"
    return repr(x)


def _expected(label: Any) -> str:
    if isinstance(label, (list, tuple, set, frozenset)):
        answers = list(label)
        if len(answers) == 1:
            return _quoted(answers[0])
        shown = ", ".join(_quoted(a) for a in answers[:_ANSWERS_LIMIT])
        more = f" and {len(answers) - _ANSWERS_LIMIT} more" if len(answers) > _ANSWERS_LIMIT else ""
        return f"one of {shown}{more}"
    return _quoted(label)


_NO_OUTPUT: Final = object()  # feedback_text was not given the output
_NOTHING: Final = "answered nothing"


def _answered(output: Any) -> str:
    """What the model answered, as feedback shows it when the scorer saw no text in it: quoted, cut at 200."""
    if output is None or is_missing(output) or (isinstance(output, str) and not output.strip()):
        return _NOTHING
    found = output if isinstance(output, str) else element(output, "answer")
    if found is None:
        found = element(output, "text")
    return f"answered {_quoted(output if found is None else found)}"


def feedback_text(score: Score, label: Any, output: Any = _NO_OUTPUT) -> str:
    """Feedback for a reflection model: why the output scored as it did, in one line (more if the explanation has).

    The line starts with the verdict, "correct", the failure kind ("refusal",
    "wrong", ...) or "unscored", then a colon and the details, separated by
    "; ": the scorer's explanation; for a wrong output the answer the scorer
    saw ("answered 'Lyon'"; when the scorer saw no text, a parse failure say, what
    the model answered: `output`, its answer or text element for an object,
    "answered nothing" for none, unless the explanation says so) and the label ("expected 'Paris'", or "expected one
    of 'Paris', 'paris city'" for several accepted answers); for an unscored
    one its failure kind, if any; the value when it is partial credit ("score
    0.5"). A correct output with nothing more to say is just "correct". Quoted
    outputs and labels are cut at 200 characters; the explanation is kept whole.

    >>> feedback_text(Score(False, "lyon", "wrong"), "Paris")
    "wrong: answered 'lyon'; expected 'Paris'"
    """
    if score.correct is None:
        head = "unscored"
    elif score.correct:
        head = "correct"
    else:
        head = score.failure_kind or "wrong"
    details = []
    if score.explanation:
        details.append(score.explanation.strip())
    if score.correct is False:
        if score.outcome is not None:
            details.append(f"answered {_quoted(score.outcome)}")
        elif output is not _NO_OUTPUT:  # a parse failure has no outcome: the reflection model needs the answer
            answered = _answered(output)
            if answered != _NOTHING or not score.explanation:  # "the output is empty" says it already
                details.append(answered)
        details.append(f"expected {_expected(label)}")
    elif score.failure_kind is not None:  # unscored (no label), its failure kind kept
        details.append(f"failure kind {score.failure_kind}")
    if score.value is not None and score.value not in (0.0, 1.0):
        details.append(f"score {score.value:g}")
    return f"{head}: {'; '.join(details)}" if details else head
