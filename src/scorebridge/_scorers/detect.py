"""The string-detection scorers of vitals' `detect_*`: `detect_includes`, `detect_match`, `detect_exact`.

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

from collections.abc import Callable
from typing import Final

from .._protocol.reading import collapse, fold, keep
from .._protocol.remake import remade_from_options
from .._protocol.scorer import Scorer
from .detect_compare import PLACES, choice, comparer, flag, stripped_form
from .detect_rules import drop_punctuation, strip_ends
from .text import text_scorer

__all__ = ["LOCATIONS", "detect_exact", "detect_includes", "detect_match"]

LOCATIONS: Final = ("end", "begin", "any", "exact")
"""Where `detect_match` looks for an accepted answer."""


# --- detect_includes -------------------------------------------------------------------


@remade_from_options
def detect_includes(case_sensitive: bool = False) -> Scorer:
    """Correct when an accepted answer appears anywhere in the output (vitals).

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
    flag(name, "case_sensitive", case_sensitive)
    see: Callable[[str], str] = keep if case_sensitive else str.casefold

    def read(text: str) -> tuple[str, str]:
        seen = see(text)
        return seen, seen

    def form(answer: str) -> tuple[str, bool]:
        return see(answer.strip()), False

    compare = comparer(name, read, form, PLACES["any"], {})
    return text_scorer(name, compare, {"case_sensitive": case_sensitive}, detect_includes)


# --- detect_match ----------------------------------------------------------------------


@remade_from_options
def detect_match(location: str = "end", case_sensitive: bool = False) -> Scorer:
    """Correct when an accepted answer is at the `location` of the output (vitals).

    `location` is "end" (the default), "begin", "any" or "exact". White space,
    case and punctuation around the answer are ignored, as vitals says: both
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
    choice(name, "location", location, LOCATIONS)
    flag(name, "case_sensitive", case_sensitive)
    see = collapse if case_sensitive else fold

    def read(text: str) -> tuple[str, str]:
        kept = see(text)
        return strip_ends(kept) or kept, kept

    compare = comparer(name, read, stripped_form(see), PLACES[location], {"location": location})
    return text_scorer(name, compare, {"location": location, "case_sensitive": case_sensitive}, detect_match)


# --- detect_exact ----------------------------------------------------------------------


@remade_from_options
def detect_exact(case_sensitive: bool = False) -> Scorer:
    """Correct when the normalised output equals a normalised accepted answer (vitals).

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
    flag(name, "case_sensitive", case_sensitive)
    see = collapse if case_sensitive else fold

    def read(text: str) -> tuple[str, str]:
        kept = see(text)
        return see(drop_punctuation(text)) or kept, kept

    def form(answer: str) -> tuple[str, bool]:
        dropped = see(drop_punctuation(answer))
        return (dropped, False) if dropped else (see(answer), True)

    compare = comparer(name, read, form, PLACES["exact"], {})
    return text_scorer(name, compare, {"case_sensitive": case_sensitive}, detect_exact)
