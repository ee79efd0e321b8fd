"""from_langsmith: openevals' evaluators and LangSmith's custom ones, in each calling convention, as Scorers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langsmith.evaluation import EvaluationResult, EvaluationResults, RunEvaluator
from langsmith.schemas import Example, Run
from ls_offline import ScriptedJudge
from openevals.exact import exact_match, exact_match_async
from openevals.json import create_json_match_evaluator
from openevals.llm import create_llm_as_judge
from openevals.string.levenshtein import levenshtein_distance

import scorebridge as sb
from scorebridge_langsmith import from_langsmith

PAIRS = [
    ("Paris", "Paris"),
    ("Paris", "paris"),
    ("Lyon", "Paris"),
    ({"city": "Paris", "country": "France"}, {"country": "France", "city": "Paris"}),
    ({"city": "Paris"}, {"city": "Lyon"}),
    ([1, 2], [1, 2]),
    (42, 42),
]


@pytest.mark.parametrize(("output", "reference"), PAIRS, ids=[repr(p) for p in PAIRS])
def test_exact_match_gives_openevals_own_verdict(output: Any, reference: Any) -> None:
    # openevals #108: its evaluators used without LangSmith give what they give in LangSmith
    want = exact_match(outputs=output, reference_outputs=reference)["score"]
    assert from_langsmith(exact_match)("q", output, reference).correct is want


def test_levenshtein_distance_is_partial_credit() -> None:
    want = levenshtein_distance(outputs="Pari", reference_outputs="Paris")["score"]
    score = from_langsmith(levenshtein_distance)("q", "Pari", "Paris")
    assert (score.correct, score.value, score.grade) == (False, want, "P")


def test_json_match_judges_a_structured_output_whole() -> None:
    evaluator = create_json_match_evaluator(aggregator="average")
    output, reference = {"name": "Ada", "year": 1815, "field": "maths"}, {"name": "Ada", "year": 1816, "field": "maths"}
    [want] = [r["score"] for r in evaluator(outputs=output, reference_outputs=reference)]
    score = from_langsmith(evaluator, name="json_match")("q", output, reference)
    assert (score.value, score.correct) == (pytest.approx(want), False)


def test_json_match_per_key_results_are_averaged_and_kept() -> None:
    evaluator = create_json_match_evaluator()  # one result per key
    score = from_langsmith(evaluator, name="json_match")("q", {"a": 1, "b": 2}, {"a": 1, "b": 3})
    assert score.value == 0.5 and score.metadata["results"] == {"json_match:a": 1.0, "json_match:b": 0.0}


def test_an_llm_judge_with_any_model_is_asked_about_the_output() -> None:
    judge = ScriptedJudge(False, "Lyon is not the capital")
    evaluator = create_llm_as_judge(prompt="Is {outputs} right? Reference: {reference_outputs}", judge=judge, model="m")
    score = from_langsmith(evaluator, name="correctness")("q", "Lyon", "Paris")
    assert (score.correct, score.explanation) == (False, "Lyon is not the capital")
    assert "Is Lyon right? Reference: Paris" in str(judge.asked)


def test_an_evaluator_that_needs_a_reference_is_not_asked_without_one() -> None:
    # openevals' exact_match raises ValueError without a reference: a row with no label is unscored instead
    score = from_langsmith(exact_match)("q", "Paris", None)
    assert (score.correct, score.value) == (None, None)


def test_an_evaluator_of_the_output_alone_needs_no_label() -> None:
    def concise(outputs: Any) -> bool:
        return len(outputs) < 10

    scorer = from_langsmith(concise)
    assert not scorer.needs_label and scorer("q", "Paris", None).correct is True


def test_a_run_and_example_evaluator_gets_them_as_langsmith_holds_them() -> None:
    seen: list[Any] = []

    def correct(run: Run, example: Example) -> dict[str, Any]:
        seen.append((run.outputs, example.outputs, example.inputs))
        return {"key": "correct", "score": run.outputs["output"] == example.outputs["answer"]}

    assert from_langsmith(correct)("Capital of France?", "Paris", "Paris").correct is True
    assert seen == [({"output": "Paris"}, {"answer": "Paris"}, {"input": "Capital of France?"})]


def test_custom_positional_names_are_run_and_example() -> None:
    # LangSmith's rule: two required arguments of other names are (run, example), by position
    def check(r: Run, e: Example) -> bool:
        return r.outputs == {"output": "Paris"} and e.outputs == {"answer": "Paris"}

    assert from_langsmith(check)("q", "Paris", "Paris").correct is True


def test_a_run_evaluator_object_is_called_on_a_run_and_an_example() -> None:
    class Matches(RunEvaluator):
        def evaluate_run(self, run: Run, example: Example | None = None, evaluator_run_id: Any = None) -> Any:
            assert example is not None
            return EvaluationResult(key="matches", score=run.outputs["output"] == example.outputs["answer"])

    assert from_langsmith(Matches(), name="matches")("q", "Paris", "Paris").correct is True


def test_evaluation_results_are_read() -> None:
    def both(outputs: Any, reference_outputs: Any) -> EvaluationResults:
        return EvaluationResults(
            results=[EvaluationResult(key="same", score=1.0), EvaluationResult(key="short", score=0.0, comment="long")]
        )

    score = from_langsmith(both)("q", "Paris", "Paris")
    assert (score.value, score.explanation, score.metadata["results"]) == (
        0.5,
        "long",
        {"same": 1.0, "short": 0.0},
    )


def test_a_categorical_value_is_read_by_the_grade_mapping() -> None:
    def graded(outputs: Any, reference_outputs: Any) -> dict[str, Any]:
        return {"key": "graded", "value": "C", "comment": "fine"}

    assert from_langsmith(graded)("q", "Paris", "Paris").correct is True


def test_a_score_outside_0_to_1_is_a_contract_error() -> None:
    def stars(outputs: Any, reference_outputs: Any) -> int:
        return 4

    with pytest.raises(sb.ScorerContractError, match="stars: a score must be a number from 0 to 1"):
        from_langsmith(stars)("q", "Paris", "Paris")


def test_an_async_evaluator_makes_an_async_scorer() -> None:
    scorer = from_langsmith(exact_match_async)
    assert scorer.is_async and asyncio.run(scorer.acall("q", "Paris", "Paris")).correct is True
    assert scorer("q", "Lyon", "Paris").correct is False


def test_a_raising_evaluator_names_the_scorer_or_is_recorded() -> None:
    def broken(outputs: Any, reference_outputs: Any) -> bool:
        raise KeyError("answer")

    with pytest.raises(KeyError) as raised:
        from_langsmith(broken)("q", "Paris", "Paris")
    assert "raised inside the scorer 'broken'" in str(raised.value.__notes__)
    score = from_langsmith(broken, on_error="record")("q", "Paris", "Paris")
    assert (score.correct, score.failure_kind) == (False, "error")


def test_an_evaluator_whose_identity_cannot_be_read_asks_for_options() -> None:
    class Grader:
        def __init__(self, url: str) -> None:
            self.base = url  # kept under another name: what it was made with cannot be read back

    grader = Grader("http://127.0.0.1:9")

    def graded(outputs: Any, reference_outputs: Any) -> bool:
        return bool(grader.base) and outputs == reference_outputs

    with pytest.raises(TypeError, match=r"from_langsmith\(graded\): options_of: cannot hold grader .*options="):
        from_langsmith(graded)
    assert from_langsmith(graded, options={"grader": "local"}).options == {"grader": "local"}


def test_what_is_no_evaluator_is_refused_naming_from_langsmith() -> None:
    with pytest.raises(TypeError, match="from_langsmith: expected an evaluator"):
        from_langsmith("exact_match")  # type: ignore[arg-type]
