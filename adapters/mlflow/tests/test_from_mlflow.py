"""from_mlflow: MLflow's scorers as scorebridge scorers, with MLflow's own verdicts everywhere."""

from __future__ import annotations

import math
import warnings
from typing import Any

import mlflow
import pytest
from mlflow.entities import AssessmentError, Feedback
from mlflow.genai.scorers import (
    Correctness,
    Guidelines,
    PIIDetection,
    RegexMatch,
    ResponseLength,
    Scorer,
    scorer,
)

import scorebridge as sb
from scorebridge_mlflow import from_mlflow

Judge = Any  # the local judge of conftest.py (a fixture)

ROWS: list[tuple[str, str, str]] = [  # (question, output, label)
    ("Capital of France?", "Paris", "Paris"),
    ("Capital of Italy?", "Milan", "Rome"),
    ("Capital of Spain?", "Madrid", "Madrid"),
    ("Capital of Peru?", "Cusco", "Lima"),
    ("Capital of Chile?", "Santiago", "Santiago"),
]
QUESTIONS = [q for q, _, _ in ROWS]
ANSWERS = {q: o for q, o, _ in ROWS}
LABELS = [label for _, _, label in ROWS]


@scorer
def same_city(outputs, expectations) -> bool:
    """A @scorer function of one's own."""
    return str(outputs).strip().lower() == str(expectations["expected_response"]).strip().lower()


@pytest.fixture(scope="module")
def natives(judge_server: Judge) -> dict[str, Scorer]:
    made = [RegexMatch(pattern=r"^(Paris|Madrid|Cusco)$"), same_city, Correctness(model=judge_server.model)]
    return {s.name: s for s in made}


def _correct(value: Any) -> bool | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return value is True or str(value).lower() in ("yes", "true", "1.0")


@pytest.fixture(scope="module")
def in_mlflow(natives: dict[str, Scorer], tracking: str, judge_server: Judge) -> dict[str, list[bool | None]]:
    """The verdicts MLflow's own evaluate gives, per scorer, in row order."""
    data = [
        {"inputs": {"input": q}, "outputs": o, "expectations": {"expected_response": label}} for q, o, label in ROWS
    ]
    result = mlflow.genai.evaluate(data=data, scorers=list(natives.values()))
    return {name: [_correct(v) for v in result.result_df[f"{name}/value"]] for name in natives}


NAMES = ["regex_match", "same_city", "correctness"]


def test_mlflow_gives_both_verdicts(in_mlflow: dict[str, list[bool | None]]) -> None:
    assert in_mlflow == {
        "regex_match": [True, False, True, True, False],
        "same_city": [True, False, True, False, True],
        "correctness": [True, False, True, False, True],
    }


@pytest.mark.parametrize("name", NAMES)
def test_plain_python_gives_mlflows_verdicts(name: str, natives: dict[str, Scorer], in_mlflow: Any) -> None:
    made = from_mlflow(natives[name])
    assert [made(q, o, label).correct for q, o, label in ROWS] == in_mlflow[name]


@pytest.mark.parametrize("name", NAMES)
def test_benchmark_gives_mlflows_verdicts(name: str, natives: dict[str, Scorer], in_mlflow: Any) -> None:
    result = sb.benchmark({"model": ANSWERS.__getitem__}, QUESTIONS, LABELS, scorer=from_mlflow(natives[name]))
    assert [r.correct for r in result.records] == in_mlflow[name]
    assert result.summary()["model"].correct == sum(in_mlflow[name])


