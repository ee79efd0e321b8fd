"""The prompts of the model-graded scorers: the default templates and instructions, and the template checks."""

from __future__ import annotations

import re
import string
from typing import Final

__all__ = [
    "FACT_TEMPLATE",
    "QA_TEMPLATE",
    "TEMPLATE_FIELDS",
    "grading_instructions",
    "neutralise",
    "template_fields",
]

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

TEMPLATE_FIELDS: Final = frozenset({"question", "answer", "criterion", "instructions"})
"""The placeholders a template may have; it must have {answer} and {criterion}."""

_NEEDED: Final = ("answer", "criterion")

# The delimiters of the default templates, neutralised inside the filled-in text so
# that an answer cannot close its own block and write the rest of the prompt.
_TAG: Final = re.compile(r"<(?=\s*(?:/\s*)?(?:question|answer|criterion|fact)\s*>)", re.IGNORECASE)


def grading_instructions(partial_credit: bool = False) -> str:
    """The default instructions: how the grader must write its verdict (C or I; C, P or I with partial credit)."""
    return _INSTRUCTIONS.format(choices=_THREE_GRADES if partial_credit else _TWO_GRADES)


def neutralise(text: str) -> str:
    """`text` with the default templates' block tags ("<answer>", "</criterion>", ...) made harmless."""
    return _TAG.sub("&lt;", text)


def template_fields(name: str, template: str, instructions_given: bool) -> frozenset[str]:
    """The placeholders of `template`, checked: a ValueError naming the scorer `name` when it cannot be filled.

    A template must have {answer} and {criterion}, may have {question} and
    {instructions} (which it must have when `instructions_given`), and no
    other placeholder, nor a conversion or format spec on one ("{answer!r}",
    "{answer:>10}"), which would quote the text or fail only when scoring.
    """
    try:
        parsed = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(template) if f is not None]
    except ValueError as exc:
        raise ValueError(
            f"{name}: the template is not a valid format string ({exc}); write a literal brace as {{{{"
        ) from None
    for field, spec, conversion in parsed:
        if field not in TEMPLATE_FIELDS:
            raise ValueError(
                f"{name}: the template has the placeholder {{{field}}}; "
                "only {question}, {answer}, {criterion} and {instructions} are filled in"
            )
        if conversion is not None or spec:
            written = field + ("" if conversion is None else f"!{conversion}") + (f":{spec}" if spec else "")
            raise ValueError(
                f"{name}: the template's placeholder {{{written}}} has a conversion or format spec; "
                f"write {{{field}}}, the text is filled in as it is"
            )
    fields = frozenset(field for field, _, _ in parsed)
    missing = [f"{{{f}}}" for f in _NEEDED if f not in fields]
    if missing:
        raise ValueError(f"{name}: the template needs the placeholders {' and '.join(missing)}")
    if instructions_given and "instructions" not in fields:
        raise ValueError(f"{name}: instructions were given but the template has no {{instructions}} placeholder")
    return fields
