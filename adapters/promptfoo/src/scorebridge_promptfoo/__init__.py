"""scorebridge scorers as promptfoo Python assertions, and promptfoo Python assertions as scorebridge scorers.

- `to_promptfoo(scorer)`: a `get_assert(output, context)` for promptfoo's
  `type: python` assertion, returning promptfoo's grading result
  (`pass`, `score`, `reason`, `named_scores`);
- `assertion("module:name")`: the same, of a scorer found by name (what the
  file `python -m scorebridge_promptfoo module:name` writes calls);
- `from_promptfoo(get_assert)`: a promptfoo Python assertion function as a Scorer.

promptfoo is an npm package: this module imports nothing of it, and nothing of
it is needed to write an assertion file. docs/promptfoo.md has the mapping table.
"""

from __future__ import annotations

import importlib
import math
import sys
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal

from scorebridge import Score
from scorebridge.kit import (
    Ask,
    Scorer,
    ask,
    body_of,
    is_bool,
    is_number,
    judge,
    raised_score,
    recording,
    scale,
    sync_and_async,
    verdict,
)

__all__ = ["GetAssert", "assertion", "from_promptfoo", "to_promptfoo"]

GetAssert = Callable[[str, Mapping[str, Any]], Any]
"""A promptfoo Python assertion: `get_assert(output, context)`, returning a bool, a number or a grading result."""

UNIT: Final = scale("from_promptfoo")
"""promptfoo's points: 0-1, correct at 1 (promptfoo declares no other range)."""


class _Assertion:
    """`get_assert(output, context)` of a scorebridge scorer: promptfoo's grading result of its Score."""

    __slots__ = ("item", "label", "on_error", "scorer")

    def __init__(self, scorer: Scorer, item: str, label: str, on_error: Literal["raise", "record"]) -> None:
        self.scorer, self.item, self.label, self.on_error = scorer, item, label, on_error

    def __repr__(self) -> str:
        return f"to_promptfoo({self.scorer!r})"

    def __call__(self, output: Any, context: Mapping[str, Any] | None = None) -> dict[str, Any]:
        given = (context or {}).get("vars") or {}
        fields = dict(given) if isinstance(given, Mapping) else {}
        label = fields.pop(self.label, None)
        item = fields.get(self.item, fields)
        try:
            score = self.scorer(item, output, label)
        except Exception as exc:
            if self.on_error == "raise":
                raise
            score = raised_score(self.scorer.name, exc, label, needs_label=self.scorer.needs_label)
        return grading_result(self.scorer.name, score)


def grading_result(name: str, score: Score) -> dict[str, Any]:
    """promptfoo's grading result of a Score.

    `pass` is `correct is True` (an unscored row, one with no label, fails: promptfoo
    has no "unscored"); `score` the value (0 for none); `reason` the explanation,
    else what the Score says; `named_scores` the value under the scorer's name,
    and 1 under `NAME/FAILURE_KIND` for a row that failed for a reason.
    """
    value = 0.0 if score.value is None or not math.isfinite(score.value) else float(score.value)
    named = {name: value}
    if score.failure_kind is not None:
        named[f"{name}/{score.failure_kind}"] = 1.0
    if score.explanation:
        reason = score.explanation
    elif score.correct is None:
        reason = f"{name}: unscored (the row has no label)"
    else:
        reason = f"{name}: {'correct' if score.correct else score.failure_kind or 'wrong'}"
    return {"pass": score.correct is True, "score": value, "reason": reason, "named_scores": named}


def to_promptfoo(
    scorer: Scorer, *, item: str = "item", label: str = "label", on_error: Literal["raise", "record"] = "raise"
) -> GetAssert:
    """A promptfoo Python assertion of `scorer`: `get_assert(output, context)`.

    The row is read from the test's `vars`: the label is `vars[label]` (none: an
    unlabelled row), the item `vars[item]` when there is one, else the other vars
    as a mapping; the output is promptfoo's output as given. `on_error="record"`
    makes an exception inside the scorer the row's failure (kind "error") instead
    of promptfoo's assertion error. A Scorer made by `from_promptfoo` gives back
    the assertion it wraps.
    """
    if not isinstance(scorer, Scorer):
        raise TypeError(f"to_promptfoo: scorer must be a scorebridge Scorer; got {type(scorer).__name__}")
    if on_error not in ("raise", "record"):
        raise ValueError(f"to_promptfoo: on_error must be 'raise' or 'record'; got {on_error!r}")
    wrapped = body_of(scorer)
    if isinstance(wrapped, _Call):
        return wrapped.get_assert
    return _Assertion(scorer, item, label, on_error)