def test_inspect_eval_gives_mlflows_verdicts(natives: dict[str, Scorer], in_mlflow: Any) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
    from inspect_ai.solver import generate

    from scorebridge_inspect import to_inspect

    def reply(messages: list[ChatMessage], *args: Any) -> ModelOutput:
        out = ModelOutput.from_content("mockllm/model", ANSWERS[messages[-1].text])
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # offline: no tokenizer download
        return out

    samples = [Sample(id=i, input=q, target=label) for i, (q, _, label) in enumerate(ROWS)]
    task = Task(dataset=samples, solver=generate(), scorer=[to_inspect(from_mlflow(s)) for s in natives.values()])
    [log] = eval(task, model=get_model("mockllm/model", custom_outputs=reply), display="none")
    assert log.status == "success" and log.samples is not None
    by_id = {sample.id: sample for sample in log.samples}
    for name in NAMES:
        got = [by_id[i].scores[name].value == "C" for i in range(len(ROWS))]  # type: ignore[index]
        assert got == in_mlflow[name], name


def test_dspy_evaluate_gives_mlflows_verdicts(natives: dict[str, Scorer], in_mlflow: Any) -> None:
    dspy = pytest.importorskip("dspy")
    from dspy.utils import DummyLM

    from scorebridge_dspy import to_dspy

    devset = [dspy.Example(question=q, answer=label).with_inputs("question") for q, _, label in ROWS]
    lm = DummyLM({q: {"answer": o} for q, o, _ in ROWS})
    for name in NAMES:
        with dspy.context(lm=lm):
            evaluation = dspy.Evaluate(devset=devset, metric=to_dspy(from_mlflow(natives[name])), num_threads=1)(
                dspy.Predict("question -> answer")
            )
        assert [score == 1.0 for _, _, score in evaluation.results] == in_mlflow[name], name


PYTEST_FILE = """
import pytest
from mlflow.genai.scorers import Correctness, RegexMatch, scorer
from pytest_scorebridge import assert_scored
from scorebridge_mlflow import from_mlflow


@scorer
def same_city(outputs, expectations) -> bool:
    return str(outputs).strip().lower() == str(expectations["expected_response"]).strip().lower()


SCORERS = {{
    "regex_match": from_mlflow(RegexMatch(pattern=r"^(Paris|Madrid|Cusco)$")),
    "same_city": from_mlflow(same_city),
    "correctness": from_mlflow(Correctness(model={model!r})),
}}
ROWS = {rows!r}


@pytest.mark.parametrize("name", list(SCORERS))
@pytest.mark.parametrize("row", range(len(ROWS)))
def test_row(name, row):
    question, output, label = ROWS[row]
    assert_scored(SCORERS[name], output, label, question)
"""


def test_pytest_gives_mlflows_verdicts(pytester: pytest.Pytester, judge_server: Judge, in_mlflow: Any) -> None:
    pytester.makepyfile(test_mlflow_rows=PYTEST_FILE.format(model=judge_server.model, rows=ROWS))
    result = pytester.runpytest("-p", "no:cacheprovider", "-q")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) == sum(sum(v) for v in in_mlflow.values())
    for name in NAMES:
        for row, correct in enumerate(in_mlflow[name]):
            mark = "PASSED" if correct else "FAILED"
            if not correct:
                assert any(f"test_row[{row}-{name}]" in line for line in result.outlines if "FAILED" in line), (
                    name,
                    row,
                    mark,
                )


def test_correctness_asks_the_judge_about_the_output_and_the_label(judge: Judge) -> None:
    made = from_mlflow(Correctness(model=judge.model))
    score = made("Capital of France?", "Paris", "Paris")
    assert (score.correct, score.explanation) == (True, "the claim is in the document")
    [prompt] = judge.prompts
    assert "<claim>Paris</claim>" in prompt and "Capital of France?" in prompt


def test_correctness_reads_expected_facts_from_a_label_that_is_expectations(judge: Judge) -> None:
    judge.script = lambda prompt: {"rationale": "a fact", "result": "yes" if "the capital" in prompt else "no"}
    made = from_mlflow(Correctness(model=judge.model))
    score = made("Capital of France?", "Paris", {"expected_facts": ["Paris is the capital"]})
    assert score.correct is True
    assert "Paris is the capital" in judge.prompts[-1]


