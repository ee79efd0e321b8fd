"""`summarize()`: the scorebridge Summary of one scorer's column in an MLflow evaluation result."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import scorebridge as sb
from scorebridge import FAILURE_KINDS
from scorebridge.kit import GRADER_FAILED, Summary, is_missing, recorded

from ._scorer import FAILURE_KIND

__all__ = ["summarize"]


def _verdict(name: str, assessment: Mapping[str, Any] | None) -> sb.Score:
    if assessment is None:  # no assessment: unscored
        return recorded(name, None, None, None)
    given = assessment.get("feedback") or {}
    value, error = given.get("value"), given.get("error")
    metadata = assessment.get("metadata") or {}
    kind = metadata.get(FAILURE_KIND)
    if error:  # MLflow's SCORER_ERROR (the scorer raised), or a recorded "error" row
        number = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0
        return recorded(name, False, None, "error", number)
    if value is None or is_missing(value):
        failed = metadata.get(GRADER_FAILED)  # kept apart from "no label" as scorebridge.Summary keeps it
        return recorded(name, None, None, None, metadata=None if failed is None else {GRADER_FAILED: failed})
    if isinstance(value, str):
        word = value.strip().lower()
        if word not in ("yes", "no"):
            return recorded(name, None, None, None)  # not aggregated by MLflow either
        value = word == "yes"
    number = float(value)
    if kind in FAILURE_KINDS:
        return recorded(name, False, None, kind, number)
    return recorded(name, number >= 1.0, None, None, number)


def summarize(result: Any, name: str) -> Summary:
    """The scorebridge Summary of the scorer `name` in `mlflow.genai.evaluate`'s result, from its result_df.

    Read from each row's assessment named `name` (the `assessments` column):
    its value (yes/no and bools 1/0), the failure kind a `to_mlflow` scorer
    wrote in its metadata (else "wrong" for a value below 1), and no
    assessment as unscored (one whose metadata says "grader_failed" counted in
    `grader_failed` too). An MLflow error (a scorer that raised: MLflow's
    `SCORER_ERROR`, left out of `{name}/mean`) is counted wrong with failure
    kind "error", as scorebridge counts it; with `to_mlflow(on_error="record")`
    the two agree.
    """
    if not hasattr(result, "result_df"):
        raise ValueError("summarize: expected the result of mlflow.genai.evaluate, with a result_df of assessments")
    frame = result.result_df
    if frame is None:  # MLflow builds none when it cannot read back the traces it logged
        raise ValueError(
            "summarize: MLflow made no result table for this evaluation (result_df is None), so there is no "
            "row to count; MLflow gives none when it cannot read back the traces it logged, as for a row "
            "whose expectations hold NaN (leave the label out instead). Its metrics are MLflow's own"
        )
    if "assessments" not in frame.columns:
        raise ValueError("summarize: expected the result of mlflow.genai.evaluate, with a result_df of assessments")
    verdicts = []
    for assessments in frame["assessments"]:
        found = next(
            (a for a in (assessments or ()) if isinstance(a, Mapping) and a.get("assessment_name") == name), None
        )
        verdicts.append(_verdict(name, found))
    return Summary.of(name, verdicts)
