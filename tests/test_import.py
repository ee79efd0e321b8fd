"""`import scorebridge` is the hub: small public surface, no harness imported."""

from __future__ import annotations

import subprocess
import sys

import scorebridge


def test_public_names_are_re_exported_from_the_root() -> None:
    for name in scorebridge.__all__:
        assert getattr(scorebridge, name) is not None


def test_core_names_are_public() -> None:
    core = {"Score", "FAILURE_KINDS", "FailureKind", "Scorer", "scorer", "exact", "grade_value", "ScorerContractError"}
    assert core <= set(scorebridge.__all__)


def test_importing_scorebridge_imports_no_harness() -> None:
    code = (
        "import sys, scorebridge; "
        "harnesses = ('inspect_ai', 'dspy', 'pytest', 'pydantic', 'pandas', 'langsmith', 'openevals', 'deepeval', "
        "'rapidfuzz', 'sacrebleu', 'nltk', 'verifiers'); "
        "print(sorted(m for m in harnesses if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
