"""torch stays out of the main environment: uv.lock has none, and the RL lane installs the CPU build by version."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_uv_lock_has_trl_but_no_torch() -> None:
    names = set(re.findall(r'^name = "([^"]+)"$', (ROOT / "uv.lock").read_text(encoding="utf-8"), re.M))
    assert "trl" in names
    assert not names & {"torch", "nvidia-cudnn-cu12", "triton"}


def test_the_rl_lane_pins_the_cpu_torch_and_runs_the_trainer_test() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    installs = re.findall(r"pip\" install [^\n]*torch[^\n]*", ci)
    assert installs and all("torch==" in line for line in installs)
    assert "adapters/rl/tests/test_grpo_trainer.py" in ci
