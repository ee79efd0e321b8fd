"""Test-wide set-up: every harness runs offline and writes only into a temporary folder."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

# tests/hostile.py (the hostile values) is imported by name by the hub's tests and the adapters' alike.
_TESTS = str(Path(__file__).parent / "tests")
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

# Inspect AI writes logs and traces under the XDG folders and INSPECT_LOG_DIR; keep
# them out of the user's home. LiteLLM (under DSPy) would fetch its price list.
_scratch = tempfile.mkdtemp(prefix="scorebridge-tests-")
for _var in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "INSPECT_LOG_DIR"):
    os.environ[_var] = os.path.join(_scratch, _var.lower())
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# Under `uv run`, Ray would copy the working directory and build a uv environment for its workers.
os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("INSPECT_DISPLAY", "none")
# deepeval reports telemetry unless told not to (its own tests and the docs blocks import it).
os.environ["DEEPEVAL_TELEMETRY_OPT_OUT"] = "YES"
