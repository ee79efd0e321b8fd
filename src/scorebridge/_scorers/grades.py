"""Reading a grader's reply: its last verdict, or why it gives none (no verdict line, an echo of the prompt).

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


def _line(text: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the line of `text` holding `text[start:end]`."""
    first = text.rfind("\n", 0, start) + 1
    last = text.find("\n", end)
    return first, len(text) if last < 0 else last


def _copied(reply: str, verdict: re.Match[str], prompt: str) -> bool:
    """Whether the verdict line `verdict` of `reply` sits in text copied from `prompt`.

    Copied: the verdict's line together with the line before it (blank lines
    between skipped; every run of white space read as one space) is in the
    prompt, or the verdict's line is, when it holds
    more than the verdict ("For example, you might write 'GRADE: I'."). A
    verdict line alone ("GRADE: I") is what a grader writes, whatever example
    lines the prompt holds, so it is never a copy on its own.
    """
    first, last = _line(reply, verdict.start(), verdict.end())
    line = reply[first:last].strip()
    prompt = _spaced(prompt)
    if line != verdict.group(0).strip() and _spaced(line) in prompt:
        return True
    before = reply[:first].rstrip()
    if not before:
        return False
    start = before.rfind("\n") + 1
    return _spaced(reply[start:last]) in prompt


def _spaced(text: str) -> str:
    """`text` with each run of white space one space: a copy is a copy whatever its line breaks and indents."""
    return " ".join(text.split())


def read_verdict(reply: str, pattern: re.Pattern[str] | None = None, prompt: str | None = None) -> Letter | str:
    """The grade of a grader's reply, its last verdict ("C", "P" or "I"); when it gives none, why (a sentence).

    Every match of `pattern` (default `GRADE_PATTERN`) is a verdict, and the
    last one counts, as in Inspect AI and vitals: a grader that reconsiders
    ("GRADE: I ... on reflection ... GRADE: C") grades C. Its group is the
    grade, read with the grade words; there is no grade when no match is
    found or the last match is not a grade word. With `prompt` (the prompt
    the grader was given), a last verdict that sits in text copied from the
    prompt is an echo, no grade (`_copied`): a grader that repeats the
    prompt's own verdict lines ("GRADE: C" / "GRADE: I", its instructions, an
    answer that writes one) has not graded.
    """
    last = None
    for found in (_default_pattern() if pattern is None else pattern).finditer(reply):
        last = found
    if last is None:
        return "no verdict line (GRADE: C, P or I, alone at the end of its line) in the reply"
    capture = last.group(1)
    letter = _letter(capture)
    if letter is None:
        return f"the grade {(capture or '')[:40]!r} in the reply is not C, P or I"
    if prompt is not None and _copied(reply, last, prompt):
        return "the reply's last verdict line is copied from the prompt"
    return letter
