"""to_mlflow: scorebridge scorers in mlflow.genai.evaluate, on a sqlite store, give scorebridge's numbers."""

from __future__ import annotations

import asyncio
import math
import threading
from typing import Any

import mlflow
import pytest
from mlflow.genai.scorers import Scorer as MlflowScorer

import scorebridge as sb
from scorebridge.testing import FakeGrader
from scorebridge_mlflow import summarize, to_mlflow

pytestmark = pytest.mark.usefixtures("tracking")

ROWS: list[tuple[Any, Any]] = [  # (output, label); the item is {"question": "q<index>"}
    ("Paris", "Paris"),
    ("  paris ", "Paris"),
    ("Lyon", "Paris"),
    ("", "Paris"),
    ("HALF", "Paris"),
    ({"failure_kind": "refusal"}, "Paris"),
    ("NOT_IN_DOCUMENT", "Paris"),
    ("Roma", ["Rome", "Roma"]),
    ("Rome", None),  # unlabelled: unscored, out of the mean
    ({"failure_kind": "refusal"}, None),  # unlabelled, with a kind of its own: unscored
]
ITEMS = [{"question": f"q{i}"} for i in range(len(ROWS))]
OUTPUTS = [output for output, _ in ROWS]
LABELS = [label for _, label in ROWS]
DATA = [
    {"inputs": item, "outputs": output, "expectations": {} if label is None else {"expected_response": label}}
    for item, (output, label) in zip(ITEMS, ROWS, strict=True)
]


@sb.scorer
def mine(item, output, label):
    """A scorer of one's own: HALF is worth half, else the text is the label's."""
    text = output if isinstance(output, str) else ""
    if text == "HALF":
        return {"correct": False, "outcome": text, "failure_kind": None, "value": 0.5}
    return {"correct": text.strip().lower() == str(label).lower(), "outcome": text, "failure_kind": None}


@sb.scorer
async def mine_async(item, output, label):
    """An async scorer: exact(), after a wait."""
    await asyncio.sleep(0.001)
    return sb.exact()(item, output, label)


def graded() -> sb.Scorer:
    def reply(prompt: str) -> str:
        answer = prompt.partition("<answer>")[2].partition("</answer>")[0].strip().lower()
        return "GRADE: C" if answer in ("paris", "roma") else "GRADE: I"

    return sb.model_graded_qa(FakeGrader(reply))


def inspect_match() -> sb.Scorer:
    pytest.importorskip("inspect_ai")
    from inspect_ai.scorer import match

    from scorebridge_inspect import from_inspect

    return from_inspect(match())


@pytest.fixture(scope="module")
def scorers() -> dict[str, sb.Scorer]:
    return {s.name: s for s in (mine, mine_async, sb.exact(), graded(), inspect_match())}


@pytest.fixture(scope="module")
def result(scorers: dict[str, sb.Scorer]) -> Any:
    return mlflow.genai.evaluate(data=DATA, scorers=[to_mlflow(s) for s in scorers.values()])


NAMES = ["mine", "mine_async", "exact", "model_graded_qa", "match"]


def _summary(scorer: sb.Scorer) -> sb.Summary:
    return sb.Summary.of(scorer.name, scorer.score_many(ITEMS, OUTPUTS, LABELS))


def test_the_five_scorers_are_scored_by_mlflow(scorers: dict[str, sb.Scorer]) -> None:
    assert sorted(scorers) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_mlflows_mean_is_scorebridges_accuracy(name: str, scorers: dict[str, sb.Scorer], result: Any) -> None:
    summary = _summary(scorers[name])
    assert summary.accuracy is not None and summary.scored >= 7
    assert result.metrics[f"{name}/mean"] == pytest.approx(summary.accuracy)


@pytest.mark.parametrize("name", NAMES)
def test_unscored_rows_have_no_assessment(name: str, scorers: dict[str, sb.Scorer], result: Any) -> None:
    values = result.result_df[f"{name}/value"]
    assessed = [not (v is None or (isinstance(v, float) and math.isnan(v))) for v in values]
    assert sum(assessed) == _summary(scorers[name]).scored
    assert assessed[-2:] == [False, False]  # the two unlabelled rows


