"""verifiers scoring rows offline: a Task per row, a Trace holding the reply, verifiers' own `Task.score`.

`Task.score(trace)` is what a verifiers rollout calls once the agent is done,
and what `vf-replay` calls on saved traces; without a runtime it runs every
reward that does not ask for one. `model_replies` fetches the replies from a
model server of the tests' own on 127.0.0.1 through verifiers' own client. `legacy_call` calls a reward function as a
legacy `vf.Rubric` did (verifiers 0.4 has no Rubric): by name, chat messages.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import threading
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import verifiers.v1 as vf
from verifiers.v1.clients.eval import EvalClient
from verifiers.v1.dialects.chat import ChatDialect
from verifiers.v1.graph import MessageNode

CONNECTIONS: list[str] = []
"""Every connection the tests tried to open off the machine (the conftest's guard refuses them)."""

Row = tuple[Any, Any, Any]


class Item(vf.TaskData):
    """A row as a verifiers taskset holds it: the prompt, and the reference `answer` (None: no label)."""

    answer: Any = None


def trace_of(item: Any, output: Any, label: Any) -> vf.Trace:
    """The trace a single-turn rollout leaves: the prompt, then the model's reply (sampled)."""
    data = Item(prompt=str(item), answer=label)
    trace = vf.Trace(task=vf.TraceTask(type="Scored", data=data), agent=vf.AgentInfo(config=vf.AgentConfig()))
    text = output if isinstance(output, str) else "" if output is None else str(output)
    user = MessageNode(message=vf.UserMessage(content=str(item)))
    trace.nodes = [user, MessageNode(parent=0, message=vf.AssistantMessage(content=text), sampled=True)]
    return trace


def task_with(**rewards: Any) -> type[vf.Task[Item]]:
    """A Task class whose attributes are the given rewards (a function is made a static one)."""
    made = {k: staticmethod(v) if inspect.isfunction(v) else v for k, v in rewards.items()}
    return type("Scored", (vf.Task,), {**made, "__orig_bases__": (vf.Task[Item],)})


async def _scored(task_type: type[vf.Task[Item]], rows: Sequence[Row]) -> list[vf.Trace]:
    async def one(row: Row) -> vf.Trace:
        trace = trace_of(*row)
        await task_type(trace.task.data).score(trace)
        return trace

    return list(await asyncio.gather(*(one(row) for row in rows)))


def score_rows(task_type: type[vf.Task[Item]], rows: Sequence[Row]) -> list[vf.Trace]:
    """verifiers' scoring of each row's trace, concurrently as an evaluation scores its rollouts."""
    return asyncio.run(_scored(task_type, rows))


def run(reward: Any, rows: list[Row]) -> list[float | None]:
    """The reward verifiers records for each row under the reward's name (None: unscored, as verifiers seeds it)."""
    name = getattr(reward, "name", reward.__name__)
    return [None if (r := t.rewards.get(name)) is None else r.score for t in score_rows(task_with(scored=reward), rows)]


def legacy_call(
    reward: Callable[..., Any], item: Any, output: Any, label: Any, state: dict[str, Any] | None = None
) -> Any:
    """A reward function called as a legacy Rubric called it: by name, chat messages, awaited when async."""
    given = {"prompt": [{"role": "user", "content": item}], "completion": [{"role": "assistant", "content": output}],
             "answer": label, "state": {} if state is None else state, "task": "default", "info": {}}  # fmt: skip
    params = inspect.signature(reward).parameters
    takes_all = any(p.kind is p.VAR_KEYWORD for p in params.values())
    found = reward(**(given if takes_all else {n: v for n, v in given.items() if n in params}))
    return asyncio.run(found) if inspect.isawaitable(found) else found


def run_legacy(reward: Callable[..., Any], rows: list[Row]) -> list[float | None]:
    return [legacy_call(reward, *row) for row in rows]


class _Replying(BaseHTTPRequestHandler):
    """An OpenAI-compatible `/v1/chat/completions`: the scripted reply to the last user message."""

    server: _Stub

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.server.requests += 1
        content = self.server.replies[body["messages"][-1]["content"]]
        message = {"role": "assistant", "content": content}
        reply = {"id": f"stub-{self.server.requests}", "object": "chat.completion", "created": 0,
                 "model": body["model"], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                 "choices": [{"index": 0, "finish_reason": "stop", "message": message}]}  # fmt: skip
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


class _Stub(ThreadingHTTPServer):
    request_queue_size = 128  # every prompt's request at once: the default backlog of 5 resets some under load
    daemon_threads = True

    def __init__(self, replies: dict[str, str]) -> None:
        super().__init__(("127.0.0.1", 0), _Replying)
        self.replies, self.requests = replies, 0


def model_replies(replies: dict[str, str], prompts: Sequence[str]) -> list[str]:
    """Each prompt's reply from a model server on 127.0.0.1, fetched by verifiers' own `EvalClient`.

    The server answers with the scripted reply to each prompt, serves only the
    requests made here (one per prompt, at most 60 s) and stops itself."""
    stub = _Stub(replies)
    thread = threading.Thread(target=stub.serve_forever, daemon=True)
    thread.start()
    config = vf.EvalClientConfig(base_url=f"http://127.0.0.1:{stub.server_port}/v1", api_key_var="SCOREBRIDGE_STUB")

    async def ask_all() -> list[str]:
        client = EvalClient(config)

        async def one(prompt: str) -> str:
            body = {"model": "stub", "messages": [{"role": "user", "content": prompt}]}
            response = await client.get_response(ChatDialect(), body, vf.SamplingConfig())
            return response.message.content or ""

        return list(await asyncio.wait_for(asyncio.gather(*(one(p) for p in prompts)), timeout=60))

    try:
        os.environ.setdefault("SCOREBRIDGE_STUB", "no key")
        found = asyncio.run(ask_all())
    finally:
        stub.shutdown()
        stub.server_close()
        thread.join(5)
    assert stub.requests == len(prompts)
    return found
