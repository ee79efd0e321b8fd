"""Reading outputs and labels as text, and seed 000's pre-sorting of outputs that are not answers.

Every built-in text scorer (`exact`, the `detect_*` family) goes through `presort`
and `accepted_answers`, so these rules hold in exactly one place.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final, NamedTuple

from ._record import recorded
from ._score import FAILURE_KINDS, FailureKind, Score, ScorerContractError
from ._scorer import Scorer, builtin
from ._values import is_bool, is_missing, is_number, plain_digits

__all__ = [
    "Compare",
    "Rejected",
    "accepted_answers",
    "collapse",
    "fold",
    "fold_label",
    "is_not_in_document",
    "keep",
    "presort",
    "text_scorer",
]

# The sentinel an arm answers when the document does not hold the answer. Any case,
# "_" or " " between the words, with the quoting and emphasis models put around it
# ("**NOT_IN_DOCUMENT.**"); a sentence that merely mentions it is an answer.
_NOT_IN_DOCUMENT: Final = re.compile(r"[\"'`*_ ]*NOT[ _]IN[ _]DOCUMENT[\"'`*_.!:;, ]*", re.IGNORECASE)


class Rejected(NamedTuple):
    """An output sorted out before comparing: why, and what it showed."""

    failure_kind: FailureKind
    explanation: str
    outcome: str | None = None
    reported: bool = False  # the output said so itself (a failure_kind element, `ok` false), not its text

    def record(self, scorer: str, unlabelled: bool) -> Score:
        """The recorded Score of this rejection."""
        return recorded(scorer, False, self.outcome, self.failure_kind, None, self.explanation, None, unlabelled)


_EMPTY: Final = Rejected("parse_failure", "the output is empty")


def keep(text: str) -> str:
    """The text as it is: the normalisation of a scorer told not to normalise."""
    return text


def collapse(text: str) -> str:
    """Trimmed, runs of white space (Unicode too) made one space."""
    return " ".join(text.split())


def fold(text: str) -> str:
    """Seed 000's normalisation: `collapse`d and case folded."""
    return " ".join(text.split()).casefold()


_folded_labels: dict[str, str] = {}


def fold_label(answer: str) -> str:
    """`fold` of a label's answer, remembered: the same labels come back run after run."""
    folded = _folded_labels.get(answer)
    if folded is None:
        if len(_folded_labels) >= 4096:
            _folded_labels.clear()
        folded = _folded_labels[answer] = fold(answer)
    return folded


def is_not_in_document(text: str) -> bool:
    """True when the text is the NOT_IN_DOCUMENT sentinel (in any case, decorations allowed)."""
    # the cheap tests first: this runs on every output
    return len(text) < 64 and "ocument" in text.lower() and _NOT_IN_DOCUMENT.fullmatch(text.strip()) is not None


def _element(output: Any, key: str) -> Any:
    try:
        if isinstance(output, Mapping):
            return output.get(key)
        return getattr(output, key, None)
    except Exception:  # a hostile or broken object has no such element
        return None


def _as_text(x: Any) -> str | Rejected:
    if type(x) is str or isinstance(x, str):
        if not x or x.isspace():
            return _EMPTY
        return str(x)
    if is_missing(x):
        return Rejected("parse_failure", "there is no output")
    if is_number(x):
        return plain_digits(x)
    if isinstance(x, (bytes, bytearray)):
        return Rejected("parse_failure", "the output is bytes, not text; decode it first")
    return Rejected("parse_failure", f"the output is a {type(x).__name__} with no answer or text")