@pytest.mark.parametrize("name", NAMES)
def test_the_result_table_gives_the_same_summary(name: str, scorers: dict[str, sb.Scorer], result: Any) -> None:
    want, got = _summary(scorers[name]), summarize(result, name)
    assert (got.scored, got.correct, got.unscored, dict(got.failure_kinds)) == (
        want.scored,
        want.correct,
        want.unscored,
        dict(want.failure_kinds),
    )
    assert got.accuracy == pytest.approx(want.accuracy)


def _assessment(result: Any, row: int, name: str) -> dict[str, Any]:
    return next(a for a in result.result_df["assessments"][row] if a["assessment_name"] == name)


def test_failure_kinds_and_explanations_are_in_the_result_table(result: Any) -> None:
    refusal = _assessment(result, 5, "exact")
    assert refusal["metadata"]["failure_kind"] == "refusal"
    assert refusal["feedback"]["value"] == 0.0
    assert _assessment(result, 3, "exact")["metadata"]["failure_kind"] == "parse_failure"
    assert _assessment(result, 6, "exact")["metadata"]["failure_kind"] == "not_in_document"
    assert _assessment(result, 2, "exact")["metadata"]["failure_kind"] == "wrong"
    assert "failure_kind" not in (_assessment(result, 0, "exact").get("metadata") or {})  # correct: no kind
    assert result.result_df["exact/rationale"][5] == sb.exact()(None, OUTPUTS[5], "Paris").explanation


def test_partial_credit_is_the_value_mlflow_averages(result: Any) -> None:
    assert result.result_df["mine/value"][4] == 0.5
    assert _assessment(result, 4, "mine")["metadata"]["failure_kind"] == "wrong"


def test_evaluations_passed_is_true_when_every_scored_row_is_correct(result: Any) -> None:
    assert not result.passed and "exact:" in result.reason  # Lyon, the empty output, ...
    labelled = [d for d in DATA if d["expectations"]]
    correct = mlflow.genai.evaluate(data=labelled[:2] + DATA[-2:], scorers=[to_mlflow(sb.exact())])
    # MLflow 3.17's `passed` also asserts the expectations' own column (expected_response), and fails on it
    assert "exact:" not in correct.reason  # the scorer's rows pass; the unlabelled ones are no failure


def test_a_scorer_runs_on_what_predict_fn_returns() -> None:
    answers = {"France": "Paris", "Italy": "Milan"}

    def predict(country: str) -> str:
        return answers[country]

    data = [
        {"inputs": {"country": "France"}, "expectations": {"expected_response": "Paris"}},
        {"inputs": {"country": "Italy"}, "expectations": {"expected_response": "Rome"}},
        {"inputs": {"country": "Italy"}},
    ]
    run = mlflow.genai.evaluate(data=data, predict_fn=predict, scorers=[to_mlflow(sb.exact())])
    assert run.metrics["exact/mean"] == pytest.approx(0.5)
    assert summarize(run, "exact").unscored == 1


@sb.scorer
def boom(item, output, label):
    if output == "boom":
        raise ValueError("the scorer broke")
    return output == label


BOOM_DATA = [
    {"inputs": {"q": "a"}, "outputs": "x", "expectations": {"expected_response": "x"}},
    {"inputs": {"q": "b"}, "outputs": "boom", "expectations": {"expected_response": "x"}},
    {"inputs": {"q": "c"}, "outputs": "boom"},
]


@pytest.fixture(scope="module")
def boomed() -> Any:
    scorers = [to_mlflow(boom), to_mlflow(boom, name="boom_recorded", on_error="record")]
    return mlflow.genai.evaluate(data=BOOM_DATA, scorers=scorers)


def test_by_default_a_raising_scorer_is_mlflows_scorer_error_left_out_of_the_mean(boomed: Any) -> None:
    assert boomed.metrics["boom/mean"] == 1.0  # MLflow's own rule: the row that raised is not counted
    assert "the scorer broke" in boomed.result_df["boom/error_message"][1]
    assert _assessment(boomed, 1, "boom")["feedback"]["error"]["error_code"] == "SCORER_ERROR"


