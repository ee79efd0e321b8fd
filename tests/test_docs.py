"""Every Python block in README.md and docs/*.md runs as written, offline; so do the shell sessions marked to run.

A document's blocks run in order, in one fresh folder (the current folder, and
first on the import path), as a reader pasting them one after another would:

- a Python block whose first line is a file name in a comment (`# my_scorers.py`)
  is a file: it is saved under that name, for the blocks after it (and, when the
  repository's examples/ has a file of that name, it must be that file);
- a Python block that defines `test_` functions is a test file: pytest runs it, and
  every test must pass;
- any other Python block runs as a script; a line ending in `# Score(...)` (with
  no "...") must give that repr;
- a block whose first line is `# Not run by the docs test: REASON` is skipped
  (the reason visible to readers; used sparingly);
- a shell block after the comment `<!-- docs-test: run -->` runs in bash and must
  exit 0; one after `<!-- docs-test: run in TEST -->` is run by that test, which checks
  each step (docs/inspect.md's Inspect AI session: adapters/inspect/tests/test_registry.py).

The folder holds a copy of examples/cases/ (the case files the pytest page uses).
No document may speak the project's internal jargon, or cite a file the repository
does not have.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(
    # a block may be indented (inside a list item): its closing fence has the same indent, its code is dedented
    r"^(?:[ ]*<!-- docs-test: (?P<marker>run[^>]*) -->\n)?"
    r"(?P<indent>[ ]*)```(?P<lang>\w*)\n(?P<code>.*?)^(?P=indent)```",
    re.M | re.S,
)
FILE_NAME = re.compile(r"^# (?P<name>[\w./-]+\.py)$")
NOT_RUN = "# Not run by the docs test:"
SHOWN = re.compile(r"^(?P<call>\S.*?)\s+# (?P<repr>Score\(.*\))$")


class Block(NamedTuple):
    doc: Path
    line: int
    lang: str
    code: str
    run: bool  # a shell block marked to run here
    marker: str | None = None  # "run", or "run in TEST": a session another test runs, step by step

    @property
    def where(self) -> str:
        shown = self.doc.relative_to(ROOT) if self.doc.is_relative_to(ROOT) else self.doc.name
        return f"{shown}:{self.line}"


def blocks(doc: Path) -> list[Block]:
    text = doc.read_text(encoding="utf-8")
    return [
        Block(
            doc,
            text[: m.start("code")].count("\n"),
            m["lang"],
            textwrap.dedent(m["code"]),
            m["marker"] == "run",
            m["marker"],
        )
        for m in BLOCK.finditer(text)
    ]


@contextlib.contextmanager
def in_folder(folder: Path) -> Iterator[None]:
    cwd, path, modules = os.getcwd(), list(sys.path), set(sys.modules)
    os.chdir(folder)
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        os.chdir(cwd)
        sys.path[:] = path
        for name in set(sys.modules) - modules:  # the blocks' own modules (my_scorers ...), not the libraries'
            if getattr(sys.modules[name], "__file__", None) and str(folder) in str(sys.modules[name].__file__):
                del sys.modules[name]


def run_script(block: Block) -> None:
    namespace = {"__name__": "__main__"}
    exec(compile(block.code, block.where, "exec"), namespace)
    for number, line in enumerate(block.code.splitlines(), start=block.line + 1):
        shown = SHOWN.match(line)
        if shown and "..." not in shown["repr"]:
            got = repr(eval(shown["call"], namespace))
            assert got == shown["repr"], f"{block.doc.name}:{number}: gives {got}"


def run_tests(block: Block, folder: Path) -> None:
    import pytest as runner

    test_file = folder / f"test_block_{block.line}.py"
    test_file.write_text(block.code, encoding="utf-8")
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        status = runner.main([str(test_file), "-q", "-p", "no:cacheprovider", "--import-mode=importlib"])
    assert status == 0, f"{block.where}: the tests failed\n{shown.getvalue()}"


def run_shell(block: Block, folder: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block.code], cwd=folder, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, f"{block.where}: exit status {done.returncode}\n{done.stdout}\n{done.stderr}"


def missing_harness(block: Block) -> str | None:
    """The harness a block needs that is not installed (Inspect AI needs Python 3.11: CI's 3.10 has none)."""
    import importlib.util

    command = ("inspect ",) if block.lang == "sh" else ()  # the `inspect` command
    uses = {
        "inspect_ai": ("inspect_ai", "scorebridge_inspect", *command),
        "dspy": ("dspy",),
        "ray": ("import ray", "scorebridge_ray", "--engine ray"),
        "pydantic_evals": ("pydantic_evals", "scorebridge_pydantic_evals"),
        "mlflow": ("import mlflow", "scorebridge_mlflow"),
        "trl": ("from trl", "import trl"),  # TRL needs torch: only the RL lane of .ci/run has it
        "verifiers": ("import verifiers", "scorebridge_verifiers"),  # verifiers needs Python 3.11
    }
    for harness, marks in uses.items():
        if any(mark in block.code for mark in marks) and importlib.util.find_spec(harness) is None:
            return harness
    return None


@pytest.mark.parametrize("doc", DOCS, ids=[str(doc.relative_to(ROOT)) for doc in DOCS])
def test_every_block_runs_as_written(doc: Path, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples" / "cases", tmp_path / "cases")
    not_here = []
    with in_folder(tmp_path):
        for block in blocks(doc):
            first = block.code.partition("\n")[0]
            if (harness := missing_harness(block)) is not None:
                not_here.append(f"{block.where} needs {harness}")
            elif block.lang == "python" and first.startswith(NOT_RUN):
                assert first[len(NOT_RUN) :].strip(), f"{block.where}: say why it is not run"
            elif block.lang == "python" and (file := FILE_NAME.match(first)):
                saved = tmp_path / file["name"]
                saved.write_text(block.code, encoding="utf-8")
                compile(block.code, block.where, "exec")
                example = ROOT / "examples" / file["name"]
                if example.exists():
                    shown = block.code.partition("\n")[2].lstrip("\n")
                    assert shown == example.read_text(encoding="utf-8"), f"{block.where}: not {example.name} as it is"
            elif block.lang == "python" and re.search(r"^(async )?def test_", block.code, re.M):
                run_tests(block, tmp_path)
            elif block.lang == "python":
                run_script(block)
            elif block.run:
                run_shell(block, tmp_path)
    if not_here:
        pytest.skip(f"not installed here: {'; '.join(not_here)}")


def test_the_docs_have_python_blocks_and_sessions() -> None:
    found = [block for doc in DOCS for block in blocks(doc)]
    assert len([b for b in found if b.lang == "python"]) >= 15
    assert len([b for b in found if b.run]) >= 1
    elsewhere = [b.marker.removeprefix("run in ") for b in found if b.marker and b.marker != "run"]
    assert elsewhere and all((ROOT / path).exists() for path in elsewhere)


def test_a_block_inside_a_list_item_is_run_too(tmp_path: Path) -> None:
    # docs/inspect.md once had an indented fragment (a bullet's example) that the test never saw, and that
    # could not run: it called a function nowhere defined.
    doc = tmp_path / "doc.md"
    doc.write_text("- a point:\n\n  ```python\n  x = 1\n  assert x == 2\n  ```\n", encoding="utf-8")
    [block] = blocks(doc)
    assert block.code == "x = 1\nassert x == 2\n"
    with pytest.raises(AssertionError):
        run_script(block)


def test_few_blocks_are_left_out() -> None:
    left_out = [b.where for doc in DOCS for b in blocks(doc) if b.code.startswith(NOT_RUN)]
    assert len(left_out) <= 2, left_out


JARGON = re.compile(r"seed 0\d\d|the issue|reference/|shared/", re.I)


@pytest.mark.parametrize("doc", DOCS, ids=[str(doc.relative_to(ROOT)) for doc in DOCS])
def test_no_internal_jargon(doc: Path) -> None:
    lines = doc.read_text(encoding="utf-8").splitlines()
    found = [f"{doc.name}:{n}: {line.strip()}" for n, line in enumerate(lines, 1) if JARGON.search(line)]
    assert found == []


@pytest.mark.parametrize("doc", DOCS, ids=[str(doc.relative_to(ROOT)) for doc in DOCS])
def test_every_file_cited_is_in_the_repository(doc: Path) -> None:
    cited = re.findall(r"`((?:src|tests|docs|examples|benchmarks|adapters)/[\w./-]+)`", doc.read_text("utf-8"))
    cited += re.findall(r"\]\(((?:docs/)?[\w-]+\.md)\)", doc.read_text("utf-8"))
    missing = [path for path in cited if not (ROOT / path).exists() and not (doc.parent / path).exists()]
    assert missing == []


def test_the_readmes_test_command_runs_the_docs_test() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "uv run pytest" in readme
    # the list may span lines (it once was one line, and this read only its first)
    testpaths = re.search(r"^testpaths = \[(.*?)\]", (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M | re.S)
    assert testpaths is not None and '"tests"' in testpaths[1]  # this file is in tests/


def test_a_shell_session_failure_is_seen(tmp_path: Path) -> None:
    # The check above would pass on sessions it never ran: a failing one must fail it.
    with pytest.raises(AssertionError, match="exit status 3"):
        run_shell(Block(tmp_path / "x.md", 1, "sh", "true\nexit 3\n", True), tmp_path)
