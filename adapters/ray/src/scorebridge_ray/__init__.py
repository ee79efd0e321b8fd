"""scorebridge for Ray: score a `ray.data.Dataset` where it is, on a pool of Ray actors.

`score_dataset(ds, scorer)` adds the Score's columns to every row (the Scores
`score_many` gives for the same rows); `summarize(ds)` counts them where the
blocks are, without collecting the rows, and `summarize_groups(ds, group_by)`
gives a summary per group of rows (`scorebridge.GroupedSummaries`) the same way;
`score_of(row)` reads a row back as its Score. Needs Ray Data: `pip install
"scorebridge[ray]"`. docs/ray.md has the details: a laptop, a cluster, a
model-graded scorer, faults.

Importing it before Ray starts turns Ray's `uv run` integration off
(RAY_ENABLE_UV_RUN_RUNTIME_ENV=0), unless that variable is set already: set it
to 1 before the import to keep the integration on.
"""

import os as _os

# Ray's uv integration off unless the user set it: under `uv run` it copies the working directory for the
# workers and has each job build a uv environment there (a gigabyte, and workers that never start). Ray
# reads the variable when it is imported, just below.
_os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")

try:
    import ray.data as _ray_data  # noqa: F401  # fail here, once, with the install command
except ModuleNotFoundError as _missing:
    if _missing.name not in ("ray", "ray.data", "pyarrow", "pandas"):  # Ray is there but broken: its own error
        raise
    raise ModuleNotFoundError(
        f'scorebridge_ray needs Ray Data ({_missing.name} is not installed): pip install "scorebridge[ray]"',
        name=_missing.name,
    ) from None

from ._columns import SCORE_COLUMNS, score_of
from ._score import OnError, score_dataset
from ._summary import summarize, summarize_groups


def _uv_integration_as_set() -> None:
    """A Ray imported before us read the variable unset (on): its setting follows the variable, until Ray starts."""
    import ray
    from ray._private import ray_constants  # private: left alone when it is not the bool we expect

    wanted = _os.environ.get("RAY_ENABLE_UV_RUN_RUNTIME_ENV") == "0"
    if wanted and getattr(ray_constants, "RAY_ENABLE_UV_RUN_RUNTIME_ENV", None) is True and not ray.is_initialized():
        ray_constants.RAY_ENABLE_UV_RUN_RUNTIME_ENV = False


_uv_integration_as_set()

__all__ = ["SCORE_COLUMNS", "OnError", "score_dataset", "score_of", "summarize", "summarize_groups"]
