"""`scorebridge demo`: the main job. Every harness runs for real, offline; they must agree."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")  # the demo runs every harness; Inspect AI needs Python >= 3.11

from scorebridge._cli import demo as _demo
from scorebridge._cli import main as _cli


@pytest.fixture(scope="module")
def demo_run() -> tuple[dict, list[str]]:
    """The demo's JSON, and the progress lines it printed on the way."""
    lines: list[str] = []
    progress: list[str] = []
    status = _demo.main(as_json=True, write=lines.append, progress=progress.append)
    assert status == 0, "\n".join(lines)
    return json.loads("\n".join(lines)), progress


@pytest.fixture(scope="module")
def demo_json(demo_run: tuple[dict, list[str]]) -> dict:
    return demo_run[0]


def test_the_demo_prints_a_line_per_harness(demo_run: tuple[dict, list[str]]) -> None:
    _, progress = demo_run
    harness_lines = [line.split()[0] for line in progress[2:]]
    assert harness_lines == list(_demo.HARNESSES)
    assert all("21 verdicts, agree with python" in line for line in progress[2:])


def test_each_harness_is_reported_as_soon_as_it_is_done(monkeypatch: pytest.MonkeyPatch) -> None:
    # The bug: the demo printed nothing for 18-36 s, then everything at once.
    events: list[str] = []

    def harness(name: str) -> object:
        def verdicts(*args: object) -> tuple[dict, dict]:
            events.append(f"ran {name}")
            return {"s": []}, {}

        return verdicts

    for name in _demo.HARNESSES:
        monkeypatch.setattr(_demo, f"_by_{name}", harness(name))
    _demo.run_harnesses({}, lambda name, verdicts, seconds: events.append(f"done {name}"))
    assert events == [f"{step} {name}" for name in _demo.HARNESSES for step in ("ran", "done")]


def test_demo_runs_every_harness(demo_json: dict) -> None:
    assert demo_json["harnesses"] == [
        "python",
        "benchmark",
        "inspect",
        "dspy",
        "pytest",
        "mlflow",
        "pydantic_evals",
        "trl",
    ]


def test_a_harness_whose_extra_is_not_installed_is_left_out_of_the_demo() -> None:
    # MLflow and pydantic-evals are extras of their own: without them the demo runs the others.
    needs = {h.name: h.needs for h in _demo.HARNESS_TABLE}
    assert needs["mlflow"] == "mlflow" and needs["pydantic_evals"] == "pydantic_evals"
    assert needs["trl"] is None  # the reward function needs neither TRL nor torch


def test_demo_cases_have_the_documented_keys(demo_json: dict) -> None:
    assert {"item", "output", "label", "failure_kind", "verdicts"} <= set(demo_json["cases"][0])


def test_demo_has_five_cases_per_scorer(demo_json: dict) -> None:
    for scorer in {case["scorer"] for case in demo_json["cases"]}:
        assert len([case for case in demo_json["cases"] if case["scorer"] == scorer]) >= 5


def test_demo_cases_cover_three_failure_kinds(demo_json: dict) -> None:
    kinds = {case["failure_kind"] for case in demo_json["cases"]} - {None}
    assert kinds == {"wrong", "parse_failure", "not_in_document"}


def test_every_harness_gives_the_verdict_of_the_plain_call(demo_json: dict) -> None:
    for case in demo_json["cases"]:
        assert all(v == case["verdicts"]["python"] for v in case["verdicts"].values()), case


def test_demo_shows_inspect_match_accepting_25_for_5(demo_json: dict) -> None:
    # Why detect_match exists: Inspect's match() says "The answer is 25" ends with "5".
    verdicts = {c["scorer"]: c["verdicts"]["inspect"]["correct"] for c in demo_json["cases"] if c["label"] == "5"}
    assert verdicts == {"detect_match": False, "dspy_answer_exact_match": False, "inspect_match": True}


def _agreed() -> dict[str, tuple[dict, dict]]:
    verdict = {"correct": True, "value": 1.0, "failure_kind": None}
    counted = _demo.Counted(len(_demo.CASES), 1.0, dict.fromkeys(["wrong"], 0), 0)
    return {h: ({"s": [dict(verdict) for _ in _demo.CASES]}, {"s": counted}) for h in _demo.HARNESSES}


def test_a_disagreeing_harness_is_reported() -> None:
    results = _agreed()
    results["dspy"][0]["s"][2] = {"correct": False, "value": 0.0, "failure_kind": "wrong"}
    _, disagreements = _demo.report(results, dict.fromkeys(["s"]))  # type: ignore[arg-type]
    assert disagreements == [
        "s, case 3: dspy says {'correct': False, 'value': 0.0, 'failure_kind': 'wrong'}, "
        "python says {'correct': True, 'value': 1.0, 'failure_kind': None}"
    ]


def test_a_harness_whose_summary_differs_is_reported() -> None:
    # One number everywhere: the summaries are compared too, not only the verdicts.
    results = _agreed()
    results["inspect"][1]["s"] = results["inspect"][1]["s"]._replace(accuracy=0.5)
    _, disagreements = _demo.report(results, dict.fromkeys(["s"]))  # type: ignore[arg-type]
    assert disagreements == [
        "s, summary: inspect counts (7, 0.5, {'wrong': 0}, 0), python counts (7, 1.0, {'wrong': 0}, 0)"
    ]


def test_the_demo_shows_the_summaries_and_dspys_own_number(demo_json: dict) -> None:
    summaries = demo_json["summaries"]["detect_match"]
    assert {h: (s["scored"], s["unscored"]) for h, s in summaries.items()} == dict.fromkeys(_demo.HARNESSES, (6, 1))
    assert summaries["dspy"]["native"] == "DSPy's own Evaluate score: 28.57 (percent of all 7 cases)"


def test_feedback_kind_is_read_from_its_first_word() -> None:
    assert (_demo._kind_in("refusal: the answer refused"), _demo._kind_in("correct: ok")) == ("refusal", None)


def test_demo_is_a_cli_subcommand() -> None:
    assert _cli.build_parser().parse_args(["demo", "--json"]).json is True


def test_every_harness_of_the_table_has_its_run() -> None:
    # a harness is a row of HARNESS_TABLE and a function _by_<name>(scorers, scratch): nothing else to edit
    runs = {h.name: getattr(_demo, f"_by_{h.name}", None) for h in _demo.HARNESS_TABLE}
    assert [name for name, run in runs.items() if run is None] == []
    assert tuple(runs) == _demo.HARNESSES


def test_the_pytest_harness_loads_no_plugin_but_scorebridges(tmp_path: Path) -> None:
    # The demo took 11 s warm: pytest.main loaded every installed plugin, and hypothesis's alone imported
    # hypothesis (seconds) to print nothing. Its own process: this test session has loaded them already.
    code = (
        "import sys; from pathlib import Path; import scorebridge._cli.demo as d; "
        "r = d._by_pytest(d.demo_scorers(), Path(sys.argv[1])); "
        "print(sum(len(v) for v in r[0].values()), sorted(m for m in ('hypothesis', 'xdist', 'anyio.pytest_plugin') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert (done.returncode, done.stdout.strip()) == (0, "21 []"), done.stderr[-2000:]


def test_the_scorer_names_shown_before_the_imports_are_the_demos() -> None:
    # the first progress line counts the scorers before Inspect AI and DSPy are imported (it once said "3" as text)
    assert tuple(_demo.demo_scorers()) == _demo.DEMO_SCORERS
