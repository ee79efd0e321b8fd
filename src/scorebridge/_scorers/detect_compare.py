"""The machinery the `detect_*` scorers share: argument checks, accepted answers as compared, places.

Each accepted answer is made a `_Target` once per scorer (remembered: the same
labels come back run after run): its form as compared, whether it keeps its
punctuation, whether it is a number (which must not match inside a longer
one), and the explanations and metadata of a match and a miss.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Final, NamedTuple

from .._protocol.record import recorded
from .._protocol.score import Score
from .detect_rules import find_clear, is_clear, strip_ends
from .text import Compare

__all__ = [
    "NO_LABEL",
    "PLACES",
    "REMEMBERED",
    "Target",
    "choice",
    "comparer",
    "first_hit",
    "flag",
    "listing",
    "short",
    "stripped_form",
    "targets",
    "whole",
]

NO_LABEL: Final = "the item has no label, so it is not scored"
REMEMBERED: Final = 4096  # target forms kept per scorer: the same labels come back run after run


# --- arguments -------------------------------------------------------------------------


def flag(scorer: str, name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{scorer}: {name} must be True or False; got {value!r:.80}")
    return value


def choice(scorer: str, name: str, value: object, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{scorer}: {name} must be one of {', '.join(map(repr, allowed))}; got {value!r:.80}")
    return value


# --- shared pieces ---------------------------------------------------------------------


def short(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def listing(forms: Sequence[str]) -> str:
    shown = " or ".join(short(f) for f in forms[:3])
    return shown if len(forms) <= 3 else f"{shown} (or {len(forms) - 3} more)"


class Target(NamedTuple):
    """An accepted answer as one scorer compares it, and what a match records, made once per answer."""

    form: str  # the answer as compared
    kept: bool  # True when it is nothing but punctuation, so the output keeps its punctuation too
    numeric: bool  # True when it starts or ends with a number: it must not match inside a longer one
    hit: str  # the explanation of a match
    miss: str  # the explanation of a miss, when it is the only accepted answer
    metadata: Mapping[str, Any]  # the metadata of a match, read-only: every Score of a match shares it


def targets(
    form: Callable[[str], tuple[str, bool]], verb: str, negated: str, metadata: Mapping[str, Any]
) -> Callable[[str], Target]:
    """`answer -> Target` for one scorer, remembered: the same labels come back run after run.

    `form(answer)` gives the answer as compared and whether it keeps punctuation;
    `verb` and `negated` begin the explanations of a match and a miss ("the
    output ends with", "the output does not end with").
    """

    @lru_cache(maxsize=REMEMBERED)
    def target(answer: str) -> Target:
        shape, kept = form(answer)
        # "5", "25 apples", "-5", ".5": may sit inside a longer number (`is_clear` has the rule; this only spares
        # the other targets its cost)
        numeric = shape[0].isdecimal() or shape[-1].isdecimal() or shape[1:2].isdecimal()
        shown = short(shape)
        matched = MappingProxyType({**metadata, "matched": shape})
        return Target(shape, kept, numeric, f"{verb} {shown}", f"{negated} {shown}", matched)

    return target


def stripped_form(see: Callable[[str], str]) -> Callable[[str], tuple[str, bool]]:
    """An answer seen by `see`, punctuation stripped from its ends (`strip_ends`).

    An answer of nothing but punctuation ("?") keeps it, and is compared with
    the output's punctuation kept too: it never becomes "", which would match
    everything (Inspect AI's `match()` with the target ".").
    """

    def form(answer: str) -> tuple[str, bool]:
        seen = see(answer)
        stripped = strip_ends(seen)
        return (stripped, False) if stripped else (seen, True)

    return form


def first_hit(
    target_of: Callable[[str], Target],
    answers: tuple[str, ...],
    test: Callable[[str, Target], bool],
    seen: str,
    kept: str,
) -> Target | None:
    """The first accepted answer that passes `test(output, answer)`, or None.

    `seen` is the output as the answers are compared, `kept` the output with its
    punctuation kept, for an answer of nothing but punctuation.
    """
    for answer in answers:
        target = target_of(answer)
        if test(kept if target.kept else seen, target):
            return target
    return None


def _missed(seen: str, targets: list[Target], loose: Callable[[str, str], bool], verb: str, negated: str) -> str:
    """Why no answer matched: none is there, or one is there only as part of a longer number."""
    for target in targets:
        if target.numeric and loose(seen, target.form):
            return f"{verb} {short(target.form)} only as part of a longer number"
    if len(targets) == 1:
        return targets[0].miss
    return f"{negated} {listing([t.form for t in targets])}"


# --- where a target is found: detect_includes, detect_match ---------------------------


def _at_end(text: str, target: Target) -> bool:
    form = target.form
    return text.endswith(form) and (not target.numeric or is_clear(text, len(text) - len(form), form))


def _at_begin(text: str, target: Target) -> bool:
    form = target.form
    return text.startswith(form) and (not target.numeric or is_clear(text, 0, form))


def _anywhere(text: str, target: Target) -> bool:
    form = target.form
    return form in text and (not target.numeric or text == form or find_clear(text, form) >= 0)


def whole(text: str, target: Target) -> bool:
    return text == target.form


_Place = tuple[Callable[[str, Target], bool], Callable[[str, str], bool], str, str]

# location -> its test, the same test without number boundaries, and its words for explanations
PLACES: Final[dict[str, _Place]] = {
    "end": (_at_end, str.endswith, "the output ends with", "the output does not end with"),
    "begin": (_at_begin, str.startswith, "the output begins with", "the output does not begin with"),
    "any": (_anywhere, str.__contains__, "the output contains", "the output does not contain"),
    "exact": (whole, str.__eq__, "the output is", "the output is not"),
}


def comparer(
    name: str,
    read: Callable[[str], tuple[str, str]],
    form: Callable[[str], tuple[str, bool]],
    place: _Place,
    metadata: Mapping[str, Any],
) -> Compare:
    """The comparison of detect_includes, detect_match and detect_exact: the output at a place.

    `read(text)` gives the output as compared and the output with its punctuation
    kept; `form(answer)` the answer as compared and whether it keeps punctuation;
    `place` the test and its words; `metadata` what every Score of the scorer records.
    """
    test, loose, verb, negated = place
    target_of = targets(form, verb, negated, metadata)
    missed = MappingProxyType({**metadata, "matched": None})

    def compare(text: str, answers: tuple[str, ...]) -> Score:
        seen, kept = read(text)
        if len(answers) == 1:  # the common case, without the loops
            only = target_of(answers[0])
            if test(kept if only.kept else seen, only):
                return recorded(name, True, kept if only.kept else seen, None, None, only.hit, only.metadata)
            return recorded(name, False, seen, None, None, _missed(seen, [only], loose, verb, negated), missed)
        if not answers:
            return recorded(name, None, seen, None, None, NO_LABEL, None, True)
        target = first_hit(target_of, answers, test, seen, kept)
        if target is not None:
            return recorded(name, True, kept if target.kept else seen, None, None, target.hit, target.metadata)
        why = _missed(seen, [target_of(a) for a in answers], loose, verb, negated)
        return recorded(name, False, seen, None, None, why, missed)

    return compare
