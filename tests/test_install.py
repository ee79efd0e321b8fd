"""The one distribution as pip sees it: a wheel built from the repository carries every import package, the
`scorebridge` command, the Inspect AI entry point and the pytest plugin, and its extras name only real
distributions.

The bug this guards against: the extras named sibling distributions (`pytest-scorebridge`) that existed
only inside the uv workspace, so plain `pip install "<clone>[all]"` failed with "No matching distribution".
The full check (a fresh venv, plain pip, a git URL, `uv add`) is manual; docs/cli.md and the README say
what it gives.
"""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HARNESSES = {
    "inspect": "inspect-ai",
    "dspy": "dspy",
    "pytest": "pytest",
    "ray": "ray",
    "mlflow": "mlflow",
    "pydantic-evals": "pydantic-evals",
    "langsmith": "langsmith",
    "openai-graders": "rapidfuzz",
}
# What an extra brings beside its harness: the langsmith extra brings openevals' evaluators too; the openai-graders
# extra brings the metrics' libraries (rapidfuzz is listed above as its "harness").
COMPANIONS = {"anyio", "openevals", "sacrebleu", "rouge-score", "nltk"}
# Out of `all`: TRL needs torch, which the package index serves as a CUDA build of several GB; deepeval brings
# pytest plugins of its own (its runner, pytest-asyncio) into every pytest of an environment it is installed in;
# verifiers brings mcp, anthropic, sympy and Prime Intellect's sandbox clients, and holds openai below 3.
OUTSIDE_ALL = {"trl": "trl", "deepeval": "deepeval", "verifiers": "verifiers"}
# Beside `all` too: a harness of `all` with a part `all` leaves out (Ray Client, for `ray://` addresses).
VARIANTS = {"ray-client": "ray[client,data]"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("needs uv to build the wheel")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([uv, "build", "--wheel", "--out-dir", str(out), str(ROOT)], check=True, capture_output=True)
    [built] = out.glob("scorebridge-*.whl")
    return zipfile.ZipFile(built)


def _read(wheel: zipfile.ZipFile, suffix: str) -> str:
    [name] = [n for n in wheel.namelist() if n.endswith(suffix) and ".dist-info/" in n]
    return wheel.read(name).decode("utf-8")


def test_the_wheel_holds_every_import_package_typed(wheel: zipfile.ZipFile) -> None:
    tops = {name.split("/")[0] for name in wheel.namelist() if not name.split("/")[0].endswith(".dist-info")}
    assert tops == {
        "scorebridge",
        "scorebridge_inspect",
        "scorebridge_dspy",
        "pytest_scorebridge",
        "scorebridge_ray",
        "scorebridge_mlflow",
        "scorebridge_pydantic_evals",
        "scorebridge_rl",
        "scorebridge_langsmith",
        "scorebridge_deepeval",
        "scorebridge_openai_graders",
        "scorebridge_promptfoo",
        "scorebridge_verifiers",
    }
    assert {f"{top}/py.typed" for top in tops} <= set(wheel.namelist())


def test_the_wheel_holds_no_tests(wheel: zipfile.ZipFile) -> None:
    assert [name for name in wheel.namelist() if "/tests/" in name or name.startswith("tests/")] == []


def test_the_command_the_plugin_and_the_inspect_entry_point_ship_in_it(wheel: zipfile.ZipFile) -> None:
    entry_points = _read(wheel, "entry_points.txt")
    assert "[console_scripts]\nscorebridge = scorebridge._cli.main:main" in entry_points
    assert "[inspect_ai]\nscorebridge = scorebridge_inspect._registry" in entry_points
    assert "[pytest11]\nscorebridge = pytest_scorebridge._plugin" in entry_points


def test_each_extra_brings_its_harness_and_nothing_that_is_not_published(wheel: zipfile.ZipFile) -> None:
    metadata = Parser().parsestr(_read(wheel, "METADATA"))
    assert set(metadata.get_all("Provides-Extra") or []) == {*HARNESSES, *OUTSIDE_ALL, *VARIANTS, "all"}
    requires = metadata.get_all("Requires-Dist") or []
    names = {req.split(";")[0].split("[")[0].split("<")[0].split(">")[0].split("=")[0].strip() for req in requires}
    # no sibling distribution
    assert names <= {"regex", "tqdm", "pyyaml", *COMPANIONS, *HARNESSES.values(), *OUTSIDE_ALL.values()}
    for extra, harness in HARNESSES.items():
        assert any(r.startswith(harness) and f"extra == '{extra}'" in r for r in requires), extra
        assert any(r.startswith(harness) and "extra == 'all'" in r for r in requires), extra
    for extra, harness in {**OUTSIDE_ALL, **VARIANTS}.items():
        assert any(r.startswith(harness) and f"extra == '{extra}'" in r for r in requires), extra
        assert not any(r.startswith(harness) and "extra == 'all'" in r for r in requires), extra


def test_the_version_is_the_one_in_pyproject(wheel: zipfile.ZipFile) -> None:
    import re

    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    [version] = re.findall(r'^version = "([^"]+)"$', pyproject, re.M)  # Python 3.10 has no tomllib
    assert Parser().parsestr(_read(wheel, "METADATA"))["Version"] == version
