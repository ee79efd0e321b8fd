"""Reading outputs, labels and items as text, and the pre-sorting of outputs that are not answers.

Each rule is here once: every built-in scorer and every adapter reads an output
with `presort` (through `element`), a label with `accepted_answers` and an
item's text with `item_text` (all in `scorebridge.kit`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from .record import recorded
from .score import FAILURE_KINDS, FailureKind, Score, ScorerContractError, UnreadableLabel
from .values import MAX_DIGITS, a_type, is_bool, is_missing, is_number, plain_digits, shown

__all__ = [
    "ITEM_TEXT_FIELDS",
    "Rejected",
    "accepted_answers",
    "collapse",
    "element",
    "fold",
    "fold_label",
    "is_not_in_document",
    "item_text",
    "keep",
    "presort",
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
    structured: bool = False  # the output is a value with no text (a list, a mapping with no answer or text)

    def record(self, scorer: str, unlabelled: bool) -> Score:
        """The recorded Score of this rejection."""
        return recorded(scorer, False, self.outcome, self.failure_kind, None, self.explanation, None, unlabelled)


_EMPTY: Final = Rejected("parse_failure", "the output is empty")
_TOO_LONG: Final = Rejected("parse_failure", f"the output is a number of more than {MAX_DIGITS} digits")


def _number_text(x: Any) -> str | Rejected:
    try:
        return plain_digits(x)
    except (ValueError, OverflowError):  # too long to write out, or a Fraction too big for a float
        return _TOO_LONG


def keep(text: str) -> str:
    """The text as it is: the normalisation of a scorer told not to normalise."""
    return text


def collapse(text: str) -> str:
    """Trimmed, runs of white space (Unicode too) made one space."""
    return " ".join(text.split())


def fold(text: str) -> str:
    """The hr package's normalisation: `collapse`d and case folded."""
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


def element(obj: Any, key: str) -> Any:
    """`obj`'s element `key`: a mapping's value, else an attribute; None when it has none.

    An object whose lookup raises (a hostile or broken `__getattr__`, a
    mapping whose `get` fails) has no such element.
    """
    try:
        if isinstance(obj, Mapping):
            return obj.get(key)
        return getattr(obj, key, None)
    except Exception:
        return None


def _as_text(x: Any) -> str | Rejected:
    if type(x) is str or isinstance(x, str):
        if not x or x.isspace():
            return _EMPTY
        return str(x)
    if is_missing(x):
        return Rejected("parse_failure", "there is no output")
    if is_number(x):
        return _number_text(x)
    if isinstance(x, (bytes, bytearray)):
        return Rejected("parse_failure", "the output is bytes, not text; decode it first")
    return Rejected("parse_failure", f"the output is {a_type(x)} with no answer or text", structured=True)


def presort(scorer: str, output: Any, answers: tuple[str, ...]) -> str | Rejected:
    """The text of an output, or why it is not an answer (the protocol's pre-sorting).

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
       text, a number of more than `MAX_DIGITS` digits): "parse_failure"; a
       value with no text (a bool, a list, a mapping or object with no answer or
       text) is marked `structured`, for a harness whose scorers read the
       output as it is (`kit.ask(..., structured=True)`);
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
        text = _number_text(output)
    elif isinstance(output, (list, tuple, set, frozenset)):
        text = Rejected("parse_failure", f"the output is {a_type(output)}, not text", structured=True)
    else:
        kind = element(output, "failure_kind")
        if kind is not None and not is_missing(kind):  # NA: the output reports no failure (the hr package's protocol)
            if type(kind) is not str or kind not in FAILURE_KINDS:
                raise ScorerContractError(
                    f"{scorer}: the output's failure_kind {shown(kind)} is not one of {FAILURE_KINDS}"
                )
            return Rejected(kind, f"the output reported {kind}", reported=True)
        ok = element(output, "ok")
        if is_bool(ok) and not ok:
            error = element(output, "error")
            explanation = f"the output is an error: {error}" if error else "the output is an error"
            return Rejected("error", explanation, reported=True)
        answer = element(output, "answer")
        if answer is None:
            answer = element(output, "text")
        if answer is None:
            return Rejected("parse_failure", f"the output is {a_type(output)} with no answer or text", structured=True)
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
    "100000", not "1e+05") or a list, tuple or set of them. Anything else,
    and a number of more than `MAX_DIGITS` digits, is an `UnreadableLabel`
    (a `ScorerContractError`) naming the scorer.
    """
    if type(label) is str:
        return () if not label or label.isspace() else (label,)
    if is_missing(label):
        return ()
    if is_number(label):
        return (_label_number(scorer, label),)
    if isinstance(label, (list, tuple, set, frozenset)):
        answers: list[str] = []
        for x in label:
            if isinstance(x, str):
                if x and not x.isspace():
                    answers.append(str(x))
            elif is_number(x) and not is_missing(x):
                answers.append(_label_number(scorer, x))
            elif not is_missing(x):
                raise UnreadableLabel(
                    f"{scorer}: a label's accepted answers must be strings or numbers; "
                    f"got {type(x).__name__} {shown(x)}"
                )
        return tuple(answers)
    if isinstance(label, str):
        return accepted_answers(scorer, str(label))
    raise UnreadableLabel(
        f"{scorer}: a label must be a string, a number, or a list of them; got {type(label).__name__} {shown(label)}"
    )


def _label_number(scorer: str, x: Any) -> str:
    try:
        return plain_digits(x)
    except (ValueError, OverflowError) as exc:
        raise UnreadableLabel(f"{scorer}: a label's number cannot be read: {exc}") from None


ITEM_TEXT_FIELDS: Final = ("input", "question")
"""The elements an item's text is read from, in order: `input` (Inspect AI's Sample, vitals' and dsprrr's
column), then `question` (DSPy's examples)."""


def item_text(item: Any) -> str | None:
    """The text of an item, or None when it has none.

    The item itself when it is a string; "" for None (or another missing
    marker); a number in plain digits; else its `input` element, else its
    `question` element (mapping key or attribute; a string, or a number in
    plain digits); else, for a mapping (or a `dspy.Example`) with exactly one
    field, that field when it is text. So `{"question": "Q", "input": "I"}`
    reads "I" for every scorer and adapter.

    Raises ValueError for a number of more than `MAX_DIGITS` digits, and
    whatever a string subclass's own `__str__` raises: a scorer that reads
    items turns either into a `ScorerContractError` naming itself.
    """
    if isinstance(item, str):
        return str(item)
    if is_missing(item):
        return ""
    if is_number(item):
        return plain_digits(item)
    for key in ITEM_TEXT_FIELDS:
        found = element(item, key)
        if isinstance(found, str):
            return str(found)
        if is_number(found) and not is_missing(found):
            return plain_digits(found)
    try:  # a mapping, or a dspy.Example, with one text field
        items = getattr(item, "items", None)
        values = [v for _, v in items()] if callable(items) else []
    except Exception:  # a hostile or broken object has no text
        return None
    if len(values) == 1 and isinstance(values[0], str):
        return str(values[0])
    return None
