"""Round trips: Inspect's scorer out and back is Inspect's scorer; a scorebridge scorer out and back is itself.

Each behaviour Inspect AI's own scorer tests check (tests/scorer) is checked here in the
round-trip form, in real offline evals: `to_inspect(from_inspect(x))` beside `x`, the
same Scores field for field, the same metrics, the same scorer name and arguments in the
log. The bugs guarded against are the ones the round trip had when it rebuilt the call:
`state.input_text` raising on inputs with no user message, `choice()` losing its
choices, logprobs and metadata lost, precomputed scores given to the wrong sample, f1's
numbers turned into letters, an extra `failure_kind` key, the scorer's metrics and
logged arguments replaced, exceptions wrapped, a truncated output's reason lost.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai import Task, eval, score
from inspect_ai._eval.score import resolve_scorers  # what `inspect score LOG` calls without --scorer
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    Logprob,
    Logprobs,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.scorer import (
    Score,
    Scorer,
    Target,
    answer,
    choice,
    exact,
    f1,
    includes,
    match,
    mean,
    model_graded_fact,
    model_graded_qa,
    multi_scorer,
    pattern,
    perplexity,
    precomputed_scores,
    scorer,
)
from inspect_ai.solver import TaskState, generate, multiple_choice
from inspect_ai.util import registry_info

import scorebridge as sb
from scorebridge_inspect import from_inspect, to_inspect


def model_output(content: str, stop_reason: str = "stop") -> ModelOutput:
    """A mockllm reply with `usage` set (offline: no tokenizer download)."""
    output = ModelOutput.from_content(model="mockllm/model", content=content, stop_reason=stop_reason)  # type: ignore[arg-type]
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


# --- running evals ------------------------------------------------------------------------


def replying(replies: dict[str, ModelOutput]) -> Callable[..., ModelOutput]:
    """mockllm's custom_outputs: the reply to the prompt whose last message holds a key (order-free)."""

    def reply(messages: Sequence[ChatMessage], *args: Any) -> ModelOutput:
        text = " ".join(m.text for m in messages)
        return next((out for key, out in replies.items() if key in text), model_output(""))

    return reply


def run(task: Task, replies: dict[str, ModelOutput], **kwargs: Any) -> EvalLog:
    model = get_model("mockllm/model", custom_outputs=replying(replies))
    [log] = eval(task, model=model, display="none", **kwargs)
    return log


def _without_ids(x: Any) -> Any:
    # message ids are drawn at random per eval (a model-graded Score's metadata holds its grading messages)
    if isinstance(x, dict):
        return {k: _without_ids(v) for k, v in x.items() if k != "id"}
    if isinstance(x, list):
        return [_without_ids(v) for v in x]
    return x


def as_logged(s: Score) -> str:
    """A Score as Inspect writes it (NaN as NaN, so two unscored Scores compare equal), message ids aside."""
    return json.dumps(_without_ids(json.loads(s.model_dump_json(exclude={"history"}))))


def scores_of(log: EvalLog) -> dict[tuple[Any, str], str]:
    """Every Score in the log, by (sample id, scorer name), as Inspect writes it."""
    return {(s.id, name): as_logged(v) for s in log.samples or [] for name, v in (s.scores or {}).items()}


def results_of(log: EvalLog) -> list[tuple[str, dict[str, Any], dict[str, float]]]:
    """The log's scorers: name, arguments and metric values."""
    assert log.results is not None, log.error
    return [
        (r.name, dict(r.params), {k: m.value for k, m in r.metrics.items()})
        for r in sorted(log.results.scores, key=lambda r: r.name)
    ]


def both(make: Callable[[], list[Scorer]], dataset: list[Sample], replies: dict[str, ModelOutput], **kw: Any) -> Any:
    """The log of the task with the scorers `make()` gives, natively and each through the round trip."""
    solver, solver_again = kw.pop("solver", generate()), kw.pop("solver_again", generate())
    native = run(Task(dataset=dataset, solver=solver, scorer=make()), replies, **kw)
    through = [to_inspect(from_inspect(x)) for x in make()]
    tripped = run(Task(dataset=dataset, solver=solver_again, scorer=through), replies, **kw)
    return native, tripped


# --- the round trip is the scorer itself ------------------------------------------------------


