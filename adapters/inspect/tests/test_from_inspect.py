"""`from_inspect()`: Inspect AI scorers (built-in and custom) as scorebridge Scorers, from any caller."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hostile import BrokenRepr, nested
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatMessageSystem,
    ChatMessageUser,
    ContentImage,
    ContentText,
    Logprob,
    Logprobs,
    ModelOutput,
    get_model,
)
from inspect_ai.scorer import (
    Score,
    Scorer,
    Target,
    accuracy,
    answer,
    choice,
    exact,
    f1,
    includes,
    match,
    model_graded_qa,
    pattern,
    perplexity,
    precomputed_scores,
    scorer,
    value_to_float,
)
from inspect_ai.solver import TaskState, multiple_choice

import scorebridge as sb
from scorebridge_inspect import from_inspect


def returning(**fields: Any) -> Scorer:
    """A custom Inspect scorer that returns `Score(**fields)` (or None when `fields` is empty)."""

    @scorer(metrics=[accuracy()], name="returning")
    def factory() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score | None:
            return Score(**fields) if fields else None

        return score

    return factory()


def seeing(seen: list[tuple[TaskState, Target]]) -> Scorer:
    """A custom Inspect scorer that records the state and target it is given, and says C."""

    @scorer(metrics=[accuracy()], name="seeing")
    def factory() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            seen.append((state, target))
            return Score(value="C")

        return score

    return factory()


# --- Inspect's built-in scorers -------------------------------------------------------


def test_match_correct_keeps_answer_and_explanation() -> None:
    s = from_inspect(match())("q", "The answer is Paris.", "paris")
    assert s == sb.Score(True, "The answer is Paris.", None, 1.0, "The answer is Paris.")


def test_match_wrong_is_recorded_wrong() -> None:
    s = from_inspect(match())("q", "Lyon", "Paris")
    assert (s.correct, s.failure_kind, s.value) == (False, "wrong", 0.0)


def test_match_on_empty_output_is_a_parse_failure_keeping_no_response() -> None:
    s = from_inspect(match())("q", "", "Paris")
    assert (s.correct, s.failure_kind, dict(s.metadata)) == (False, "parse_failure", {"inspect_reason": "no_response"})


def test_includes_outcome_is_inspects_casefolded_answer() -> None:
    s = from_inspect(includes())("q", "It is PARIS", "paris")
    assert (s.correct, s.outcome) == (True, "it is paris")


def test_pattern_that_does_not_match_is_a_parse_failure_with_no_outcome() -> None:
    s = from_inspect(pattern(r"ANSWER: (\d+)"))("q", "no digits here", "3")
    assert (s.correct, s.failure_kind, s.outcome, dict(s.metadata)) == (False, "parse_failure", None, {})


def test_answer_letter() -> None:
    assert from_inspect(answer("letter"))("q", "Reasoning...\nANSWER: B", "B").correct is True


def test_inspect_exact_normalises_its_way() -> None:
    assert from_inspect(exact())("q", "The Paris!", "paris").correct is True


def test_f1_partial_credit_keeps_its_value_and_is_wrong_below_the_threshold() -> None:
    s = from_inspect(f1())("q", "Paris France", "Paris")
    assert (s.correct, s.failure_kind, s.value, s.grade) == (False, "wrong", 0.67, "P")


def test_threshold_sets_where_a_number_is_correct() -> None:
    s = from_inspect(f1(), threshold=0.5)("q", "Paris France", "Paris")
    assert (s.correct, s.failure_kind, s.value) == (True, None, 0.67)


def test_threshold_above_one_leaves_a_c_correct() -> None:
    # review: threshold=2 made every "C" of match() wrong; the threshold decides for numbers only
    s = from_inspect(match(), threshold=2)("q", "Paris", "Paris")
    assert (s.correct, s.failure_kind, s.value) == (True, None, 1.0)


@pytest.mark.parametrize(
    ("value", "threshold", "correct"),
    [
        ("I", -1, False),  # review: threshold=-1 made "I" correct
        ("P", 0.5, False),
        ("C", 2, True),
        ("correct", 2, True),
        ("fail", -1, False),
        (True, 2, True),
        (False, -1, False),
    ],
)
def test_grade_words_and_bools_keep_their_meaning_whatever_the_threshold(
    value: Any, threshold: float, correct: bool
) -> None:
    s = from_inspect(returning(value=value), threshold=threshold)("q", "x", "x")
    assert s.correct is correct


@pytest.mark.parametrize(("value", "correct"), [(4, True), (3, True), (2.5, False), ("4", True), ("2", False)])
def test_threshold_decides_for_numbers_on_any_scale(value: Any, correct: bool) -> None:
    # a metric of one's own on a 0-5 scale: the threshold is any finite number, not only one in (0, 1]
    s = from_inspect(returning(value=value), threshold=3)("q", "x", "x")
    assert (s.correct, s.value) == (correct, float(value))


def test_choice_reads_the_items_choices_and_marks_them_from_the_output() -> None:
    item = {"input": "Capital of France?", "choices": ["Paris", "Lyon", "Nice"]}
    mcq = from_inspect(choice())
    assert mcq(item, "ANSWER: A", "A").correct is True
    assert mcq(item, "ANSWER: B", "A").failure_kind == "wrong"
    assert mcq(item, "I am not sure", "A").failure_kind == "parse_failure"


def test_choice_with_several_correct_answers() -> None:
    item = {"input": "Which are in France?", "choices": ["Paris", "Berlin", "Lyon"]}
    assert from_inspect(choice())(item, "ANSWER: A, C", ["A", "C"]).correct is True


def test_choice_no_answer_with_a_reason_is_wrong_for_that_reason() -> None:
    # Inspect's N + no_response: the recording rules count an output with a failure_kind as wrong
    s = from_inspect(choice())({"input": "q", "choices": ["a", "b"]}, "", "A")
    assert (s.correct, s.failure_kind, s.value) == (False, "parse_failure", 0.0)


@pytest.mark.parametrize(("reply", "label"), [("ANSWER: A, B", "AB"), ("ANSWER: A", "AB"), ("ANSWER: A, B", "A")])
def test_choice_reads_a_label_of_letters_without_separators_as_inspect_does(
    make_output: Callable[..., ModelOutput], reply: str, label: str
) -> None:
    # Once "AB" (two letters, no comma) was read as one choice, so only one was marked from the output and
    # from_inspect(choice()) scored "ANSWER: A, B" 0 where Inspect's eval, with the same target, scores 1.
    item = {"input": "Which are in France?", "choices": ["Paris", "Lyon", "Berlin"]}
    task = Task(
        dataset=[Sample(input=item["input"], choices=item["choices"], target=label)],
        solver=multiple_choice(multiple_correct=len(label) > 1),
        scorer=choice(),
    )
    [log] = inspect_eval(
        task,
        model="mockllm/model",
        model_args={"custom_outputs": [make_output(reply)]},
        display="none",
    )
    assert log.samples is not None
    native = log.samples[0].scores["choice"].value  # type: ignore[index]
    assert from_inspect(choice())(item, reply, label).grade == native


def test_choices_that_are_not_strings_name_the_scorer() -> None:
    with pytest.raises(sb.ScorerContractError, match="choice: an item's choices must be a list of strings"):
        from_inspect(choice())({"input": "q", "choices": "ABC"}, "ANSWER: A", "A")


# --- model-graded scorers, offline with mockllm -------------------------------------------


def _grader(make_output: Callable[..., ModelOutput], *replies: str) -> Any:
    return get_model("mockllm/model", custom_outputs=[make_output(r) for r in replies])


def test_model_graded_qa_grades_with_the_model_argument(make_output: Callable[..., ModelOutput]) -> None:
    qa = from_inspect(model_graded_qa(), model=_grader(make_output, "Looks right.\nGRADE: C", "GRADE: I"))
    assert qa("Capital of France?", "Paris", "Paris").correct is True
    assert qa("Capital of France?", "Lyon", "Paris").failure_kind == "wrong"


def test_model_graded_qa_with_its_own_model(make_output: Callable[..., ModelOutput]) -> None:
    s = from_inspect(model_graded_qa(model=_grader(make_output, "GRADE: C")))("q", "Paris", "Paris")
    assert (s.correct, s.explanation) == (True, "GRADE: C")


def test_grader_that_gives_no_grade_is_unscored_keeping_grader_failed(make_output: Callable[..., ModelOutput]) -> None:
    s = from_inspect(model_graded_qa(), model=_grader(make_output, "I cannot decide"))("q", "Paris", "Paris")
    assert (s.correct, s.failure_kind, s.metadata["inspect_reason"]) == (None, None, "grader_failed")


def test_model_is_inspects_active_model_only_while_scoring(make_output: Callable[..., ModelOutput]) -> None:
    from inspect_ai.model._model import active_model

    qa = from_inspect(model_graded_qa(), model=_grader(make_output, "GRADE: C"))
    qa("q", "Paris", "Paris")
    assert active_model() is None


def test_model_name_is_resolved_at_construction_and_shown() -> None:
    assert repr(from_inspect(model_graded_qa(), model="mockllm/model")) == (
        "<Scorer model_graded_qa(threshold=1.0, model='mockllm/model')>"
    )


# --- the TaskState and Target the scorer is given ---------------------------------------


def test_string_item_is_the_input_and_output_the_completion() -> None:
    seen: list[tuple[TaskState, Target]] = []
    from_inspect(seeing(seen))("Capital of France?", "Paris", "Paris")
    state, target = seen[0]
    assert (state.input_text, state.output.completion, target.target) == ("Capital of France?", "Paris", ["Paris"])
    assert [m.role for m in state.messages] == ["user", "assistant"]


@pytest.mark.parametrize(
    ("item", "text"),
    [
        ({"input": "in", "question": "q"}, "in"),
        ({"question": "q"}, "q"),
        ({"input": 42}, "42"),
        (SimpleNamespace(question="attr q"), "attr q"),
        ({"other": 1}, ""),
        (None, ""),
        (7, "7"),  # the one item reader (scorebridge.kit.item_text): a number in plain digits
    ],
)
def test_input_text_of_an_item(item: Any, text: str) -> None:
    seen: list[tuple[TaskState, Target]] = []
    from_inspect(seeing(seen))(item, "x", "x")
    assert seen[0][0].input_text == text


def test_mapping_item_is_the_states_metadata() -> None:
    seen: list[tuple[TaskState, Target]] = []
    from_inspect(seeing(seen))({"question": "q", "difficulty": "easy"}, "x", "x")
    assert seen[0][0].metadata == {"question": "q", "difficulty": "easy"}


def test_an_items_metadata_mapping_is_the_states_metadata() -> None:
    seen: list[tuple[TaskState, Target]] = []
    from_inspect(seeing(seen))({"input": "q", "metadata": {"ctx": "France"}, "topic": "geo"}, "x", "x")
    assert seen[0][0].metadata == {"ctx": "France"}


def test_other_string_keys_are_the_metadata_without_the_states_own_fields() -> None:
    seen: list[tuple[TaskState, Target]] = []
    item = {"input": "q", "id": "s1", "epoch": 2, "choices": ["a", "b"], "ctx": "France", 3: "not a name"}
    from_inspect(seeing(seen))(item, "ANSWER: A", "A")
    assert seen[0][0].metadata == {"ctx": "France"}


def test_an_inspect_sample_is_an_item() -> None:
    seen: list[tuple[TaskState, Target]] = []
    sample = Sample(id="s9", input="Which is red?", choices=["grass", "blood"], metadata={"ctx": "colours"})
    from_inspect(seeing(seen))(sample, "ANSWER: B", "B")
    state = seen[0][0]
    assert (state.sample_id, state.input_text, state.metadata) == ("s9", "Which is red?", {"ctx": "colours"})
    assert [c.correct for c in state.choices] == [False, True]


@pytest.mark.parametrize(
    ("item", "sample_id", "epoch"),
    [
        ({"input": "q", "id": "s1"}, "s1", 1),
        ({"input": "q", "sample_id": 7, "epoch": 3}, 7, 3),
        ({"input": "q", "id": "s1", "sample_id": "other"}, "s1", 1),
        (SimpleNamespace(input="q", id=12, epoch=2), 12, 2),
        ({"input": "q"}, None, 1),
        ("q", None, 1),
    ],
)
def test_sample_id_and_epoch_come_from_the_item_never_made_up(item: Any, sample_id: Any, epoch: int) -> None:
    seen: list[tuple[TaskState, Target]] = []
    from_inspect(seeing(seen))(item, "x", "x")
    assert (seen[0][0].sample_id, seen[0][0].epoch) == (sample_id, epoch)


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({"input": "q", "id": 1.5}, "match: an item's id must be a string or a whole number; got float"),
        ({"input": "q", "id": True}, "match: an item's id must be a string or a whole number; got bool"),
        ({"input": "q", "epoch": 0}, "match: an item's epoch must be a whole number from 1; got 0"),
        ({"input": "q", "epoch": "2"}, "match: an item's epoch must be a whole number from 1; got '2'"),
    ],
)
def test_an_id_or_epoch_of_the_wrong_type_names_the_scorer(item: Any, message: str) -> None:
    with pytest.raises(sb.ScorerContractError, match=re.escape(message)):
        from_inspect(match())(item, "x", "x")


def _records(tmp_path: Path) -> str:
    path = tmp_path / "scores.json"
    path.write_text(json.dumps([{"id": "s1", "value": "C"}, {"id": "s2", "value": "I"}, {"id": 1, "value": "I"}]))
    return str(path)


def test_precomputed_scores_finds_each_items_own_record(tmp_path: Path) -> None:
    # sample ids were a process-wide counter: the second call (id 2, say) got another sample's record
    scorer = from_inspect(precomputed_scores(_records(tmp_path)))
    got = scorer.score_many([{"input": "a", "id": "s1"}, {"input": "b", "id": "s2"}], ["x", "y"], ["x", "y"])
    assert [s.correct for s in got] == [True, False]


def test_precomputed_scores_without_an_id_finds_no_record_never_another_samples(tmp_path: Path) -> None:
    unscored = from_inspect(precomputed_scores(_records(tmp_path)))
    assert [unscored("q", "x", "x").correct for _ in range(3)] == [None, None, None]  # "1" is never made up
    with pytest.raises(ValueError, match="No score record"):
        from_inspect(precomputed_scores(_records(tmp_path), on_missing="error"))("q", "x", "x")


def test_an_input_of_chat_messages_is_the_states_input_images_and_all() -> None:
    # a multimodal grading prompt once lost its image: the input was rebuilt from its text
    seen: list[tuple[TaskState, Target]] = []
    picture = ContentImage(image="data:image/png;base64,iVBORw0KGgo=")
    conversation = [
        ChatMessageSystem(content="Be brief."),
        ChatMessageUser(content=[ContentText(text="What?"), picture]),
    ]
    from_inspect(seeing(seen))({"input": conversation}, "a cat", "cat")
    state = seen[0][0]
    assert state.input == conversation and state.messages[:2] == conversation
    assert state.input_text == "What?"


def test_an_input_with_no_user_message_is_read_without_raising() -> None:
    seen: list[tuple[TaskState, Target]] = []
    from_inspect(seeing(seen))({"input": [ChatMessageSystem(content="System only.")]}, "x", "x")
    assert seen[0][0].input == [ChatMessageSystem(content="System only.", id=seen[0][0].input[0].id)]


def test_a_template_reading_metadata_grades_from_plain_python(make_output: Callable[..., ModelOutput]) -> None:
    # model_graded_qa's template may name the sample's metadata ({ctx}); it once raised KeyError('ctx')
    prompts: list[str] = []

    def grade(messages: Any, *args: Any) -> ModelOutput:
        prompts.append(messages[-1].text)
        return make_output("GRADE: C")

    qa = model_graded_qa(
        template="In {ctx}: {question} / {answer} / {criterion} / {instructions}",
        model=get_model("mockllm/model", custom_outputs=grade),
    )
    assert from_inspect(qa)({"input": "Capital?", "metadata": {"ctx": "France"}}, "Paris", "Paris").correct is True
    assert prompts[0].startswith("In France: Capital? / Paris / Paris")


def test_an_output_s_logprobs_reach_the_scorer(make_output: Callable[..., ModelOutput]) -> None:
    out = make_output("x")
    out.choices[0].prompt_logprobs = Logprobs(
        content=[Logprob(token="a", logprob=-1.0), Logprob(token="b", logprob=-3.0)]
    )
    got = from_inspect(perplexity())("q", out, "x")
    assert got.value == 2.0


# --- hostile input: a ScorerContractError naming the scorer, never a crash inside -----------------------


HOSTILE: dict[str, Callable[[], tuple[Any, Any, Any]]] = {
    "a 5000-digit label": lambda: ("q", "x", 10**5000),  # str() of it raises ValueError (Python's digit limit)
    "a 5000-digit answer": lambda: ("q", "x", [10**5000]),
    "a label nested 100000 deep": lambda: ("q", "x", nested(100_000)),  # RecursionError while reading it
    "an answer whose repr raises": lambda: ("q", "x", [BrokenRepr()]),  # in the message about it
    "choices whose repr raises": lambda: ({"input": "q", "choices": [BrokenRepr()]}, "x", "x"),
    "a failure_kind whose repr raises": lambda: ("q", {"failure_kind": BrokenRepr()}, "x"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_input_is_a_contract_error_naming_the_scorer(case: str) -> None:
    with pytest.raises(sb.ScorerContractError, match=r"^match: "):
        from_inspect(match())(*HOSTILE[case]())


def test_huge_and_odd_text_is_scored_not_refused() -> None:
    assert from_inspect(match())("q", "x" * 10_000_000 + " Paris", "Paris").correct is True
    assert from_inspect(includes())("\ud800", "a\udfffb Paris", "Paris").correct is True


@pytest.mark.parametrize(
    ("label", "target"),
    [
        ("Paris", ["Paris"]),
        (["Paris", "", "Paris, France"], ["Paris", "Paris, France"]),
        (100000, ["100000"]),
    ],
)
def test_label_becomes_the_target_as_text(label: Any, target: list[str]) -> None:
    seen: list[tuple[TaskState, Target]] = []
    from_inspect(seeing(seen))("q", "x", label)
    assert seen[0][1].target == target


def test_no_label_is_unscored_whatever_the_inspect_scorer_says() -> None:
    # inspect_ai#5525: match() with a blank target says C for any output
    s = from_inspect(match())("q", "anything", "")
    assert (s.correct, s.value) == (None, None)


def test_no_label_leaves_the_inspect_scorer_unasked() -> None:
    seen: list[tuple[TaskState, Target]] = []
    from_inspect(seeing(seen))("q", "anything", None)
    assert seen == []


def test_bad_label_is_an_error_naming_the_scorer() -> None:
    with pytest.raises(sb.ScorerContractError, match="match: a label must be"):
        from_inspect(match())("q", "x", {"answer": "x"})


def test_inspect_model_output_is_used_as_it_is(make_output: Callable[..., ModelOutput]) -> None:
    seen: list[tuple[TaskState, Target]] = []
    from_inspect(seeing(seen))("q", make_output("cut", stop_reason="max_tokens"), "x")
    assert (seen[0][0].output.completion, seen[0][0].output.stop_reason) == ("cut", "max_tokens")


def test_answer_element_of_an_output_object_is_the_completion() -> None:
    s = from_inspect(match())("q", SimpleNamespace(answer="Paris", reasoning="..."), "Paris")
    assert s.correct is True


@pytest.mark.parametrize("output", [None, b"Paris", ["Paris"], float("nan")])
def test_output_with_no_text_is_scored_as_empty(output: Any) -> None:
    s = from_inspect(match())("q", output, "Paris")
    assert (s.correct, s.failure_kind, s.outcome) == (False, "parse_failure", "")


def test_not_in_document_output_is_judged_by_the_inspect_scorer() -> None:
    s = from_inspect(match())("q", SimpleNamespace(text=" NOT_IN_DOCUMENT "), "not_in_document")
    assert s.correct is True


@pytest.mark.parametrize(
    ("output", "kind"),
    [
        ({"failure_kind": "refusal", "text": "Paris"}, "refusal"),
        (SimpleNamespace(ok=False, error="timeout"), "error"),
        # a reported parse_failure or not_in_document was once handed to the scorer as ""
        ({"failure_kind": "parse_failure"}, "parse_failure"),
        ({"failure_kind": "not_in_document", "text": "Paris"}, "not_in_document"),
    ],
    ids=["refusal", "ok-false", "parse-failure", "not-in-document"],
)
def test_output_reporting_its_own_failure_is_not_sent_to_the_scorer(output: Any, kind: str) -> None:
    seen: list[tuple[TaskState, Target]] = []
    s = from_inspect(seeing(seen))("q", output, "Paris")
    assert (s.correct, s.failure_kind, seen) == (False, kind, [])


# --- reading the Inspect Score back -------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "correct", "number"),
    [
        ("C", True, 1.0),
        ("I", False, 0.0),
        ("P", False, 0.5),
        ("c", True, 1.0),  # dsprrr's grade mapping reads grade words in any case (Inspect's value_to_float does not)
        (True, True, 1.0),
        (False, False, 0.0),
        (1, True, 1.0),
        (0.25, False, 0.25),
        ("0.75", False, 0.75),
        ("N", None, None),
        (float("nan"), None, None),
    ],
)
def test_value_is_read_by_the_seed_004_grade_mapping(value: Any, correct: bool | None, number: float | None) -> None:
    s = from_inspect(returning(value=value))("q", "x", "x")
    assert (s.correct, s.value) == (correct, number)


@pytest.mark.parametrize("value", ["yes", {"a": 1}, [1, 0]])
def test_value_the_mapping_does_not_know_is_unscored_with_a_warning(value: Any) -> None:
    with pytest.warns(UserWarning, match="unrecognised grade"):
        s = from_inspect(returning(value=value))("q", "x", "x")
    assert (s.correct, s.value) == (None, None)


# Where dsprrr's grade mapping (ours) and Inspect's value_to_float read a value differently: the rows of
# docs/inspect.md's table, each checked on both sides so the table cannot drift from either.


@pytest.mark.parametrize(("value", "inspect_reads"), [("yes", 1.0), ("true", 1.0), ("no", 0.0)])
def test_yes_no_true_are_unscored_with_a_warning_where_inspect_reads_one_or_zero(
    value: str, inspect_reads: float
) -> None:
    assert value_to_float()(value) == inspect_reads
    with pytest.warns(UserWarning, match="unrecognised grade"):
        s = from_inspect(returning(value=value))("q", "x", "x")
    assert (s.correct, s.value) == (None, None)


@pytest.mark.parametrize(("value", "correct", "number"), [("c", True, 1.0), ("i", False, 0.0)])
def test_lower_case_c_and_i_are_read_as_grades_where_inspect_reads_zero(
    value: str, correct: bool, number: float
) -> None:
    assert value_to_float()(value) == 0.0  # Inspect: not a sentinel, a logged warning and 0
    s = from_inspect(returning(value=value))("q", "x", "x")
    assert (s.correct, s.value) == (correct, number)


def test_no_answer_without_a_reason_is_unscored_where_inspect_reads_zero() -> None:
    assert value_to_float()("N") == 0.0
    s = from_inspect(returning(value="N"))("q", "x", "x")
    assert (s.correct, s.value, s.failure_kind) == (None, None, None)


def test_no_score_from_the_scorer_is_unscored() -> None:
    s = from_inspect(returning())("q", "x", "x")
    assert (s.correct, s.explanation) == (None, "the Inspect scorer gave no Score")


@pytest.mark.parametrize(
    ("reason", "kind"),
    [
        ("invalid_response_format", "parse_failure"),
        ("no_response", "parse_failure"),
        ("refusal", "refusal"),
        ("scoring_failed", "error"),
        ("grader_failed", "error"),
        (None, "wrong"),
        ("rate_limited", "wrong"),
    ],
)
def test_wrong_scores_reason_gives_its_failure_kind(reason: str | None, kind: str) -> None:
    assert from_inspect(returning(value="I", reason=reason))("q", "x", "x").failure_kind == kind


def test_reason_on_a_correct_score_is_no_failure_but_is_kept() -> None:
    # match() says C with reason no_response for an empty output and a punctuation-only target
    s = from_inspect(returning(value="C", reason="no_response"))("q", "", "x")
    assert (s.correct, s.failure_kind, dict(s.metadata)) == (True, None, {"inspect_reason": "no_response"})


def test_nan_with_a_reason_stays_unscored_keeping_the_reason() -> None:
    # Inspect leaves NaN out of its metrics; a grader failure is the instrument's, not the model's
    s = from_inspect(returning(value=float("nan"), reason="grader_failed"))("q", "x", "x")
    assert (s.correct, s.failure_kind, s.metadata["inspect_reason"]) == (None, None, "grader_failed")


def test_no_answer_with_an_instrument_reason_is_unscored() -> None:
    s = from_inspect(returning(value="N", reason="scoring_failed"))("q", "x", "x")
    assert (s.correct, s.failure_kind) == (None, None)


def test_no_answer_with_a_refusal_is_wrong_for_that_reason() -> None:
    # Inspect's metrics count N as 0; the recording rules count an output with a failure kind wrong
    s = from_inspect(returning(value="N", reason="refusal"))("q", "x", "x")
    assert (s.correct, s.failure_kind, s.value) == (False, "refusal", 0.0)


def test_metadata_is_kept() -> None:
    s = from_inspect(returning(value="C", metadata={"grading": ["..."], "n": 2}))("q", "x", "x")
    assert dict(s.metadata) == {"grading": ["..."], "n": 2}


def test_failure_kind_written_by_to_inspect_gives_correct_and_kind_exactly() -> None:
    s = from_inspect(returning(value=0.75, metadata={"failure_kind": None}))("q", "x", "x")
    assert (s.correct, s.failure_kind, s.value, dict(s.metadata)) == (True, None, 0.75, {})


def test_unknown_failure_kind_in_metadata_is_left_alone() -> None:
    s = from_inspect(returning(value="I", metadata={"failure_kind": "timeout"}))("q", "x", "x")
    assert (s.failure_kind, dict(s.metadata)) == ("wrong", {"failure_kind": "timeout"})


def test_scorer_returning_something_else_than_a_score_names_it() -> None:
    async def plain(state: TaskState, target: Target) -> Any:
        return {"value": "C"}

    with pytest.raises(sb.ScorerContractError, match="plain: the Inspect scorer returned dict, not a Score"):
        from_inspect(plain)("q", "x", "x")


def test_infinite_value_is_a_contract_error_naming_the_scorer() -> None:
    # Inspect's Score takes any float; a scorebridge value is finite, never a silent inf in the mean
    with pytest.raises(sb.ScorerContractError, match="value must be a finite number; got inf"):
        from_inspect(returning(value=float("inf")))("q", "x", "x")


def test_exception_in_the_inspect_scorer_propagates_naming_the_scorer() -> None:
    async def broken(state: TaskState, target: Target) -> Score:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom") as caught:
        from_inspect(broken)("q", "x", "x")
    assert caught.value.__notes__ == ["raised inside the scorer 'broken'"]


# --- from every kind of caller ------------------------------------------------------------


def test_plain_call_from_worker_threads() -> None:
    # DSPy's Evaluate and optimizers call metrics on worker threads
    m = from_inspect(match())
    with ThreadPoolExecutor(max_workers=4) as pool:
        scores = list(pool.map(lambda i: m("q", f"It is {i}", str(i) if i % 2 else "none"), range(40)))
    assert [s.correct for s in scores] == [i % 2 == 1 for i in range(40)]


def test_model_graded_qa_from_worker_threads(make_output: Callable[..., ModelOutput]) -> None:
    grader = get_model("mockllm/model", custom_outputs=lambda *args: make_output("GRADE: C"))
    qa = from_inspect(model_graded_qa(), model=grader)
    with ThreadPoolExecutor(max_workers=4) as pool:
        scores = list(pool.map(lambda i: qa("q", f"answer {i}", "answer"), range(12)))
    assert all(s.correct for s in scores)


def test_plain_call_inside_a_running_event_loop() -> None:
    m = from_inspect(match())

    async def notebook_cell() -> sb.Score:
        return m("q", "Paris", "Paris")  # a sync call while a loop runs here

    assert asyncio.run(notebook_cell()).correct is True


def test_acall_awaits_in_the_callers_loop() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def probe(state: TaskState, target: Target) -> Score:
        loops.append(asyncio.get_running_loop())
        return Score(value="C")

    async def main() -> asyncio.AbstractEventLoop:
        await from_inspect(probe).acall("q", "x", "x")
        return asyncio.get_running_loop()

    assert loops == [asyncio.run(main())]


def test_score_many_runs_every_score_in_one_reused_loop() -> None:
    # never asyncio.run per score: one loop for the batch, and the same loop for the next batch
    loops: set[int] = set()
    threads: set[int] = set()

    async def probe(state: TaskState, target: Target) -> Score:
        loops.add(id(asyncio.get_running_loop()))
        threads.add(threading.get_ident())
        return Score(value="C")

    wrapped = from_inspect(probe)
    first = wrapped.score_many(None, ["a", "b", "c"], ["a", "b", "c"])
    second = wrapped.score_many(["q"] * 2, ["d", "e"], ["d", "e"])
    assert [s.correct for s in first + second] == [True] * 5
    assert (len(loops), threads) == (1, {threading.get_ident()})


# --- names and arguments ---------------------------------------------------------------


def test_name_is_the_registered_name_without_its_package() -> None:
    assert from_inspect(match()).name == "match"


def test_name_of_a_plain_async_function_is_its_name() -> None:
    async def my_scorer(state: TaskState, target: Target) -> Score:
        return Score(value="C")

    assert from_inspect(my_scorer).name == "my_scorer"


def test_name_argument_wins() -> None:
    assert from_inspect(match(), name="ends_with").name == "ends_with"


def test_scorer_factory_instead_of_a_scorer_says_to_call_it() -> None:
    with pytest.raises(TypeError, match=r"match is a scorer factory; call it: from_inspect\(match\(\)\)"):
        from_inspect(match)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"threshold": True}, TypeError, "threshold must be a number"),
        ({"threshold": "1"}, TypeError, "threshold must be a number"),
        ({"threshold": float("inf")}, ValueError, "threshold must be finite"),
        ({"threshold": float("nan")}, ValueError, "threshold must be finite"),
        ({"threshold": 10**400}, ValueError, "threshold must be finite"),
        ({"model": 3}, TypeError, "model must be a Model, a model name or None"),
    ],
)
def test_bad_arguments_fail_at_construction_naming_the_scorer(
    kwargs: dict[str, Any], error: type, message: str
) -> None:
    with pytest.raises(error, match=rf"from_inspect\(match\): {message}"):
        from_inspect(match(), **kwargs)


@pytest.mark.parametrize("bad", [42, lambda state, target: None])
def test_not_an_async_scorer_is_rejected(bad: Any) -> None:
    with pytest.raises(TypeError, match="from_inspect: expected an Inspect AI scorer"):
        from_inspect(bad)


# --- options are the whole identity: the Inspect scorer's own arguments are in them ------------------------


def test_the_inspect_scorers_own_arguments_are_options() -> None:
    assert from_inspect(match(location="begin")).options == {"threshold": 1.0, "inspect_args": {"location": "begin"}}


def test_a_resume_under_other_inspect_arguments_is_refused_naming_both(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    arms = {"m": lambda item: "The answer is Paris"}
    sb.benchmark(arms, ["Capital of France?"], ["Paris"], scorer=from_inspect(match()), out=out)
    with pytest.raises(ValueError, match=r"scored by match\(threshold=1.0\);.* match\(threshold=1.0, inspect_args="):
        sb.benchmark(arms, ["Capital of France?"], ["Paris"], scorer=from_inspect(match(location="begin")), out=out)


def test_a_resume_under_the_same_inspect_scorer_made_again_goes_on(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    arms = {"m": lambda item: "Paris"}
    sb.benchmark(arms, ["q1"], ["Paris"], scorer=from_inspect(match(location="begin")), out=out)
    again = sb.benchmark(arms, ["q1", "q2"], ["Paris", "Rome"], scorer=from_inspect(match(location="begin")), out=out)
    assert len(again.records) == 2


def test_with_options_changes_the_threshold() -> None:
    assert from_inspect(match()).with_options(threshold=0.5).options["threshold"] == 0.5


def test_with_options_refuses_other_inspect_arguments_saying_what_to_wrap() -> None:
    with pytest.raises(TypeError, match=r"wrap the scorer made with others instead: from_inspect\(match\(location="):
        from_inspect(match()).with_options(inspect_args={"location": "end"})


# --- whether the Inspect scorer needs a label: read from its code (Inspect does not declare it) ---------------
# from_inspect took every Inspect scorer as needing a target: a length check was never asked about an unlabelled
# sample, though Inspect runs it on every sample.


def test_a_scorer_that_never_reads_its_target_scores_an_unlabelled_row() -> None:
    @scorer(metrics=[accuracy()], name="short")
    def short() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value="C" if len(state.output.completion) <= 12 else "I")

        return score

    made = from_inspect(short())
    assert made.needs_label is False and (made("q", "Paris", None).correct, made("q", "x" * 20, None).correct) == (
        True,
        False,
    )


@pytest.mark.parametrize(
    "made",
    [match(), includes(), exact(), f1(), answer("line"), pattern(r"(\w+)"), choice()],
    # by name, not repr: a closure's repr holds its address, which differs between xdist's workers
    ids=["match", "includes", "exact", "f1", "answer", "pattern", "choice"],
)
def test_inspects_built_ins_that_compare_with_the_target_need_a_label(made: Scorer) -> None:
    assert from_inspect(made).needs_label is True


def test_perplexity_reads_no_target_and_needs_no_label() -> None:
    assert from_inspect(perplexity()).needs_label is False


def test_needs_label_says_so_instead_of_the_code() -> None:
    assert from_inspect(match(), needs_label=False).needs_label is False
