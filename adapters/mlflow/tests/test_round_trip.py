"""Round trips: identities both ways; MLflow's own objects handed through; MLflow's scorer behaviours kept."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import mlflow
import pytest
from mlflow.entities import AssessmentError, Feedback
from mlflow.exceptions import MlflowException
from mlflow.genai.evaluation.utils import standardize_scorer_value
from mlflow.genai.judges import CategoricalRating
from mlflow.genai.scorers import Correctness, RegexMatch, Scorer, scorer
from mlflow.genai.scorers.aggregation import _cast_assessment_value_to_float

import scorebridge as sb
from scorebridge.kit.testing import Adapter, Check, Judge, Row, checks
from scorebridge_mlflow import from_mlflow, to_mlflow
from scorebridge_mlflow._renamed import NativeScorer

pytestmark = pytest.mark.usefixtures("tracking")


def run_rows(made: Scorer, rows: list[Row]) -> Sequence[float | None]:
    """MLflow scoring rows as its evaluate does, row by row: `Scorer.run`, then the number its mean counts."""
    counted: list[float | None] = []
    for item, output, label in rows:
        expectations = {} if label is None else {"expected_response": label}
        feedbacks = standardize_scorer_value(
            made.name, made.run(inputs=item, outputs=output, expectations=expectations)
        )
        counted.append(_cast_assessment_value_to_float(feedbacks[0]) if feedbacks else None)
    return counted


def _text(outputs: Any) -> str:
    """The response's text, as an MLflow scorer of text reads the outputs it is handed: the string, or its
    "answer" field; "" for anything else."""
    if isinstance(outputs, str):
        return outputs
    answer = outputs.get("answer") if isinstance(outputs, dict) else None
    return answer if isinstance(answer, str) else ""


def native(judge: Judge) -> Scorer:
    """An MLflow @scorer of MLflow's own kind, judging its outputs against the expected response."""

    @scorer(name="judged")
    def judged(outputs, expectations) -> float:
        answer = expectations.get("expected_response")
        references = [] if answer is None else answer if isinstance(answer, list) else [answer]
        return judge(_text(outputs), references)

    return judged


def label_free(judge: Judge) -> Scorer:
    """An MLflow @scorer that reads no expectations (a format check): it needs no label."""

    @scorer(name="judged_free")
    def judged_free(outputs) -> float:
        return judge(_text(outputs), [])

    return judged_free


MLFLOW = Adapter(
    "mlflow",
    to_harness=to_mlflow,
    run=run_rows,
    from_harness=from_mlflow,
    native=native,
    to_recording=lambda made: to_mlflow(made, on_error="record"),
    variants=lambda: (RegexMatch(pattern="^P"), RegexMatch(pattern="^P"), RegexMatch(pattern="^R")),
    label_free=label_free,
)


@pytest.mark.parametrize("check", checks(MLFLOW), ids=str)
def test_the_mlflow_adapter_conforms(check: Check) -> None:
    check()


@sb.scorer
async def waits(item, output, label):
    return output == label


@pytest.mark.parametrize("made", [sb.exact(), sb.detect_includes(), waits], ids=lambda s: s.name)
def test_a_scorebridge_scorer_comes_back_from_mlflow_itself(made: sb.Scorer) -> None:
    assert from_mlflow(to_mlflow(made)) is made


@scorer
def yes_always(inputs, outputs, expectations, trace):
    return "yes"


@pytest.mark.parametrize(
    "made", [RegexMatch(pattern="^P"), yes_always, Correctness(model="openai:/x")], ids=lambda s: s.name
)
def test_an_mlflow_scorer_comes_back_from_scorebridge_itself(made: Scorer) -> None:
    assert to_mlflow(from_mlflow(made)) is made


def test_other_options_wrap_instead_and_still_score() -> None:
    regex = RegexMatch(pattern="^P")
    wrapped = to_mlflow(from_mlflow(regex), name="starts_with_p")
    assert isinstance(wrapped, NativeScorer) and wrapped.name == "starts_with_p"
    assert wrapped.run(outputs="Paris").value == "yes"
    recorded = to_mlflow(sb.exact(), on_error="record")
    assert from_mlflow(recorded) is not recorded.scorebridge_scorer  # record is no identity: wrapped again


