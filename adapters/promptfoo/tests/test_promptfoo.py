"""Scorers as promptfoo Python assertions, both ways; and a real `promptfoo eval` where promptfoo is installed.

promptfoo is an npm package: the CI lane in .ci/run installs it into a scratch folder and names it with
SCOREBRIDGE_PROMPTFOO; without it (or `promptfoo` on PATH) the real run is skipped, saying so.
"""

from __future__ import annotations

import json
import os
import runpy
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import scorebridge as sb
from scorebridge.kit import Summary
from scorebridge_promptfoo import from_promptfoo, to_promptfoo
from scorebridge_promptfoo.__main__ import main


@sb.scorer
def begins_like(item: Any, output: Any, label: Any) -> dict[str, Any]:
    if not isinstance(output, str) or not output.strip():
        return {"correct": False, "outcome": None, "failure_kind": "parse_failure"}
    return {"correct": output.lower().startswith(str(label).lower()), "outcome": output}


def context(**fields: Any) -> dict[str, Any]:
    return {"vars": fields, "prompt": "p", "test": {}}


def test_a_correct_row_passes_with_its_value_and_the_scorers_name() -> None:
    result = to_promptfoo(sb.exact())("Paris", context(label="Paris"))
    assert result == {"pass": True, "score": 1.0, "reason": "exact: correct", "named_scores": {"exact": 1.0}}


def test_a_failure_kind_is_named_among_the_named_scores() -> None:
    result = to_promptfoo(begins_like)("", context(label="Paris"))
    assert (result["pass"], result["named_scores"]) == (False, {"begins_like": 0.0, "begins_like/parse_failure": 1.0})


def test_a_row_without_a_label_fails_saying_it_is_unscored() -> None:
    # promptfoo has no "unscored": such a row fails, and scorebridge's summary leaves it out
    result = to_promptfoo(sb.exact())("Paris", context())
    assert (result["pass"], result["reason"]) == (False, "exact: unscored (the row has no label)")


def test_the_item_is_its_var_or_else_the_other_vars() -> None:
    seen = []

    @sb.scorer
    def sees(item: Any, output: Any, label: Any) -> bool:
        seen.append(item)
        return True

    to_promptfoo(sees)("x", context(item="What?", label="y"))
    to_promptfoo(sees)("x", context(question="Why?", label="y"))
    assert seen == ["What?", {"question": "Why?"}]


def test_on_error_record_makes_a_raising_scorer_the_rows_failure() -> None:
    @sb.scorer
    def boom(item: Any, output: Any, label: Any) -> bool:
        raise RuntimeError("no")

    with pytest.raises(RuntimeError, match="no"):
        to_promptfoo(boom)("x", context(label="y"))
    result = to_promptfoo(boom, on_error="record")("x", context(label="y"))
    assert (result["pass"], result["named_scores"]["boom/error"]) == (False, 1.0)


def get_assert(output: str, context: dict[str, Any]) -> Any:
    return {"pass": output == context["vars"]["label"], "score": 0.5, "reason": "checked"}


def test_from_promptfoo_reads_a_grading_result() -> None:
    score = from_promptfoo(get_assert)("q", "Paris", "Paris")
    assert (score.correct, score.value, score.explanation) == (True, 0.5, "checked")


@pytest.mark.parametrize(
    ("result", "correct", "value"), [(True, True, 1.0), (False, False, 0.0), (1, True, 1.0), (0.25, False, 0.25)]
)
def test_from_promptfoo_reads_a_bool_or_a_number_as_points(result: Any, correct: bool, value: float) -> None:
    # a number is points: 0.25 is partial credit, wrong, as every reverse adapter records it (promptfoo passes it)
    score = from_promptfoo(lambda output, context: result, name="plain")("q", "x", "y")
    assert (score.correct, score.value) == (correct, value)


def test_from_promptfoo_refuses_a_number_outside_0_1_naming_the_scorer() -> None:
    # a 4 was the value 4.0 and correct at 1: one such row lifted the accuracy above every other harness's
    with pytest.raises(sb.ScorerContractError, match=r"^stars: a score must be a number from 0 to 1"):
        from_promptfoo(lambda output, context: 4, name="stars")("q", "x", "y")


def test_from_promptfoo_refuses_a_grading_results_score_outside_0_1() -> None:
    # the score of a result that passes was kept as the value however large
    result = {"pass": True, "score": 7, "reason": "seven"}
    with pytest.raises(sb.ScorerContractError, match=r"^stars: a score must be a number from 0 to 1"):
        from_promptfoo(lambda output, context: result, name="stars")("q", "x", "y")


