"""verifiers scoring rows offline: a Task per row, a Trace holding the reply, verifiers' own `Task.score`.

`Task.score(trace)` is what a verifiers rollout calls once the agent is done,
and what `vf-replay` calls on saved traces; without a runtime it runs every
reward that does not ask for one. `model_server` is a model server of the
tests' own on 127.0.0.1 (`vf_rollout` runs verifiers' whole rollout against
it). `legacy_call` calls a reward function as a legacy `vf.Rubric` did
(verifiers 0.4 has no Rubric): by name, chat messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import verifiers.v1 as vf
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
        # the reply streamed, as an agent's client asks for it: one chunk, then [DONE]
        choice = {"index": 0, "finish_reason": "stop", "delta": {"role": "assistant", "content": content}}
        chunk = {"id": f"stub-{self.server.requests}", "object": "chat.completion.chunk", "created": 0,
                 "model": body["model"], "choices": [choice],
                 "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}  # fmt: skip
        data = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
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
        self.url = f"http://127.0.0.1:{self.server_port}/v1"


@contextlib.contextmanager
def model_server(replies: dict[str, str]) -> Iterator[_Stub]:
    """An OpenAI-compatible model server on 127.0.0.1 answering each prompt with its scripted reply.

    It serves `/v1/chat/completions` (streamed) until the block ends, when it
    stops; `.requests` counts the requests."""
    stub = _Stub(replies)
    thread = threading.Thread(target=stub.serve_forever, daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        stub.shutdown()
        stub.server_close()
        thread.join(5)
