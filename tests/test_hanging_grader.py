"""A grader that hangs, with `timeout=1` and no retry: every harness finishes, the row unscored with `grader_failed`.

Before `timeout`, a hanging grader blocked for ever in every path (a plain
call, `score_many`, `benchmark()`, DSPy's Evaluate); only Inspect AI's own
`time_limit` ended it (the hardening issue, item 11). Each test runs one path
with a sync grader (left waiting on a thread of its own) and an async one
(cancelled), and checks the verdict; the bound on the wall time only tells a
hang from the timeout (the wall times themselves are measured in
benchmarks/bench_model_graded.py: about 1 s each).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

import scorebridge as sb
from scorebridge.kit import GRADER_FAILED

HUNG = "the grader gave no reply within 1 s"
NOT_A_HANG = 30.0  # seconds: far above the 1 s timeout, far below pytest-timeout

_release = threading.Event()  # set when this module's tests are done, so the abandoned sync graders end


@pytest.fixture(scope="module", autouse=True)
def _end_the_hung_graders() -> Iterator[None]:
    yield
    _release.set()


def hangs(prompt: str) -> str:
    _release.wait()
    return "GRADE: C"


async def ahangs(prompt: str) -> str:
    await asyncio.sleep(3600)
    return "GRADE: C"


GRADERS = pytest.mark.parametrize("grader", [hangs, ahangs], ids=["sync", "async"])


def graded(grader: Any) -> sb.Scorer:
    # retry=None: one call, so the row ends at the timeout (a timed-out call is otherwise tried again,
    # tests/test_grader_api.py)
    return sb.model_graded_qa(grader, timeout=1, retry=None)


def _unscored(score: sb.Score) -> None:
    assert (score.correct, score.grade, score.metadata[GRADER_FAILED]) == (None, "N", HUNG)


class Clock:
    def __enter__(self) -> Clock:
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.start
        assert self.seconds < NOT_A_HANG, f"took {self.seconds:.1f} s: the timeout did not end the call"


@GRADERS
def test_a_plain_call_ends_at_the_timeout(grader: Any) -> None:
    with Clock():
        _unscored(graded(grader)("Capital of France?", "Paris", "Paris"))


@GRADERS
def test_score_many_ends_at_the_timeout_with_every_row_unscored(grader: Any) -> None:
    with Clock():
        scores = graded(grader).score_many(None, ["Paris"] * 8, ["Paris"] * 8, concurrency=8)
    for score in scores:
        _unscored(score)


@GRADERS
def test_ascore_many_ends_at_the_timeout_with_every_row_unscored(grader: Any) -> None:
    with Clock():
        scores = asyncio.run(graded(grader).ascore_many(None, ["Paris"] * 4, ["Paris"] * 4, concurrency=4))
    for score in scores:
        _unscored(score)


@GRADERS
def test_benchmark_ends_at_the_timeout_with_every_run_unscored(grader: Any) -> None:
    with Clock():
        result = sb.benchmark(
            {"arm": lambda item: "Paris"}, ["q1", "q2", "q3"], ["Paris"] * 3, scorer=graded(grader), concurrency=3
        )
    assert [r.correct for r in result.records] == [None, None, None]


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@GRADERS
def test_dspy_evaluate_ends_at_the_timeout_and_says_why_the_rows_count_zero(grader: Any) -> None:
    # An unscored Score raises inside a DSPy metric by design (DSPy needs a number). Evaluate catches it per
    # example, logs it and counts the example its failure_score, 0: the log names the scorer and the
    # grader's failure, so the zero is not silent.
    dspy = pytest.importorskip("dspy")
    from dspy.utils import DummyLM

    from scorebridge_dspy import to_dspy

    questions = [f"[q{i}] Capital of France?" for i in range(3)]
    devset = [dspy.Example(question=q, answer="Paris").with_inputs("question") for q in questions]
    lm = DummyLM({q: {"answer": "Paris"} for q in questions})
    logged = _Lines()  # on DSPy's own logger: DSPy may stop its records from reaching the root's
    logging.getLogger("dspy").addHandler(logged)
    try:
        with Clock(), dspy.context(lm=lm):
            result = dspy.Evaluate(devset=devset, metric=to_dspy(graded(grader)), num_threads=3, max_errors=10)(
                dspy.Predict("question -> answer")
            )
    finally:
        logging.getLogger("dspy").removeHandler(logged)
    assert [row[2] for row in result.results] == [0.0, 0.0, 0.0]
    why = f"model_graded_qa: the scorer left this example unscored (correct None): {HUNG}"
    assert sum(why in line for line in logged.lines) == 3


@GRADERS
def test_an_inspect_eval_ends_at_the_timeout_with_every_sample_unscored(grader: Any) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.solver import generate

    from scorebridge_inspect import to_inspect

    def reply(*args: Any) -> ModelOutput:
        output = ModelOutput.from_content(model="mockllm/model", content="Paris")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # offline: no tokenizer
        return output

    samples = [Sample(input=f"[q{i}] Capital of France?", target="Paris") for i in range(4)]
    task = Task(dataset=samples, solver=generate(), scorer=to_inspect(graded(grader)))
    with Clock():
        [log] = eval(task, model="mockllm/model", model_args={"custom_outputs": reply}, display="none", max_samples=4)
    assert log.status == "success"
    assert log.samples is not None
    for sample in log.samples:
        assert sample.scores is not None
        (score,) = sample.scores.values()
        assert score.metadata is not None and score.metadata.get(GRADER_FAILED) == HUNG
