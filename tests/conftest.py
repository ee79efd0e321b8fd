"""Set-up shared by the hub's tests."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import settings

# `hostile.py` (the hostile-value strategy) is imported by name: make it importable under importlib mode.
_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

# Hypothesis's per-example deadline (200 ms by default) measures the machine's load, not the code: a busy
# machine failed tests with DeadlineExceeded. A hang is pytest-timeout's to catch.
settings.register_profile("scorebridge", deadline=None)
settings.load_profile("scorebridge")
