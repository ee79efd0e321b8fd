"""`model_graded_qa()` and `model_graded_fact()`: a grader model reads the answer and gives the grade.

The grader is any callable that takes the prompt (one string) and returns the
model's reply (one string), sync or async; `scorebridge_inspect.inspect_grader`
and `scorebridge_dspy.dspy_grader` make one from an Inspect AI model or a DSPy
LM, `scorebridge.testing.FakeGrader` a scripted one for tests.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any, Final

from .._protocol.reading import Rejected, accepted_answers, item_text, presort
from .._protocol.record import recorded
from .._protocol.score import Score, ScorerContractError
from .._protocol.scorer import Scorer, is_async
from .._protocol.values import is_bool, is_number, shown
from .._protocol.values import seconds as timeout_seconds
from .grader_cache import GraderCache, check_cache, grader_identity
from .grader_calls import Asker, GraderFailed, Retry, check_retry, retries_unseen
from .grades import compile_grade_pattern, read_verdict
from .prompts import FACT_TEMPLATE, QA_TEMPLATE, grading_instructions, neutralise, template_fields

__all__ = [
    "CALL_OPTIONS",
    "DEFAULT_RETRY",
    "DEFAULT_TIMEOUT",
    "GRADER_CACHED",
    "GRADER_FAILED",
    "Grader",
    "grading_options",
    "model_graded_fact",
    "model_graded_qa",
]

GRADER_FAILED: Final = "grader_failed"
"""The metadata key of an unscored Score whose grader failed: what went wrong (Inspect AI's reason of that name)."""

GRADER_CACHED: Final = "grader_cached"
"""The metadata key (True) of a Score whose grader's reply came from the cache (`cache=`), not the grader."""

DEFAULT_TIMEOUT: Final = 30.0
"""Seconds one grader call may take before it is given up (and, being transient, tried again): several
times a grading reply of a chat model over an HTTP API (1 to 10 s), short enough that a hung connection
costs a row half a minute, not five."""

DEFAULT_RETRY: Final = Retry()
"""The retries of a model-graded scorer unless told otherwise: 8 calls at most, over 120 s at most."""

CALL_OPTIONS: Final = frozenset({"retry", "rate", "cache"})
"""The options of a model-graded scorer that say how the grader is asked, not how a reply is graded: a
benchmark file resumed with others holds the same grades."""

_VALUES: Final = {"C": 1.0, "P": 0.5, "I": 0.0}

Grader = Callable[[str], Any]
"""A function of the prompt returning the grader model's reply; may be async."""


def _model_graded(
    name: str,
    factory: Callable[..., Scorer],
    default_template: str,
    grader: Grader,
    template: str | None,
    instructions: str | None,
    grade_pattern: str | re.Pattern[str] | None,
    partial_credit: bool,
    timeout: float | None,
    retry: Retry | None,
    rate: float | None,
    cache: str | GraderCache | None,
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
    seconds = timeout_seconds(name, timeout, none=True)
    if rate is not None and (is_bool(rate) or not is_number(rate) or not 0 < float(rate) < float("inf")):
        raise ValueError(
            f"{name}: rate must be a number of grader calls a second, more than 0, or None; got {shown(rate)}"
        )
    asker = Asker(
        grader, seconds, check_retry(name, retry), None if rate is None else float(rate), check_cache(name, cache)
    )
    if rate is None and asker.pacer.first_warning() and (client := retries_unseen(grader)) is not None:
        import warnings

        warnings.warn(
            f"{name}: the grader calls {client}, which waits out the API's 429s itself, unseen by the scorer: "
            "its calls are not paced to the rate limit, so batch after batch meets it again. Hand the client "
            "to scorebridge.openai_grader (a dspy.LM to scorebridge_dspy.dspy_grader), make it with its "
            "retries off (max_retries=0), or give rate= just under the API's limit",
            UserWarning,
            stacklevel=3,
        )
    prompt_template = default_template if template is None else template
    fields = template_fields(name, prompt_template, instructions is not None)
    pattern = compile_grade_pattern(name, grade_pattern)
    rules = grading_instructions(partial_credit) if instructions is None else instructions
    guard = template is None
    asks_question = "question" in fields  # an item is read only for a template that shows it
    shows_rules = "instructions" in fields

    def question(item: Any) -> str:
        text = item_text(item)
        if text is None:
            raise ScorerContractError(
                f"{name}: the item must be the question (a string) or hold it as its 'input' or 'question' "
                f"element; got {type(item).__name__}"
            )
        return text

    def prepare(item: Any, output: Any, label: Any) -> Score | tuple[str, str]:
        try:
            answers = accepted_answers(name, label)
            text = presort(name, output, answers)
            if isinstance(text, Rejected):
                return text.record(name, not answers)
            if not answers:  # no label: nothing to grade against, so the grader is not asked
                return recorded(name, None, text, None, unlabelled=True)
            values = [question(item) if asks_question else "", text, "\n".join(answers)]
        except ScorerContractError:
            raise
        except Exception as exc:  # an output, label or item whose own methods fail
            raise ScorerContractError(f"{name}: cannot read the item, output or label: {exc!r:.200}") from exc
        if guard:
            values = [neutralise(v) for v in values]
        item_question, answer, criterion = values
        prompt = prompt_template.format(question=item_question, answer=answer, criterion=criterion, instructions=rules)
        return prompt, text

    def failed(prompt: str, text: str, why: str, explanation: str | None, cached: bool = False) -> Score:
        metadata = {"prompt": prompt, GRADER_FAILED: why, **({GRADER_CACHED: True} if cached else {})}
        return recorded(name, None, text, None, None, explanation, metadata)

    def gave_none(prompt: str, text: str, failure: GraderFailed) -> Score:
        return failed(prompt, text, failure.why, failure.explanation)

    def verdict(prompt: str, text: str, answered: tuple[Any, bool]) -> Score:
        reply, cached = answered
        if not isinstance(reply, str):
            return failed(prompt, text, f"the grader returned {type(reply).__name__}, not text", None, cached)
        # An echo of the prompt grades nothing, whatever grade words the prompt holds (20 of 20 echoes were
        # once read as "I"): the whole prompt (any template), or the instructions of a template that shows them.
        if len(prompt) >= 20 and prompt.strip() in reply:
            return failed(prompt, text, "the reply repeats the prompt", reply, cached)
        if shows_rules and len(rules) >= 20 and rules in reply:
            return failed(prompt, text, "the reply repeats the prompt's instructions", reply, cached)
        grade = read_verdict(reply, pattern, prompt)
        if grade not in _VALUES:
            return failed(prompt, text, grade, reply, cached)
        counted = "I" if grade == "P" and not partial_credit else grade
        value = _VALUES[counted]
        metadata = {"prompt": prompt, "grade": grade, **({GRADER_CACHED: True} if cached else {})}
        return recorded(name, value == 1.0, text, None, value, reply, metadata)

    fn: Callable[[Any, Any, Any], Any]
    if is_async(grader):

        async def model_graded_async_fn(item: Any, output: Any, label: Any) -> Score:
            ready = prepare(item, output, label)
            if isinstance(ready, Score):
                return ready
            prompt, text = ready
            try:
                answered = await asker.aask(prompt)
            except GraderFailed as failure:
                return gave_none(prompt, text, failure)
            return verdict(prompt, text, answered)

        fn = model_graded_async_fn
    else:

        def model_graded_fn(item: Any, output: Any, label: Any) -> Score:
            ready = prepare(item, output, label)
            if isinstance(ready, Score):
                return ready
            prompt, text = ready
            try:
                answered = asker.ask(prompt)
            except GraderFailed as failure:
                return gave_none(prompt, text, failure)
            return verdict(prompt, text, answered)

        fn = model_graded_fn
    options = {
        "grader": grader,
        "template": template,
        "instructions": instructions,
        "grade_pattern": None if grade_pattern is None else pattern.pattern,
        "partial_credit": partial_credit,
        "timeout": timeout,
        "retry": retry,
        "rate": rate,
        "cache": cache,
    }
    return Scorer(
        name, fn, options, factory=factory, recorded=True, check_label=functools.partial(accepted_answers, name)
    )


def model_graded_qa(
    grader: Grader,
    *,
    template: str | None = None,
    instructions: str | None = None,
    grade_pattern: str | re.Pattern[str] | None = None,
    partial_credit: bool = False,
    timeout: float | None = DEFAULT_TIMEOUT,
    retry: Retry | None = DEFAULT_RETRY,
    rate: float | None = None,
    cache: str | GraderCache | None = None,
) -> Scorer:
    """A scorer that asks a grader model whether the answer meets the label's criterion.

    `grader` is any callable taking the prompt and returning the reply (one
    string), sync or async. With an async grader the scorer's function is
    async, so `acall`, `score_many(..., concurrency=16)` and Inspect AI run
    the grader calls concurrently; the caller bounds how many at once.

    The prompt is `template` (default `QA_TEMPLATE`) filled with `str.format`:
    {question} is the item's text (`scorebridge.kit.item_text`: the item when
    it is a string, else its `input`, else its `question` element, or the
    only field of a one-field mapping; "" when the item is None), {answer}
    the output's text, {criterion} the label's accepted answers, one per
    line, and {instructions} the grading instructions (default
    `grading_instructions(partial_credit)`). A template must have {answer}
    and {criterion}, may have {question} and {instructions} (which it must
    have when `instructions` is given), and no other placeholder, nor a
    conversion or format spec on one ("{answer!r}", "{answer:>10}"); write a
    literal brace as "{{". The item is read only when the template has
    {question}. With the default template, the tags that delimit its blocks
    ("<answer>", "</answer>", ...) are neutralised inside the filled-in text.

    The grader is not asked when there is nothing to grade: an output that
    `presort` rejects (a failure_kind element, `ok` false, no text,
    NOT_IN_DOCUMENT) is recorded with that failure kind, and an item with no
    label is unscored. An item, output or label that cannot be read is a
    `ScorerContractError` naming the scorer.

    The grade is the reply's last verdict, as in Inspect AI and vitals (a
    grader that reconsiders, "GRADE: I ... on reflection ... GRADE: C",
    grades C): with the default `grade_pattern` (`GRADE_PATTERN`) a line that
    ends "GRADE: C" (P, I, or a grade word: correct, partial, incorrect, pass,
    fail; any case; decorations such as "**" allowed). A string pattern is
    compiled case-insensitive and multi-line and must have exactly one group,
    the grade. C is correct (value 1.0), I incorrect (0.0, failure kind "wrong"),
    P partly correct (value 0.5, correct False) when `partial_credit` is
    True, else counted as I. The reply is the explanation; metadata has the
    prompt and the grade the grader gave.

    The grader's failure is not the output's: a reply with no grade (no
    verdict line, a grade followed by prose, a last capture that is no grade,
    an echo: the whole prompt, the instructions of a template that shows
    them, or a last verdict line copied from the prompt with the line before
    it), a reply that is not a string, a
    grader that raises, and a grader that gives no reply within `timeout`
    seconds (default 30; None waits for ever) make the Score unscored
    (correct None, no failure kind) with metadata "grader_failed" saying what
    went wrong, so a benchmark or `score_many` carries on; `Summary` counts
    such rows as `grader_failed`, apart from the rows with no label. A sync
    grader that hangs is left running on a daemon thread of its own.

    A call that fails transiently (a 429, a 5xx, a dropped connection, a
    timeout: `transient` in the module of `Retry`) is tried again as `retry`
    says (default `Retry()`: 8 calls over 120 s at most, exponential backoff
    with jitter, a server's Retry-After honoured, a request slower than the
    grader's pace hedged with a second one after 0.5 s at least; None: one
    call); a
    permanent failure (a 400, a 401, a refusal, any other exception) is
    recorded at once. Only a row whose retries are spent is left unscored.
    The calls to one grader (the same object), from every scorer in the
    process, share one pacing: after a 429 fewer run at once (halved), and
    more again as calls succeed; `rate` (requests a second) spaces their
    starts evenly, the lowest rate any of those scorers gave holding. In a
    `kit.grader_deadline` block (a reward batch's), no call runs past it.

    `cache` (a file path or a `GraderCache`; default None) keeps each text
    reply in SQLite, found by the grader's identity (`kit.grader_identity`)
    and the whole prompt: a rerun asks the grader only for what it lacks, and
    a Score whose reply came from there has metadata "grader_cached" True.
    """
    return _model_graded(
        "model_graded_qa",
        model_graded_qa,
        QA_TEMPLATE,
        grader,
        template,
        instructions,
        grade_pattern,
        partial_credit,
        timeout,
        retry,
        rate,
        cache,
    )


def model_graded_fact(
    grader: Grader,
    *,
    template: str | None = None,
    instructions: str | None = None,
    grade_pattern: str | re.Pattern[str] | None = None,
    partial_credit: bool = False,
    timeout: float | None = DEFAULT_TIMEOUT,
    retry: Retry | None = DEFAULT_RETRY,
    rate: float | None = None,
    cache: str | GraderCache | None = None,
) -> Scorer:
    """A scorer that asks a grader model whether the answer contains the fact in the label.

    The same as `model_graded_qa()` but for its default template,
    `FACT_TEMPLATE`, which asks whether the answer states the fact (in any
    wording, without contradicting it) rather than whether it meets a
    criterion. The label's accepted answers are the fact's acceptable forms.
    """
    return _model_graded(
        "model_graded_fact",
        model_graded_fact,
        FACT_TEMPLATE,
        grader,
        template,
        instructions,
        grade_pattern,
        partial_credit,
        timeout,
        retry,
        rate,
        cache,
    )


def grading_options(scorer: Scorer) -> dict[str, Any]:
    """A scorer's options but, for a model-graded one, those that say only how the grader is asked (retry,
    rate, cache), and its grader as the cache knows it (`grader_identity`: the model, its API and sampling
    settings, or a function's file and name): what a benchmark file's header records, so a run resumed with a
    cache added holds the same grades and goes on, and one resumed with another grader model is refused."""
    if scorer.factory not in (model_graded_qa, model_graded_fact):
        return dict(scorer.options)
    options = {k: v for k, v in scorer.options.items() if k not in CALL_OPTIONS}
    options["grader"] = grader_identity(options["grader"])
    return options