def _grader() -> Any:
    return get_model("mockllm/model", custom_outputs=replying({"": model_output("GRADE: C")}))


FACTORIES: dict[str, Callable[[], Scorer]] = {
    "match": match,
    "includes": includes,
    "pattern": lambda: pattern(r"ANSWER:\s*(\w+)"),
    "answer": lambda: answer("letter"),
    "exact": exact,
    "f1": f1,
    "choice": choice,
    "model_graded_qa": lambda: model_graded_qa(model=_grader()),
    "model_graded_fact": lambda: model_graded_fact(model=_grader()),
    "multi_scorer": lambda: multi_scorer([match(), includes()], "mode"),
    "perplexity": perplexity,
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_an_inspect_scorer_out_and_back_is_the_scorer_itself(name: str) -> None:
    x = FACTORIES[name]()
    assert to_inspect(from_inspect(x)) is x


@pytest.mark.parametrize("s", [sb.exact(), sb.scorer(lambda i, o, lab: True, name="always")])
def test_a_scorebridge_scorer_out_and_back_is_the_scorer_itself(s: sb.Scorer) -> None:
    assert from_inspect(to_inspect(s)) is s
    assert from_inspect(to_inspect(s, name="other", metrics=[mean()])) is s  # Inspect-side options
    assert from_inspect(to_inspect(s, on_error="record")) is not s  # records what s would raise


# --- in a real eval: what Inspect's own scorer tests check --------------------------------------


def _no_user_message(text: str) -> list[ChatMessage]:
    return [ChatMessageSystem(content=text)]  # Inspect's input_text raises on it


TEXT_SAMPLES = [
    Sample(id="paris", input="Capital of France?", target="Paris"),
    Sample(id="lyon", input="Second city?", target="Paris"),
    Sample(id="letter", input="Pick one: ANSWER: X", target="B"),
    Sample(id="cut", input="Truncated?", target="Paris"),  # stops on max_tokens: pattern() says so
    Sample(id="system", input=_no_user_message("System only, no user message"), target="Paris"),
    Sample(id="number", input="How many?", target="42"),
    Sample(id="partial", input="Say it all", target="the quick brown fox"),
]
TEXT_REPLIES = {
    "Capital of France?": model_output("ANSWER: Paris"),
    "Second city?": model_output("Lyon"),
    "Pick one": model_output("ANSWER: B"),
    "Truncated?": model_output("The answer is", stop_reason="max_tokens"),
    "System only": model_output("Paris"),
    "How many?": model_output("42"),
    "Say it all": model_output("the quick fox"),
}


def test_the_text_scorers_log_the_same_scores_metrics_and_arguments() -> None:
    def make() -> list[Scorer]:
        return [
            match(),
            match(location="any", numeric=True),
            includes(ignore_case=False),
            pattern(r"ANSWER:\s*(\w+)"),
            answer("word"),
            exact(),
            f1(),
        ]

    native, tripped = both(make, TEXT_SAMPLES, TEXT_REPLIES)
    assert native.status == tripped.status == "success"
    assert scores_of(tripped) == scores_of(native)
    assert results_of(tripped) == results_of(native)
    # f1's numbers stay numbers, no key is added, the truncated output's reason is kept
    assert json.loads(scores_of(tripped)[("partial", "f1")])["value"] == pytest.approx(0.8)
    assert json.loads(scores_of(tripped)[("cut", "pattern")])["reason"] == "invalid_response_format"
    assert all("failure_kind" not in (json.loads(v)["metadata"] or {}) for v in scores_of(tripped).values())
    assert set(next(m for n, _, m in results_of(tripped) if n == "f1")) == {"mean", "stderr"}  # f1's own metrics


def test_choice_with_the_multiple_choice_solver_logs_the_same_scores() -> None:
    dataset = [
        Sample(id="one", input="Which is red?", choices=["grass", "blood", "sky"], target="B"),
        Sample(id="two", input="Which is blue?", choices=["grass", "blood", "sky"], target="C"),
    ]
    replies = {"Which is red?": model_output("ANSWER: B"), "Which is blue?": model_output("ANSWER: A")}
    native, tripped = both(
        lambda: [choice()], dataset, replies, solver=multiple_choice(), solver_again=multiple_choice()
    )
    assert native.status == tripped.status == "success"
    assert scores_of(tripped) == scores_of(native)
    assert results_of(tripped) == results_of(native) == [("choice", {}, {"accuracy": 0.5, "stderr": 0.5})]


def test_a_model_graded_template_reads_sample_metadata_and_the_input_s_image() -> None:
    # a template using {ctx} from the sample's metadata once failed with KeyError('ctx')
    seen: list[str] = []

    def grade(messages: Sequence[ChatMessage], *args: Any) -> ModelOutput:
        seen.append(" ".join(m.text for m in messages))
        return model_output("GRADE: C")

    template = "Context: {ctx}\nQuestion: {question}\nAnswer: {answer}\nCriterion: {criterion}\n{instructions}"
    dataset = [Sample(id="s", input="Capital?", target="Paris", metadata={"ctx": "France"})]

    def make() -> list[Scorer]:
        return [model_graded_qa(template=template, model=get_model("mockllm/model", custom_outputs=grade))]

    native, tripped = both(make, dataset, {"Capital?": model_output("Paris")})
    assert scores_of(tripped) == scores_of(native)
    assert results_of(tripped) == results_of(native)
    assert len(seen) == 2 and seen[0] == seen[1] and "Context: France" in seen[0]


def _with_prompt_logprobs(text: str, logprobs: list[float]) -> ModelOutput:
    out = model_output(text)
    content = [Logprob(token=f"t{i}", logprob=lp) for i, lp in enumerate(logprobs)]
    out.choices = [
        ChatCompletionChoice(
            message=ChatMessageAssistant(content=text, model="mockllm/model"),
            stop_reason="stop",
            prompt_logprobs=Logprobs(content=content),
        )
    ]
    return out


def test_perplexity_reads_the_output_s_logprobs() -> None:
    # the ModelOutput once did not reach the scorer: NaN for every sample
    dataset = [Sample(id="a", input="Alpha"), Sample(id="b", input="Beta")]
    replies = {"Alpha": _with_prompt_logprobs("x", [-0.5, -1.5]), "Beta": _with_prompt_logprobs("y", [-2.0])}
    native, tripped = both(lambda: [perplexity()], dataset, replies)
    assert scores_of(tripped) == scores_of(native)
    assert json.loads(scores_of(tripped)[("a", "perplexity")])["value"] == 1.0


def test_precomputed_scores_go_to_their_own_samples(tmp_path: Path) -> None:
    # sample ids were a process-wide counter: s2 once got another sample's record
    path = tmp_path / "scores.json"
    path.write_text(json.dumps([{"id": "s1", "value": "C"}, {"id": "s2", "value": "I"}, {"id": 3, "value": "C"}]))
    dataset = [Sample(id="s1", input="one"), Sample(id="s2", input="two"), Sample(id=3, input="three")]
    native, tripped = both(lambda: [precomputed_scores(str(path))], dataset, {})
    assert scores_of(tripped) == scores_of(native)
    assert results_of(tripped) == results_of(native)
    assert results_of(tripped)[0][2]["accuracy"] == pytest.approx(2 / 3)


@scorer(metrics={"helpful": [mean()], "harmless": [mean()]})
def rubric() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value={"helpful": len(state.output.completion) % 2, "harmless": 1}, answer="a")

    return score


