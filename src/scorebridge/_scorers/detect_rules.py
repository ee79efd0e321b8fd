"""The text rules of the `detect_*` scorers, each in one place.

- punctuation: ASCII `string.punctuation` (vitals' `[[:punct:]]`, `_` included)
  and every Unicode character of category P* or S* ("“", "…", "€", "−");
- `strip_ends`: white space and punctuation off both ends of an answer, but a
  minus sign or decimal point in front of a leading digit stays ("-5.", ".5");
- `find_clear`, `is_clear`: a target found in a text, but never inside a longer
  number ("25" does not hold "5", "-5" is not "5", "3.14" is not "3");
- `drop_punctuation`: `detect_exact()`'s deletion of punctuation, which keeps
  what makes a number ("3.14" is not "314", "-5" is not "5", "1,000" is "1000");
- `answer_mark`, `first_word`, `lone_letter`: reading what follows the last
  "ANSWER:" for `detect_answer()`.

docs/semantics.md states each rule with its examples and tests.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any, Final

__all__ = [
    "answer_line",
    "answer_mark",
    "drop_punctuation",
    "find_clear",
    "first_word",
    "is_clear",
    "is_punctuation",
    "lone_letter",
    "strip_ends",
]

_PUNCTUATION: Final = r"""!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~"""  # string.punctuation, without importing string
_ASCII_PUNCTUATION: Final = frozenset(_PUNCTUATION)
_ASCII_ENDS: Final = " \t\n\r\x0b\x0c" + _PUNCTUATION  # string.whitespace and string.punctuation
_DROP_ASCII: Final = str.maketrans("", "", _PUNCTUATION)
_SIGNS: Final = "-\u2212"  # hyphen-minus and the minus sign
_LEADS: Final = "-\u2212."  # a sign or a decimal point in front of a digit belongs to the number
_non_digit: Final = re.compile(r"\D").search
_has_digit: Final = re.compile(r"\d").search

# "ANSWER:" in any case, as a word, with markdown emphasis or spaces before the colon
# ("**Answer**:", "ANSWER :"). The last one in the text is the one read.
_MARK: Final = re.compile(r"\banswer[*_]*[ \t]*:", re.IGNORECASE)
_NOT_SPACE: Final = re.compile(r"\S")
# One ASCII letter standing alone after "ANSWER:": decorations before it (punctuation,
# spaces, LaTeX commands such as \boxed or \textbf), and no letter or digit after it.
_LONE_LETTER: Final = re.compile(r"(?:\\[A-Za-z]+|[^\w\s]|_|[ \t])*([A-Za-z])(?![^\W_])")


def is_punctuation(char: str) -> bool:
    """True for one character of punctuation or a symbol (ASCII punctuation, Unicode P* and S*)."""
    if char < "\x80":
        return char in _ASCII_PUNCTUATION
    return unicodedata.category(char)[0] in "PS"


def _strippable(char: str) -> bool:
    return char.isspace() or is_punctuation(char)


def strip_ends(text: str) -> str:
    """`text` without white space and punctuation at either end.

    "**B**", "(B)", "$B$" and "B." give "B"; "Paris." gives "Paris"; "$5" gives
    "5". A minus sign or decimal point directly in front of a leading digit
    stays, so "-5." gives "-5" and ".5" stays ".5" (Inspect AI's strip turns
    "-5" into "5"). Text of nothing but punctuation gives "".
    """
    core = text.strip(_ASCII_ENDS)  # the ASCII part in C; an end left on a non-ASCII character may go on
    if core and (core[0] >= "\x80" or core[-1] >= "\x80"):
        i, j = 0, len(core)
        while i < j and _strippable(core[i]):
            i += 1
        while j > i and _strippable(core[j - 1]):
            j -= 1
        core = core[i:j]
    if core and core[0].isdecimal() and len(core) < len(text):
        # Only strippable characters come before `core`, so its first occurrence is where it starts.
        start = text.find(core)
        if start and text[start - 1] in _LEADS:
            return text[start - 1] + core
    return core


def _three_digits(text: str, k: int) -> bool:
    # A comma grouping thousands is followed by exactly three digits: "1,500", not "1,5" or "1,2,3".
    group = text[k : k + 3]
    return len(group) == 3 and group.isdecimal() and not text[k + 3 : k + 4].isdecimal()


def is_clear(text: str, i: int, target: str) -> bool:
    """True when `target`, found at `text[i:]`, is not part of a longer number there.

    Only a target that starts or ends with a number is concerned. When it starts
    with a digit, the character before it must not be a digit ("25" does not
    hold "5"), a decimal point (".5", "3.14" does not hold "14"), a comma
    grouping thousands ("1,500" does not hold "500") or a minus sign that is not
    itself after a letter or digit ("-5" does not hold "5"; "3-5" and "COVID-19"
    do hold "5" and "19"). When it starts with a sign or point and a digit
    ("-5", ".5"), the character before must not be a digit ("10-5" does not
    hold "-5"). When it ends with a digit, the character after it must not be a
    digit, nor a decimal point followed by a digit ("3.14" does not hold "3"),
    nor a comma grouping thousands ("1,500" does not hold "1"; "1,2,3" holds "1").
    Digits are Unicode decimal digits.
    """
    first = target[0]
    if i:
        before = text[i - 1]
        if first.isdecimal():
            if (
                before.isdecimal()
                or before == "."
                or (before in _SIGNS and (i < 2 or not text[i - 2].isalnum()))
                or (before == "," and i >= 2 and text[i - 2].isdecimal() and _three_digits(text, i))
            ):
                return False
        elif first in _LEADS and target[1:2].isdecimal() and before.isdecimal():
            return False
    if not target[-1].isdecimal():
        return True
    j = i + len(target)
    after = text[j : j + 1]
    if after.isdecimal():
        return False
    if after in (".", ",") and text[j + 1 : j + 2].isdecimal():
        return after == "," and not _three_digits(text, j + 1)
    return True


def find_clear(text: str, target: str) -> int:
    """Index of the first occurrence of `target` in `text` that `is_clear`; -1 if none."""
    i = text.find(target)
    digit_first = target[0].isdecimal()
    while i >= 0:
        if is_clear(text, i, target):
            return i
        if digit_first and i and text[i - 1].isdecimal():
            # Every later start inside this run of digits follows a digit too: skip the run
            # (a degenerate "5555…" output costs one step, not one per digit).
            run_end = _non_digit(text, i)
            if run_end is None:
                return -1
            i = text.find(target, run_end.start())
        else:
            i = text.find(target, i + 1)
    return -1


# Punctuation that `drop_punctuation` deletes: a character of category P* or S* (ASCII punctuation is all
# of them) that a number does not keep. A number keeps one followed by a digit when it comes after a digit
# ("3.14", "3-5", "12:30", "1,5"; not a comma grouping thousands, "1,000") or when it is a sign or
# decimal point that comes after neither a digit nor a letter ("-5", ".5", "(-5)"; not "COVID-19").
_DROPPED: Final = (
    r"(?!(?<=\d)(?:[^,]|,(?!\d{3}(?!\d)))\d"  # kept between digits (a comma not grouping thousands)
    r"|(?<![\d\p{L}])[\-\u2212.]\d)"  # kept: a sign or point in front of a number
    r"[\p{P}\p{S}]"
)


@functools.cache
def _dropped() -> Any:
    import regex  # compiled on first use: only text with numbers and punctuation, or non-ASCII text, needs it

    return regex.compile(_DROPPED)


def drop_punctuation(text: str) -> str:
    """`text` with its punctuation deleted (vitals' `gsub("[[:punct:]]", "")`), numbers kept whole.

    Deleted, not replaced by a space: "don't" gives "dont". What stays:
    punctuation between two digits ("3.14", "3-5", "12:30", "1,5"), but for a
    comma grouping thousands, which goes ("1,000" gives "1000"); a minus sign or
    decimal point directly in front of a digit, unless it follows a letter
    ("-5", ".5", "(-5)" gives "-5"; "COVID-19" gives "COVID19").

    One pass of a regular expression (the `regex` package's Unicode classes
    P* and S*, letters and decimal digits), in linear time: a 10 MB text
    takes tens of milliseconds (a loop over its characters took seconds).
    The `regex` package may follow a newer Unicode than this Python: a
    character assigned since (unknown to `unicodedata`) may be read as
    punctuation here and not by `is_punctuation`.
    """
    if text.isascii():
        dropped = text.translate(_DROP_ASCII)
        if len(dropped) == len(text) or not _has_digit(text):
            return dropped  # no punctuation, or no number for it to be part of
    return _dropped().sub("", text)  # type: ignore[no-any-return]


def answer_mark(text: str) -> int:
    """The index just after the last "ANSWER:" (any case, "**Answer**:" too) in `text`; -1 if none."""
    end = -1
    for found in _MARK.finditer(text):
        end = found.end()
    return end


def answer_line(text: str, mark: int) -> str:
    """The line that follows "ANSWER:" ending at `mark`: from the first character that is not
    white space (so "ANSWER:\\nParis" gives "Paris", as in vitals) to the end of that line."""
    found = _NOT_SPACE.search(text, mark)
    if found is None:
        return ""
    start = found.start()
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]


def first_word(line: str) -> str:
    """The first word of `line`, without punctuation at its ends ("**Yes**, because" gives "Yes")."""
    words = strip_ends(line).split(None, 1)
    return strip_ends(words[0]) if words else ""


def lone_letter(line: str) -> str | None:
    """The single ASCII letter that `line` starts with, decorations allowed; None if there is none.

    "**B**", "(B)", "$B$", "B.", "B) Paris", "\\boxed{B}" and "\\textbf{B}" give
    "B"; "Carrot", "The", "B2" and "3" give None: the letter must stand alone.
    """
    found = _LONE_LETTER.match(line)
    return None if found is None else found.group(1)
