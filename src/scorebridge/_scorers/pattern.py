"""The regular-expression scorers of vitals' `detect_*`: `detect_pattern` and `detect_answer`.

Both read the output and the label as every text scorer does (`text.text_scorer`);
docs/semantics.md sets every rule beside vitals and Inspect AI.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, Final

from .._protocol.reading import collapse, fold, keep
from .._protocol.record import recorded
from .._protocol.remake import remade_from_options
from .._protocol.score import Score
from .._protocol.scorer import Scorer
from .._protocol.values import seconds as timeout_seconds
from . import deadline
from .detect_compare import NO_LABEL, REMEMBERED, choice, first_hit, flag, listing, short, stripped_form, targets, whole
from .detect_rules import answer_line, answer_mark, first_word, lone_letter, strip_ends
from .text import text_scorer

__all__ = ["FORMATS", "detect_answer", "detect_pattern"]

FORMATS: Final = ("line", "word", "letter")
"""What `detect_answer` reads after "ANSWER:"."""


# --- detect_pattern --------------------------------------------------------------------


def _compile(scorer: str, pattern: str, case_sensitive: bool) -> Any:
    import regex  # 20-50 ms to import: only a scorer with a pattern pays for it

    try:
        return regex.compile(pattern, 0 if case_sensitive else regex.IGNORECASE)
    except Exception as exc:  # regex.error, and the OverflowError or RecursionError of a monstrous pattern
        raise ValueError(f"{scorer}: the pattern {pattern!r:.200} is not a valid regular expression: {exc}") from exc


@remade_from_options
def detect_pattern(pattern: str, case_sensitive: bool = False, all: bool = False, timeout: float = 1.0) -> Scorer:
    """Correct when what `pattern` captures in the output is an accepted answer (vitals).

    The first (leftmost) match of `pattern` is read, with the `regex` package
    (Python `re` syntax; Unicode `\\w`). Unless `case_sensitive`, the pattern
    itself ignores case and the captures are case folded. Each capture group
    (trimmed, its white space runs made one space) is compared for equality with
    the accepted answers; a pattern with no capture group compares the whole
    match. With `all=False` one group equal to an accepted answer is enough;
    with `all=True` every group that captured something must be one. A group
    that took no part in the match is left out, and a match in which no group
    captured anything is a "parse_failure", as is no match at all.

    The pattern runs on untrusted text for at most `timeout` seconds of wall-clock
    time spent searching (default 1; more than 0 and at most a day, 86400):
    one that backtracks catastrophically (`(a+)+$` on 50 000 "a"s and a "!") is
    stopped and recorded as failure kind "error", `metadata["error"]` saying so.
    The `regex` package's own timeout counts the CPU time of the whole process,
    so other busy threads would use it up and a slow search could run over it
    by seconds: a search that does not end within a 50 ms slice in this thread
    (or a text over 200 000 characters) runs in a child process instead, killed
    at the deadline; starting it (about 20 ms) is not counted. Where no child
    process can be started (a frozen application), the package's CPU-time
    timeout is the fallback. A child process that dies is an "error" too. A
    pattern whose worst case is polynomial (every repeat of one character, no
    repeated group, no back-reference: `(\\d+)`) searches a text short enough
    for that worst case to be a tenth of `timeout` without any of this (1 414
    characters for `(\\d+)`): docs/semantics.md gives the rule.

    Raises at construction: TypeError when `pattern` is not a string, a flag is
    not a bool or `timeout` is not a number; ValueError, naming the pattern, when
    it is empty or not a valid regular expression, and when `timeout` is 0 or
    less, NaN, infinite or more than a day.

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
    flag(name, "case_sensitive", case_sensitive)
    flag(name, "all", all)
    seconds = timeout_seconds(name, timeout)
    assert seconds is not None
    compiled = _compile(name, pattern, case_sensitive)
    search = deadline.searcher(compiled, seconds)
    has_groups = compiled.groups > 0
    see = collapse if case_sensitive else fold
    target_form = lru_cache(maxsize=REMEMBERED)(see)
    every = all
    shown = short(pattern)
    timed_out = {"error": f"regex timed out after {seconds} s"}

    def compare(text: str, answers: tuple[str, ...]) -> Score:
        unlabelled = not answers
        try:
            found = search(text)
        except deadline.TimedOut:
            why = f"the pattern {shown} ran for more than {seconds} s on this output and was stopped"
            return recorded(name, False, None, "error", None, why, timed_out, unlabelled)
        except deadline.Failed as exc:
            why = f"the pattern {shown} could not be run on this output: {exc}"
            return recorded(name, False, None, "error", None, why, {"error": str(exc)}, unlabelled)
        if found is None:
            why = f"the pattern {shown} does not match the output"
            return recorded(name, False, None, "parse_failure", None, why, {"groups": []}, unlabelled)
        whole, groups = found
        raw = list(groups) if has_groups else [whole]
        captured = [see(g) for g in raw if g is not None]
        if not captured:
            why = f"the pattern {shown} matches but none of its groups captured anything"
            return recorded(name, False, None, "parse_failure", None, why, {"groups": raw}, unlabelled)
        if unlabelled:
            return recorded(name, None, captured[0], None, None, NO_LABEL, {"groups": raw}, True)
        targets = [target_form(a) for a in answers]
        if every:
            odd = next((c for c in captured if c not in targets), None)
            hit, seen = odd is None, captured[0] if odd is None else odd
        else:
            good = next((c for c in captured if c in targets), None)
            hit, seen = good is not None, captured[0] if good is None else good
        if hit:
            return recorded(name, True, seen, None, None, f"captured {short(seen)}", {"groups": raw, "matched": seen})
        why = f"captured {short(seen)}, which is not {listing(targets)}"
        return recorded(name, False, seen, None, None, why, {"groups": raw, "matched": None})

    options = {"pattern": pattern, "case_sensitive": case_sensitive, "all": all, "timeout": timeout}
    return text_scorer(name, compare, options, detect_pattern, fast=False)


# --- detect_answer ---------------------------------------------------------------------

_READERS: Final[dict[str, Callable[[str], str | None]]] = {"line": keep, "word": first_word, "letter": lone_letter}
_NOTHING_READ: Final = {
    "line": "nothing follows the last 'ANSWER:'",
    "word": "no word follows the last 'ANSWER:'",
    "letter": "no single letter follows the last 'ANSWER:'",
}


@remade_from_options
def detect_answer(format: str = "line") -> Scorer:
    """Correct when what follows the last "ANSWER:" is an accepted answer (vitals).

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
    choice(name, "format", format, FORMATS)
    read = _READERS[format]
    nothing = {"format": format}
    why_nothing = _NOTHING_READ[format]
    target_of = targets(stripped_form(fold), "the answer is", "the answer is not", {})

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
            return recorded(name, None, seen, None, None, NO_LABEL, {"format": format, "answer": raw}, True)
        target = first_hit(target_of, answers, whole, seen, kept)
        if target is not None:
            metadata = {"format": format, "answer": raw, "matched": target.form}
            return recorded(name, True, kept if target.kept else seen, None, None, target.hit, metadata)
        why = f"the answer {short(seen)} is not {listing([target_of(a).form for a in answers])}"
        return recorded(name, False, seen, None, None, why, {"format": format, "answer": raw, "matched": None})

    return text_scorer(name, compare, {"format": format}, detect_answer)