def test_a_scorer_s_own_metrics_and_dict_values_are_kept() -> None:
    native, tripped = both(lambda: [rubric(), multi_scorer([match(), includes()], "mode")], TEXT_SAMPLES, TEXT_REPLIES)
    assert scores_of(tripped) == scores_of(native)
    assert results_of(tripped) == results_of(native)
    assert {"helpful", "harmless"} <= {name for name, _, _ in results_of(tripped)}  # a dict of metrics, by key


def test_a_round_tripped_log_is_rescored_by_inspect_from_the_log_alone() -> None:
    # the log once recorded {"threshold": 1.0}, and rebuilding match() from it failed
    def make() -> list[Scorer]:
        return [match(location="any"), pattern(r"ANSWER:\s*(\w+)")]

    native, tripped = both(make, TEXT_SAMPLES, TEXT_REPLIES)
    # as `inspect score LOG` does with no --scorer: the scorers made again from the names and arguments logged
    again_native = score(native, resolve_scorers(native), action="overwrite")
    again_tripped = score(tripped, resolve_scorers(tripped), action="overwrite")
    assert scores_of(again_tripped) == scores_of(again_native) == scores_of(native)
    assert results_of(again_tripped) == results_of(native)


# --- exceptions ------------------------------------------------------------------------------------


