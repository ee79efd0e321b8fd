"""`model_graded_qa()` and `model_graded_fact()`: a grader model reads the answer and gives the grade.

The grader is any callable that takes the prompt (one string) and returns the
model's reply (one string), sync or async; `scorebridge_inspect.inspect_grader`
and `scorebridge_dspy.dspy_grader` make one from an Inspect AI model or a DSPy
LM, `scorebridge.testing.FakeGrader` a scripted one for tests.
"""

from __future__ import annotations

import functools
import re
import string
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from ._record import recorded
from ._score import Score, ScorerContractError
from ._scorer import Scorer, _is_async, _run_sync, builtin
from ._text import Rejected, _element, accepted_answers, fold, presort
from ._values import is_missing, is_number, plain_digits

__all__ = [
    "FACT_TEMPLATE",
    "GRADER_FAILED",
    "GRADE_PATTERN",
    "QA_TEMPLATE",
    "grading_instructions",
    "model_graded_fact",
    "model_graded_qa",
    "read_grade",
]

GRADER_FAILED: Final = "grader_failed"
"""The metadata key of an unscored Score whose grader failed: what went wrong (Inspect AI's reason of that name)."""

QA_TEMPLATE: Final = """\
You are grading an answer to a question. An expert has written the criterion a \
correct answer must meet.

<question>
{question}
</question>

<answer>
{answer}
</answer>

<criterion>
{criterion}
</criterion>

Judge only whether the answer meets the criterion; its style, length and grammar \
do not matter. When the criterion has several lines, each line is one acceptable \
answer and meeting any one of them is enough.

{instructions}"""
"""The default prompt of `model_graded_qa()`: placeholders {question}, {answer}, {criterion}, {instructions}."""

FACT_TEMPLATE: Final = """\
You are checking whether an answer to a question states a fact that an expert \
has given.

<question>
{question}
</question>

<answer>
{answer}
</answer>

<fact>
{criterion}
</fact>

The answer is correct when it contains the fact, in any wording, and does not \
contradict it; extra detail that agrees with the fact is fine. When the fact has \
several lines, each line is one acceptable form of it and containing any one of \
them is enough.

{instructions}"""
"""The default prompt of `model_graded_fact()`: the same placeholders as `QA_TEMPLATE`."""

_INSTRUCTIONS: Final = (
    "Think it through briefly, then give your verdict on the last line as {choices}. Write nothing after the verdict."
)
_TWO_GRADES: Final = "GRADE: C if the answer is correct or GRADE: I if it is incorrect"
_THREE_GRADES: Final = (
    "GRADE: C if the answer is correct, GRADE: P if it is partly correct, or GRADE: I if it is incorrect"
)

GRADE_PATTERN: Final = (
    # one class for the white space and decorations after the colon: no two runs to split, so linear time
    r"\bGRADE\s*:[\s*_`'\"(\[]*(partially\s+correct|correct|incorrect|partial|[CPI])\b"
)
"""The default grade pattern (compiled case-insensitive): `GRADE:` then C, P or I (or correct, partial, incorrect)."""


@functools.cache
def _default_pattern() -> re.Pattern[str]:
    # compiled on first use, not when `import scorebridge` runs
    return re.compile(GRADE_PATTERN, re.IGNORECASE)


_GRADES: Final[Mapping[str, str]] = {
    "c": "C",
    "correct": "C",
    "p": "P",
    "partial": "P",
    "partially correct": "P",
    "i": "I",
    "incorrect": "I",
}
_VALUES: Final[Mapping[str, float]] = {"C": 1.0, "P": 0.5, "I": 0.0}
_FIELDS: Final = frozenset({"question", "answer", "criterion", "instructions"})
_NEEDED: Final = ("answer", "criterion")
# The delimiters of the default templates, neutralised inside the filled-in text so
# that an answer cannot close its own block and write the rest of the prompt.
_TAG: Final = re.compile(r"<(?=\s*(?:/\s*)?(?:question|answer|criterion|fact)\s*>)", re.IGNORECASE)

Grader = Callable[[str], Any]
"""A function of the prompt returning the grader model's reply; may be async."""


def grading_instructions(partial_credit: bool = False) -> str:
    """The default instructions: how the grader must write its verdict (C or I; C, P or I with partial credit)."""
    return _INSTRUCTIONS.format(choices=_THREE_GRADES if partial_credit else _TWO_GRADES)


def _last_capture(reply: str, pattern: re.Pattern[str]) -> str | None:
    last = deque(pattern.finditer(reply), maxlen=1)
    return last[0].group(1) if last else None


def _grade_of(capture: str) -> str | None:
    return _GRADES.get(fold(capture))


def read_grade(reply: str, pattern: re.Pattern[str] | None = None) -> str | None:
    """The grade in a grader's reply: "C", "P" or "I", or None when it has none.

    The last match of `pattern` wins, so a reply that quotes the grading
    scale before its verdict is read right; text after the verdict is
    allowed. `pattern` defaults to `GRADE_PATTERN`; its one group is the grade: C, P or I, or the words
    correct, partial ("partially correct") or incorrect, in any case and
    with white space around it ignored. Anything else is no grade.
    """
    capture = _last_capture(reply, _default_pattern() if pattern is None else pattern)
    return None if capture is None else _grade_of(capture)


