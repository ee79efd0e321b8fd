"""Shared set-up of the MLflow adapter's tests: an offline MLflow, a sqlite store, a local judge model.

- MLflow is kept offline and quiet: no telemetry, LiteLLM's bundled cost map,
  Inspect AI's and MLflow's homes in a temporary folder.
- `tracking`: a `sqlite:///` tracking store in a temporary folder, one per test
  module (the file store is refused by MLflow 3), its artifacts there too.
- `judge`: an OpenAI-compatible chat endpoint on 127.0.0.1, started in a thread,
  with scripted replies; MLflow's judges call it as they would call OpenAI
  (`openai:/MODEL`, with `OPENAI_API_BASE` pointing at it).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

_HOME_VARIABLES = ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME")


@pytest.fixture(scope="session", autouse=True)
def offline_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """MLflow (and Inspect AI, for the tests that run it) offline, writing only under a temporary home."""
    home = tmp_path_factory.mktemp("mlflow_home")
    with pytest.MonkeyPatch.context() as mp:
        for variable in _HOME_VARIABLES:
            mp.setenv(variable, str(home / variable.lower()))
        mp.setenv("INSPECT_LOG_DIR", str(home / "inspect_logs"))
        mp.delenv("INSPECT_EVAL_MODEL", raising=False)
        mp.setenv("MLFLOW_DISABLE_TELEMETRY", "true")
        mp.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        mp.setenv("TQDM_DISABLE", "1")
        mp.setenv("MLFLOW_SQLALCHEMYSTORE_POOL_SIZE", "20")  # MLflow's threads share the sqlite store's pool
        mp.setenv("MLFLOW_SQLALCHEMYSTORE_MAX_OVERFLOW", "40")
        mp.setenv("MLFLOW_MODEL_CATALOG_URI", "")  # the judges' model catalog is not fetched from GitHub
        mp.delenv("MLFLOW_TRACKING_URI", raising=False)
        yield home


@pytest.fixture(scope="module")
def tracking(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A sqlite:/// tracking store of the test module's own, with an experiment whose artifacts stay there."""
    import mlflow

    before = os.environ.get("MLFLOW_EXPERIMENT_ID")  # set_experiment sets it, for subprocesses
    folder = tmp_path_factory.mktemp("mlflow_store")
    uri = f"sqlite:///{folder / 'mlflow.db'}"
    mlflow.set_tracking_uri(uri)
    experiment = mlflow.create_experiment(f"scorebridge-{uuid.uuid4().hex[:8]}", (folder / "artifacts").as_uri())
    mlflow.set_experiment(experiment_id=experiment)
    logging.getLogger("mlflow").setLevel(logging.WARNING)  # the store's migrations, the run's banner
    yield uri
    mlflow.set_tracking_uri(None)
    from mlflow.tracking import fluent

    if hasattr(fluent, "_active_experiment_id"):  # the experiment of a store that is gone: not active after it
        fluent._active_experiment_id = None
    if before is None:
        os.environ.pop("MLFLOW_EXPERIMENT_ID", None)
    else:
        os.environ["MLFLOW_EXPERIMENT_ID"] = before


Script = Callable[[str], dict[str, str]]
"""A judge's script: the prompt it was sent -> the JSON object it answers ({"result": ..., "rationale": ...})."""


def claim_in_document(prompt: str) -> dict[str, str]:
    """The default script: "yes" when the claim (the response) is in the document (the expected response)."""
    claim = prompt.partition("<claim>")[2].partition("</claim>")[0].strip().lower()
    document = prompt.partition("<document>")[2].partition("</document>")[0].lower()
    found = bool(claim) and claim in document
    return {"rationale": f"the claim is {'' if found else 'not '}in the document", "result": "yes" if found else "no"}


class Judge:
    """A local OpenAI-compatible chat completions endpoint with scripted replies, and what it was asked."""

    def __init__(self) -> None:
        self.script: Script = claim_in_document
        self.prompts: list[str] = []
        self.model = "openai:/judge-model"
        self._lock = threading.Lock()
        judge = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
                with judge._lock:
                    judge.prompts.append(prompt)
                    script = judge.script
                try:
                    content, status = json.dumps(script(prompt)), 200
                except Exception as exc:  # a script that refuses: the endpoint's own error
                    content, status = str(exc), 500
                reply = {
                    "id": "chatcmpl-local",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model"),
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                    ],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }
                data = json.dumps(reply if status == 200 else {"error": {"message": content}}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture(scope="session")
def judge_server() -> Iterator[Judge]:
    """The local judge for the session; MLflow's openai provider points at it (`OPENAI_API_BASE`)."""
    served = Judge()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPENAI_API_KEY", "local-test-key")
        mp.setenv("OPENAI_API_BASE", served.url)
        mp.delenv("OPENAI_BASE_URL", raising=False)
        yield served
    served.server.shutdown()


@pytest.fixture
def judge(judge_server: Judge) -> Judge:
    """The local judge, its script the default and its prompts cleared."""
    judge_server.script = claim_in_document
    judge_server.prompts.clear()
    return judge_server
