"""to_langsmith: a scorebridge scorer as a LangSmith evaluator, in the real `langsmith.evaluate`/`aevaluate`."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import langsmith
import pytest
from langsmith.schemas import Example
from ls_offline import evaluated, examples, offline_client

import scorebridge as sb
from scorebridge_langsmith import to_langsmith


def test_langsmith_counts_exacts_values() -> None:
    rows = [("Capital of France?", " paris ", "Paris"), ("Capital of Italy?", "Milan", "Rome"), ("q", "", "Paris")]
    assert evaluated([to_langsmith(sb.exact())], rows) == [{"exact": 1.0}, {"exact": 0.0}, {"exact": 0.0}]


def test_an_unlabelled_row_has_no_score() -> None:
    # LangSmith leaves a feedback without a score out of its mean, as every harness leaves an unlabelled row out
    assert evaluated([to_langsmith(sb.exact())], [("q", "Paris", None)]) == [{"exact": None}]


def test_the_result_is_a_key_a_score_and_a_comment() -> None:
    result = to_langsmith(sb.exact())(outputs={"output": ""}, reference_outputs={"answer": "Paris"})
    assert result == {
        "key": "exact",
        "score": 0.0,
        "comment": "the output is empty",
        "metadata": {"failure_kind": "parse_failure"},
    }


def test_key_names_the_feedback() -> None:
    assert to_langsmith(sb.exact(), key="correct")(outputs="Paris", reference_outputs="Paris")["key"] == "correct"


def test_the_reference_answer_is_read_from_the_examples_outputs() -> None:
    evaluator = to_langsmith(sb.exact())
    assert (
        evaluator(outputs={"output": "Paris"}, reference_outputs={"answer": "Paris", "source": "atlas"})["score"] == 1
    )
    assert evaluator(outputs={"output": "Paris"}, reference_outputs={"city": "Paris"})["score"] == 1  # its one key
    assert evaluator(outputs={"output": "Paris"}, reference_outputs={})["score"] is None  # an empty one: no label


def test_a_structured_output_reaches_the_scorer_whole() -> None:
    seen: list[Any] = []

    def keeps(item: Any, output: Any, label: Any) -> bool:
        seen.append(output)
        return True

    to_langsmith(sb.scorer(keeps))(outputs={"answer": "Paris", "sources": [1, 2]}, reference_outputs={"answer": "x"})
    assert seen == [{"answer": "Paris", "sources": [1, 2]}]


def test_a_crashed_target_is_an_error() -> None:
    # run.error: the target raised, so there is no output to judge; score_many records such a row as an error
    def target(inputs: dict[str, Any]) -> str:
        raise RuntimeError("the model is down")

    data = [Example(id=uuid.uuid4(), inputs={"question": "q"}, outputs={"answer": "Paris"})]
    results = langsmith.evaluate(
        target, data=data, evaluators=[to_langsmith(sb.exact())], client=offline_client(), upload_results=False
    )
    [row] = list(results)
    [result] = row["evaluation_results"]["results"]
    assert (result.score, result.metadata["failure_kind"]) == (0.0, "error")
    assert "the model is down" in (result.comment or "")


def test_an_async_scorer_is_an_async_evaluator_for_aevaluate() -> None:
    async def near(item: Any, output: Any, label: Any) -> float:
        await asyncio.sleep(0)
        return 1.0 if output == label else 0.5

    evaluator = to_langsmith(sb.scorer(near))
    assert asyncio.iscoroutinefunction(evaluator)
    rows = [("q", "Paris", "Paris"), ("q", "Pari", "Paris")]

    async def target(inputs: dict[str, Any]) -> Any:  # aevaluate takes an async target
        return rows[inputs["row"]][1]

    async def main() -> list[float | None]:
        results = await langsmith.aevaluate(
            target, data=examples(rows), evaluators=[evaluator],
            client=offline_client(), upload_results=False,
        )  # fmt: skip
        found = {row["example"].inputs["row"]: row["evaluation_results"]["results"][0].score async for row in results}
        return [found[n] for n in range(len(rows))]

    assert asyncio.run(main()) == [1.0, 0.5]


def test_a_raising_scorer_is_left_out_by_langsmith_unless_recorded() -> None:
    def boom(item: Any, output: Any, label: Any) -> bool:
        raise ValueError("boom")

    rows = [("q", "Paris", "Paris")]
    assert evaluated([to_langsmith(sb.scorer(boom))], rows, raising=False) == [{}]  # LangSmith logged it
    assert evaluated([to_langsmith(sb.scorer(boom), on_error="record")], rows) == [{"boom": 0.0}]


def test_what_is_no_scorer_is_refused_naming_to_langsmith() -> None:
    with pytest.raises(TypeError, match="to_langsmith: expected a scorebridge Scorer; got function"):
        to_langsmith(lambda item, output, label: True)  # type: ignore[arg-type]
