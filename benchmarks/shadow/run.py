"""Run a harness's own tests with every scorer call shadowed through its scorebridge spoke.

    uv run --with pytest-mock --with dirty-equals python benchmarks/shadow/run.py pydantic-evals \\
        --checkout PATH/TO/pydantic-ai [--ref REF] [--native] [--out tally.jsonl]
    uv run python benchmarks/shadow/run.py dspy --checkout PATH/TO/dspy [--native]
    uv run python benchmarks/shadow/run.py mlflow --checkout PATH/TO/mlflow-tests [--native]
    uv run python benchmarks/shadow/run.py inspect --checkout PATH/TO/inspect_ai [--native]

`--checkout` is a clone of the harness's repository (github.com/pydantic/pydantic-ai,
github.com/stanfordnlp/dspy, github.com/UKGovernmentBEIS/inspect_ai; a work tree or a bare git directory), or a plain
folder holding the test files at their paths in the repository (MLflow's
repository is too large to clone for a handful of files: a folder with
`tests/genai/scorers/test_scorer.py` and the others is enough). A clone's test
files at `--ref` (default HEAD; the tag of the installed release where the clone
has it), or the folder's files, are copied into a scratch folder under the system's temporary directory
and run from there against the harness installed here, one process, with the
shadow plugin loaded (`pydantic_evals_shadow`, `dspy_shadow`, `mlflow_shadow`,
`inspect_shadow`). For pydantic-evals, MLflow and Inspect, our own stand-in
(`pydantic_ai_tests_conftest.py`, `mlflow_tests_conftest.py`, `inspect_tests_conftest.py`)
takes the place of the repository's top-level conftest
(MLflow's on a `sqlite:///` store in the scratch folder), and pytest-mock and dirty-equals, which those
tests import, come from `uv run --with` for the run only. No model request is
allowed (pydantic-ai's `ALLOW_MODEL_REQUESTS = False`; DSPy's tests use DummyLM;
MLflow's judges run on the tests' own fakes of the judge model, and no API key is set;
Inspect's model-graded tests use `mockllm/model`).

It prints the tally: calls, agreements, disagreements explained by a documented
rule (each rule with its count), real disagreements (each listed by the plugin),
and the round trip's identities. `--native` also runs the same tests without the
plugin and prints which tests pass only one way. `--out` keeps the tally, one
JSON line per call.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
PYDANTIC_EVALS = [
    "test_evaluator_common.py",
    "test_evaluators.py",
    "test_llm_as_a_judge.py",
    "test_agentic_evaluators.py",
    "test_evaluator_base.py",
    "test_dataset.py",
    "test_evaluator_spec.py",
    "test_multi_run.py",
    "test_online.py",
    "test_online_capability.py",
    "test_report_evaluators.py",
    "test_reporting.py",
    "test_reports.py",
]
"""The files of pydantic-ai's tests/evals that define or call an evaluator."""
DSPY = [
    "evaluate/test_evaluate.py",
    "evaluate/test_metrics.py",
    "evaluate/test_auto_evaluation.py",
    "teleprompt/test_bootstrap.py",
    "teleprompt/test_random_search.py",
    "teleprompt/test_copro_optimizer.py",
    "teleprompt/test_utils.py",
    "teleprompt/test_gepa.py",
]
"""The files of DSPy's tests that call a metric through Evaluate, an optimizer or directly."""
MLFLOW = ["genai/scorers/test_scorer.py", "genai/scorers/test_builtin_scorers.py"]
"""The files of MLflow's tests/genai/scorers that call a scorer and import on the installed MLflow."""


class Harness(NamedTuple):
    plugin: str
    copied: list[str]  # the paths of the repository copied to the scratch folder
    tests: str  # the folder the test files are in
    files: list[str]
    conftest: str | None  # our stand-in for the repository's conftest
    conftest_at: str = "tests/conftest.py"  # the conftest it stands in for


INSPECT = [
    "scorer/test_match.py",
    "scorer/test_pattern.py",
    "scorer/test_answer.py",
    "scorer/test_choice.py",
    "scorer/test_classification.py",
    "scorer/test_scorer.py",
    "scorer/test_model_graded.py",
    "scorer/test_math.py",
]
"""The files of Inspect AI's tests/scorer that await a scorer on a TaskState and a Target."""

