"""scorebridge for Ray: score a `ray.data.Dataset` where it is, on a pool of Ray actors.

`score_dataset(ds, scorer)` adds the Score's columns to every row (the Scores
`score_many` gives for the same rows); `summarize(ds)` counts them with Ray's
aggregations, without collecting the rows; `score_of(row)` reads a row back as
its Score. Needs Ray Data: `pip install "scorebridge[ray]"`. docs/ray.md has
the details: a laptop, a cluster, a model-graded scorer, faults.
"""

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
from ._summary import summarize

__all__ = ["SCORE_COLUMNS", "OnError", "score_dataset", "score_of", "summarize"]
