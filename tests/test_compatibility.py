"""docs/compatibility.md stays current: each harness's range is its extra's in pyproject.toml, its locked version
uv.lock's, and the newest release tested is no older than the locked one."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

if sys.version_info < (3, 11):
    pytest.skip("tomllib (reading pyproject.toml and uv.lock) is Python 3.11's", allow_module_level=True)

import tomllib

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "compatibility.md"
HARNESSES = {"inspect-ai": "inspect", "dspy": "dspy", "mlflow": "mlflow", "pydantic-evals": "pydantic-evals"}
HARNESSES |= {"ray": "ray", "trl": "trl"}  # package: the extra that brings it


def table() -> dict[str, list[str]]:
    """The page's rows by package name (the one in backticks in the harness column)."""
    rows: dict[str, list[str]] = {}
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        found = re.search(r"\(`([^`]+)`\)", cells[0]) if len(cells) == 6 else None
        if found:
            rows[found[1]] = cells
    return rows


def ranges() -> dict[str, str]:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    found: dict[str, str] = {}
    for package, extra in HARNESSES.items():
        spec = next(s for s in extras[extra] if re.match(rf"{re.escape(package)}\b", s))
        found[package] = re.sub(r"^[\w-]+(\[[^]]*\])?", "", spec.split(";")[0]).strip()
    return found


def locked() -> dict[str, str]:
    packages = tomllib.loads((ROOT / "uv.lock").read_text(encoding="utf-8"))["package"]
    return {p["name"]: p["version"] for p in packages if p["name"] in HARNESSES}


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text))


def test_the_page_has_one_row_per_harness() -> None:
    assert set(table()) == set(HARNESSES)


def test_each_range_is_the_extras_range_in_pyproject() -> None:
    # a range widened or narrowed in pyproject.toml and not here makes the page say what is not installed
    assert {package: row[1] for package, row in table().items()} == ranges()


def test_each_locked_version_is_the_one_uv_lock_pins() -> None:
    # a re-lock that moved a harness makes the page stale until its row is updated
    assert {package: row[2] for package, row in table().items()} == locked()


def test_the_newest_tested_is_no_older_than_the_locked_version_and_dated() -> None:
    for package, row in table().items():
        assert _version(row[3]) >= _version(row[2]), f"{package}: newest tested {row[3]} is older than locked {row[2]}"
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", row[5]), f"{package}: the date {row[5]!r} is not YYYY-MM-DD"
