"""from_pydantic_evals: pydantic-evals' evaluators as scorebridge scorers, the same verdicts as inside the library.

Each behaviour pydantic-evals' own tests check of Equals, EqualsExpected, Contains,
IsInstance, MaxDuration and LLMJudge (tests/evals/test_evaluator_common.py,
test_evaluators.py, test_llm_as_a_judge.py) is checked here from the other side:
the verdict the wrapped evaluator gives in plain Python is the one the evaluator
gives when pydantic-evals itself runs it (`run_evaluators`) on the context it
would build.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from typing import Any

import pytest
from pe_support import CASES, Answer, case_id, context, judge_model
from pydantic_ai.models.test import TestModel
from pydantic_evals import Case
from pydantic_evals.evaluators import (
    Contains,
    Equals,
    EqualsExpected,
    EvaluationReason,
    Evaluator,
    EvaluatorContext,
    HasMatchingSpan,
    IsInstance,
    LLMJudge,
    MaxDuration,
)
from pydantic_evals.online import run_evaluators
from pydantic_evals.otel import SpanTreeRecordingError
from pydantic_evals.otel.span_tree import SpanQuery

import scorebridge as sb
from scorebridge_pydantic_evals import from_pydantic_evals


def native(evaluator: Evaluator[Any, Any, Any], output: Any, label: Any, duration: float = 0.0) -> Any:
    """What pydantic-evals records for the evaluator on the context it would build: the one result, or None."""
    results, failures = asyncio.run(run_evaluators([evaluator], context(output, label, duration=duration)))
    assert failures == []
    return results[0] if results else None


@pytest.mark.parametrize(("evaluator", "output", "label", "duration"), CASES, ids=case_id)
def test_a_built_in_gives_in_plain_python_the_verdict_it_gives_inside_pydantic_evals(
    evaluator: Evaluator[Any, Any, Any], output: Any, label: Any, duration: float
) -> None:
    score = from_pydantic_evals(evaluator)({"duration": duration}, output, label)
    result = native(evaluator, output, label, duration)
    assert score.correct is result.value
    assert score.explanation == result.reason


def test_equals_expected_with_no_label_is_unscored_as_pydantic_evals_skips_it() -> None:
    assert native(EqualsExpected(), 42, None) is None
    assert from_pydantic_evals(EqualsExpected())("q", 42, None).correct is None


def test_an_evaluator_that_needs_a_label_is_not_asked_without_one() -> None:
    asked: list[Any] = []

    @dataclass
    class Counting(Evaluator[Any, Any, Any]):
        def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> bool:
            asked.append(ctx.expected_output)
            return True

    scorer = from_pydantic_evals(Counting())
    assert scorer("q", "x", None).correct is None and asked == []
    assert scorer("q", "x", "label").correct is True and asked == ["label"]


@pytest.mark.parametrize(
    "evaluator",
    [Contains(value="Paris"), Equals(value="Paris"), IsInstance(type_name="str"), MaxDuration(seconds=1)],
    ids=lambda e: type(e).__name__,
)
def test_a_reference_free_evaluator_scores_an_unlabelled_row(evaluator: Evaluator[Any, Any, Any]) -> None:
    scorer = from_pydantic_evals(evaluator)
    assert scorer.needs_label is False
    assert scorer("q", "Paris", None).correct is True
    assert sb.Summary.of("x", scorer.score_many(None, ["Paris", "Lyon"], [None, None])).scored == 2


def test_an_evaluator_of_ones_own_that_never_reads_the_label_scores_an_unlabelled_row() -> None:
    # its code never reads ctx.expected_output, so pydantic-evals' answer on a case without one is its verdict
    @dataclass
    class Short(Evaluator[Any, Any, Any]):
        def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> bool:
            return len(ctx.output) < 10

    assert from_pydantic_evals(Short())("q", "Paris", None).correct is True
    assert from_pydantic_evals(Short(), needs_label=True)("q", "Paris", None).correct is None


def test_contains_of_the_empty_string_is_refused_as_it_passes_every_text() -> None:
    assert native(Contains(value=""), "anything at all", None).value is True  # the trap, natively
    with pytest.raises(ValueError, match=r"Contains\(value=''\) is true for every text output"):
        from_pydantic_evals(Contains(value=""))


def test_an_assertion_is_correct_or_wrong() -> None:
    scorer = from_pydantic_evals(Equals(value="Paris"))
    assert scorer("q", "Paris", "Paris") == sb.Score(True, "Paris")
    assert scorer("q", "Lyon", "Paris") == sb.Score(False, "Lyon", "wrong")


@dataclass
class Graded(Evaluator[Any, Any, Any]):
    """An evaluator of one's own: a score, a label, a reason, several results, as asked."""

    returns: Any

    def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> Any:
        return self.returns