def _template_fields(name: str, template: str) -> frozenset[str]:
    try:
        parsed = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(template) if f is not None]
    except ValueError as exc:
        raise ValueError(
            f"{name}: the template is not a valid format string ({exc}); write a literal brace as {{{{"
        ) from None
    for field, spec, conversion in parsed:
        if field not in _FIELDS:
            raise ValueError(
                f"{name}: the template has the placeholder {{{field}}}; "
                "only {question}, {answer}, {criterion} and {instructions} are filled in"
            )
        if conversion is not None or spec:
            # {answer!r} would quietly quote the answer; {answer:{x}} would fail only when scoring
            written = field + ("" if conversion is None else f"!{conversion}") + (f":{spec}" if spec else "")
            raise ValueError(
                f"{name}: the template's placeholder {{{written}}} has a conversion or format spec; "
                f"write {{{field}}}, the text is filled in as it is"
            )
    return frozenset(field for field, _, _ in parsed)


def _compile_pattern(name: str, grade_pattern: str | re.Pattern[str] | None) -> re.Pattern[str]:
    if grade_pattern is None:
        return _default_pattern()
    if isinstance(grade_pattern, re.Pattern):
        pattern = grade_pattern
    elif isinstance(grade_pattern, str):
        try:
            pattern = re.compile(grade_pattern, re.IGNORECASE)
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


def _question(name: str, item: Any) -> str:
    """The question of an item: the item itself when it is text, else its `question` or `input` element."""
    if type(item) is str or isinstance(item, str):
        return str(item)
    if is_missing(item):
        return ""
    if is_number(item):
        return plain_digits(item)
    for key in ("question", "input"):
        found = _element(item, key)
        if isinstance(found, str):
            return str(found)
        if is_number(found) and not is_missing(found):
            return plain_digits(found)
    items = getattr(item, "items", None)
    if callable(items):  # a mapping, or a dspy.Example, with one text field
        try:
            values = [v for _, v in items()]
        except Exception:
            values = []
        if len(values) == 1 and isinstance(values[0], str):
            return str(values[0])
    raise ScorerContractError(
        f"{name}: the item must be the question (a string) or hold it as its 'question' or 'input' "
        f"element; got {type(item).__name__} {item!r:.80}"
    )


def _model_graded(
    name: str,
    default_template: str,
    grader: Grader,
    template: str | None,
    instructions: str | None,
    grade_pattern: str | re.Pattern[str] | None,
    partial_credit: bool,
) -> Scorer:
    if not callable(grader):
        raise TypeError(
            f"{name}: grader must be callable, a function of the prompt returning the reply; "
            f"got {type(grader).__name__}"
        )
    if template is not None and not isinstance(template, str):
        raise TypeError(f"{name}: template must be a string or None; got {type(template).__name__}")
    if instructions is not None and not isinstance(instructions, str):
        raise TypeError(f"{name}: instructions must be a string or None; got {type(instructions).__name__}")
    if not isinstance(partial_credit, bool):
        raise TypeError(f"{name}: partial_credit must be True or False; got {partial_credit!r}")
    fields = _template_fields(name, default_template if template is None else template)
    missing = [f"{{{f}}}" for f in _NEEDED if f not in fields]
    if missing:
        raise ValueError(f"{name}: the template needs the placeholders {' and '.join(missing)}")
    if instructions is not None and "instructions" not in fields:
        raise ValueError(f"{name}: instructions were given but the template has no {{instructions}} placeholder")
    pattern = _compile_pattern(name, grade_pattern)
    prompt_template = default_template if template is None else template
    rules = grading_instructions(partial_credit) if instructions is None else instructions
    guard = template is None
    asks_question = "question" in fields  # an item is read only for a template that shows it

    def prepare(item: Any, output: Any, label: Any) -> Score | tuple[str, str]:
        answers = accepted_answers(name, label)
        text = presort(name, output, answers)
        if isinstance(text, Rejected):
            return text.record(name, not answers)
        if not answers:  # no label: nothing to grade against, so the grader is not asked
            return recorded(name, None, text, None, unlabelled=True)
        values = [_question(name, item) if asks_question else "", text, "\n".join(answers)]
        if guard:
            values = [_TAG.sub("&lt;", v) for v in values]
        question, answer, criterion = values
        prompt = prompt_template.format(question=question, answer=answer, criterion=criterion, instructions=rules)
        return prompt, text

    def failed(prompt: str, text: str, why: str, explanation: str | None) -> Score:
        return recorded(name, None, text, None, None, explanation, {"prompt": prompt, GRADER_FAILED: why})

    def raised(prompt: str, text: str, exc: Exception) -> Score:
        error = f"{type(exc).__name__}: {exc}"
        return failed(prompt, text, error, f"the grader raised {error}")

    def verdict(prompt: str, text: str, reply: Any) -> Score:
        if not isinstance(reply, str):
            return failed(prompt, text, f"the grader returned {type(reply).__name__}, not text", None)
        capture = _last_capture(reply, pattern)
        if capture is None:
            return failed(prompt, text, "no GRADE in the reply", reply)
        grade = _grade_of(capture)
        if grade is None:
            return failed(prompt, text, f"the grade {capture[:40]!r} in the reply is not C, P or I", reply)
        counted = "I" if grade == "P" and not partial_credit else grade
        value = _VALUES[counted]
        return recorded(name, value == 1.0, text, None, value, reply, {"prompt": prompt, "grade": grade})

    if _is_async(grader):

        async def model_graded_async_fn(item: Any, output: Any, label: Any) -> Score:
            ready = prepare(item, output, label)
            if isinstance(ready, Score):
                return ready
            prompt, text = ready
            try:
                reply = grader(prompt)
                if isinstance(reply, Awaitable):
                    reply = await reply
            except Exception as exc:
                return raised(prompt, text, exc)
            return verdict(prompt, text, reply)

        fn: Callable[[Any, Any, Any], Any] = model_graded_async_fn
    else:

        def model_graded_fn(item: Any, output: Any, label: Any) -> Score:
            ready = prepare(item, output, label)
            if isinstance(ready, Score):
                return ready
            prompt, text = ready
            try:
                reply = grader(prompt)
                if isinstance(reply, Awaitable):  # a sync function that hands back a coroutine
                    reply = _run_sync(reply)
            except Exception as exc:
                return raised(prompt, text, exc)
            return verdict(prompt, text, reply)

        fn = model_graded_fn
    options = {
        "grader": grader,
        "template": template,
        "instructions": instructions,
        "grade_pattern": None if grade_pattern is None else pattern.pattern,
        "partial_credit": partial_credit,
    }
    return builtin(name, fn, options)