def test_a_renamed_round_trip_gives_what_the_built_in_gives_under_the_new_name() -> None:
    # MLflow's own RegexMatch tests, run with the built-in wrapped both ways, saw 1.0 where they expect
    # CategoricalRating.YES, and the name given was lost: to_mlflow(from_mlflow(x, name=...)) was x
    regex = RegexMatch(pattern="^P")
    for wrapped in (
        to_mlflow(from_mlflow(regex), name="starts_with_p"),
        to_mlflow(from_mlflow(regex, name="starts_with_p")),
    ):
        for text in ("Paris", "Lyon"):
            native, ours = regex.run(outputs=text), wrapped.run(outputs=text)
            assert (ours.value, ours.rationale, ours.name) == (native.value, native.rationale, "starts_with_p")


def test_a_renamed_round_trip_keeps_the_scorers_aggregations_and_description() -> None:
    # the wrapper dropped them: MLflow's `scorer2/min` was a KeyError
    @scorer(name="scorer2", aggregations=["min", "max"], description="two")
    def scorer2(outputs) -> float:
        return 0.5

    wrapped = to_mlflow(from_mlflow(scorer2, name="renamed"))
    assert (wrapped.name, wrapped.aggregations, wrapped.description) == ("renamed", ["min", "max"], "two")
    assert to_mlflow(from_mlflow(scorer2), aggregations=["mean"]).aggregations == ["mean"]


def test_a_round_trip_is_an_identity_only_when_nothing_was_renamed() -> None:
    made = sb.exact()
    assert from_mlflow(to_mlflow(made)) is made
    assert from_mlflow(to_mlflow(made, name="other")) is not made
    renamed = from_mlflow(RegexMatch(pattern="^P"), name="starts_with_p")
    assert from_mlflow(to_mlflow(renamed)) is renamed


def test_inside_mlflow_a_wrapped_scorer_is_handed_mlflows_own_objects() -> None:
    seen: list[tuple[Any, Any, Any, Any]] = []

    @scorer
    def looks(inputs, outputs, expectations, trace):
        seen.append((inputs, outputs, expectations, trace))
        return True

    wrapped = from_mlflow(looks)

    @sb.scorer
    def mine(item, output, label):
        return wrapped(item, output, label)  # what to_mlflow handed it: MLflow's row goes through

    data = [{"inputs": {"question": "q"}, "outputs": {"answer": "Paris"}, "expectations": {"expected_response": "P"}}]
    mlflow.genai.evaluate(data=data, scorers=[to_mlflow(mine)])
    [(inputs, outputs, expectations, trace)] = seen
    assert (inputs, outputs, expectations) == ({"question": "q"}, {"answer": "Paris"}, {"expected_response": "P"})
    assert isinstance(trace, mlflow.entities.Trace)  # the row's trace, which no call from outside has
    seen.clear()
    mine({"question": "q"}, {"answer": "Paris"}, "P")  # from plain Python: a row built here, no trace
    assert seen == [({"question": "q"}, {"answer": "Paris"}, {"expected_response": "P"}, None)]


# MLflow's own scorer tests check these behaviours of a scorer in evaluate; each holds for a round trip.


class AlwaysYes(Scorer):
    def __call__(self, *, inputs=None, outputs=None, expectations=None, trace=None):
        return "yes"


DATA = [
    {"inputs": {"question": "q1"}, "outputs": "a1", "expectations": {"expected_response": "a1"}},
    {"inputs": {"question": "q2"}, "outputs": "a2", "expectations": {"expected_response": "x"}},
]


def _returning(value: Any, name: str = "returns") -> Scorer:
    @scorer(name=name)
    def returns(inputs, outputs):
        return value

    return returns


@pytest.fixture(scope="module")
def side_by_side() -> dict[str, Any]:
    """Each MLflow scorer natively, and as to_mlflow(from_mlflow(x), name=...), in one evaluate."""
    natives = {
        "class": AlwaysYes(name="class"),
        "decorated": _returning("yes", "decorated"),
        "number": _returning(42, "number"),
        "float": _returning(42.0, "float"),
        "feedback": _returning(Feedback(value=True, rationale="the answer"), "feedback"),
        "none": _returning(None, "none"),
        "error": _returning(Feedback(error=AssessmentError(error_code="500", error_message="down")), "error"),
    }
    wrapped = [to_mlflow(from_mlflow(made), name=f"{name}_rt") for name, made in natives.items()]
    return mlflow.genai.evaluate(data=DATA, scorers=[*natives.values(), *wrapped]).metrics


@pytest.mark.parametrize("name", ["class", "decorated", "number", "float", "feedback"])
def test_a_round_trip_has_the_mean_mlflow_gives(name: str, side_by_side: dict[str, Any]) -> None:
    assert side_by_side[f"{name}_rt/mean"] == pytest.approx(side_by_side[f"{name}/mean"])


