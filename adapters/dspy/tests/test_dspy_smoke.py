"""The package imports, exports what it says, and only it imports DSPy."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import dspy

import scorebridge as sb
import scorebridge_dspy
from scorebridge_dspy import from_dspy, to_dspy


def run_python(code: str, *, path: Path | None = None) -> subprocess.CompletedProcess[str]:
    env_path = [str(path)] if path is not None else []
    prelude = f"import sys; sys.path[:0] = {env_path!r}\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )


def test_public_names_are_the_bridge_both_ways() -> None:
    assert {"to_dspy", "from_dspy", "ScorerMetric", "feedback_text"} <= set(scorebridge_dspy.__all__)
    for name in scorebridge_dspy.__all__:
        assert getattr(scorebridge_dspy, name) is not None


def test_a_scorer_scores_a_dspy_prediction_and_comes_back() -> None:
    gold = dspy.Example(question="Capital of France?", answer="Paris").with_inputs("question")
    metric = to_dspy(sb.exact())
    assert metric(gold, dspy.Prediction(answer=" paris ")) == 1.0
    assert from_dspy(metric)("Capital of France?", "Lyon", "Paris").failure_kind == "wrong"


def test_importing_scorebridge_does_not_import_dspy() -> None:
    done = run_python("import scorebridge, sys; print('dspy' in sys.modules)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_missing_dspy_says_how_to_install_it() -> None:
    done = run_python(
        """
        import sys
        sys.modules["dspy"] = None  # as if DSPy were not installed
        try:
            import scorebridge_dspy
        except ModuleNotFoundError as e:
            print(e.name, "|", e)
        """
    )
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout.strip()
        == 'dspy | scorebridge_dspy needs DSPy, which is not installed: pip install "scorebridge[dspy]"'
    )


def test_a_broken_dspy_keeps_its_own_import_error(tmp_path: Path) -> None:
    # DSPy is installed but one of its own imports fails: that error, not "install DSPy".
    (tmp_path / "dspy").mkdir()
    (tmp_path / "dspy" / "__init__.py").write_text("import a_module_dspy_needs_but_lacks\n")
    done = run_python(
        """
        try:
            import scorebridge_dspy
        except ModuleNotFoundError as e:
            print(e.name)
        """,
        path=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "a_module_dspy_needs_but_lacks"