def test_a_list_label_reaches_the_judge_whole_in_one_call(judge: Judge) -> None:
    # from_mlflow asked once per element and took the first correct: a judge needing all of a list said correct
    made = from_mlflow(Correctness(model=judge.model))
    made("Capital of Italy?", "Roma", ["Rome", "Roma", "Rom"])
    [prompt] = judge.prompts
    assert "Rome" in prompt and "Rom'" in prompt


def test_each_answer_asks_the_judge_once_per_answer_until_one_is_correct(judge: Judge) -> None:
    made = from_mlflow(Correctness(model=judge.model), each_answer=True)
    assert made("Capital of Italy?", "Roma", ["Rome", "Roma", "Rom"]).correct is True
    assert len(judge.prompts) == 2 and made.options["each_answer"] is True


def test_a_judge_without_a_label_is_not_asked(judge: Judge) -> None:
    score = from_mlflow(Correctness(model=judge.model))("Capital of France?", "Paris", None)
    assert (score.correct, score.grade, judge.prompts) == (None, "N", [])


def test_reference_free_judges_score_rows_without_a_label(judge: Judge) -> None:
    judge.script = lambda prompt: {"rationale": "polite", "result": "yes"}
    made = from_mlflow(Guidelines(guidelines=["Be polite"], model=judge.model))
    assert made.fn.needs_label is False
    assert made("Capital of France?", "Paris, of course", None).correct is True


def test_a_judge_reply_mlflow_cannot_read_raises_naming_the_scorer(judge: Judge) -> None:
    judge.script = lambda prompt: {"verdict": "unsure"}  # no "result": MLflow's judge raises, as in evaluate
    with pytest.raises(KeyError) as raised:
        from_mlflow(Correctness(model=judge.model))("Capital of France?", "Paris", "Paris")
    assert "raised inside the scorer 'correctness'" in raised.value.__notes__


@pytest.mark.parametrize(
    ("made", "output", "correct"),
    [
        (RegexMatch(pattern="^Par"), "Paris", True),
        (RegexMatch(pattern="^Par"), "Lyon", False),
        (ResponseLength(max_length=3), "Paris", False),
        (ResponseLength(min_length=2, max_length=10), "Paris", True),
        (PIIDetection(), "mail me at someone@example.com", False),
        (PIIDetection(), "Paris", True),
    ],
)
def test_deterministic_built_ins_score_rows_without_a_label(made: Scorer, output: str, correct: bool) -> None:
    native = made.run(outputs=output)
    score = from_mlflow(made)("q", output, None)
    assert (score.correct, score.explanation) == (native.value == "yes", native.rationale)
    assert score.correct is correct


class Longer(Scorer):
    """A Scorer subclass of one's own: 1 when the output is longer than the expected response."""

    name: str = "longer"

    def __call__(self, *, outputs=None, expectations=None):
        return float(len(outputs) > len(expectations["expected_response"]))


def test_a_scorer_subclass_is_a_scorer() -> None:
    made = from_mlflow(Longer())
    assert (made.name, made("q", "Paris!", "Paris").correct, made("q", "Pa", "Paris").correct) == (
        "longer",
        True,
        False,
    )


def _returning(value: Any) -> sb.Scorer:
    @scorer(name="returns")
    def returns(outputs):
        return value

    return from_mlflow(returns)


@pytest.mark.parametrize(
    ("value", "fields"),
    [
        ("yes", (True, 1.0)),
        ("No", (False, 0.0)),
        (True, (True, 1.0)),
        (False, (False, 0.0)),
        (1, (True, 1.0)),
        (0.25, (False, 0.25)),
        (None, (None, None)),  # no assessment: unscored
        (math.nan, (None, None)),
        (Feedback(value="yes", rationale="because"), (True, 1.0)),
        ([Feedback(name="other", value=0.0), Feedback(name="returns", value="yes")], (True, 1.0)),
        ([], (None, None)),
    ],
)
def test_what_an_mlflow_scorer_returns_is_read_as_mlflow_reads_it(value: Any, fields: tuple[Any, Any]) -> None:
    score = _returning(value)("q", "Paris", None)
    assert (score.correct, score.value) == fields