def assertion(target: str, *, item: str = "item", label: str = "label") -> GetAssert:
    """`to_promptfoo` of the scorer `target` names, `module:name` (a Scorer, or a function returning one).

    The module is imported as `python -m` would find it; a name that is no scorer
    is a TypeError naming it.
    """
    module_name, sep, name = target.partition(":")
    if not sep or not module_name or not name:
        raise ValueError(f"a scorer is named module:name, such as my_scorers:within; got {target!r}")
    if "" not in sys.path:
        sys.path.insert(0, "")
    found = getattr(importlib.import_module(module_name), name, None)
    if not isinstance(found, Scorer) and callable(found):
        found = found()
    if not isinstance(found, Scorer):
        raise TypeError(f"{target} is not a scorebridge Scorer, nor a function returning one")
    return to_promptfoo(found, item=item, label=label)


class _Call:
    """The body of `from_promptfoo`: the promptfoo assertion called with the output and a context of vars."""

    __slots__ = ("get_assert", "label", "name", "needs_label")

    def __init__(self, get_assert: GetAssert, name: str, label: str, needs_label: bool) -> None:
        self.get_assert, self.name, self.label, self.needs_label = get_assert, name, label, needs_label

    def __call__(self, item: Any, output: Any, label: Any) -> Score | Any:
        asked = ask(self.name, output, label, needs_label=self.needs_label, read_label=False)
        if not isinstance(asked, Ask):
            return asked
        fields = dict(item) if isinstance(item, Mapping) else {"item": item}
        if asked.label is not None:
            fields[self.label] = asked.label
        context = {"vars": fields}
        return judge(self.name, lambda: self.get_assert(asked.text, context), lambda r: _verdict(self.name, asked, r))


def _verdict(name: str, asked: Ask, result: Any) -> Score:
    """promptfoo's result read: a bool, a number (its points on 0-1: correct at 1), or a grading result (its `pass`,
    its `score` the value); read by the kit's `Scale.read`, so a number outside 0-1 is a ScorerContractError."""
    if isinstance(result, Mapping) and "pass" in result:
        _, points = UNIT.read(name, result.get("score"))
        return verdict(name, asked, bool(result["pass"]), value=points, explanation=result.get("reason"))
    if is_bool(result) or is_number(result):
        correct, points = UNIT.read(name, result)
        return verdict(name, asked, correct, value=points)
    raise TypeError(f"{name}: a promptfoo assertion returns a bool, a number or a result with pass; got {result!r:.80}")


def from_promptfoo(
    get_assert: GetAssert,
    *,
    name: str | None = None,
    label: str = "label",
    needs_label: bool = True,
    on_error: Literal["raise", "record"] = "raise",
) -> Scorer:
    """A Scorer of a promptfoo Python assertion function, `get_assert(output, context)`.

    It is called with the output's text and a context whose `vars` are the item's
    fields (an item that is not a mapping as `vars["item"]`) and the label as
    `vars[label]`. Its result: True/False; a number, its points, correct at 1
    and partial credit below (promptfoo itself passes any number above 0 when the
    assertion has no threshold); a grading result's `pass`, `score` and `reason`.
    A number or a `score` outside 0-1 is a ScorerContractError naming the scorer.
    A row with no label is unscored and the assertion is not asked, unless
    `needs_label=False` (an assertion that reads no label: a format check).
    A Scorer of `to_promptfoo`'s assertion is that scorer again.
    The Scorer's name is `name`, else the function's; its options are the
    function's qualified name, so two assertions of one name are one identity.
    """
    if isinstance(get_assert, _Assertion):
        return get_assert.scorer
    if not callable(get_assert):
        raise TypeError(f"from_promptfoo: get_assert must be callable; got {type(get_assert).__name__}")
    scorer_name = name or getattr(get_assert, "__name__", None) or type(get_assert).__name__
    call = _Call(get_assert, scorer_name, label, needs_label)
    body = recording(scorer_name, call, on_error, needs_label=needs_label)
    options = {"assertion": f"{getattr(get_assert, '__module__', '?')}.{getattr(get_assert, '__qualname__', '?')}"}
    return Scorer(scorer_name, sync_and_async(body, is_async=False), options, recorded=True, needs_label=needs_label)