@scorer(metrics=[mean()])
def fussy() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        raise ValueError(f"cannot score {state.input_text!r}")

    return score


def test_an_inspect_scorer_s_exception_comes_back_as_it_raised_it(make_state: Callable[..., TaskState]) -> None:
    # it was wrapped in ScoringError, so pytest.raises(ValueError) no longer caught it
    with pytest.raises(ValueError, match="cannot score 'question'"):
        asyncio.run(to_inspect(from_inspect(fussy()))(make_state("x"), Target("y")))
    with pytest.raises(ValueError, match="cannot score 'question'"):
        asyncio.run(to_inspect(from_inspect(fussy()), name="renamed")(make_state("x"), Target("y")))


def test_an_inspect_scorer_s_exception_fails_the_eval_as_it_does_natively() -> None:
    dataset = [Sample(id="a", input="Alpha", target="x")]
    native, tripped = both(lambda: [fussy()], dataset, {}, fail_on_error=False)
    [a], [b] = native.samples or [], tripped.samples or []
    assert a.error is not None and b.error is not None
    assert b.error.message == a.error.message == "ValueError(\"cannot score 'Alpha'\")"


# --- options on a round trip: a thin wrapper, or a clear error ----------------------------------------


def test_a_renamed_round_trip_logs_its_name_with_the_scorer_s_arguments_and_metrics() -> None:
    dataset = TEXT_SAMPLES[:3]
    native = run(Task(dataset=dataset, solver=generate(), scorer=match(location="any")), TEXT_REPLIES)
    renamed = to_inspect(from_inspect(match(location="any"), name="anywhere"))
    tripped = run(Task(dataset=dataset, solver=generate(), scorer=renamed), TEXT_REPLIES)
    [(name, params, metrics)] = results_of(tripped)
    assert (name, params, metrics) == ("anywhere", {"location": "any"}, results_of(native)[0][2])
    assert {k[0]: v for k, v in scores_of(tripped).items()} == {k[0]: v for k, v in scores_of(native).items()}
    again = score(tripped, resolve_scorers(tripped), action="overwrite")  # the wrapper, made again from the log
    assert scores_of(again) == scores_of(tripped)


def test_metrics_on_a_round_trip_replace_the_scorer_s_own() -> None:
    tripped = run(
        Task(dataset=TEXT_SAMPLES[:2], solver=generate(), scorer=to_inspect(from_inspect(match()), metrics=[mean()])),
        TEXT_REPLIES,
    )
    assert results_of(tripped) == [("match", {}, {"mean": 0.5})]


def test_on_error_record_on_a_round_trip_scores_the_exception(make_state: Callable[..., TaskState]) -> None:
    got = asyncio.run(to_inspect(from_inspect(fussy()), on_error="record")(make_state("x"), Target("y")))
    assert (got.value, got.reason, got.explanation) == (
        "I",
        "scoring_failed",
        "the scorer raised ValueError(\"cannot score 'question'\")",
    )


@pytest.mark.parametrize("option", [{"item": lambda s: s.input}, {"output": lambda s: s.output.completion}])
def test_readers_on_a_round_trip_are_a_clear_error(option: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"to_inspect\(match\): item= and output= choose what a scorebridge scorer"):
        to_inspect(from_inspect(match()), **option)


def test_from_inspect_s_model_is_the_active_model_inside_the_round_trip() -> None:
    # model_graded_qa() without a model grades with the active model: the eval's, unless from_inspect names one
    graded_by: list[str] = []

    def grader(name: str) -> Any:
        def reply(messages: Sequence[ChatMessage], *args: Any) -> ModelOutput:
            graded_by.append(name)
            return model_output("GRADE: C" if name == "judge" else "Paris")

        return get_model("mockllm/model", custom_outputs=reply)

    judged = to_inspect(from_inspect(model_graded_qa(), model=grader("judge")))
    [log] = eval(
        Task(dataset=[Sample(input="Capital?", target="Paris")], solver=generate(), scorer=judged),
        model=grader("evaluated"),
        display="none",
    )
    assert graded_by == ["evaluated", "judge"]
    assert (log.samples or [])[0].scores["model_graded_qa"].value == "C"  # type: ignore[index]


