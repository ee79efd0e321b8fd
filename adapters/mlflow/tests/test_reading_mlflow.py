"""from_mlflow reads what a scorer is from MLflow (a judge's input fields, its value type's range) and hands it
the row as it is (inputs and outputs untouched), as `mlflow.genai.evaluate` would."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from mlflow.genai.judges import make_judge
from mlflow.genai.scorers import Equivalence, RegexMatch, Scorer, scorer
from mlflow.genai.scorers.builtin_scorers import BuiltInScorer

from scorebridge.kit.testing import Adapter, Check, Judge, checks
from scorebridge_mlflow import from_mlflow

LocalJudge = Any  # the local judge of conftest.py (a fixture)


def test_a_judge_whose_instructions_never_name_expectations_scores_an_unlabelled_row(judge: LocalJudge) -> None:
    # _needs_label read __call__'s signature, which always declares expectations: this gave correct=None
    polite = make_judge(
        name="j", instructions="Is {{ outputs }} polite?", feedback_value_type=bool, model="openai:/gpt-4"
    )
    assert from_mlflow(polite).needs_label is False
    judge.script = lambda prompt: {"rationale": "it thanks", "result": True}
    local = make_judge(name="j", instructions="Is {{ outputs }} polite?", feedback_value_type=bool, model=judge.model)
    assert from_mlflow(local)("q", "Thank you!", None).correct is True


def test_a_judge_whose_instructions_name_expectations_needs_a_label() -> None:
    made = make_judge(
        name="j", instructions="Does {{ outputs }} match {{ expectations }}?", feedback_value_type=bool, model="x:/y"
    )
    assert from_mlflow(made).needs_label is True


def test_a_scorer_taking_only_keyword_arguments_needs_no_label() -> None:
    # MLflow's Scorer.run hands a **kwargs scorer nothing, so it never sees expectations
    @scorer
    def anything(**kwargs: Any) -> bool:
        return not kwargs

    assert from_mlflow(anything)("q", "x", None).correct is True


def built_ins() -> list[type[Any]]:
    """Every built-in scorer class the installed MLflow defines (its subclasses of BuiltInScorer)."""
    found: list[type[Any]] = []
    todo = [BuiltInScorer]
    while todo:
        kind = todo.pop()
        for sub in kind.__subclasses__():
            if sub.__module__.startswith("mlflow.") and sub not in found:
                found.append(sub)
                todo.append(sub)
    return found


def test_every_built_in_says_its_input_fields_so_no_list_is_kept() -> None:
    # whether a built-in needs a label is read from get_input_fields(): every one must define it
    lacking = [k.__name__ for k in built_ins() if "get_input_fields" not in vars(k) and not _inherits_fields(k)]
    assert built_ins() and not lacking, f"built-ins with no input fields of their own: {lacking}"


def _inherits_fields(kind: type[Any]) -> bool:
    return any("get_input_fields" in vars(base) for base in kind.__mro__[1:] if base is not BuiltInScorer)


def test_the_output_reaches_the_scorer_as_the_row_holds_it() -> None:
    # a chat-completion dict became "", None became "" and a number text
    seen: list[tuple[Any, Any]] = []

    @scorer
    def looks(inputs, outputs) -> bool:
        seen.append((inputs, outputs))
        return True

    made = from_mlflow(looks)
    chat = {"choices": [{"message": {"role": "assistant", "content": "Paris"}}]}
    for item, output in (("a question", chat), (None, 42), ({"q": 1}, None), ("a question", "Paris")):
        made(item, output, None)
    assert seen == [("a question", chat), (None, 42), ({"q": 1}, None), ("a question", "Paris")]


def test_regex_match_on_no_output_says_no_as_mlflow_does() -> None:
    # RegexMatch(".*") said correct where MLflow says no: it was handed "" for None
    assert RegexMatch(pattern=".*").run(outputs=None).value == "no"
    assert from_mlflow(RegexMatch(pattern=".*"))("q", None, None).correct is False


def test_equivalence_of_two_numbers_is_its_deterministic_no() -> None:
    # Equivalence(42, 43) fell through to the LLM judge (42 as the text "42") instead of its own "no"
    score = from_mlflow(Equivalence())("q", 42, 43)
    assert (score.correct, score.explanation) == (False, "Values do not match: 42 != 43")


def test_a_judge_on_a_literal_scale_is_mapped_onto_0_1(judge: LocalJudge) -> None:
    replies = iter([1, 3, 5])
    judge.script = lambda prompt: {"rationale": "rated", "result": next(replies)}
    rates = make_judge(
        name="rates", instructions="Rate {{ outputs }}", feedback_value_type=Literal[1, 2, 3, 4, 5], model=judge.model
    )
    made = from_mlflow(rates)
    assert made.options["score_range"] == [1.0, 5.0]
    scores = [made("q", text, None) for text in ("a", "b", "c")]
    assert [(s.correct, s.value) for s in scores] == [(False, 0.0), (False, 0.5), (True, 1.0)]


def test_a_threshold_is_on_the_judges_scale() -> None:
    rates = make_judge(name="r", instructions="Rate {{ outputs }}", feedback_value_type=Literal[1, 2, 3], model="x:/y")
    with pytest.raises(ValueError, match="outside the scorer's range 1-3"):
        from_mlflow(rates, threshold=0.5)


def _text(outputs: Any) -> str:
    return outputs if isinstance(outputs, str) else ""


def native(judge: Judge) -> Scorer:
    @scorer(name="judged")
    def judged(outputs, expectations) -> float:
        answer = expectations.get("expected_response")
        return judge(_text(outputs), [] if answer is None else answer if isinstance(answer, list) else [answer])

    return judged


def ranged(judge: Judge, score_range: tuple[float, float]) -> Scorer:
    """A judge-like scorer that declares its range as an MLflow judge does: a Literal value type."""
    low, high = score_range

    class OnScale(Scorer):
        name: str = "on_scale"

        @property
        def feedback_value_type(self) -> Any:
            return Literal[low, high]

        def __call__(self, *, outputs=None, expectations=None):
            answer = (expectations or {}).get("expected_response")
            return low + judge(_text(outputs), [] if answer is None else [answer]) * (high - low)

    return OnScale()


@pytest.mark.parametrize(
    "check",
    [c for c in checks(Adapter("mlflow", from_harness=from_mlflow, native=native, ranged=ranged)) if "range" in str(c)],
    ids=str,
)
def test_the_mlflow_adapter_reads_ranges_as_the_suite_checks(check: Check) -> None:
    check()
