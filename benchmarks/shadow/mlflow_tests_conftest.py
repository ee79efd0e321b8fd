"""Our stand-in for `tests/genai/conftest.py` and the top-level conftest of an MLflow checkout, for its shadow.

MLflow's own conftests set up its whole test environment (a
tracking server per session, Databricks fakes, telemetry checks); its scorer
tests need only a few of its fixtures. `run.py mlflow` writes this file as
`tests/genai/conftest.py` in a scratch copy (and leaves out the scorer folder's own
conftest, which imports MLflow's telemetry test fakes), so the tests run
against the installed MLflow alone:

- a `sqlite:///` tracking store in a temporary folder, one for the session,
  set again before each test (one test sets `file://` for itself);
- telemetry off, no model catalog fetched, no OpenAI key: no request leaves
  the machine (a judge a test does not fake fails on both sides alike);
- `is_in_databricks` False, and `databricks_only` skips its tests;
- `sample_rag_trace`: a trace of a retrieval-augmented call (a question, two
  retriever spans, an answer, expectations), for the tests that take one.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator

import pytest

os.environ["MLFLOW_DISABLE_TELEMETRY"] = "true"
os.environ["MLFLOW_ENABLE_ASYNC_TRACE_LOGGING"] = "false"  # a trace is in the store when its span ends
os.environ["DO_NOT_TRACK"] = "true"
os.environ["MLFLOW_MODEL_CATALOG_URI"] = ""
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ.pop("OPENAI_API_KEY", None)
os.environ.pop("MLFLOW_TRACKING_URI", None)


@pytest.fixture(scope="session", autouse=True)
def tracking_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A sqlite tracking store of the session's own, in a temporary folder."""
    import mlflow

    folder = tmp_path_factory.mktemp("mlflow_store")
    uri = f"sqlite:///{folder / 'mlflow.db'}"
    mlflow.set_tracking_uri(uri)
    experiment = mlflow.create_experiment("scorer-shadow", (folder / "artifacts").as_uri())
    mlflow.set_experiment(experiment_id=experiment)
    logging.getLogger("mlflow").setLevel(logging.WARNING)
    yield uri
    mlflow.set_tracking_uri(None)


@pytest.fixture(autouse=True)
def same_store(tracking_store: str) -> None:
    """Each test on the session's store (a test that sets another tracking URI does so for itself alone)."""
    import mlflow

    mlflow.set_tracking_uri(tracking_store)


databricks_only = pytest.mark.skip(reason="needs a Databricks workspace")


@pytest.fixture
def is_in_databricks() -> bool:
    return False


@pytest.fixture
def sample_rag_trace():  # type: ignore[no-untyped-def]
    """A trace: the question, two retriever spans (two chunks, then one), the answer, and expectations."""
    import mlflow
    from mlflow.entities import SpanType
    from mlflow.entities.assessment import Expectation

    with mlflow.start_span(name="rag", span_type=SpanType.AGENT) as root:
        root.set_inputs({"question": "query"})
        with mlflow.start_span(name="retriever_1", span_type=SpanType.RETRIEVER) as first:
            first.set_inputs({"query": "query"})
            first.set_outputs(
                [
                    {"page_content": "content_1", "metadata": {"doc_uri": "url_1"}},
                    {"page_content": "content_2", "metadata": {"doc_uri": "url_2"}},
                ]
            )
        with mlflow.start_span(name="retriever_2", span_type=SpanType.RETRIEVER) as second:
            second.set_inputs({"query": "query"})
            second.set_outputs([{"page_content": "content_3"}])
        root.set_outputs("answer")
    trace_id = root.trace_id
    mlflow.log_expectation(trace_id=trace_id, name="expected_response", value="expected answer")
    mlflow.log_expectation(trace_id=trace_id, name="expected_facts", value=["fact1", "fact2"])
    trace = mlflow.get_trace(trace_id)
    assert trace is not None and all(isinstance(a, Expectation) for a in trace.info.assessments)
    return trace