def test_a_number_above_1_on_no_declared_range_is_a_contract_error_naming_the_scorer() -> None:
    # 42 was the value 42.0, correct at the threshold 1.0
    with pytest.raises(sb.ScorerContractError, match=r"^returns: .*42.0 points, outside 0-1"):
        _returning(42)("q", "Paris", None)


def test_the_rationale_is_the_explanation_and_metadata_is_kept() -> None:
    score = _returning(Feedback(value="no", rationale="too short", metadata={"words": "1"}))("q", "Paris", None)
    assert (score.failure_kind, score.explanation, dict(score.metadata)) == ("wrong", "too short", {"words": "1"})


def test_a_feedback_with_an_error_is_recorded_with_failure_kind_error() -> None:
    failed = Feedback(error=AssessmentError(error_code="JUDGE_DOWN", error_message="no reply"))
    score = _returning(failed)("q", "Paris", None)
    assert (score.correct, score.failure_kind, score.explanation) == (False, "error", "JUDGE_DOWN: no reply")


def test_a_threshold_says_what_number_is_correct() -> None:
    @scorer
    def points(outputs) -> float:
        return 0.8

    assert from_mlflow(points, threshold=0.75)("q", "Paris", None).correct is True
    assert from_mlflow(points)("q", "Paris", None).correct is False


def test_a_grade_word_mlflow_does_not_aggregate_is_read_by_the_grade_mapping() -> None:
    # MLflow leaves "pass" out of its mean; scorebridge reads it as every foreign grade (dsprrr's mapping)
    assert _returning("pass")("q", "Paris", None).correct is True


def test_a_value_that_is_no_grade_is_unscored_with_a_warning() -> None:
    with pytest.warns(UserWarning, match="is not a grade"):
        score = _returning(Feedback(value={"a": 1}))("q", "Paris", None)
    assert score.correct is None


def test_an_output_that_reports_its_failure_is_not_scored_by_mlflow() -> None:
    calls: list[Any] = []

    @scorer
    def counting(outputs):
        calls.append(outputs)
        return True

    score = from_mlflow(counting)("q", {"failure_kind": "refusal"}, None)
    assert (score.failure_kind, calls) == ("refusal", [])


def test_an_exception_inside_the_mlflow_scorer_propagates_naming_it() -> None:
    @scorer
    def broken(outputs):
        raise KeyError("no such field")

    with pytest.raises(KeyError) as raised:
        from_mlflow(broken)("q", "Paris", None)
    assert "raised inside the scorer 'broken'" in raised.value.__notes__


def test_from_mlflow_refuses_what_is_not_an_mlflow_scorer() -> None:
    def plain(outputs):
        return True

    with pytest.raises(TypeError, match=r"decorate it with mlflow\.genai\.scorers\.scorer"):
        from_mlflow(plain)  # type: ignore[arg-type]

    @scorer
    def conversation(session) -> bool:
        return True

    with pytest.raises(TypeError, match="session-level"):
        from_mlflow(conversation)


def test_options_say_what_the_built_in_judges_by() -> None:
    assert dict(from_mlflow(RegexMatch(pattern="^P")).options) == {
        "pattern": "^P",
        "match_type": "search",
        "case_insensitive": False,
        "threshold": 1.0,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "extra_headers" not in from_mlflow(Correctness(model="openai:/x", extra_headers={"k": "v"})).options


def test_a_scorer_pickles_for_a_worker_process() -> None:
    import pickle

    made = pickle.loads(pickle.dumps(from_mlflow(RegexMatch(pattern="^P"))))
    assert made.name == "regex_match"
    assert (made("q", "Paris", None).correct, made("q", "Lyon", None).correct) == (True, False)
