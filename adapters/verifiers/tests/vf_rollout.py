"""A verifiers environment of the tests' own, run end to end by verifiers' eval runner (what `vf-eval` runs).

Loaded by verifiers as a plugin by its module name (`vf_rollout`): the taskset
`Capitals` (20 rows of `ROWS`, each a `Capital` task whose rewards are
scorebridge scorers) and the harness `LocalChat`. Each rollout is verifiers'
own: `Env.run_slot` -> `Agent.run` -> the harness's program, whose model calls
go through verifiers' interception server to the run's client (a model
server of the tests' own on 127.0.0.1), then `Task.score` on the trace.

`LocalChat` is verifiers' `null` harness (its chat program, the modules it
bundles into a PEP 723 script) with one change: the program runs on this
interpreter, whose environment already holds the program's dependencies,
instead of an environment `uv sync --script` resolves from the package index
when the rollout starts. `program="in_process"` runs it in the test's process
(verifiers allows a harness loop in-process as long as every model call goes
through the interception endpoint); `program="subprocess"` runs it as a
program of its own in verifiers' local `SubprocessRuntime`, behind
`vf_guard.py`, which refuses and records any connection off the machine.
"""

from __future__ import annotations

import asyncio
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
import verifiers.v1 as vf
from verifiers.v1.cli.eval.runner import run_eval
from verifiers.v1.configs.cli.eval import EvalConfig
from verifiers.v1.configs.harness import HarnessConfig
from verifiers.v1.harness import Harness
from verifiers.v1.harnesses.utils.launch import CHAT_PROGRAM_SOURCE, launch_chat_program
from verifiers.v1.runtimes import ProgramResult, Runtime
from vf_offline import Item, model_server

import scorebridge as sb
from scorebridge.testing import FakeGrader
from scorebridge_verifiers import to_verifiers

GUARD = str(Path(__file__).with_name("vf_guard.py"))

CHAT_PROGRAM: dict[str, Any] = {"__name__": "verifiers_chat"}  # not "__main__": its entry point stays inert
"""The chat program's script, run as a module of this process: its `main()` is what the script runs."""
exec(compile(CHAT_PROGRAM_SOURCE, "verifiers-chat.py", "exec"), CHAT_PROGRAM)

CITIES = ["Paris", "Rome", "Madrid", "Berlin", "Lisbon", "Vienna", "Prague", "Dublin", "Oslo", "Athens"]
# 20 rows (question, the model's reply, label): 14 answered right, 4 wrong, 2 with no label; row 7 makes `flaky` raise.
ROWS: list[tuple[str, str, Any]] = [
    (f"Capital number {n}?", CITIES[n % 10] if n % 5 else "Nowhere", CITIES[n % 10] if n not in (3, 11) else None)
    for n in range(20)
]
RAISING_ROW = 7


@sb.scorer
def flaky(item: Any, output: Any, label: Any) -> bool:
    """Exact comparison, except that it crashes on row 7's question."""
    if item == ROWS[RAISING_ROW][0]:
        raise RuntimeError("the checker crashed")
    return bool(output == label)


def grader() -> FakeGrader:
    """A grader model that says C when the reply names the reference city, I otherwise."""
    return FakeGrader(lambda prompt: "GRADE: C" if prompt.count("Nowhere") == 0 else "GRADE: I")


class Capital(vf.Task[Item]):
    """One row: the reply scored by scorebridge's exact match, a model-graded scorer and `flaky` under "record"."""

    exact = to_verifiers(sb.exact())
    graded = to_verifiers(sb.model_graded_qa(grader()), name="graded")
    flaky = to_verifiers(flaky, on_error="record")


class Capitals(vf.Taskset[Capital]):
    """`ROWS` as a verifiers taskset: the question is the prompt, the label the task's `answer`."""

    def load(self) -> Iterator[Capital]:
        for question, _, label in ROWS:
            yield Capital(Item(prompt=question, answer=label), self.config.task)