def test_a_round_trip_gives_the_assertion_back() -> None:
    assert to_promptfoo(from_promptfoo(get_assert)) is get_assert


def test_a_round_trip_gives_the_scorer_back() -> None:
    scorer = sb.exact()
    assert from_promptfoo(to_promptfoo(scorer)) is scorer


def test_from_promptfoo_leaves_a_row_without_a_label_unscored_unasked() -> None:
    asked = []

    def get_assert(output: str, context: dict[str, Any]) -> bool:
        asked.append(output)
        return True

    assert from_promptfoo(get_assert)("q", "Paris", None).correct is None
    assert asked == []
    assert from_promptfoo(get_assert, needs_label=False)("q", "Paris", None).correct is True


def test_the_writer_writes_an_assertion_file_of_a_named_scorer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "my_checks.py").write_text("import scorebridge as sb\nsame = sb.exact()\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["my_checks:same", "-o", "assert_same.py"]) == 0
    assert "file://assert_same.py" in capsys.readouterr().out
    written = runpy.run_path(str(tmp_path / "assert_same.py"))["get_assert"]
    assert written("Paris", context(label="Paris"))["pass"] is True


def test_the_writer_refuses_a_name_that_is_no_scorer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_checks.py").write_text("number = 3\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["my_checks:number"]) == 2
    assert not (tmp_path / "assert_number.py").exists()


# --- a real promptfoo eval, offline, with its echo provider -----------------------------------------------------


def _promptfoo() -> str | None:
    return os.environ.get("SCOREBRIDGE_PROMPTFOO") or shutil.which("promptfoo")


def _no_network() -> list[str]:
    """`unshare -n`: a network namespace with no way out, where the machine allows one (root on Linux), else []."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return []
    done = subprocess.run([unshare, "-n", "true"], capture_output=True, check=False)
    return [unshare, "-n"] if done.returncode == 0 else []


CITIES = ["Paris", "Rome", "Madrid", "Lima", "Oslo"]


def _rows() -> list[dict[str, str]]:
    """20 rows: an echo of the output, its label, and a spread of right, wrong-case and wrong answers."""
    rows = []
    for i in range(20):
        city = CITIES[i % 5]
        output = [f"It is {city}.", f"it is {city.upper()}", "It is Quito.", "", f"{city}, I think"][i // 4 % 5]
        rows.append({"output": output or " ", "label": city})
    return rows


@pytest.mark.timeout(300)
@pytest.mark.skipif(_promptfoo() is None, reason="promptfoo is not installed (npm; .ci/run's promptfoo lane has it)")
def test_promptfoo_eval_passes_the_rows_scorebridge_counts_correct(tmp_path: Path) -> None:
    (tmp_path / "graders.py").write_text(
        "from scorebridge_openai_graders import from_openai_grader\n"
        "city = from_openai_grader({'type': 'string_check', 'name': 'city', 'input': '{{sample.output_text}}',"
        " 'reference': '{{item.reference}}', 'operation': 'ilike'})\n",
        encoding="utf-8",
    )
    rows = _rows()
    config = {
        "providers": ["echo"],
        "prompts": ["{{output}}"],
        "defaultTest": {"assert": [{"type": "python", "value": "file://assert_city.py"}]},
        "tests": [{"vars": row} for row in rows],
    }
    (tmp_path / "promptfooconfig.yaml").write_text(json.dumps(config), encoding="utf-8")  # JSON is YAML
    subprocess.run([sys.executable, "-m", "scorebridge_promptfoo", "graders:city"], cwd=tmp_path, check=True)
    env = {
        **os.environ,
        "PROMPTFOO_PYTHON": sys.executable,
        "PROMPTFOO_CONFIG_DIR": str(tmp_path / "home"),
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_DISABLE_SHARING": "1",
        "PROMPTFOO_DISABLE_REMOTE_GENERATION": "true",
    }
    # offline: in a namespace with no network where the machine allows it, so nothing can leave it
    command = [*_no_network(), str(_promptfoo()), "eval", "-c", "promptfooconfig.yaml", "-o", "out.json", "--no-cache"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=280, check=False)
    assert (tmp_path / "out.json").exists(), done.stdout[-2000:] + done.stderr[-2000:]
    stats = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["results"]["stats"]
    assert stats["errors"] == 0, done.stdout[-2000:]

    city = runpy.run_path(str(tmp_path / "graders.py"))["city"]  # the same scorer, scored by scorebridge
    summary = Summary.of("city", city.score_many(None, [r["output"] for r in rows], [r["label"] for r in rows]))
    assert stats["successes"] + stats["failures"] == summary.rows == 20
    assert stats["successes"] / 20 == summary.accuracy == 0.6
