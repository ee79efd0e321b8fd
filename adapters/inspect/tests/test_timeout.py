"""`to_inspect(..., timeout=)`: Inspect limits a sample's time, not a scorer's; a sample the scorer hangs on
is scored as an error (with on_error="record") instead of holding the eval."""

from __future__ import annotations

import time
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model

import scorebridge as sb
from scorebridge_inspect import to_inspect


@sb.scorer
def hangs_on_b(item: Any, output: Any, label: Any) -> bool:
    if output == "b":
        time.sleep(60)
    return bool(output == label)


def reply(content: str) -> ModelOutput:
    output = ModelOutput.from_content(model="mockllm/model", content=content)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def test_a_sample_the_scorer_hangs_on_is_an_error_and_the_eval_ends(tmp_path: Any) -> None:
    samples = [Sample(input=f"q{i}", target=t) for i, t in enumerate(["a", "b", "c"])]
    model = get_model("mockllm/model", custom_outputs=[reply("a"), reply("b"), reply("c")])
    task = Task(dataset=samples, scorer=to_inspect(hangs_on_b, timeout=0.5, on_error="record"))
    began = time.monotonic()
    [log] = eval(task, model=model, log_dir=str(tmp_path), display="none", max_samples=1)
    assert time.monotonic() - began < 30
    assert log.samples is not None
    scores = [sample.scores["hangs_on_b"] for sample in log.samples]  # type: ignore[index]
    assert [s.value for s in scores] == ["C", "I", "C"]
    assert scores[1].metadata is not None and scores[1].metadata["failure_kind"] == "error"
    assert "gave no score within 0.5 s" in str(scores[1].explanation)
