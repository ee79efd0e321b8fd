"""OpenAI grader specs as scorers: each type's documented semantics, in plain Python, the CLI and Inspect AI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import scorebridge as sb
from scorebridge.testing import FakeGrader
from scorebridge_openai_graders import SpecError, from_openai_grader

OUTPUT = "{{sample.output_text}}"


def check(operation: str, reference: str = "{{item.reference}}") -> dict[str, Any]:
    return {"type": "string_check", "name": "city", "input": OUTPUT, "reference": reference, "operation": operation}


def similarity(metric: str, threshold: float = 0.5) -> dict[str, Any]:
    return {
        "type": "text_similarity",
        "name": metric,
        "input": OUTPUT,
        "reference": "{{item.reference}}",
        "evaluation_metric": metric,
        "pass_threshold": threshold,
    }


EXACT_PY = {
    "type": "python",
    "name": "exact_py",
    "source": "def grade(sample, item):\n    return 1.0 if sample['output_text'] == item['reference'] else 0.0\n",
}
MULTI = {
    "type": "multi",
    "name": "mixed",
    "graders": {
        "same": check("eq"),
        "near": {**similarity("fuzzy_match"), "name": "near"},
    },
    "calculate_output": "0.5 * same + 0.5 * near",
}
SCORE_MODEL = {
    "type": "score_model",
    "name": "judge",
    "model": "gpt-4o-2024-08-06",
    "input": [
        {"role": "system", "content": "Score how well the answer matches the reference, from 1 to 5."},
        {"role": "user", "content": "Answer: {{sample.output_text}}\nReference: {{item.reference}}"},
    ],
    "range": [1, 5],
    "pass_threshold": 4,
}


@pytest.mark.parametrize(
    ("operation", "output", "correct"),
    [
        ("eq", "Paris", True),
        ("eq", "paris", False),
        ("ne", "Lyon", True),
        ("ne", "Paris", False),
        ("like", "It is Paris.", True),  # like: the input contains the reference, case-sensitive
        ("like", "It is PARIS.", False),
        ("ilike", "It is PARIS.", True),  # ilike: the same, case-insensitive
        ("ilike", "It is Lyon.", False),
    ],
)
def test_string_check_applies_each_operation_as_openai_documents(operation: str, output: str, correct: bool) -> None:
    score = from_openai_grader(check(operation))("capital of France?", output, "Paris")
    assert (score.correct, score.value) == (correct, 1.0 if correct else 0.0)


def test_fuzzy_match_is_rapidfuzz_wratio_on_0_to_1() -> None:
    score = from_openai_grader(similarity("fuzzy_match", 0.9))("q", "Paris!", "paris")
    assert (score.correct, score.value) == (True, 1.0)  # case and punctuation removed before comparing


def test_bleu_is_sacrebleus_sentence_bleu_on_0_to_1() -> None:
    score = from_openai_grader(similarity("bleu"))("q", "the cat is on the mat", "the cat sat on the mat")
    assert score.value == pytest.approx(0.3799, abs=1e-4)  # sacrebleu: 37.99
    assert score.correct is False  # below pass_threshold 0.5


def test_rouge_l_is_the_f_measure_of_the_longest_common_subsequence() -> None:
    score = from_openai_grader(similarity("rouge_l"))("q", "the cat is on the mat", "the cat sat on the mat")
    assert score.value == pytest.approx(5 / 6)  # 5 of 6 words in order, both ways
    assert score.correct is True


def test_pass_threshold_decides_correctness_and_the_score_stays_the_value() -> None:
    strict = from_openai_grader(similarity("rouge_l", 0.9))("q", "the cat is on the mat", "the cat sat on the mat")
    assert (strict.correct, strict.value) == (False, pytest.approx(5 / 6))


def test_cosine_uses_the_embedding_function_given() -> None:
    vectors = {"Paris": [1.0, 0.0], "the capital": [1.0, 1.0]}
    scorer = from_openai_grader(similarity("cosine", 0.7), embed=vectors.__getitem__)
    assert scorer("q", "the capital", "Paris").value == pytest.approx(2**-0.5)


def test_cosine_without_an_embedding_function_is_refused_when_made() -> None:
    with pytest.raises(SpecError, match="cosine needs an embedding function"):
        from_openai_grader(similarity("cosine"))


def test_meteor_without_wordnet_data_is_refused_when_made_not_downloaded() -> None:
    import nltk

    try:
        nltk.data.find("corpora/wordnet")
    except LookupError:
        with pytest.raises(SpecError, match="meteor needs NLTK's WordNet data"):
            from_openai_grader(similarity("meteor"))
    else:
        pytest.skip("WordNet is installed here: meteor runs")


def test_multi_combines_sub_grader_scores_by_its_formula() -> None:
    score = from_openai_grader(MULTI)("q", "paris", "Paris")  # eq fails (0), fuzzy_match is 1.0
    assert (score.correct, score.value) == (False, 0.5)
    assert score.metadata["sub_rewards"] == {"same": 0.0, "near": 1.0}


@pytest.mark.parametrize(
    "formula",
    ["__import__('os').system('true')", "same.real", "same if near else 1", "[same][0]", "undefined + 1", "max"],
)
def test_multi_refuses_a_formula_that_is_not_arithmetic_over_sub_grader_names(formula: str) -> None:
    with pytest.raises(SpecError, match="calculate_output"):
        from_openai_grader({**MULTI, "calculate_output": formula})


def test_multi_formula_may_call_the_documented_functions() -> None:
    score = from_openai_grader({**MULTI, "calculate_output": "max(same, near) - abs(-0.25)"})("q", "paris", "Paris")
    assert score.value == 0.75


def test_python_grader_gets_sample_then_item() -> None:
    scorer = from_openai_grader(EXACT_PY)
    assert scorer("q", "Paris", "Paris").correct is True
    assert scorer("q", "Lyon", "Paris").correct is False


def test_python_grader_runs_in_another_process_not_the_callers() -> None:
    source = "import os\ndef grade(sample, item):\n    return os.getpid()\n"
    score = from_openai_grader({"type": "python", "name": "pid", "source": source})("q", "x", None)
    assert score.metadata["score"] not in (0, os.getpid())


def test_python_grader_that_raises_is_an_error_naming_the_exception() -> None:
    source = "def grade(sample, item):\n    return 1 / 0\n"
    score = from_openai_grader({"type": "python", "name": "boom", "source": source})("q", "x", "x")
    assert (score.correct, score.failure_kind) == (False, "error")
    assert "ZeroDivisionError" in (score.explanation or "")
    assert score.metadata["openai_error"] == "python_grader_runtime_error"


def test_python_grader_that_loops_forever_is_an_error_after_its_timeout() -> None:
    source = "def grade(sample, item):\n    while True:\n        pass\n"
    scorer = from_openai_grader({"type": "python", "name": "loop", "source": source}, timeout=1.0)
    started = time.monotonic()
    score = scorer("q", "x", "x")
    assert time.monotonic() - started < 10
    assert (score.failure_kind, score.explanation) == ("error", "grade gave no result within 1 s")
    assert scorer("q", "x", "x").failure_kind == "error"  # and the caller goes on scoring


def test_python_grader_whose_print_is_not_taken_for_its_result() -> None:
    source = "def grade(sample, item):\n    print('{\"value\": 0.0}')\n    return 1.0\n"
    assert from_openai_grader({"type": "python", "name": "chatty", "source": source})("q", "x", "x").value == 1.0


def test_python_grader_source_that_does_not_compile_is_refused_when_made() -> None:
    with pytest.raises(SpecError, match="does not compile"):
        from_openai_grader({"type": "python", "name": "bad", "source": "def grade(sample, item) return 1"})


def test_score_model_maps_its_range_onto_0_to_1_and_pass_threshold_decides() -> None:
    grader = FakeGrader({"Answer: Paris": '{"result": 4}', "": '{"result": 2}'})
    scorer = from_openai_grader(SCORE_MODEL, grader=grader)
    good, poor = scorer("q", "Paris", "Paris"), scorer("q", "Lyon", "Paris")
    assert (good.correct, good.value) == (True, 0.75)  # 4 on 1..5
    assert (poor.correct, poor.value) == (False, 0.25)
    assert "Reference: Paris" in grader.prompts[0]


def test_score_model_reply_without_a_score_is_a_parse_failure() -> None:
    score = from_openai_grader(SCORE_MODEL, grader=FakeGrader("I would rather not say."))("q", "Paris", "Paris")
    assert (score.failure_kind, score.metadata["openai_error"]) == ("parse_failure", "model_grader_parse_error")


def test_score_model_grader_that_raises_is_an_error() -> None:
    score = from_openai_grader(SCORE_MODEL, grader=FakeGrader([TimeoutError("slow")]))("q", "Paris", "Paris")
    assert (score.failure_kind, score.metadata["openai_error"]) == ("error", "model_grader_server_error")


def test_label_model_passes_on_a_passing_label() -> None:
    spec = {
        "type": "label_model",
        "name": "tone",
        "model": "gpt-4o",
        "input": [{"role": "user", "content": "Classify the tone: {{sample.output_text}}"}],
        "labels": ["positive", "neutral", "negative"],
        "passing_labels": ["positive", "neutral"],
    }
    scorer = from_openai_grader(spec, grader=FakeGrader({"great": '{"result": "positive"}', "": "negative"}))
    assert scorer(None, "great news", None).correct is True
    assert scorer(None, "awful", None).correct is False


def test_a_model_grader_without_a_grader_is_refused_when_made() -> None:
    with pytest.raises(SpecError, match="needs a grader model"):
        from_openai_grader(SCORE_MODEL)


def test_a_template_naming_a_field_the_row_lacks_names_the_field() -> None:
    scorer = from_openai_grader(check("eq", "{{item.answer}}"))
    with pytest.raises(sb.ScorerContractError, match=r"item\.answer, which this row does not have \(it has: q\)"):
        scorer({"q": "capital?"}, "Paris", None)


def test_item_fields_fill_templates_with_json_paths() -> None:
    scorer = from_openai_grader(check("eq", "{{item.answers[1]}}"))
    assert scorer({"answers": ["Lyon", "Paris"]}, "Paris", None).correct is True


def test_output_json_that_is_not_json_is_a_parse_failure() -> None:
    scorer = from_openai_grader(check("eq", "Paris") | {"input": "{{sample.output_json.city}}"})
    assert scorer("q", '{"city": "Paris"}', None).correct is True
    score = scorer("q", "Paris", None)
    assert (score.failure_kind, score.metadata["openai_error"]) == ("parse_failure", "sample_parse_error")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"type": "string_check", "name": "x", "input": "a", "reference": "b", "operation": "regex"}, "operation"),
        ({"type": "string_check", "name": "x", "input": "a", "operation": "eq"}, "needs reference"),
        ({**EXACT_PY, "image_tg": "2025"}, "has no field image_tg"),
        ({**SCORE_MODEL, "range": [5, 1]}, "low below high"),
        ({"type": "grader", "name": "x"}, "type must be one of"),
        (check("eq", "{{ctx.answer}}"), "must start item. or sample."),
        (check("eq", "{{sample.output_tools}}"), "sample field offline scoring does not have"),
    ],
)
def test_invalid_specs_are_refused_when_the_scorer_is_made(spec: dict[str, Any], message: str) -> None:
    with pytest.raises(SpecError, match=message):
        from_openai_grader(spec)


def test_a_spec_is_read_from_a_json_file_and_its_options_are_the_spec(tmp_path: Path) -> None:
    path = tmp_path / "city.json"
    path.write_text(json.dumps(check("ilike")), encoding="utf-8")
    scorer = from_openai_grader(path)
    assert (scorer.name, dict(scorer.options)) == ("city", check("ilike"))
    assert scorer.with_options(operation="eq")("q", "It is Paris", "Paris").correct is False


def test_the_spec_fields_are_those_of_openais_sdk() -> None:
    from openai.types import graders

    from scorebridge_openai_graders import _spec

    models = {
        "string_check": graders.StringCheckGrader,
        "text_similarity": graders.TextSimilarityGrader,
        "score_model": graders.ScoreModelGrader,
        "label_model": graders.LabelModelGrader,
        "python": graders.PythonGrader,
        "multi": graders.MultiGrader,
    }
    for kind, model in models.items():
        ours = set(_spec._REQUIRED[kind]) | set(_spec._OPTIONAL[kind])
        assert set(model.model_fields) == ours - {"pass_threshold"}, kind  # pass_threshold: the evals' field
    metric = graders.TextSimilarityGrader.model_fields["evaluation_metric"].annotation
    assert set(metric.__args__) == set(_spec.METRICS)  # type: ignore[union-attr]


# --- the same scorers in the CLI and in Inspect AI ---------------------------------------------------------------

ROWS = [
    {"item": {"question": "Capital of France?"}, "output": "Paris", "label": "Paris"},
    {"item": {"question": "Capital of Italy?"}, "output": "rome", "label": "Rome"},
    {"item": {"question": "Capital of Spain?"}, "output": "Madrid", "label": "Madrid"},
    {"item": {"question": "Capital of Peru?"}, "output": "Quito", "label": "Lima"},
]


def scorers_file(folder: Path) -> None:
    (folder / "city.json").write_text(json.dumps(check("eq")), encoding="utf-8")
    (folder / "checks.py").write_text(
        "from pathlib import Path\n"
        "from scorebridge_openai_graders import from_openai_grader\n"
        "city = from_openai_grader(Path(__file__).with_name('city.json'))\n",
        encoding="utf-8",
    )


JSON = ("--format", "json")


def test_the_cli_scores_a_file_with_a_spec_scorer(tmp_path: Path) -> None:
    scorers_file(tmp_path)
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "scorebridge", "score", str(data), "--scorer", f"{tmp_path}/checks.py@city", *JSON],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["rows"], summary["correct"], summary["accuracy"]) == (4, 2, 0.5)  # eq is case-sensitive


@pytest.mark.skipif(sys.version_info < (3, 11), reason="Inspect AI needs Python 3.11")
def test_inspect_scores_samples_with_a_spec_scorer() -> None:
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.solver import generate

    from scorebridge_inspect import to_inspect

    outputs = []
    for row in ROWS:
        reply = ModelOutput.from_content(model="mockllm/model", content=row["output"])
        reply.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # offline: no tokenizer
        outputs.append(reply)
    samples = [Sample(input=row["item"]["question"], target=row["label"]) for row in ROWS]
    task = Task(dataset=samples, solver=generate(), scorer=to_inspect(from_openai_grader(check("ilike"))))
    [log] = eval(task, model="mockllm/model", model_args={"custom_outputs": outputs}, display="none", max_samples=1)
    assert log.status == "success"
    assert log.results is not None
    [accuracy] = [m.value for s in log.results.scores for k, m in s.metrics.items() if k == "accuracy"]
    assert accuracy == 0.75  # ilike: rome is Rome; Quito is not Lima


def test_label_field_offers_the_label_under_the_field_an_exported_eval_reads() -> None:
    scorer = from_openai_grader(check("eq", "{{item.reference_answer}}"), label_field="reference_answer")
    assert scorer("Capital of France?", "Paris", "Paris").correct is True  # a harness's label, apart from the item
    own = {"question": "Capital of France?", "reference_answer": "Paris"}
    assert scorer(own, "Paris", "Lyon").correct is True  # the item's own field wins over the label


def test_score_model_takes_an_async_grader_too() -> None:
    grader = FakeGrader('{"result": 5}', asynchronous=True)
    assert from_openai_grader(SCORE_MODEL, grader=grader)("q", "Paris", "Paris").value == 1.0


def test_a_multi_grader_hands_its_model_sub_grader_the_grader() -> None:
    spec = {**MULTI, "graders": {**MULTI["graders"], "judge": SCORE_MODEL}, "calculate_output": "same * 0 + judge / 5"}
    score = from_openai_grader(spec, grader=FakeGrader('{"result": 4}'))("q", "Paris", "Paris")
    assert score.value == 0.8  # the judge's score on its own scale, as OpenAI's formulas read it


@pytest.mark.parametrize(
    ("metric", "value"),
    [
        ("gleu", 9 / 18),  # min of n-gram precision and recall over 1..4-grams: 5 + 3 + 1 + 0 of 6 + 5 + 4 + 3
        ("rouge_1", 5 / 6),  # 5 of 6 words both ways
        ("rouge_2", 3 / 5),  # 3 of 5 bigrams: "the cat", "on the", "the mat"
        ("rouge_5", 0.0),  # no 5-gram in common
    ],
)
def test_the_other_metrics_give_their_hand_computed_values(metric: str, value: float) -> None:
    score = from_openai_grader(similarity(metric))("q", "the cat is on the mat", "the cat sat on the mat")
    assert score.value == pytest.approx(value)
