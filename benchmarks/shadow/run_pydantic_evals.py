"""Run pydantic-evals' own evaluator tests with every evaluator call shadowed through scorebridge_pydantic_evals.

    uv run --with pytest-mock --with dirty-equals python benchmarks/shadow/run_pydantic_evals.py \\
        --checkout PATH/TO/pydantic-ai [--ref REF] [--native] [--out tally.jsonl]

`--checkout` is a clone of github.com/pydantic/pydantic-ai (a work tree or a
bare git directory). Its `tests/evals` at `--ref` (default HEAD; the tag of the
installed pydantic-evals where the clone has it) are copied into a scratch
folder under the system's temporary directory, with our own stand-in
(`pydantic_ai_tests_conftest.py`) for pydantic-ai's top-level conftest, and
run against the pydantic-evals installed here, one process, with the plugin
`pydantic_evals_shadow` loaded. pytest-mock and dirty-equals are what those
tests import beside pydantic-evals; `uv run --with` brings them for the run
only. No model request is allowed.

It prints the tally: calls, agreements, disagreements explained by a documented
rule (each rule with its count), real disagreements (each listed), whether the
agentic evaluators and GEval were asked on unlabelled rows, and the round trip's
identities. `--native` also runs the same tests without the plugin and prints
which tests pass only one way (the shadow asks every evaluator twice, so a
test that counts its mock's calls fails under it). `--out` keeps the tally,
one JSON line per call.
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

HERE = Path(__file__).resolve().parent
FILES = [
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
"""The files of pydantic-evals' tests/evals that define or call an evaluator."""


def git_dir(checkout: Path) -> Path:
    dot = checkout / ".git"
    return dot if dot.exists() else checkout


def scratch_copy(checkout: Path, ref: str, into: Path) -> Path:
    """`tests/evals` of `ref`, with `tests/__init__.py`, `tests/_inline_snapshot.py` and our conftest."""
    paths = ["tests/__init__.py", "tests/_inline_snapshot.py", "tests/evals"]
    archive = subprocess.run(
        ["git", "--git-dir", str(git_dir(checkout)), "archive", "--format=tar", ref, *paths],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    shutil.copy(HERE / "pydantic_ai_tests_conftest.py", into / "tests" / "conftest.py")
    return into / "tests" / "evals"


def run(folder: Path, files: list[str], shadow: bool, out: Path, junit: Path) -> int:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    env["SCOREBRIDGE_SHADOW_OUT"] = str(out)
    env.pop("OPENAI_API_KEY", None)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:asyncio"]
    command += ["-p", "no:randomly", "--rootdir", str(folder.parent.parent), "-c", os.devnull]
    command += ["--junitxml", str(junit), "-W", "ignore::DeprecationWarning"]
    if shadow:
        command += ["-p", "pydantic_evals_shadow"]
    return subprocess.run([*command, *(str(folder / f) for f in files)], env=env, check=False).returncode


def outcomes(junit: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for case in ET.parse(junit).iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        found[name] = kinds[0] if kinds else "passed"
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkout", type=Path, required=True, help="a clone of pydantic/pydantic-ai")
    parser.add_argument("--ref", default="HEAD", help="the commit or tag whose tests/evals run (default HEAD)")
    parser.add_argument("--files", nargs="*", default=FILES, help="test files of tests/evals to run")
    parser.add_argument("--native", action="store_true", help="also run the tests without the shadow")
    parser.add_argument("--out", type=Path, help="keep the tally here, one JSON line per call")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pydantic_evals_shadow_") as scratch:
        folder = scratch_copy(args.checkout, args.ref, Path(scratch))
        out = args.out or Path(scratch) / "tally.jsonl"
        run(folder, args.files, True, out, Path(scratch) / "shadow.xml")
        lines = out.read_text(encoding="utf-8").splitlines()
        print(json.dumps(json.loads(lines[-1])["summary"], indent=2))
        if args.native:
            run(folder, args.files, False, Path(scratch) / "native.jsonl", Path(scratch) / "native.xml")
            shadowed, native = outcomes(Path(scratch) / "shadow.xml"), outcomes(Path(scratch) / "native.xml")
            passed = [sum(o == "passed" for o in x.values()) for x in (native, shadowed)]
            print(f"tests passed: {passed[0]} natively, {passed[1]} shadowed, of {len(native)}")
            for name in sorted(native):
                if native[name] != shadowed.get(name):
                    print(f"  {name}: {native[name]} natively, {shadowed.get(name)} shadowed")


if __name__ == "__main__":
    main()
