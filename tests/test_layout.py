"""The hub and its spokes, read from the code's imports: the arrows point from the spokes to the kit only.

- an adapter imports the core's public names only (`scorebridge`, `scorebridge.kit`,
  `scorebridge.testing`), never `scorebridge._anything`;
- no adapter imports another adapter;
- the core imports no adapter, but for the CLI's parts that run one, each loaded only by the CLI
  when it runs them: the demo, and `scorebridge score --engine ray`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "src" / "scorebridge"
ADAPTERS = {
    path.name: path
    for path in sorted((ROOT / "adapters").glob("*/src/*"))
    if path.is_dir() and (path / "__init__.py").exists()
}
# The core's modules that may import an adapter (and which), each loaded only by the CLI when it runs one.
ALLOWED = {CORE / "_cli" / "demo.py": None, CORE / "_cli" / "ray_engine.py": "scorebridge_ray"}


def _imports(path: Path) -> list[str]:
    """Every module `path` imports (absolute names), top level or inside functions."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return names


def _sources(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def test_there_are_adapters_to_check() -> None:
    expected = {"scorebridge_inspect", "scorebridge_dspy", "pytest_scorebridge", "scorebridge_ray"}
    assert expected | {"scorebridge_openai_graders", "scorebridge_promptfoo"} <= ADAPTERS.keys()


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_an_adapter_imports_only_the_cores_public_names(adapter: str) -> None:
    private = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in _sources(ADAPTERS[adapter])
        for name in _imports(path)
        if name.startswith("scorebridge._")
    ]
    assert private == [], "adapters are built on scorebridge.kit; these import private modules"


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_an_adapter_imports_no_other_adapter(adapter: str) -> None:
    others = tuple(a for a in ADAPTERS if a != adapter)
    crossing = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in _sources(ADAPTERS[adapter])
        for name in _imports(path)
        if name.split(".")[0] in others
    ]
    assert crossing == []


def test_the_core_imports_no_adapter_but_where_the_cli_runs_one() -> None:
    crossing = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in _sources(CORE)
        if path not in ALLOWED
        for name in _imports(path)
        if name.split(".")[0] in ADAPTERS
    ]
    assert crossing == []


def test_the_ray_engine_is_imported_by_no_core_module_and_imports_only_the_ray_adapter() -> None:
    # The CLI imports it by name (importlib) for --engine ray only, so nothing else loads Ray.
    path = CORE / "_cli" / "ray_engine.py"
    importers = [
        f"{source.relative_to(ROOT)}: {name}"
        for source in _sources(CORE)
        for name in _imports(source)
        if name.endswith("ray_engine") or name.endswith(".ray_engine.score_with_ray")
    ]
    relative = [
        f"{source.relative_to(ROOT)}"
        for source in _sources(CORE)
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom)
        and node.level > 0
        and "ray_engine" in [node.module or "", *(alias.name for alias in node.names)]
    ]
    assert importers + relative == []
    adapters = {name.split(".")[0] for name in _imports(path) if name.split(".")[0] in ADAPTERS}
    assert adapters == {ALLOWED[path]}


def test_the_protocol_layer_imports_nothing_above_it() -> None:
    # _protocol/scorer.py once imported _scorers/builtins.py to decide how a Scorer pickles: the protocol
    # reaching up into the scorers. The built-ins now mark their factories (remade_from_options).
    above = ("_scorers", "_runner", "_cli", "kit", "testing")
    reaching = [
        f"{source.relative_to(ROOT)}: {'.' * node.level}{node.module or ''}"
        for source in _sources(CORE / "_protocol")
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom)
        and (
            (node.level >= 2 and (node.module or "").split(".")[0] in above)
            or (node.level == 0 and (node.module or "").split(".")[:2] in (["scorebridge", a] for a in above))
        )
    ]
    assert reaching == []


def test_the_example_adapter_of_the_docs_imports_only_public_names() -> None:
    # docs/adapters.md says an adapter needs nothing but scorebridge.kit: its example must show it.
    example = ROOT / "examples" / "scorebridge_tally.py"
    assert [name for name in _imports(example) if name.startswith("scorebridge._")] == []
    assert "scorebridge.kit" in _imports(example)


def test_the_check_sees_a_private_import(tmp_path: Path) -> None:
    # The test above would pass on code it cannot read: make sure an added arrow is seen.
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from scorebridge._protocol.record import recorded\n", encoding="utf-8")
    assert "scorebridge._protocol.record" in _imports(sample)
