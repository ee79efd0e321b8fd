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


@pytest.fixture(autouse=True)
def entry_point_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inspect's registry as the entry point leaves it, for these tests of its names.

    Other tests in the same xdist worker register scorers: `to_inspect(sb.exact())` puts a factory of its own
    (which takes no `on_error`) under "scorebridge/exact", and a test module's `@scorer def exact` the bare
    "exact", which Inspect looks up before its own "inspect_ai/exact". These tests failed by the order they ran
    in; each now starts from the entry point's registrations, and the registry is put back after it.
    """
    from inspect_ai._util import registry

    from scorebridge_inspect import _registry as entry_point

    kept = {k: v for k, v in registry._registry.items() if not (k.startswith("scorer:") and "/" not in k)}
    monkeypatch.setattr(registry, "_registry", kept)
    for name, factory in BUILTINS.items():
        entry_point._register(name, factory, factory.__module__, factory)


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


def _logged(samples: list[Sample], make_output: Callable[..., ModelOutput], tmp_path: Path) -> Any:
    """The log of an Inspect eval of `samples` on mockllm replying as `_REPLIES` says, scored with match()."""

    def reply(messages: Any, *args: Any) -> ModelOutput:
        return make_output(_REPLIES[messages[-1].text][1])

    [log] = eval(
        Task(dataset=samples, solver=generate(), scorer=match()),
        model="mockllm/model",
        model_args={"custom_outputs": reply},
        log_dir=str(tmp_path),
        display="none",
    )
    return log


def test_inspect_score_cli_rescores_a_log_with_a_scorebridge_scorer(
    tmp_path: Path, make_output: Callable[..., ModelOutput]
) -> None:
    samples = [Sample(id=k, input=k, target=target) for k, (target, _, _) in _REPLIES.items()]

    log = _logged(samples, make_output, tmp_path)
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


# `inspect score -S on_error=record` was a TypeError ("takes no options"): on_error is to_inspect's, not the scorer's
_RAISING = """
from scorebridge import scorer


@scorer
def picky(item, output, label):
    if output == "Lyon":
        raise ValueError("cannot judge Lyon")
    return output == label
"""


def test_inspect_score_cli_records_a_raising_row_wrong_with_kind_error_under_on_error_record(
    tmp_path: Path, make_output: Callable[..., ModelOutput]
) -> None:
    samples = [Sample(id=k, input=k, target=target) for k, (target, _, _) in _REPLIES.items() if k != "d"]

    log = _logged(samples, make_output, tmp_path)
    (tmp_path / "picky.py").write_text(_RAISING, encoding="utf-8")
    rescored = tmp_path / "rescored.eval"
    inspect_cli = Path(sys.executable).parent / "inspect"
    command = [str(inspect_cli), "score", "--scorer", "picky.py@picky", "-S", "on_error=record"]
    command += ["--action", "overwrite", "--output-file", str(rescored), log.location]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    new = read_eval_log(str(rescored))
    kinds = {
        s.id: ((s.scores or {})["picky"].value, ((s.scores or {})["picky"].metadata or {}).get("failure_kind"))
        for s in new.samples or []
    }
    assert kinds == {"a": ("C", None), "b": ("I", "wrong"), "c": ("I", "error")}
    assert new.results is not None and new.results.scores[0].metrics["accuracy"].value == pytest.approx(1 / 3)


def test_on_error_is_an_option_of_every_builtin_name_beside_its_own(make_state: Callable[..., TaskState]) -> None:
    import asyncio

    made = registry_create("scorer", "scorebridge/exact", normalise=False, on_error="record")
    assert made.__registry_params__ == {"normalise": False, "on_error": "record"}  # type: ignore[attr-defined]
    assert asyncio.run(made(make_state("PARIS"), Target("Paris"))).value == "I"  # type: ignore[union-attr]


def test_on_error_must_be_raise_or_record() -> None:
    with pytest.raises(ValueError, match="on_error must be 'raise' or 'record'"):
        registry_create("scorer", "scorebridge/exact", on_error="ignore")


# --- scorers of yours, defined with @scorer, found by name ------------------------------

_MINE = '''\
from scorebridge import scorer


@scorer(name="{name}")
def near(item, output, label, *, tolerance=0.01):
    """A number within `tolerance` (relative) of the label."""
    x, y = float(output), float(label)
    return {{"correct": abs(x - y) <= tolerance * abs(y), "outcome": output, "failure_kind": None}}
'''


def _define(tmp_path: Path, name: str) -> None:
    """Import a file defining the scorer `name`, as Inspect imports `file.py@name` (the path as module name)."""
    from importlib.util import module_from_spec, spec_from_file_location

    path = tmp_path / f"{name}.py"
    path.write_text(_MINE.format(name=name), encoding="utf-8")
    spec = spec_from_file_location(path.as_posix(), path)
    assert spec is not None and spec.loader is not None
    spec.loader.exec_module(module_from_spec(spec))


def test_a_scorer_defined_with_the_decorator_is_registered_under_its_name(tmp_path: Path) -> None:
    from inspect_ai._util.registry import registry_lookup

    _define(tmp_path, "mine_registered")
    assert registry_lookup("scorer", "mine_registered") is not None


def test_options_reach_the_scorer_and_are_recorded(tmp_path: Path, make_state: Callable[..., TaskState]) -> None:
    import asyncio

    _define(tmp_path, "mine_options")
    loose = registry_create("scorer", "mine_options", tolerance=0.05)
    strict = registry_create("scorer", "mine_options")
    state, target = make_state("103"), Target("100")
    assert loose.__registry_params__ == {"tolerance": 0.05}  # type: ignore[attr-defined]
    assert (asyncio.run(loose(state, target)).value, asyncio.run(strict(state, target)).value) == ("C", "I")  # type: ignore[union-attr]


_ASYNC = """\
import asyncio