def test_a_score_is_partial_credit_correct_at_the_threshold() -> None:
    assert from_pydantic_evals(Graded(0.75))("q", "x", "y") == sb.Score(False, "x", "wrong", 0.75)
    assert from_pydantic_evals(Graded(0.75), threshold=0.7)("q", "x", "y") == sb.Score(True, "x", None, 0.75)


def test_a_score_above_one_with_no_declared_range_is_a_contract_error_naming_the_scorer() -> None:
    # a 3 on an undeclared scale was the value 3.0, correct at the threshold 1.0: every row correct
    with pytest.raises(sb.ScorerContractError, match=r"Graded: .*3\.0 points, outside 0-1.*score_range"):
        from_pydantic_evals(Graded(3))("q", "x", "y")
    assert from_pydantic_evals(Graded(3), score_range=(1, 5))("q", "x", "y") == sb.Score(False, "x", "wrong", 0.5)


def test_a_label_is_the_outcome_and_no_verdict() -> None:
    score = from_pydantic_evals(Graded("positive"))("q", "x", "y")
    assert (score.correct, score.outcome) == (None, "positive")


def test_the_reason_is_the_explanation() -> None:
    score = from_pydantic_evals(Graded(EvaluationReason(False, "too long")))("q", "x", "y")
    assert (score.correct, score.explanation) == (False, "too long")


def test_an_empty_mapping_is_the_librarys_skip_unscored() -> None:
    score = from_pydantic_evals(Graded({}))("q", "x", "y")
    assert score.correct is None and "skipped" in (score.explanation or "")


def test_a_mapping_of_several_results_is_read_by_the_name_chosen() -> None:
    returns = {"is_correct": True, "difficulty": "easy", "f1": 0.5}
    score = from_pydantic_evals(Graded(returns), result="is_correct")("q", "x", "y")
    assert score.correct is True
    assert score.metadata == {"pydantic_evals_results": {"difficulty": "easy", "f1": 0.5}}
    assert from_pydantic_evals(Graded(returns), result="f1")("q", "x", "y").value == 0.5


def test_a_mapping_of_several_results_without_a_choice_is_a_clear_error() -> None:
    with pytest.raises(sb.ScorerContractError, match=r"several results \('is_correct', 'difficulty'\).*result="):
        from_pydantic_evals(Graded({"is_correct": True, "difficulty": "easy"}))("q", "x", "y")
    with pytest.raises(sb.ScorerContractError, match="no result 'nope'"):
        from_pydantic_evals(Graded({"a": True}), result="nope")("q", "x", "y")


@pytest.mark.parametrize("returns", [None, math.nan, {"a": None}, EvaluationReason(math.nan)], ids=repr)
def test_none_and_nan_which_pydantic_evals_records_as_failures_are_contract_errors(returns: Any) -> None:
    _, failures = asyncio.run(run_evaluators([Graded(returns)], context("x", "y")))
    assert len(failures) == 1
    with pytest.raises(sb.ScorerContractError, match=r"Graded: .*a failure of the evaluator"):
        from_pydantic_evals(Graded(returns))("q", "x", "y")


def test_another_return_type_is_a_contract_error() -> None:
    with pytest.raises(sb.ScorerContractError, match="must be a bool"):
        from_pydantic_evals(Graded([1, 2]))("q", "x", "y")


