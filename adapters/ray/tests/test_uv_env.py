"""Importing `scorebridge_ray` turns Ray's `uv run` integration off unless the user set it, so a script works.

Under `uv run`, Ray's integration copies the working directory for the workers and has each job build a uv
environment there: `score_dataset` in a script run with `uv run` once never got its workers started (4
minutes and counting), and only the CLI turned the integration off. Each test runs a fresh interpreter,
without the variable the test session's own conftest sets.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

VARIABLE = "RAY_ENABLE_UV_RUN_RUNTIME_ENV"
SHOW = (
    "import os\nfrom ray._private import ray_constants\n"
    f"print(os.environ.get({VARIABLE!r}), getattr(ray_constants, {VARIABLE!r}))"
)


def _run(code: str, value: str | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k != VARIABLE}
    if value is not None:
        env[VARIABLE] = value
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_importing_scorebridge_ray_turns_the_uv_integration_off() -> None:
    assert _run("import scorebridge_ray\n" + SHOW) == "0 False"


def test_a_value_the_user_set_is_kept() -> None:
    # opting back in: RAY_ENABLE_UV_RUN_RUNTIME_ENV=1 before the import (docs/ray.md)
    assert _run("import scorebridge_ray\n" + SHOW, "1") == "1 True"


def test_ray_imported_before_scorebridge_ray_has_the_integration_turned_off_too() -> None:
    # Ray reads the variable when it is imported: `import ray` first had read it unset (on)
    assert _run("import ray\nimport scorebridge_ray\n" + SHOW) == "0 False"


SCRIPT = """
import sys, tempfile
import ray, ray.data
import scorebridge as sb
import scorebridge_ray

ray.init(address="local", num_cpus=1, include_dashboard=False, _temp_dir=tempfile.mkdtemp(prefix="sbuv-"),
         logging_level="ERROR", log_to_driver=False)
rows = [{"item": "q", "output": "Paris", "label": "Paris"}, {"item": "q", "output": "Lyon", "label": "Paris"}]
summary = scorebridge_ray.summarize(scorebridge_ray.score_dataset(ray.data.from_items(rows), sb.exact()))
print(summary.scored, summary.correct)
ray.shutdown()
"""


@pytest.mark.skipif(shutil.which("uv") is None, reason="needs uv on PATH")
def test_score_dataset_in_a_script_under_uv_run_starts_its_workers(tmp_path: Path) -> None:
    script = tmp_path / "score.py"
    script.write_text(textwrap.dedent(SCRIPT))
    env = {k: v for k, v in os.environ.items() if k != VARIABLE}
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        ["uv", "run", "--no-sync", "--project", str(root), "python", str(script)],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=180,
    )
    assert (done.returncode, done.stdout.strip().splitlines()[-1:]) == (0, ["2 1"]), done.stderr[-3000:]
