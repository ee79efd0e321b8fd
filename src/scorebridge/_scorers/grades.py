"""Reading a grader's reply: the one clear grade in it, or why there is none.

The grade words are the protocol's (`GRADE_WORDS`: C/correct/pass, P/partial,
I/incorrect/fail, any case), so a grader's verdict reads as any other grade.
"""

from __future__ import annotations

import functools
import re
from typing import Final, Literal

from .._protocol.grade import GRADE_WORDS

__all__ = ["GRADE_PATTERN", "Letter", "compile_grade_pattern", "read_verdict"]

Letter = Literal["C", "P", "I"]

_LETTER: Final[dict[float, Letter]] = {1.0: "C", 0.5: "P", 0.0: "I"}


GRADE_PATTERN: Final = (
    # "GRADE:", decorations, one grade word, then only decorations to the end of the line: a grade
    # followed by prose ("GRADE: I think it is correct", "GRADE: C if the answer is correct") is no
    # verdict. One character class after the colon and one after the word: no two runs to split, so
    # linear time.
    r"\bGRADE[ \t]*:[ \t*_`'\"(\[]*(correct|incorrect|partial|pass|fail|[CPI])\b[ \t*_`'\")\].!]*$"
)
"""The default grade pattern (compiled case-insensitive, multi-line): a verdict line, "GRADE: C" (P, I, or a
grade word), decorations allowed around the grade, nothing after it on its line."""


@functools.cache
def _default_pattern() -> re.Pattern[str]:
    # compiled on first use, not when `import scorebridge` runs
    return re.compile(GRADE_PATTERN, re.IGNORECASE | re.MULTILINE)


def compile_grade_pattern(name: str, grade_pattern: str | re.Pattern[str] | None) -> re.Pattern[str]:
    """The grade pattern of the scorer `name`: the default, or one with exactly one group, the grade.

    A string is compiled case-insensitive and multi-line. Raises TypeError or
    ValueError naming the scorer for anything else.
    """
    if grade_pattern is None:
        return _default_pattern()
    if isinstance(grade_pattern, re.Pattern):
        pattern = grade_pattern
    elif isinstance(grade_pattern, str):
        try:
            pattern = re.compile(grade_pattern, re.IGNORECASE | re.MULTILINE)
        except re.error as exc:
            raise ValueError(
                f"{name}: grade_pattern {grade_pattern!r} is not a valid regular expression: {exc}"
            ) from None
    else:
        raise TypeError(
            f"{name}: grade_pattern must be a string or a compiled pattern; got {type(grade_pattern).__name__}"
        )
    if not isinstance(pattern.pattern, str):
        raise TypeError(f"{name}: grade_pattern must match text, not bytes")
    if pattern.groups != 1:
        raise ValueError(
            f"{name}: grade_pattern {pattern.pattern!r} must have exactly one group, the grade; it has {pattern.groups}"
        )
    return pattern


def _letter(capture: str | None) -> Letter | None:
    value = None if capture is None else GRADE_WORDS.get(" ".join(capture.split()).lower())
    return None if value is None else _LETTER[value]


def read_verdict(reply: str, pattern: re.Pattern[str] | None = None) -> Letter | str:
    """The one clear grade in a grader's reply ("C", "P" or "I"), or, when there is none, why (a sentence).

    Every match of `pattern` (default `GRADE_PATTERN`) is a verdict; its group
    is the grade, read with the grade words. There is no clear grade when no
    match is found, when a match is not a grade word, or when the verdicts
    disagree ("GRADE: C" then "GRADE: I"): a grader that says two things has
    not graded.
    """
    found = {m.group(1) for m in (_default_pattern() if pattern is None else pattern).finditer(reply)}
    if not found:
        return "no verdict line (GRADE: C, P or I, alone at the end of its line) in the reply"
    letters = {_letter(capture) for capture in found}
    if None in letters:
        odd = next(c for c in found if _letter(c) is None)
        return f"the grade {odd[:40]!r} in the reply is not C, P or I"
    if len(letters) > 1:
        return f"the reply gives more than one grade: {', '.join(sorted(letters))}"  # type: ignore[arg-type]
    (letter,) = letters
    return letter  # type: ignore[return-value]
