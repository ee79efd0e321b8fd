"""Public classes are shown by their public path: `scorebridge.ScorerContractError`, not a private module's.

pytest once reported `scorebridge._protocol.score.ScorerContractError`, a path no user can import from.
"""

from __future__ import annotations

import inspect
import pickle
import re
import subprocess
import sys
import traceback
from pathlib import Path

import pytest

import scorebridge as sb

PUBLIC_CLASSES = [name for name in sb.__all__ if inspect.isclass(getattr(sb, name))]


@pytest.mark.parametrize("name", PUBLIC_CLASSES)
def test_a_public_class_names_the_module_it_is_imported_from(name: str) -> None:
    cls = getattr(sb, name)
    assert (cls.__module__, getattr(sys.modules[cls.__module__], cls.__qualname__)) == ("scorebridge", cls)


def test_a_traceback_names_a_contract_error_by_its_public_path() -> None:
    with pytest.raises(sb.ScorerContractError) as raised:
        sb.exact()(None, "Paris", object())
    line = traceback.format_exception_only(raised.type, raised.value)[-1]
    assert line.startswith("scorebridge.UnreadableLabel: exact:")  # a ScorerContractError: a label it cannot read


def test_a_budget_stop_loaded_with_the_runner_names_its_public_path() -> None:
    # the runner is imported on first use: its classes are published then, not only when named
    code = "import scorebridge as sb; sb.benchmark; import scorebridge._runner.records as r; print(r.BudgetExceeded)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == "<class 'scorebridge.BudgetExceeded'>"


def test_public_classes_still_pickle_by_their_public_path() -> None:
    error = pickle.loads(pickle.dumps(sb.ScorerContractError("exact: bad label")))
    assert (type(error), str(error), pickle.loads(pickle.dumps(sb.Score(True)))) == (
        sb.ScorerContractError,
        "exact: bad label",
        sb.Score(True),
    )


def test_pytest_reports_a_contract_error_by_its_public_path(tmp_path: Path) -> None:
    test = tmp_path / "test_label.py"
    test.write_text("import scorebridge as sb\n\ndef test_it():\n    sb.exact()(None, 'Paris', object())\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert re.search(r"^E +scorebridge\.UnreadableLabel: exact:", done.stdout, re.MULTILINE), done.stdout
    assert "FAILED test_label.py::test_it - scorebridge.UnreadableLabel: exact:" in done.stdout
    assert "_protocol.score." not in done.stdout