def test_with_record_a_raising_scorer_is_wrong_with_kind_error_and_counted(boomed: Any) -> None:
    assert boomed.metrics["boom_recorded/mean"] == pytest.approx(0.5)  # as scorebridge counts it
    recorded = _assessment(boomed, 1, "boom_recorded")
    assert recorded["metadata"]["failure_kind"] == "error"
    assert recorded["feedback"]["error"]["error_code"] == "SCORER_ERROR"
    assert "ValueError('the scorer broke')" in boomed.result_df["boom_recorded/error_message"][1]
    assert summarize(boomed, "boom_recorded").failure_kinds["error"] == 1
    assert summarize(boomed, "boom_recorded").unscored == 1  # the unlabelled row that raised


def test_summarize_counts_mlflows_scorer_error_as_scorebridge_does(boomed: Any) -> None:
    # MLflow left it out of boom/mean (1.0); scorebridge counts it wrong: the two differ for on_error="raise"
    summary = summarize(boomed, "boom")
    assert (summary.scored, summary.accuracy, summary.failure_kinds["error"]) == (3, pytest.approx(1 / 3), 2)


def test_a_direct_call_raises_as_the_scorer_raised() -> None:
    with pytest.raises(ValueError, match="the scorer broke") as raised:
        to_mlflow(boom)(inputs={}, outputs="boom", expectations={"expected_response": "x"})
    assert "raised inside the scorer 'boom'" in raised.value.__notes__


def test_readers_choose_the_item_output_and_label() -> None:
    seen: list[tuple[Any, Any, Any]] = []

    @sb.scorer
    def look(item, output, label):
        seen.append((item, output, label))
        return output == label

    made = to_mlflow(look, item="question", output="answer", label="expected_facts")
    feedback = made.run(inputs={"question": "Q"}, outputs={"answer": "A"}, expectations={"expected_facts": "A"})
    assert feedback.value == 1.0 and seen == [("Q", "A", "A")]
    by_function = to_mlflow(look, output=lambda outputs: outputs[0], label=lambda expectations: expectations["x"])
    assert by_function.run(inputs={}, outputs=["A"], expectations={"x": "B"}).value == 0.0


def test_a_missing_label_key_is_no_label() -> None:
    made = to_mlflow(sb.exact())
    assert made.run(inputs={}, outputs="Paris", expectations={"guidelines": ["be brief"]}) is None
    assert made.run(inputs={}, outputs="Paris", expectations={}) is None
    assert made(inputs={}, outputs="Paris") is None  # called directly, without expectations


def test_the_feedback_is_named_for_the_scorer_even_called_directly() -> None:
    feedback = to_mlflow(sb.exact(), name="capital")(outputs="Paris", expectations={"expected_response": "Paris"})
    assert (feedback.name, feedback.value, feedback.error) == ("capital", 1.0, None)


def test_aggregations_are_mlflows_own() -> None:
    made = to_mlflow(mine, aggregations=["mean", "min", "max"])
    data = [d for d in DATA if d["expectations"]][:5]
    run = mlflow.genai.evaluate(data=data, scorers=[made])
    assert (run.metrics["mine/min"], run.metrics["mine/max"]) == (0.0, 1.0)
    assert run.metrics["mine/mean"] == pytest.approx(2.5 / 5)


def test_an_async_scorer_is_awaited_in_mlflows_threads() -> None:
    threads: set[int] = set()

    @sb.scorer
    async def slow(item, output, label):
        threads.add(threading.get_ident())
        await asyncio.sleep(0.05)
        return output == label

    data = [{"inputs": {"q": str(i)}, "outputs": "x", "expectations": {"expected_response": "x"}} for i in range(8)]
    run = mlflow.genai.evaluate(data=data, scorers=[to_mlflow(slow)])
    assert run.metrics["slow/mean"] == 1.0
    assert len(threads) > 1  # each MLflow worker thread waits for its own row


def test_to_mlflow_refuses_what_is_not_a_scorer() -> None:
    with pytest.raises(TypeError, match="to_mlflow: scorer must be a scorebridge Scorer"):
        to_mlflow(lambda item, output, label: True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="on_error must be 'raise' or 'record'"):
        to_mlflow(sb.exact(), on_error="ignore")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="label must be a key name or a function"):
        to_mlflow(sb.exact(), label=3)  # type: ignore[arg-type]


