"""Our stand-in for the top-level `tests/conftest.py` of an MLflow checkout, for the MLflow shadow.

MLflow's own top-level conftest sets up its whole test environment (a
tracking server per session, Databricks fakes, telemetry checks); its scorer
tests need only a few of its fixtures. `run.py mlflow` writes this file in
that conftest's place in a scratch copy (and leaves out the scorer folder's own
conftest, which imports MLflow's telemetry test fakes), so the tests run
against the installed MLflow alone:

- a `sqlite:///` tracking store in a temporary folder, one for the session;
- telemetry off, no model catalog fetched, no OpenAI key: no request leaves
  the machine (a judge a test does not fake fails on both sides alike);
- `is_in_databricks` False (the Databricks-only tests skip themselves);
- `sample_rag_trace`: a trace of a retrieval-augmented call (a question, two
  retriever spans, an answer, expectations), for the tests that take one.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator

import pytest

os.environ["MLFLOW_DISABLE_TELEMETRY"] = "true"
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
    mlflow.flush_trace_async_logging()  # the trace is in the store before its expectations are logged
    mlflow.log_expectation(trace_id=trace_id, name="expected_response", value="expected answer")
    mlflow.log_expectation(trace_id=trace_id, name="expected_facts", value=["fact1", "fact2"])
    trace = mlflow.get_trace(trace_id)
    assert trace is not None and all(isinstance(a, Expectation) for a in trace.info.assessments)
    return trace
