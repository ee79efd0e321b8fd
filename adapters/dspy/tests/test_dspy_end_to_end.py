"""The metric run by the real DSPy, offline with DummyLM: Evaluate, BootstrapFewShot and GEPA."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import dspy
import pytest
from dspy.utils import DummyLM

import scorebridge as sb
from scorebridge_dspy import to_dspy

EXACT = sb.exact()

COUNTRIES = [
    "France", "Italy", "Spain", "Peru", "Japan", "Kenya", "Canada", "Egypt", "Norway", "Chile", "Ghana", "Nepal",
    "Cuba", "Laos", "Mali", "Oman", "Fiji", "Iran", "Iraq", "Togo", "Chad", "Niger", "Qatar", "Yemen",
]  # fmt: skip


def question(i: int) -> str:
    # Tagged so that no question is a substring of another (DummyLM matches substrings of the prompt).
    return f"[q{i:03d}] Which city is the capital of {COUNTRIES[i % len(COUNTRIES)]}?"


def devset(labels: list[Any]) -> list[Any]:
    return [dspy.Example(question=question(i), answer=label).with_inputs("question") for i, label in enumerate(labels)]


def lm_answering(answers: list[str]) -> DummyLM:
    # Dict mode: the answer for the prompt that holds the question. Thread-safe, order-free.
    return DummyLM({question(i): {"answer": answer} for i, answer in enumerate(answers)})


# 24 examples: right, right after folding, wrong, NOT_IN_DOCUMENT, one of several labels, a number label.
CASES = [
    ("Paris", "Paris"),
    ("  rome ", "Rome"),
    ("Barcelona", "Madrid"),
    ("NOT_IN_DOCUMENT", "Lima"),
    ("Tokyo", ["Tokyo", "Tōkyō"]),
    ("Nairobi", "Nairobi"),
    ("Toronto", "Ottawa"),
    ("CAIRO", "Cairo"),
    ("not_in_document", "Oslo"),
    ("Santiago", ["Santiago", "Santiago de Chile"]),
    ("Accra", "Accra"),
    ("Pokhara", "Kathmandu"),
    ("Havana", "Havana"),
    ("Vientiane", "Vientiane"),
    ("Timbuktu", "Bamako"),
    ("Muscat", "Muscat"),
    ("Suva", "Suva"),
    ("Tehran", "Tehran"),
    ("Basra", "Baghdad"),
    ("Lomé", "Lomé"),
    ("N'Djamena", "N'Djamena"),
    ("Agadez", "Niamey"),
    ("1974", 1974),
    ("Aden", "Sanaa"),
]


def evaluate(metric: Any, examples: list[Any], lm: Any, num_threads: int) -> Any:
    with dspy.context(lm=lm):
        return dspy.Evaluate(devset=examples, metric=metric, num_threads=num_threads)(
            dspy.Predict("question -> answer")
        )


def test_evaluate_gives_the_scores_of_calling_the_scorer_directly() -> None:
    answers, labels = zip(*CASES, strict=True)
    examples = devset(list(labels))
    result = evaluate(to_dspy(EXACT), examples, lm_answering(list(answers)), num_threads=1)

    direct = [
        EXACT(example.inputs().toDict(), pred.answer, example.answer).value for example, pred, _ in result.results
    ]
    assert [row[2] for row in result.results] == direct
    assert all(type(row[2]) is float for row in result.results)
    assert sum(direct) == 15  # the cases above: 15 right, 9 wrong
    assert result.score == round(100 * 15 / 24, 2)


def test_evaluate_on_eight_threads_gives_what_one_thread_gives() -> None:
    answers, labels = zip(*(CASES * 2), strict=True)
    examples = devset(list(labels))
    lm = lm_answering(list(answers))
    one = evaluate(to_dspy(EXACT), examples, lm, num_threads=1)
    eight = evaluate(to_dspy(EXACT), examples, lm, num_threads=8)
    assert [(row[0], row[2]) for row in eight.results] == [(row[0], row[2]) for row in one.results]
    assert eight.score == one.score


def test_evaluate_on_eight_threads_with_an_async_scorer_gives_what_one_thread_gives() -> None:
    # review: only the sync exact() ran on DSPy's worker threads; an async fn runs there through the core's
    # run_sync, in an event loop of each worker thread's own
    threads: set[int] = set()

    async def async_exact(item: Any, output: Any, label: Any) -> sb.Score:
        threads.add(threading.get_ident())
        await asyncio.sleep(0.001)  # the threads' loops overlap in time
        return EXACT(item, output, label)

    scorer = sb.scorer(async_exact)
    assert scorer.is_async
    answers, labels = zip(*(CASES * 2), strict=True)
    examples = devset(list(labels))
    lm = lm_answering(list(answers))
    one = evaluate(to_dspy(scorer), examples, lm, num_threads=1)
    threads.clear()
    eight = evaluate(to_dspy(scorer), examples, lm, num_threads=8)
    assert len(threads) > 1  # scored on several worker threads at once
    assert [(row[0], row[2]) for row in eight.results] == [(row[0], row[2]) for row in one.results]
    assert eight.score == one.score == round(100 * 30 / 48, 2)


def test_evaluate_counts_an_unlabelled_example_zero_over_the_whole_devset(caplog: pytest.LogCaptureFixture) -> None:
    # review: an unscored Score raises in the metric, and DSPy's Evaluate cannot leave a row out (it divides
    # by the devset's size), so the row counts as its failure_score, 0, where Inspect and plain code leave
    # it out; the error it logs names the scorer and the label field
    examples = devset(["Paris", "Rome", "Madrid", None])
    with caplog.at_level(logging.ERROR):
        result = evaluate(to_dspy(EXACT), examples, lm_answering(["Paris", "Rome", "Madrid", "Lima"]), num_threads=1)
    assert [row[2] for row in result.results] == [1.0, 1.0, 1.0, 0.0]
    assert result.score == 75.0  # 3 of 4, not 3 of the 3 scored
    assert "exact: the example has no label in its field 'answer'" in caplog.text


def bootstrap(metric: Any, examples: list[Any], lm: Any) -> dict[str, str]:
    """The demos BootstrapFewShot keeps, question -> answer, with every train example tried once."""
    optimizer = dspy.BootstrapFewShot(metric=metric, max_bootstrapped_demos=len(examples), max_labeled_demos=0)
    with dspy.context(lm=lm):
        compiled = optimizer.compile(dspy.Predict("question -> answer"), trainset=examples)
    return {demo.question: demo.answer for demo in compiled.predictors()[0].demos}


def test_bootstrap_keeps_exactly_the_demos_the_scorer_calls_correct() -> None:
    answers, labels = zip(*CASES[:12], strict=True)
    examples = devset(list(labels))
    demos = bootstrap(to_dspy(EXACT), examples, lm_answering(list(answers)))
    correct = {question(i) for i in range(12) if EXACT("q", answers[i], labels[i]).correct}
    assert set(demos) == correct
    assert len(correct) == 7


def overlap(item: Any, output: Any, label: Any) -> Any:
    """Word overlap (Jaccard) as partial credit; correct only when every word matches."""
    said, want = set(output.lower().split()), set(label.lower().split())
    value = len(said & want) / len(said | want)
    return {"correct": value == 1.0, "outcome": output, "failure_kind": None, "value": value}


OVERLAP = sb.scorer(overlap)
# Answer, label, overlap: 1, 2/3, 1/2, 1/4.
PARTIAL_CASES = [
    ("New Delhi", "New Delhi"),
    ("Kuala Lumpur", "Kuala Lumpur City"),
    ("Delhi", "New Delhi"),
    ("the city of Paris", "Paris"),
]


def test_bootstrap_rejects_a_partial_score_below_the_threshold() -> None:
    # stanfordnlp/dspy#10473: a metric returning a truthy score (0.25, or a Prediction) is accepted
    # by BootstrapFewShot whatever its value. to_dspy returns a bool: value >= threshold.
    answers, labels = zip(*PARTIAL_CASES, strict=True)
    examples = devset(list(labels))
    demos = bootstrap(to_dspy(OVERLAP, threshold=0.6), examples, lm_answering(list(answers)))
    assert demos == {question(0): "New Delhi", question(1): "Kuala Lumpur"}


def test_bootstrap_without_threshold_keeps_only_the_correct_ones() -> None:
    answers, labels = zip(*PARTIAL_CASES, strict=True)
    demos = bootstrap(to_dspy(OVERLAP), devset(list(labels)), lm_answering(list(answers)))
    assert demos == {question(0): "New Delhi"}


def refusing(item: Any, output: Any, label: Any) -> Any:
    """exact(), with a refusal recorded as one."""
    if output.lower().startswith("i cannot"):
        return {"correct": False, "outcome": None, "failure_kind": "refusal", "explanation": "the answer refused"}
    return EXACT(item, output, label)


def test_gepa_runs_with_the_metric_and_its_feedback_names_the_failure_kind() -> None:
    answers = ["Paris", "I cannot say.", "Barcelona", "Lima", "I cannot say.", "Mombasa"]
    labels = ["Paris", "Rome", "Madrid", "Lima", "Tokyo", "Nairobi"]
    examples = devset(labels)
    reflected: list[str] = []

    def proposer(candidate: dict[str, str], reflective_dataset: Any, components_to_update: list[str]) -> Any:
        # GEPA's hook for a custom instruction proposer: it gets the metric's feedback per example.
        reflected.extend(record["Feedback"] for name in components_to_update for record in reflective_dataset[name])
        return {name: candidate[name] + " Answer with the city name only." for name in components_to_update}

    optimizer = dspy.GEPA(
        metric=to_dspy(sb.scorer(refusing)),
        max_metric_calls=30,
        instruction_proposer=proposer,
        reflection_minibatch_size=3,
        num_threads=2,
        seed=0,
    )
    with dspy.context(lm=lm_answering(answers)):
        optimizer.compile(dspy.Predict("question -> answer"), trainset=examples[:3], valset=examples[3:])

    assert reflected, "GEPA never asked for feedback"
    assert set(reflected) <= {
        "correct",
        # a refusal has no outcome: the feedback quotes what the model answered (it once showed nothing)
        "refusal: the answer refused; answered 'I cannot say.'; expected 'Rome'",
        "wrong: answered 'barcelona'; expected 'Madrid'",
    }
    assert "refusal: the answer refused; answered 'I cannot say.'; expected 'Rome'" in reflected


def test_simba_scores_candidates_with_the_metric() -> None:
    # SIMBA silently scores anything but an int or float (numpy's bool, say) as 0.0.
    answers, labels = zip(*CASES[:8], strict=True)
    optimizer = dspy.SIMBA(metric=to_dspy(EXACT), bsize=4, num_candidates=2, max_steps=1, num_threads=2)
    with dspy.context(lm=lm_answering(list(answers))):
        compiled = optimizer.compile(dspy.Predict("question -> answer"), trainset=devset(list(labels)), seed=0)
    direct = [EXACT("q", answers[i], labels[i]).value for i in range(8)]
    assert compiled.candidate_programs[0]["score"] == sum(direct) / 8 == 0.625
