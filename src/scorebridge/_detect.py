"""The string-detection scorers of seed 002 (vitals' `detect_*`).

Every one reads an output and a label as `exact()` does. A label may hold several
accepted answers (a list, tuple or set); matching any one is correct. Blank
answers are dropped, and a label with none (None, NaN, "", white space) means the
item has no label: the Score is unscored (grade "N"), so a blank target never
matches anything. Outputs that are not answers are sorted out first by the core's
`presort`: a `failure_kind` element, `ok` False ("error"), no text
("parse_failure"), NOT_IN_DOCUMENT ("not_in_document", unless a label accepts it).

A detect scorer grades C or I (N when unscored), never P. `Score.outcome` is the
text the scorer compared, `metadata` says what matched, `explanation` says why in
a line. docs/semantics.md sets every rule beside vitals and Inspect AI.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Final, NamedTuple

from ._detect_text import (
    answer_line,
    answer_mark,
    drop_punctuation,
    find_clear,
    first_word,
    is_clear,
    lone_letter,
    strip_ends,
)
from ._record import recorded
from ._score import Score
from ._scorer import Scorer
from ._text import Compare, collapse, fold, keep, text_scorer
from ._values import is_bool, is_number

__all__ = ["detect_answer", "detect_exact", "detect_includes", "detect_match", "detect_pattern"]

LOCATIONS: Final = ("end", "begin", "any", "exact")
FORMATS: Final = ("line", "word", "letter")
_NO_LABEL: Final = "the item has no label, so it is not scored"
_REMEMBERED: Final = 4096  # target forms kept per scorer: the same labels come back run after run


# --- arguments -------------------------------------------------------------------------


def _flag(scorer: str, name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{scorer}: {name} must be True or False; got {value!r:.80}")
    return value


def _choice(scorer: str, name: str, value: object, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{scorer}: {name} must be one of {', '.join(map(repr, allowed))}; got {value!r:.80}")
    return value


# --- shared pieces ---------------------------------------------------------------------


def _short(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _listing(forms: Sequence[str]) -> str:
    shown = " or ".join(_short(f) for f in forms[:3])
    return shown if len(forms) <= 3 else f"{shown} (or {len(forms) - 3} more)"


class _Target(NamedTuple):
    """An accepted answer as one scorer compares it, and what a match records, made once per answer."""

    form: str  # the answer as compared
    kept: bool  # True when it is nothing but punctuation, so the output keeps its punctuation too
    numeric: bool  # True when it starts or ends with a number: it must not match inside a longer one
    hit: str  # the explanation of a match
    miss: str  # the explanation of a miss, when it is the only accepted answer
    metadata: Mapping[str, Any]  # the metadata of a match, read-only: every Score of a match shares it


def _targets(
    form: Callable[[str], tuple[str, bool]], verb: str, negated: str, metadata: Mapping[str, Any]
) -> Callable[[str], _Target]:
    """`answer -> _Target` for one scorer, remembered: the same labels come back run after run.

    `form(answer)` gives the answer as compared and whether it keeps punctuation;
    `verb` and `negated` begin the explanations of a match and a miss ("the
    output ends with", "the output does not end with").
    """

    @lru_cache(maxsize=_REMEMBERED)
    def target(answer: str) -> _Target:
        shape, kept = form(answer)
        # "5", "25 apples", "-5", ".5": may sit inside a longer number (`is_clear` has the rule; this only spares
        # the other targets its cost)
        numeric = shape[0].isdecimal() or shape[-1].isdecimal() or shape[1:2].isdecimal()
        shown = _short(shape)
        matched = MappingProxyType({**metadata, "matched": shape})
        return _Target(shape, kept, numeric, f"{verb} {shown}", f"{negated} {shown}", matched)

    return target


def _stripped_form(see: Callable[[str], str]) -> Callable[[str], tuple[str, bool]]:
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


def _first_hit(
    target_of: Callable[[str], _Target],
    answers: tuple[str, ...],
    test: Callable[[str, _Target], bool],
    seen: str,
    kept: str,
) -> _Target | None:
    """The first accepted answer that passes `test(output, answer)`, or None.

    `seen` is the output as the answers are compared, `kept` the output with its
    punctuation kept, for an answer of nothing but punctuation.
    """
    for answer in answers:
        target = target_of(answer)
        if test(kept if target.kept else seen, target):
            return target
    return None


def _missed(seen: str, targets: list[_Target], loose: Callable[[str, str], bool], verb: str, negated: str) -> str:
    """Why no answer matched: none is there, or one is there only as part of a longer number."""
    for target in targets:
        if target.numeric and loose(seen, target.form):
            return f"{verb} {_short(target.form)} only as part of a longer number"
    if len(targets) == 1:
        return targets[0].miss
    return f"{negated} {_listing([t.form for t in targets])}"


# --- where a target is found: detect_includes, detect_match ---------------------------


def _at_end(text: str, target: _Target) -> bool:
    form = target.form
    return text.endswith(form) and (not target.numeric or is_clear(text, len(text) - len(form), form))


def _at_begin(text: str, target: _Target) -> bool:
    form = target.form
    return text.startswith(form) and (not target.numeric or is_clear(text, 0, form))


def _anywhere(text: str, target: _Target) -> bool:
    form = target.form
    return form in text and (not target.numeric or text == form or find_clear(text, form) >= 0)


def _whole(text: str, target: _Target) -> bool:
    return text == target.form


_Place = tuple[Callable[[str, _Target], bool], Callable[[str, str], bool], str, str]

# location -> its test, the same test without number boundaries, and its words for explanations
_PLACES: Final[dict[str, _Place]] = {
    "end": (_at_end, str.endswith, "the output ends with", "the output does not end with"),
    "begin": (_at_begin, str.startswith, "the output begins with", "the output does not begin with"),
    "any": (_anywhere, str.__contains__, "the output contains", "the output does not contain"),
    "exact": (_whole, str.__eq__, "the output is", "the output is not"),
}


def _comparer(
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
    target_of = _targets(form, verb, negated, metadata)
    missed = MappingProxyType({**metadata, "matched": None})

    def compare(text: str, answers: tuple[str, ...]) -> Score:
        seen, kept = read(text)
        if len(answers) == 1:  # the common case, without the loops
            only = target_of(answers[0])
            if test(kept if only.kept else seen, only):
                return recorded(name, True, kept if only.kept else seen, None, None, only.hit, only.metadata)
            return recorded(name, False, seen, None, None, _missed(seen, [only], loose, verb, negated), missed)
        if not answers:
            return recorded(name, None, seen, None, None, _NO_LABEL, None, True)
        target = _first_hit(target_of, answers, test, seen, kept)
        if target is not None:
            return recorded(name, True, kept if target.kept else seen, None, None, target.hit, target.metadata)
        why = _missed(seen, [target_of(a) for a in answers], loose, verb, negated)
        return recorded(name, False, seen, None, None, why, missed)

    return compare


# --- detect_includes -------------------------------------------------------------------


def detect_includes(case_sensitive: bool = False) -> Scorer:
    """Correct when an accepted answer appears anywhere in the output (seed 002).

    A literal substring test, case-insensitive unless `case_sensitive` (Unicode
    case folding: "STRASSE" holds "straße"). The target is trimmed of white space
    at its ends; nothing else is normalised. A target that starts or ends with
    a number never matches inside a longer number (`is_clear`): "The answer is
    25" does not hold "5", "-5" does not hold "5", "3.14" does not hold "3" or
    "14", "1,500" does not hold "500"; "25 or 5" does. Letters have no such
    boundary: "catalogue" holds "cat".

    Outcome: the output as compared (case folded). Metadata: `matched`, the
    target found (as compared) or None.
    """
    name = "detect_includes"
    _flag(name, "case_sensitive", case_sensitive)
    see: Callable[[str], str] = keep if case_sensitive else str.casefold

    def read(text: str) -> tuple[str, str]:
        seen = see(text)
        return seen, seen

    def form(answer: str) -> tuple[str, bool]:
        return see(answer.strip()), False

    compare = _comparer(name, read, form, _PLACES["any"], {})
    return text_scorer(name, compare, {"case_sensitive": case_sensitive})


# --- detect_match ----------------------------------------------------------------------


def detect_match(location: str = "end", case_sensitive: bool = False) -> Scorer:
    """Correct when an accepted answer is at the `location` of the output (seed 002).

    `location` is "end" (the default), "begin", "any" or "exact". White space,
    case and punctuation around the answer are ignored, as the seed says: both
    sides are case folded (unless `case_sensitive`), runs of white space made
    one space, and white space and punctuation stripped from both ends
    (`strip_ends`: "The capital is Paris." ends with "paris"; a minus sign or
    decimal point before a leading digit stays, "-5" is not "5"). Punctuation
    inside is kept. A target that starts or ends with a number never matches
    inside a longer number: "The answer is 25" does not end with "5", "33.14"
    does not end with "3.14", "25 apples" does not begin with "2" (see
    `is_clear`). Letters have no such boundary: "climb" ends with "b". A target
    of nothing but punctuation ("?") keeps it, and so does the output:
    "Really?" ends with "?", "Paris" does not end with ".".

    Outcome: the output as compared. Metadata: `location`, and `matched`, the
    target found (as compared) or None.
    """
    name = "detect_match"
    _choice(name, "location", location, LOCATIONS)
    _flag(name, "case_sensitive", case_sensitive)
    see = collapse if case_sensitive else fold

    def read(text: str) -> tuple[str, str]:
        kept = see(text)
        return strip_ends(kept) or kept, kept

    compare = _comparer(name, read, _stripped_form(see), _PLACES[location], {"location": location})
    return text_scorer(name, compare, {"location": location, "case_sensitive": case_sensitive})


# --- detect_exact ----------------------------------------------------------------------


def detect_exact(case_sensitive: bool = False) -> Scorer:
    """Correct when the normalised output equals a normalised accepted answer (seed 002).

    Normalised: punctuation deleted (vitals' `gsub("[[:punct:]]", "")`, Unicode
    punctuation and symbols too; "Hello, world!" is "hello world"), white space
    trimmed and its runs made one space, case folded unless `case_sensitive`.
    Numbers stay whole (`drop_punctuation`): "3.14" is not "314", "-5" is not
    "5", "1,000" is "1000", "4." is "4". No other reading of numbers: "3.0" is
    not "3". Articles stay: "The Paris" is not "Paris". A target of nothing but
    punctuation ("?") is compared with its punctuation, and so is the output.

    Outcome: the output as normalised. Metadata: `matched`, the accepted answer
    it equals (as normalised) or None.
    """
    name = "detect_exact"
    _flag(name, "case_sensitive", case_sensitive)
    see = collapse if case_sensitive else fold

    def read(text: str) -> tuple[str, str]:
        kept = see(text)
        return see(drop_punctuation(text)) or kept, kept

    def form(answer: str) -> tuple[str, bool]:
        dropped = see(drop_punctuation(answer))
        return (dropped, False) if dropped else (see(answer), True)

    compare = _comparer(name, read, form, _PLACES["exact"], {})
    return text_scorer(name, compare, {"case_sensitive": case_sensitive})


# --- detect_pattern --------------------------------------------------------------------


def _compile(scorer: str, pattern: str, case_sensitive: bool) -> Any:
    import regex  # 20-50 ms to import: only a scorer with a pattern pays for it

    try:
        return regex.compile(pattern, 0 if case_sensitive else regex.IGNORECASE)
    except Exception as exc:  # regex.error, and the OverflowError or RecursionError of a monstrous pattern
        raise ValueError(f"{scorer}: the pattern {pattern!r:.200} is not a valid regular expression: {exc}") from exc


def _seconds(scorer: str, timeout: object) -> float:
    if is_bool(timeout) or not is_number(timeout):
        raise TypeError(f"{scorer}: timeout must be a number of seconds; got {timeout!r:.80}")
    seconds = float(timeout)  # type: ignore[arg-type]
    if not 0 < seconds < math.inf:
        raise ValueError(f"{scorer}: timeout must be a positive, finite number of seconds; got {timeout!r}")
    return seconds


def detect_pattern(pattern: str, case_sensitive: bool = False, all: bool = False, timeout: float = 1.0) -> Scorer:
    """Correct when what `pattern` captures in the output is an accepted answer (seed 002).

    The first (leftmost) match of `pattern` is read, with the `regex` package
    (Python `re` syntax; Unicode `\\w`). Unless `case_sensitive`, the pattern
    itself ignores case and the captures are case folded. Each capture group
    (trimmed, its white space runs made one space) is compared for equality with
    the accepted answers; a pattern with no capture group compares the whole
    match. With `all=False` one group equal to an accepted answer is enough;
    with `all=True` every group that captured something must be one. A group
    that took no part in the match is left out, and a match in which no group
    captured anything is a "parse_failure", as is no match at all.

    The pattern runs on untrusted text for at most `timeout` seconds (default 1):
    one that backtracks catastrophically (`(a+)+$` on 50 000 "a"s and a "!") is
    stopped and recorded as failure kind "error", `metadata["error"]` saying so.

    Raises at construction: TypeError when `pattern` is not a string, a flag is
    not a bool or `timeout` is not a number; ValueError, naming the pattern, when
    it is empty or not a valid regular expression, and when `timeout` is not a
    positive finite number of seconds.

    Outcome: the deciding group as compared (with `all=False`, the first group
    equal to an accepted answer, else the first group captured; with `all=True`,
    the first group that is no accepted answer, else the first group). Metadata: `groups`, the
    raw captures (None for a group that took no part), and `matched`, the
    accepted answer matched (as compared) or None.
    """
    name = "detect_pattern"
    if not isinstance(pattern, str):
        raise TypeError(f"{name}: pattern must be a string, a regular expression; got {type(pattern).__name__}")
    if not pattern:
        raise ValueError(f"{name}: the pattern is empty; it would match everywhere and capture nothing")
    _flag(name, "case_sensitive", case_sensitive)
    _flag(name, "all", all)
    seconds = _seconds(name, timeout)
    compiled = _compile(name, pattern, case_sensitive)
    has_groups = compiled.groups > 0
    see = collapse if case_sensitive else fold
    target_form = lru_cache(maxsize=_REMEMBERED)(see)
    every = all
    shown = _short(pattern)
    timed_out = {"error": f"regex timed out after {seconds} s"}

    def compare(text: str, answers: tuple[str, ...]) -> Score:
        unlabelled = not answers
        try:
            found = compiled.search(text, timeout=seconds)
        except TimeoutError:
            why = f"the pattern {shown} ran for more than {seconds} s on this output and was stopped"
            return recorded(name, False, None, "error", None, why, timed_out, unlabelled)
        if found is None:
            why = f"the pattern {shown} does not match the output"
            return recorded(name, False, None, "parse_failure", None, why, {"groups": []}, unlabelled)
        raw = list(found.groups()) if has_groups else [found.group(0)]
        captured = [see(g) for g in raw if g is not None]
        if not captured:
            why = f"the pattern {shown} matches but none of its groups captured anything"
            return recorded(name, False, None, "parse_failure", None, why, {"groups": raw}, unlabelled)
        if unlabelled:
            return recorded(name, None, captured[0], None, None, _NO_LABEL, {"groups": raw}, True)
        targets = [target_form(a) for a in answers]
        if every:
            odd = next((c for c in captured if c not in targets), None)
            hit, seen = odd is None, captured[0] if odd is None else odd
        else:
            good = next((c for c in captured if c in targets), None)
            hit, seen = good is not None, captured[0] if good is None else good
        if hit:
            return recorded(name, True, seen, None, None, f"captured {_short(seen)}", {"groups": raw, "matched": seen})
        why = f"captured {_short(seen)}, which is not {_listing(targets)}"
        return recorded(name, False, seen, None, None, why, {"groups": raw, "matched": None})

    options = {"pattern": pattern, "case_sensitive": case_sensitive, "all": all, "timeout": timeout}
    return text_scorer(name, compare, options)


# --- detect_answer ---------------------------------------------------------------------

_READERS: Final[dict[str, Callable[[str], str | None]]] = {"line": keep, "word": first_word, "letter": lone_letter}
_NOTHING_READ: Final = {
    "line": "nothing follows the last 'ANSWER:'",
    "word": "no word follows the last 'ANSWER:'",
    "letter": "no single letter follows the last 'ANSWER:'",
}


def detect_answer(format: str = "line") -> Scorer:
    """Correct when what follows the last "ANSWER:" is an accepted answer (seed 002).

    "ANSWER:" is found in any case, as a word, with emphasis or spaces before the
    colon ("**Answer**:", "ANSWER :"); the LAST one is read, so a model that
    corrects itself is read at its final answer. White space after the colon is
    skipped, newlines too ("ANSWER:\\nParis"). Then, by `format`:

    - "line" (the default): the rest of that line, wherever the line is
      ("ANSWER: C\\nExplanation..." reads "C");
    - "word": the first word of that line ("ANSWER: yes, because..." reads "yes");
    - "letter": one ASCII letter standing alone, decorations allowed ("**B**",
      "(B)", "$B$", "B.", "\\boxed{B}"); "ANSWER: Carrot" has no letter.

    No "ANSWER:", or nothing of the format after it, is a "parse_failure"; an
    answer that is not an accepted one is "wrong". The answer and the accepted
    answers are compared as `detect_match(location="exact")` compares: case
    folded (always: there is no case_sensitive), white space collapsed, white
    space and punctuation stripped from the ends ("Paris." is "paris").

    Outcome: the answer as compared. Metadata: `format`, `answer` (the raw text
    read) and `matched`, the accepted answer matched (as compared) or None.
    """
    name = "detect_answer"
    _choice(name, "format", format, FORMATS)
    read = _READERS[format]
    nothing = {"format": format}
    why_nothing = _NOTHING_READ[format]
    target_of = _targets(_stripped_form(fold), "the answer is", "the answer is not", {})

    def compare(text: str, answers: tuple[str, ...]) -> Score:
        unlabelled = not answers
        mark = answer_mark(text)
        if mark < 0:
            return recorded(name, False, None, "parse_failure", None, "no 'ANSWER:' line found", nothing, unlabelled)
        raw = read(answer_line(text, mark))
        if not raw:
            return recorded(name, False, None, "parse_failure", None, why_nothing, nothing, unlabelled)
        kept = fold(raw)
        seen = strip_ends(kept) or kept
        if unlabelled:
            return recorded(name, None, seen, None, None, _NO_LABEL, {"format": format, "answer": raw}, True)
        target = _first_hit(target_of, answers, _whole, seen, kept)
        if target is not None:
            metadata = {"format": format, "answer": raw, "matched": target.form}
            return recorded(name, True, kept if target.kept else seen, None, None, target.hit, metadata)
        why = f"the answer {_short(seen)} is not {_listing([target_of(a).form for a in answers])}"
        return recorded(name, False, seen, None, None, why, {"format": format, "answer": raw, "matched": None})

    return text_scorer(name, compare, {"format": format})