@dataclass
class Seen(Evaluator[Any, Any, Any]):
    """Keeps the context it was handed."""

    contexts: list[EvaluatorContext[Any, Any, Any]]

    def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> bool:
        self.contexts.append(ctx)
        return True


def test_the_context_is_built_from_the_item_output_and_label_with_harmless_defaults() -> None:
    seen = Seen([])
    from_pydantic_evals(seen)("What is 2+2?", "4", "4")
    [ctx] = seen.contexts
    assert (ctx.name, ctx.inputs, ctx.metadata) == (None, "What is 2+2?", None)
    assert (ctx.expected_output, ctx.output) == ("4", "4")
    assert (ctx.duration, ctx.attributes, ctx.metrics) == (0.0, {}, {})
    with pytest.raises(SpanTreeRecordingError, match="no spans were recorded"):
        _ = ctx.span_tree


def test_a_case_item_gives_its_name_inputs_and_metadata() -> None:
    seen = Seen([])
    case = Case(name="sum", inputs={"a": 2, "b": 2}, metadata={"difficulty": "easy"}, expected_output=4)
    from_pydantic_evals(seen)(case, 4, 4)
    [ctx] = seen.contexts
    assert (ctx.name, ctx.inputs, ctx.metadata) == ("sum", {"a": 2, "b": 2}, {"difficulty": "easy"})


def test_an_item_gives_its_name_metadata_and_duration_where_it_carries_them() -> None:
    seen = Seen([])
    item = {"question": "q", "name": "first", "metadata": {"tag": 1}, "duration": 2.5}
    from_pydantic_evals(seen)(item, "x", "y")
    [ctx] = seen.contexts
    assert (ctx.name, ctx.inputs, ctx.metadata, ctx.duration) == ("first", item, {"tag": 1}, 2.5)


def test_a_label_of_any_shape_reaches_the_evaluator_as_it_is() -> None:
    seen = Seen([])
    from_pydantic_evals(seen)("q", {"answer": "4"}, {"answer": "4"})
    assert seen.contexts[0].expected_output == {"answer": "4"}
    assert from_pydantic_evals(EqualsExpected())("q", Answer(key="4"), Answer(key="4")).correct is True


def test_a_span_tree_evaluator_raises_the_recording_error_outside_pydantic_evals() -> None:
    scorer = from_pydantic_evals(HasMatchingSpan(query=SpanQuery(name_equals="x")))
    with pytest.raises(SpanTreeRecordingError) as raised:
        scorer("q", "x", None)
    assert "raised inside the scorer 'HasMatchingSpan'" in raised.value.__notes__


def test_an_output_that_reports_its_failure_is_recorded_without_asking() -> None:
    seen = Seen([])
    score = from_pydantic_evals(seen)("q", {"failure_kind": "refusal"}, "Paris")
    assert (score.correct, score.failure_kind, seen.contexts) == (False, "refusal", [])


def test_a_wrong_verdict_on_an_empty_output_is_a_parse_failure() -> None:
    score = from_pydantic_evals(EqualsExpected())("q", "", "Paris")
    assert (score.correct, score.failure_kind) == (False, "parse_failure")
    assert from_pydantic_evals(EqualsExpected())("q", "NOT_IN_DOCUMENT", "Paris").failure_kind == "not_in_document"


def test_a_wrong_verdict_on_a_structured_output_stays_wrong() -> None:
    score = from_pydantic_evals(Contains(value={"key": "value"}))("q", {"different": "value"}, None)
    assert (score.correct, score.failure_kind) == (False, "wrong")


def test_an_exception_inside_the_evaluator_propagates_with_a_note() -> None:
    @dataclass
    class Failing(Evaluator[Any, Any, Any]):
        def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> bool:
            raise ValueError("Simulated error")

    with pytest.raises(ValueError, match="Simulated error") as raised:
        from_pydantic_evals(Failing())("q", "x", "y")
    assert "raised inside the scorer 'Failing'" in raised.value.__notes__