HARNESSES = {
    "pydantic-evals": Harness(
        "pydantic_evals_shadow",
        ["tests/__init__.py", "tests/_inline_snapshot.py", "tests/evals"],
        "tests/evals",
        PYDANTIC_EVALS,
        "pydantic_ai_tests_conftest.py",
    ),
    "dspy": Harness(
        "dspy_shadow",
        ["tests/__init__.py", "tests/conftest.py", "tests/test_utils", "tests/evaluate", "tests/teleprompt"],
        "tests",
        DSPY,
        None,
    ),
    "mlflow": Harness(
        "mlflow_shadow",
        [f"tests/{f}" for f in MLFLOW],
        "tests",
        MLFLOW,
        "mlflow_tests_conftest.py",
        "tests/genai/conftest.py",
    ),
    "inspect": Harness(
        "inspect_shadow",
        ["tests/test_helpers", "tests/scorer"],
        "tests",
        INSPECT,
        "inspect_tests_conftest.py",
    ),
}


def git_dir(checkout: Path) -> Path:
    dot = checkout / ".git"
    return dot if dot.exists() else checkout


def scratch_copy(harness: Harness, checkout: Path, ref: str, into: Path) -> Path:
    """The harness's test paths at `ref` (or as they are in a folder that is no clone) in `into`, with our
    conftest where it has one; the tests' folder."""
    if not (git_dir(checkout) / "HEAD").exists():  # a plain folder of the repository's files
        for path in harness.copied:
            (into / path).parent.mkdir(parents=True, exist_ok=True)
            copy = shutil.copytree if (checkout / path).is_dir() else shutil.copy
            copy(checkout / path, into / path)
    else:
        archive = subprocess.run(
            ["git", "--git-dir", str(git_dir(checkout)), "archive", "--format=tar", ref, *harness.copied],
            check=True,
            capture_output=True,
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(into, filter="data")
    if harness.conftest is not None:
        shutil.copy(HERE / harness.conftest, into / harness.conftest_at)
    return into / harness.tests


def run(harness: Harness, root: Path, files: list[str], shadow: bool, out: Path, junit: Path) -> int:
    folder = root / harness.tests
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(root), os.environ.get("PYTHONPATH", "")])}
    env["SCOREBRIDGE_SHADOW_OUT"] = str(out)
    env.pop("OPENAI_API_KEY", None)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:asyncio"]
    command += ["-p", "no:randomly", "--rootdir", str(root), "-c", os.devnull]
    command += ["--junitxml", str(junit), "-W", "ignore::DeprecationWarning"]
    if shadow:
        command += ["-p", harness.plugin]
    command += [str(folder / f) for f in files]
    return subprocess.run(command, env=env, cwd=root, check=False).returncode


def outcomes(junit: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for case in ET.parse(junit).iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        found[name] = kinds[0] if kinds else "passed"
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("harness", choices=sorted(HARNESSES), help="whose tests to shadow")
    parser.add_argument("--checkout", type=Path, required=True, help="a clone of the harness's repository")
    parser.add_argument("--ref", default="HEAD", help="the commit or tag whose tests/evals run (default HEAD)")
    parser.add_argument("--files", nargs="*", help="test files to run (default: the harness's list here)")
    parser.add_argument("--native", action="store_true", help="also run the tests without the shadow")
    parser.add_argument("--out", type=Path, help="keep the tally here, one JSON line per call")
    args = parser.parse_args()
    harness = HARNESSES[args.harness]
    files = args.files or harness.files
    with tempfile.TemporaryDirectory(prefix=f"{harness.plugin}_") as scratch:
        root = Path(scratch)
        scratch_copy(harness, args.checkout, args.ref, root)
        out = args.out or root / "tally.jsonl"
        run(harness, root, files, True, out, root / "shadow.xml")
        lines = out.read_text(encoding="utf-8").splitlines()
        print(json.dumps(json.loads(lines[-1])["summary"], indent=2))
        if args.native:
            run(harness, root, files, False, root / "native.jsonl", root / "native.xml")
            shadowed, native = outcomes(root / "shadow.xml"), outcomes(root / "native.xml")
            passed = [sum(o == "passed" for o in x.values()) for x in (native, shadowed)]
            print(f"tests passed: {passed[0]} natively, {passed[1]} shadowed, of {len(native)}")
            for name in sorted(native):
                if native[name] != shadowed.get(name):
                    print(f"  {name}: {native[name]} natively, {shadowed.get(name)} shadowed")


if __name__ == "__main__":
    main()