class LocalChatConfig(HarnessConfig):
    program: Literal["in_process", "subprocess"] = "in_process"
    """Where verifiers' chat program runs: in this process, or as a program of its own (behind `vf_guard.py`).

    In this process the program reads relative paths from the test's working
    directory, not the runtime's: a task whose prompt is a list of messages
    (which the program reads from a file in the runtime) needs "subprocess"."""


class _Installed:
    """The rollout's runtime, running the chat program on this interpreter rather than in a `uv` environment.

    Everything but the two calls `launch_chat_program` makes to prepare and run
    the program is the runtime's own (its writes, workdir, environment)."""

    def __init__(self, runtime: Runtime, program: str) -> None:
        self._runtime, self._program = runtime, program

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runtime, name)

    async def prepare_uv_script(self, script: str, env: Any = None, *, activate: bool = True) -> list[str]:
        if self._program == "in_process":
            return ["verifiers-chat"]
        await self._runtime.write("chat.py", script.encode())  # the runtime's workdir, removed at teardown
        return [sys.executable, GUARD, "chat.py"]

    async def run_program(self, argv: list[str], env: dict[str, str]) -> ProgramResult:
        if self._program == "subprocess":
            return await self._runtime.run_program(argv, env)
        # The program's `main` reads its arguments from sys.argv before its first await, so each
        # concurrent rollout sets them right before starting it (the caller restores sys.argv).
        sys.argv = argv
        try:
            await CHAT_PROGRAM["main"]()
        except Exception:  # a crashed program exits non-zero with its traceback, as a subprocess would
            return ProgramResult(exit_code=1, stdout="", stderr=traceback.format_exc())
        return ProgramResult(exit_code=0, stdout="", stderr="")


class LocalChat(Harness[LocalChatConfig]):
    """verifiers' `null` harness (a tool-less chat loop) with its program run on this interpreter."""

    APPENDS_SYSTEM_PROMPT = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: Any,
        trace: vf.Trace,
        runtime: Runtime,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: vf.TaskData,
    ) -> ProgramResult:
        system_prompt, prompt = self.resolve_prompt(data)
        local: Any = _Installed(runtime, self.config.program)
        return await launch_chat_program(
            CHAT_PROGRAM_SOURCE, self.config, ctx, trace, local, endpoint, secret, mcp_urls, system_prompt, prompt
        )


def evaluate(out_dir: Path, *, program: str = "in_process", limit: int | None = None, **harness: Any) -> list[Any]:
    """verifiers' own eval (`vf-eval`'s runner, `run_eval`) of `Capitals` with `LocalChat`, against a model
    server on 127.0.0.1 that replies as `ROWS` say: the episodes it returns (one trace each), in row order.

    The agent runs in verifiers' local subprocess runtime; nothing is pushed to
    Prime Intellect's platform (`push=False`) and the run's files go to
    `out_dir`. `limit` takes the first rows only; `harness` adds harness config
    fields (`env=`: the program's environment variables). sys.argv is restored."""
    with model_server({question: reply for question, reply, _ in ROWS}) as server, pytest.MonkeyPatch.context() as mp:
        mp.setattr(sys, "argv", list(sys.argv))
        mp.setenv("SCOREBRIDGE_STUB_KEY", "no key")  # the client's api_key_var must name a set variable
        agent = {"harness": {"id": "vf_rollout", "program": program, **harness}, "runtime": {"type": "subprocess"}}
        config = EvalConfig.model_validate(
            {
                "env": {"taskset": {"id": "vf_rollout"}, "agent": agent},
                "model": "stub",
                "client": {"base_url": server.url, "api_key_var": "SCOREBRIDGE_STUB_KEY"},
                "select": {"limit": limit},
                "push": False,
                "rich": None,
                "output_dir": str(out_dir),
            }
        )
        episodes = asyncio.run(asyncio.wait_for(run_eval(config), timeout=120))
    assert server.requests == len(episodes), f"{server.requests} model calls for {len(episodes)} rollouts"
    return sorted(episodes, key=lambda e: e.task.data.idx)


__all__ = ["Capitals", "LocalChat"]