def model_graded_qa(
    grader: Grader,
    *,
    template: str | None = None,
    instructions: str | None = None,
    grade_pattern: str | re.Pattern[str] | None = None,
    partial_credit: bool = False,
) -> Scorer:
    """A scorer that asks a grader model whether the answer meets the label's criterion.

    `grader` is any callable taking the prompt and returning the reply (one
    string), sync or async. With an async grader the scorer's function is
    async, so `acall`, `score_many(..., concurrency=16)` and Inspect AI run
    the grader calls concurrently; the caller bounds how many at once.

    The prompt is `template` (default `QA_TEMPLATE`) filled with `str.format`:
    {question} is the item (a string, or its `question` or `input` element,
    or the only field of a one-field mapping; "" when the item is None),
    {answer} the output's text, {criterion} the label's accepted answers,
    one per line, and {instructions} the grading instructions (default
    `grading_instructions(partial_credit)`). A template must have {answer}
    and {criterion}, may have {question} and {instructions} (which it must
    have when `instructions` is given), and no other placeholder, nor a
    conversion or format spec on one ("{answer!r}", "{answer:>10}"); write a
    literal brace as "{{". The item is read only when the template has
    {question}. With the default template, the tags that delimit
    its blocks ("<answer>", "</answer>", ...) are neutralised inside the
    filled-in text.

    The grader is not asked when there is nothing to grade: an output that
    `presort` rejects (a failure_kind element, `ok` false, no text,
    NOT_IN_DOCUMENT) is recorded with that failure kind, and an item with no
    label is unscored.

    The grade is the last match of `grade_pattern` in the reply (default
    `GRADE_PATTERN`, "GRADE: C"/"GRADE: P"/"GRADE: I" in any case, text after
    it allowed; a string pattern is compiled case-insensitive and must have
    exactly one group, the grade). C is correct (value 1.0), I incorrect
    (0.0, failure kind "wrong"), P partly correct (value 0.5, correct False)
    when `partial_credit` is True, else counted as I. The reply is the
    explanation; metadata has the prompt and the grade the grader gave.

    A reply with no grade, a reply that is not a string, and a grader that
    raises are the grader's failure, not the output's: the Score is unscored
    (correct None, no failure kind) with metadata "grader_failed" saying what
    went wrong, so a benchmark or `score_many` carries on.
    """
    return _model_graded("model_graded_qa", QA_TEMPLATE, grader, template, instructions, grade_pattern, partial_credit)


def model_graded_fact(
    grader: Grader,
    *,
    template: str | None = None,
    instructions: str | None = None,
    grade_pattern: str | re.Pattern[str] | None = None,
    partial_credit: bool = False,
) -> Scorer:
    """A scorer that asks a grader model whether the answer contains the fact in the label.

    The same as `model_graded_qa()` but for its default template,
    `FACT_TEMPLATE`, which asks whether the answer states the fact (in any
    wording, without contradicting it) rather than whether it meets a
    criterion. The label's accepted answers are the fact's acceptable forms.
    """
    return _model_graded(
        "model_graded_fact", FACT_TEMPLATE, grader, template, instructions, grade_pattern, partial_credit
    )