def test_mlflow_validates_the_scorer_as_its_own() -> None:
    from mlflow.genai.scorers.validation import validate_scorers

    made = to_mlflow(sb.exact())
    assert validate_scorers([made]) == [made] and isinstance(made, MlflowScorer)
    with pytest.raises(mlflow.exceptions.MlflowException, match="invalid item with type: Scorer"):
        validate_scorers([sb.exact()])  # not wrapped: MLflow says so


def test_without_mlflow_the_import_says_what_to_install() -> None:
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['mlflow'] = None\n"  # what an environment without MLflow looks like
        "import scorebridge\n"
        "try:\n    import scorebridge_mlflow\n"
        "except ImportError as e:\n    print(type(e).__name__, e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == 'ImportError scorebridge_mlflow needs MLflow: pip install "scorebridge[mlflow]"'


@sb.scorer(needs_label=False)
def short_or_boom(item, output, label):
    """A reference-free scorer that raises on one output."""
    if output == "boom":
        raise ValueError("cannot read this output")
    return len(output) < 5


def test_with_record_a_reference_free_scorer_raising_on_an_unlabelled_row_counts_it_wrong() -> None:
    # It was recorded unscored (no assessment): MLflow gave 0.5 where score_many gives 1 of 3
    rows = [("Paris", None), ("Lyon", None), ("boom", None)]
    data = [{"inputs": {"q": str(i)}, "outputs": output} for i, (output, _) in enumerate(rows)]
    run = mlflow.genai.evaluate(data=data, scorers=[to_mlflow(short_or_boom, on_error="record")])
    scores = short_or_boom.score_many(None, [o for o, _ in rows], [lab for _, lab in rows], on_error="record")
    accuracy = sb.Summary.of("short_or_boom", scores).accuracy
    assert run.metrics["short_or_boom/mean"] == pytest.approx(accuracy) == pytest.approx(1 / 3)


@sb.scorer
def says_why_in_odd_text(item, output, label):
    """A scorer whose explanation and metadata hold a lone surrogate (text read with os.fsdecode, say)."""
    return {"correct": output == label, "outcome": output, "failure_kind": None, "explanation": "read caf\udce9"}


def test_an_explanation_utf8_cannot_hold_still_reaches_the_result_table() -> None:
    # MLflow failed to store the row's assessments: summarize counted 2 unscored beside a mean of 0.5
    data = [
        {"inputs": {"q": "a"}, "outputs": "Paris", "expectations": {"expected_response": "Paris"}},
        {"inputs": {"q": "b"}, "outputs": "Lyon", "expectations": {"expected_response": "Paris"}},
    ]
    run = mlflow.genai.evaluate(data=data, scorers=[to_mlflow(says_why_in_odd_text)])
    summary = summarize(run, "says_why_in_odd_text")
    assert (summary.scored, summary.accuracy) == (2, run.metrics["says_why_in_odd_text/mean"]) == (2, 0.5)
    assert run.result_df["says_why_in_odd_text/rationale"][1] == "read caf\\udce9"


def test_summarize_says_why_when_mlflow_made_no_result_table() -> None:
    # A NaN in a row's expectations leaves result_df None; summarize said it was not an evaluation's result
    data = [{"inputs": {"q": "a"}, "outputs": "Paris", "expectations": {"expected_response": math.nan}}]
    run = mlflow.genai.evaluate(data=data, scorers=[to_mlflow(sb.exact())])
    assert run.result_df is None
    with pytest.raises(ValueError, match=r"MLflow made no result table .*NaN"):
        summarize(run, "exact")


def test_a_reader_that_raises_is_named_in_mlflows_error_message() -> None:
    # MLflow's error message was the bare KeyError, "'answer'", naming neither the scorer nor the reader
    data = [
        {"inputs": {"q": "a"}, "outputs": "Paris", "expectations": {"answer": "Paris"}},
        {"inputs": {"q": "b"}, "outputs": "Lyon"},
    ]
    run = mlflow.genai.evaluate(data=data, scorers=[to_mlflow(sb.exact(), label=lambda e: e["answer"])])
    message = run.result_df["exact/error_message"][1]
    assert message == "to_mlflow(exact): its label= reader raised KeyError('answer') reading {}"
    assert run.metrics["exact/mean"] == 1.0
