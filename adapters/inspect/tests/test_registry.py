"""The `inspect_ai` entry point: every built-in scorer is `scorebridge/NAME` in Inspect's registry."""

from __future__ import annotations

import math
import subprocess
import sys
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Target, match
from inspect_ai.solver import TaskState, generate
from inspect_ai.util import registry_create, registry_info

from scorebridge.kit import BUILTINS


def test_entry_point_is_named_scorebridge() -> None:
    # Inspect loads the entry point named like the prefix of the name it looks up
    [ep] = [ep for ep in entry_points(group="inspect_ai") if ep.name == "scorebridge"]
    assert ep.value == "scorebridge_inspect._registry"


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_every_builtin_is_registered_under_scorebridge(name: str) -> None:
    from inspect_ai._util.registry import registry_lookup

    factory = registry_lookup("scorer", f"scorebridge/{name}")
    assert factory is not None
    assert registry_info(factory).name == f"scorebridge/{name}"


def test_options_are_the_builtins_own_arguments(make_state: Callable[..., TaskState]) -> None:
    import asyncio

    strict = registry_create("scorer", "scorebridge/exact", normalise=False)
    assert strict.__registry_params__ == {"normalise": False}  # type: ignore[attr-defined]
    assert asyncio.run(strict(make_state("PARIS"), Target("Paris"))).value == "I"  # type: ignore[union-attr]


def test_unknown_option_is_a_type_error_naming_it() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'ignore_case'"):
        registry_create("scorer", "scorebridge/exact", ignore_case=True)


def test_inspects_own_scorers_keep_their_unprefixed_names() -> None:
    # scorebridge's exact is scorebridge/exact; "exact" alone is still Inspect's
    registry_create("scorer", "scorebridge/exact")
    assert registry_info(registry_create("scorer", "exact")).name == "inspect_ai/exact"


# --- `inspect score` on a real log, as a subprocess ------------------------------------

# detect_includes when the core has it, else exact; both read the option as "compare case"
_RESCORER, _OPTION, _PARAMS = (
    ("detect_includes", "case_sensitive=true", {"case_sensitive": True})
    if "detect_includes" in BUILTINS
    else ("exact", "normalise=false", {"normalise": False})
)
_REPLIES = {
    "a": ("Paris", "Paris", "C"),
    "b": ("Paris", "PARIS", "I"),
    "c": ("Paris", "Lyon", "I"),
    "d": ("", "x", "nan"),
}


def test_inspect_score_cli_rescores_a_log_with_a_scorebridge_scorer(
    tmp_path: Path, make_output: Callable[..., ModelOutput]
) -> None:
    samples = [Sample(id=k, input=k, target=target) for k, (target, _, _) in _REPLIES.items()]

    def reply(messages: Any, *args: Any) -> ModelOutput:
        return make_output(_REPLIES[messages[-1].text][1])

    [log] = eval(
        Task(dataset=samples, solver=generate(), scorer=match()),
        model="mockllm/model",
        model_args={"custom_outputs": reply},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success"
    rescored = tmp_path / "rescored.eval"
    inspect_cli = Path(sys.executable).parent / "inspect"
    command = [str(inspect_cli), "score", "--scorer", f"scorebridge/{_RESCORER}", "-S", _OPTION]
    command += ["--action", "overwrite", "--output-file", str(rescored), log.location]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr

    new = read_eval_log(str(rescored))
    values = {}
    for sample in new.samples or []:
        score = (sample.scores or {})[_RESCORER]
        values[sample.id] = "nan" if isinstance(score.value, float) and math.isnan(score.value) else score.value
    assert values == {k: want for k, (_, _, want) in _REPLIES.items()}
    assert new.results is not None
    [result] = new.results.scores
    assert (result.name, result.metrics["accuracy"].value) == (_RESCORER, pytest.approx(1 / 3))
    assert result.params == _PARAMS  # -S reached the scorer