def test_no_assessment_stays_no_assessment(side_by_side: dict[str, Any]) -> None:
    assert "none/mean" not in side_by_side and "none_rt/mean" not in side_by_side


def test_an_error_feedback_is_left_out_natively_and_in_a_renamed_round_trip(side_by_side: dict[str, Any]) -> None:
    assert "error/mean" not in side_by_side and "error_rt/mean" not in side_by_side


def test_a_list_of_feedbacks_survives_as_one() -> None:
    both = _returning([Feedback(name="big", value=1.0), Feedback(name="returns", value=0.0)])
    found = to_mlflow(from_mlflow(both), name="one").run(inputs={}, outputs="x")
    assert [(f.name, f.value) for f in found] == [("big", 1.0), ("one", 0.0)]


@pytest.mark.parametrize(
    ("value", "number"),
    [(5, 5.0), (3.14, 3.14), (True, 1.0), (False, 0.0), (CategoricalRating.YES, 1.0), ("no", 0.0), ("Yes", 1.0)],
)
def test_a_value_counts_in_a_round_trip_as_mlflow_counts_it(value: Any, number: float) -> None:
    made = to_mlflow(from_mlflow(_returning(value), threshold=0.5), name="rt")
    [found] = standardize_scorer_value(made.name, made.run(inputs={}, outputs="x"))
    counted = _cast_assessment_value_to_float(found)
    assert counted == pytest.approx(number)


def test_a_feedback_is_named_for_its_scorer_as_run_names_mlflows() -> None:
    assert to_mlflow(from_mlflow(_returning(Feedback(value=42))), name="my_scorer").run(outputs="x").name == "my_scorer"


# Serialization: MLflow stores a scorer as what makes it again (register(), production monitoring).


def test_a_built_in_is_serialized_and_made_again_by_mlflow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MLFLOW_SERVER_ENABLE_CUSTOM_SCORERS", "true")  # MLflow's opt-in to rebuild @scorer code
    made = to_mlflow(sb.detect_includes(), name="mentions")
    again = Scorer.model_validate(made.model_dump())
    assert again.name == "mentions"
    feedback = again.run(inputs={}, outputs="It is Paris.", expectations={"expected_response": "Paris"})
    assert (feedback.name, feedback.value) == ("mentions", 1.0)


def test_register_stores_a_built_in_and_get_scorer_gives_it_back(monkeypatch: pytest.MonkeyPatch) -> None:
    from mlflow.genai.scorers import get_scorer

    monkeypatch.setenv("MLFLOW_SERVER_ENABLE_CUSTOM_SCORERS", "true")
    to_mlflow(sb.exact()).register(name="exact_registered")
    loaded = get_scorer(name="exact_registered")
    assert loaded.run(inputs={}, outputs=" paris", expectations={"expected_response": "Paris"}).value == 1.0


def test_register_without_mlflows_opt_in_is_refused_as_for_any_scorer_function(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MLFLOW_SERVER_ENABLE_CUSTOM_SCORERS", raising=False)
    with pytest.raises(MlflowException, match="MLFLOW_SERVER_ENABLE_CUSTOM_SCORERS"):
        to_mlflow(sb.exact()).register(name="refused")


def test_a_scorer_defined_in_an_importable_module_is_serialized(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "team_scorers.py").write_text(
        textwrap.dedent(
            """
            import scorebridge as sb

            @sb.scorer
            def shouted(item, output, label):
                return output == str(label).upper()
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("MLFLOW_SERVER_ENABLE_CUSTOM_SCORERS", "true")
    try:
        shouted = importlib.import_module("team_scorers").shouted
        again = Scorer.model_validate(to_mlflow(shouted).model_dump())
        assert again.run(inputs={}, outputs="PARIS", expectations={"expected_response": "Paris"}).value == 1.0
    finally:
        sys.modules.pop("team_scorers", None)


def test_a_scorer_that_cannot_be_made_again_says_why() -> None:
    @sb.scorer
    def local(item, output, label):  # defined in a function: no module can give it back
        return True

    with pytest.raises(MlflowException, match=r"to_mlflow\(local\) cannot be serialized.*defined in a script"):
        to_mlflow(local).model_dump()
    with pytest.raises(MlflowException, match="its output= is a function"):
        to_mlflow(sb.exact(), output=lambda outputs: outputs["text"]).model_dump()


def test_a_scorer_that_cannot_be_serialized_still_runs_in_evaluate() -> None:
    @sb.scorer
    def local(item, output, label):
        return output == label

    result = mlflow.genai.evaluate(data=DATA, scorers=[to_mlflow(local)])
    assert result.metrics["local/mean"] == 0.5