def presort(scorer: str, output: Any, answers: tuple[str, ...]) -> str | Rejected:
    """The text of an output, or why it is not an answer (seed 000's pre-sorting).

    The text is the output itself when it is one string (a number is written in
    plain digits); else its `answer` element, else its `text` element (mapping
    key or attribute), so a DSPy `Prediction` and a result object with `text`
    both work. In order, an output is rejected when:

    1. it has a `failure_kind` element: wrong for that reason (an arm reports its
       own refusal or parse failure); an unknown kind is a `ScorerContractError`;
    2. it has an `ok` element that is False: "error" (its `error` element, if any,
       is the explanation);
    3. it has no text at all (None, NaN or another missing marker, an empty or
       white-space string, bytes, a bool, a list, nothing with an answer or
       text): "parse_failure";
    4. its text is NOT_IN_DOCUMENT (any case) and no accepted answer is:
       "not_in_document".
    """
    if type(output) is str:
        if not output or output.isspace():
            return _EMPTY
        text: str | Rejected = output
    elif is_missing(output) or is_bool(output) or isinstance(output, (str, bytes, bytearray)):
        text = _as_text(output)
    elif is_number(output):
        text = plain_digits(output)
    elif isinstance(output, (list, tuple, set, frozenset)):
        text = Rejected("parse_failure", f"the output is a {type(output).__name__}, not text")
    else:
        kind = _element(output, "failure_kind")
        if kind is not None and not is_missing(kind):  # seed 000: NA means the output reports no failure
            if type(kind) is not str or kind not in FAILURE_KINDS:
                raise ScorerContractError(
                    f"{scorer}: the output's failure_kind {kind!r:.80} is not one of {FAILURE_KINDS}"
                )
            return Rejected(kind, f"the output reported {kind}", reported=True)
        ok = _element(output, "ok")
        if is_bool(ok) and not ok:
            error = _element(output, "error")
            explanation = f"the output is an error: {error}" if error else "the output is an error"
            return Rejected("error", explanation, reported=True)
        answer = _element(output, "answer")
        if answer is None:
            answer = _element(output, "text")
        if answer is None:
            return Rejected("parse_failure", f"the output is a {type(output).__name__} with no answer or text")
        text = _as_text(answer)
    if isinstance(text, Rejected):
        return text
    if is_not_in_document(text):
        for answer in answers:
            if is_not_in_document(answer):
                return answer  # the label accepts the sentinel: "**not in document.**" is its NOT_IN_DOCUMENT
        return Rejected("not_in_document", "the output says the document does not hold the answer", text.strip())
    return text


def accepted_answers(scorer: str, label: Any) -> tuple[str, ...]:
    """The accepted answers of a label, as text; blank ones and missing markers are dropped.

    A label is one string, one number (written in plain digits: 100000 accepts
    "100000", not "1e+05") or a list, tuple or set of them. Anything else is a
    `ScorerContractError` naming the scorer.
    """
    if type(label) is str:
        return () if not label or label.isspace() else (label,)
    if is_missing(label):
        return ()
    if is_number(label):
        return (plain_digits(label),)
    if isinstance(label, (list, tuple, set, frozenset)):
        answers: list[str] = []
        for x in label:
            if isinstance(x, str):
                if x and not x.isspace():
                    answers.append(str(x))
            elif is_number(x) and not is_missing(x):
                answers.append(plain_digits(x))
            elif not is_missing(x):
                raise ScorerContractError(
                    f"{scorer}: a label's accepted answers must be strings or numbers; got {type(x).__name__} {x!r:.80}"
                )
        return tuple(answers)
    if isinstance(label, str):
        return accepted_answers(scorer, str(label))
    raise ScorerContractError(
        f"{scorer}: a label must be a string, a number, or a list of them; got {type(label).__name__} {label!r:.80}"
    )


Compare = Callable[[str, tuple[str, ...]], Score]
"""A text scorer's own part: the output's text and the accepted answers (maybe none) to a recorded Score."""


def text_scorer(name: str, compare: Compare, options: Mapping[str, Any]) -> Scorer:
    """A built-in text scorer: the label is read and the output pre-sorted here, `compare` does the rest.

    `exact()` and every `detect_*` scorer are made this way, so they read outputs
    and labels alike. An output or label whose own methods raise (an `==` that
    fails, say) is a `ScorerContractError` naming the scorer.
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

    return builtin(name, text_fn, options)