# --- a scorer of one's own around a from_inspect scorer: Inspect's objects travel with the call -----------


def test_a_scorer_calling_a_from_inspect_scorer_hands_it_inspect_s_own_state() -> None:
    seen: list[TaskState] = []

    @scorer(metrics=[mean()])
    def seeing() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            seen.append(state)
            return Score(value=1)

        return score

    inner = from_inspect(seeing())
    outer = sb.scorer(lambda item, output, label: inner(item, output, label), name="outer")
    dataset = [Sample(id="s7", input="Capital?", target="Paris", metadata={"ctx": "France"}, choices=["a", "b"])]
    log = run(Task(dataset=dataset, solver=generate(), scorer=to_inspect(outer)), {"Capital?": model_output("Paris")})
    assert log.status == "success"
    [state] = seen
    assert (state.sample_id, state.metadata, len(state.choices)) == ("s7", {"ctx": "France"}, 2)


def test_an_async_scorer_awaiting_a_model_graded_from_inspect_scorer_grades_with_the_eval_s_model() -> None:
    # awaited on Inspect's own loop, with Inspect's own state: the active model is the evaluated one
    inner = from_inspect(model_graded_qa())

    async def outer(item: Any, output: Any, label: Any) -> sb.Score:
        return await inner.acall(item, output, label)

    replies = {"GRADE": model_output("GRADE: C"), "Capital?": model_output("Paris")}  # the grading prompt first
    dataset = [Sample(id="s", input="Capital?", target="Paris")]
    log = run(Task(dataset=dataset, solver=generate(), scorer=to_inspect(sb.scorer(outer))), replies)
    assert log.status == "success", log.error
    assert (log.samples or [])[0].scores["outer"].value == "C"  # type: ignore[index]


# --- property: random samples, native and round trip, in a real eval ----------------------------------

samples = st.fixed_dictionaries(
    {
        "user": st.booleans(),  # False: an input with no user message (input_text raises)
        "choices": st.one_of(st.none(), st.lists(st.sampled_from(["red", "blue", "green"]), min_size=2, max_size=3)),
        "metadata": st.one_of(st.none(), st.dictionaries(st.sampled_from(["ctx", "topic"]), st.text(max_size=4))),
        "reply": st.sampled_from(["ANSWER: A", "ANSWER: B", "Paris", "", "paris, france", "42"]),
        "target": st.sampled_from(["A", "B", "Paris", "42", ""]),
    }
)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(samples, min_size=1, max_size=4))
def test_random_samples_score_alike_natively_and_through_the_round_trip(rows: list[dict[str, Any]]) -> None:
    dataset, replies = [], {}
    for i, row in enumerate(rows):
        text = f"[q{i}] Question {i}?"
        given_input: Any = text if row["user"] else _no_user_message(text)
        dataset.append(
            Sample(id=i, input=given_input, target=row["target"], choices=row["choices"], metadata=row["metadata"])
        )
        replies[text] = model_output(row["reply"])

    def make() -> list[Scorer]:
        return [match(), includes(), pattern(r"ANSWER:\s*(\w+)"), answer("letter"), exact(), f1()]

    native = run(Task(dataset=dataset, solver=generate(), scorer=make()), replies)
    plain = run(Task(dataset=dataset, solver=generate(), scorer=[to_inspect(from_inspect(x)) for x in make()]), replies)
    wrapped = [to_inspect(from_inspect(x), metrics=[mean()]) for x in make()]  # the thin wrapper's path
    thin = run(Task(dataset=dataset, solver=generate(), scorer=wrapped), replies)
    assert scores_of(plain) == scores_of(native) == scores_of(thin)


def test_a_score_of_the_round_trip_is_inspect_s_score_object(make_state: Callable[..., TaskState]) -> None:
    # no copy, no re-validation: the Score the scorer returned
    returned = Score(value="C", answer="a")

    @scorer(metrics=[mean()])
    def fixed() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            return returned

        return score

    assert asyncio.run(to_inspect(from_inspect(fixed()))(make_state("x"), Target("y"))) is returned
    assert registry_info(to_inspect(from_inspect(fixed()), name="fixed2")).name.split("/")[-1] == "fixed2"