def test_the_scorer_is_named_as_the_evaluators_results_are() -> None:
    @dataclass
    class CustomName(Evaluator[Any, Any, Any]):
        my_name: str

        def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> int:
            return 1

        def get_default_evaluation_name(self) -> str:
            return f"hello {self.my_name}"

    assert from_pydantic_evals(CustomName("marcelo")).name == "hello marcelo"
    assert from_pydantic_evals(EqualsExpected(evaluation_name="same")).name == "same"
    assert from_pydantic_evals(EqualsExpected(), name="mine").name == "mine"


def test_an_async_evaluator_gives_an_async_scorer() -> None:
    @dataclass
    class Later(Evaluator[Any, Any, Any]):
        async def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> bool:
            await asyncio.sleep(0)
            return ctx.output == ctx.expected_output

    scorer = from_pydantic_evals(Later())
    assert scorer.is_async
    assert scorer("q", "a", "a").correct is True
    assert asyncio.run(scorer.acall("q", "a", "b")).correct is False
    assert [s.correct for s in scorer.score_many(None, ["a", "b"], ["a", "a"])] == [True, False]


def test_a_sync_evaluate_that_hands_back_a_coroutine_is_awaited() -> None:
    async def verdict() -> bool:
        return True

    @dataclass
    class Deferred(Evaluator[Any, Any, Any]):
        def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> Any:
            return verdict()

    assert from_pydantic_evals(Deferred())("q", "x", "y").correct is True


def test_the_deterministic_built_ins_are_fast_and_an_evaluator_of_ones_own_is_not() -> None:
    assert from_pydantic_evals(EqualsExpected()).fast
    assert not from_pydantic_evals(Seen([])).fast


def test_llm_judge_with_a_test_model_gives_its_verdict_and_reason_offline() -> None:
    judge = LLMJudge(rubric="names the capital", model=TestModel())
    scorer = from_pydantic_evals(judge)
    assert scorer.is_async
    result = native(judge, "Paris", None)
    score = scorer("q", "Paris", None)
    assert (score.correct, score.explanation) == (result.value, result.reason) == (False, "a")
    passing = LLMJudge(rubric="r", model=TestModel(custom_output_args={"reason": "fine", "pass": True, "score": 1}))
    assert from_pydantic_evals(passing)("q", "Paris", None) == sb.Score(True, "Paris", explanation="fine")


def test_llm_judge_with_a_function_model_judges_each_output() -> None:
    judge = LLMJudge(rubric="names the capital of France", model=judge_model())
    scores = from_pydantic_evals(judge).score_many(None, ["It is Paris", "Lyon"], [None, None])
    assert [(s.correct, s.explanation) for s in scores] == [(True, "names Paris"), (False, "does not name Paris")]


def test_llm_judge_with_score_and_assertion_is_read_by_the_result_chosen() -> None:
    judge = LLMJudge(rubric="r", model=judge_model(), score={"include_reason": True}, assertion={})
    result = native(judge, "Lyon", None)  # two results, LLMJudge_score and LLMJudge_pass
    assert result is not None
    with pytest.raises(sb.ScorerContractError, match="several results"):
        from_pydantic_evals(judge)("q", "Lyon", None)
    score = from_pydantic_evals(judge, result="LLMJudge_score")("q", "Lyon", None)
    assert (score.correct, score.value) == (False, 0.0)
    assert score.metadata == {"pydantic_evals_results": {"LLMJudge_pass": False}}


def test_llm_judge_with_the_expected_output_needs_a_label() -> None:
    judge = LLMJudge(rubric="matches", model=judge_model(), include_expected_output=True)
    assert from_pydantic_evals(judge)("q", "Paris", None).correct is None
    assert from_pydantic_evals(judge)("q", "Paris", "Paris").correct is True


@pytest.mark.parametrize("threshold", [math.nan, math.inf, "1", True])
def test_a_threshold_must_be_a_finite_number(threshold: Any) -> None:
    with pytest.raises((TypeError, ValueError), match="threshold"):
        from_pydantic_evals(EqualsExpected(), threshold=threshold)


def test_what_is_not_an_evaluator_is_refused() -> None:
    with pytest.raises(TypeError, match="expected a pydantic-evals Evaluator"):
        from_pydantic_evals(lambda ctx: True)  # type: ignore[arg-type]
