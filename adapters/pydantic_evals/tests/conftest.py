"""The pydantic-evals adapter's tests: `pe_support` (their helpers) importable by name; none without pydantic-evals
(it needs Python 3.11)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

if importlib.util.find_spec("pydantic_evals") is None:
    collect_ignore_glob = ["test_*.py"]

_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