from scorebridge import scorer


async def _same(output, label):
    await asyncio.sleep(0)
    return output == label


@scorer
async def {name}_async(item, output, label):
    return await _same(output, label)


@scorer
def {name}(item, output, label):
    return _same(output, label)  # a coroutine: scorebridge awaits it
"""


def _by_file(tmp_path: Path, name: str, wanted: str) -> Any:
    """What `inspect score --scorer FILE@wanted` loads (Inspect's own loader), from a file of async scorers."""
    from inspect_ai._eval.loader import scorer_from_spec
    from inspect_ai._util.entrypoints import ensure_entry_points
    from inspect_ai.scorer._scorer import ScorerSpec

    ensure_entry_points()  # as the `inspect` command does when it starts
    path = tmp_path / f"{name}.py"
    path.write_text(_ASYNC.format(name=name), encoding="utf-8")
    return scorer_from_spec(ScorerSpec(scorer=f"{path.as_posix()}@{wanted}"), None)


def test_an_async_def_scorer_is_not_found_by_file_name(tmp_path: Path) -> None:
    # Inspect AI's loader reads the file's source for `def` statements decorated @scorer, never `async def` (its
    # own scorer factories are plain functions): the harness cannot see it, so docs/inspect.md gives the form below.
    from inspect_ai._util.error import PrerequisiteError

    with pytest.raises(PrerequisiteError, match="was not found"):
        _by_file(tmp_path, "mine_by_file_a", "mine_by_file_a_async")


def test_a_def_handing_back_a_coroutine_is_found_by_file_name_and_awaited(
    tmp_path: Path, make_state: Callable[..., TaskState]
) -> None:
    import asyncio

    found = _by_file(tmp_path, "mine_by_file_b", "mine_by_file_b")
    assert asyncio.run(found(make_state("42"), Target("42"))).value == "C"
    assert asyncio.run(found(make_state("41"), Target("42"))).value == "I"


def test_the_name_makes_the_scorer_for_any_options_after_a_first_use(tmp_path: Path) -> None:
    # to_inspect registers a factory of its own under the name, for the one scorer it is given; the
    # registry keeps the last one registered, which must stay the one that takes every option.
    _define(tmp_path, "mine_again")
    first = registry_create("scorer", "mine_again", tolerance=0.05)
    second = registry_create("scorer", "mine_again", tolerance=0.2)
    assert first.__registry_params__ == {"tolerance": 0.05}  # type: ignore[attr-defined]
    assert second.__registry_params__ == {"tolerance": 0.2}  # type: ignore[attr-defined]


def test_a_scorer_given_to_to_inspect_is_still_made_by_name_with_other_options(tmp_path: Path) -> None:
    # to_inspect(scorer) registers its own factory under the scorer's name; it refused any options but the
    # scorer's own, so after a first to_inspect in a process, `inspect score -S tolerance=...` failed.
    from inspect_ai._util.registry import registry_lookup

    from scorebridge.kit import defined_scorers
    from scorebridge_inspect import to_inspect

    _define(tmp_path, "mine_to_inspect")
    to_inspect(defined_scorers()["mine_to_inspect"])
    assert registry_lookup("scorer", "mine_to_inspect") is not None
    loose = registry_create("scorer", "mine_to_inspect", tolerance=0.2)
    assert loose.__registry_params__ == {"tolerance": 0.2}  # type: ignore[attr-defined]


def test_an_unknown_option_names_the_scorers_options(tmp_path: Path) -> None:
    _define(tmp_path, "mine_unknown")
    with pytest.raises(TypeError, match="scorer 'mine_unknown' has no option tol; its options are tolerance"):
        registry_create("scorer", "mine_unknown", tol=0.05)


def test_a_scorer_made_inside_a_function_is_not_registered() -> None:
    from inspect_ai._util.registry import registry_lookup

    import scorebridge as sb

    def local(item: Any, output: Any, label: Any) -> bool:
        return bool(output == label)

    sb.scorer(local, name="mine_local_only")
    assert registry_lookup("scorer", "mine_local_only") is None


def test_a_failed_registration_never_breaks_the_users_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from scorebridge_inspect import _registry

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("refused")

    monkeypatch.setattr(_registry, "scorer", refuse)
    _define(tmp_path, "mine_refused")  # imports without an exception
    assert "the scorer 'mine_refused' could not be registered in Inspect AI: ValueError('refused')" in caplog.text


def test_scorers_defined_before_the_entry_point_loads_are_registered_too(tmp_path: Path) -> None:
    (tmp_path / "early.py").write_text(_MINE.format(name="mine_early"), encoding="utf-8")
    code = (
        "import early\n"
        "from scorebridge_inspect import _registry\n"
        "from inspect_ai._util.registry import registry_lookup\n"
        "print(registry_lookup('scorer', 'mine_early') is not None)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "True", done.stderr


# --- the whole session with the real `inspect` command, offline --------------------------

_EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


SESSION_MARK = "<!-- docs-test: run in adapters/inspect/tests/test_registry.py -->\n```sh\n"


def _session() -> list[str]:
    """The commands of docs/inspect.md's offline session, as written there."""
    doc = (_EXAMPLES.parent / "docs" / "inspect.md").read_text(encoding="utf-8")
    block = doc.split(SESSION_MARK)[1].split("```")[0]
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


def test_the_docs_session_evals_then_scores_by_file_then_rebuilds_from_the_log(tmp_path: Path) -> None:
    # The bug: a to_inspect() scorer was found neither as file.py@name nor from the log; only a hand-written
    # @scorer wrapper worked. The session runs the docs' commands in the docs' files, checking each step.
    import os

    for name in ("my_scorers.py", "arith.py"):  # the files docs/inspect.md shows (tests/test_docs.py checks)
        (tmp_path / name).write_text((_EXAMPLES / name).read_text(encoding="utf-8"), encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}

    def scored() -> tuple[dict[str, Any], float]:
        [log] = (tmp_path / "logs" / "arith").glob("*.eval")
        [result] = read_eval_log(str(log)).results.scores  # type: ignore[union-attr]
        return result.params, result.metrics["accuracy"].value

    evaluate, by_file, from_log = _session()
    expected = [
        (evaluate, "inspect eval arith.py", ({"tolerance": 0.01}, pytest.approx(2 / 3))),
        (by_file, "inspect score --scorer my_scorers.py@within_1pct -S tolerance=0.05", ({"tolerance": 0.05}, 1.0)),
        (from_log, "PYTHONPATH=. inspect score --action overwrite", ({"tolerance": 0.05}, 1.0)),  # rebuilt
    ]
    for command, start, result in expected:
        assert command.startswith(start)
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        assert scored() == result, command
