"""`score_dataset()`: a Ray Dataset scored on an actor pool, one Score per row, in columns beside the row's."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple

from scorebridge import Scorer
from scorebridge.kit import is_bool, is_number

from ._columns import column_names, score_arrays
from ._env import job_env, refuse_per_call
from ._ship import ScorerSource, ship, unpack

if TYPE_CHECKING:
    import pyarrow as pa
    from ray.data import Dataset

__all__ = ["OnError", "score_dataset"]

OnError = Literal["raise", "record"]
"""What an exception inside the scorer becomes: the job's error ("raise") or an "error" Score ("record")."""

DEFAULT_CONCURRENCY: Final = 16
"""Rows an async scorer scores at once in each actor, as `score_many` does by default."""

MAX_BATCH_SIZE: Final = 1024
"""The most rows per call of an actor by default: enough that Ray's cost per call is small beside the rows', few
enough that a retried call (a worker lost) scores little again."""

BLOCKS_PER_ACTOR: Final = 2
"""Blocks (and calls) per actor at the least, by default: Ray sends a block to one actor, so fewer blocks than
actors leave actors idle, and two each let a fast actor take a slow one's second."""

IN_FLIGHT: Final = 2
"""Calls sent to an actor at once: the one it scores, and the next, whose block reaches the actor's node meanwhile
(with one, an actor waited between calls for the driver to send the next and for its block to arrive: 0.83x Ray's
own `map_batches` on two nodes of a loaded machine). Not Ray Data's 4: the first actor up would take every block
of a small job before the others have started."""

_SET_HERE: Final = frozenset(
    {"fn", "compute", "batch_format", "batch_size", "fn_constructor_kwargs", "fn_constructor_args", "num_cpus"}
    | {"concurrency", "zero_copy_batch", "fn_args", "fn_kwargs"}
)


def batch_size_for(rows: int, actors: int) -> int:
    """The default rows per call: `rows` split over `actors` at `BLOCKS_PER_ACTOR` calls each, at most
    `MAX_BATCH_SIZE`, at least 1 (a 1,000-row job on 2 actors: 250 rows a call, two calls each)."""
    return max(1, min(MAX_BATCH_SIZE, -(-rows // (BLOCKS_PER_ACTOR * max(1, actors)))))


def actors_at_hand(actors: int | tuple[int, int] | None, num_cpus: float | None) -> int:
    """The most actors the pool can have: the size given, the max of (min, max), or else the cluster's CPUs over
    the CPUs an actor reserves (1 by default), at least 1."""
    if isinstance(actors, int):
        return actors
    if isinstance(actors, tuple):
        return actors[1]
    import ray

    if not ray.is_initialized():
        return 1
    cpus = float(ray.cluster_resources().get("CPU", 1.0))  # type: ignore[no-untyped-call]
    each = 1.0 if num_cpus is None else num_cpus
    return max(1, int(cpus // each) if each > 0 else int(cpus))


class _Plan(NamedTuple):
    """What every actor needs besides the scorer: where the fields are, and how to score."""

    what: str  # the scorer, as messages name it
    output: str
    label: str
    item: str | None
    concurrency: int
    on_error: OnError
    columns: tuple[str, ...]  # the Score's columns, in SCORE_COLUMNS order


class _ScoreBatches:
    """The actor of the pool: made once per actor (so the scorer and its grader's client are), then called
    with one batch (a pyarrow Table) after another. It returns the batch with the Score's columns added and
    has no other effect, so a call Ray runs again (a lost worker's) replaces its output, never adds to it."""

    def __init__(self, shipped: bytes, plan: _Plan) -> None:
        scorer = unpack(shipped, plan.what)
        self.scorer = scorer
        self.plan = plan

    def __call__(self, batch: pa.Table) -> pa.Table:
        plan = self.plan
        items = None if plan.item is None else batch.column(plan.item).to_pylist()
        outputs = batch.column(plan.output).to_pylist()
        labels = batch.column(plan.label).to_pylist()
        scores = self.scorer.score_many(items, outputs, labels, concurrency=plan.concurrency, on_error=plan.on_error)
        for name, array in zip(plan.columns, score_arrays(scores), strict=True):
            batch = batch.append_column(name, array)
        return batch


def _describe(scorer: ScorerSource) -> str:
    if isinstance(scorer, Scorer):
        return f"score_dataset({scorer.name})"
    made_by = getattr(scorer, "__qualname__", type(scorer).__qualname__)
    return f"score_dataset(the scorer made by {made_by})"


def _column(what: str, argument: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what}: {argument} must be a column name, one string; got {type(value).__name__}")
    if not value:
        raise ValueError(f"{what}: {argument} must be a column name, not an empty string")
    return value


def _whole(what: str, argument: str, value: Any) -> int:
    if is_bool(value) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{what}: {argument} must be a whole number, at least 1; got {value!r:.80}")
    return value


def _compute(what: str, actors: int | tuple[int, int] | None) -> Any:
    from ray.data import ActorPoolStrategy

    one = IN_FLIGHT
    if actors is None:
        return ActorPoolStrategy(max_tasks_in_flight_per_actor=one)
    if isinstance(actors, tuple) and len(actors) == 2:
        low, high = (_whole(what, "actors", n) for n in actors)
        if low > high:
            raise ValueError(f"{what}: actors (min, max) needs min <= max; got {actors!r}")
        # started at max: with few calls in flight an actor, Ray Data's autoscaler never grows a pool
        return ActorPoolStrategy(min_size=low, max_size=high, initial_size=high, max_tasks_in_flight_per_actor=one)
    return ActorPoolStrategy(size=_whole(what, "actors", actors), max_tasks_in_flight_per_actor=one)


def _spread(ds: Dataset, actors: int) -> tuple[Dataset, int]:
    """`ds` in blocks enough for `actors` (a materialized dataset split when it has too few), and the rows per
    call that spread it over them; 1,024 rows a call when the row count is not known without running `ds`."""
    from ray.data.dataset import MaterializedDataset

    rows = ds._meta_count()  # known from the plan alone (materialized, from_items, ...), else None
    if rows is None:
        return ds, MAX_BATCH_SIZE
    wanted = min(rows, BLOCKS_PER_ACTOR * actors)
    if isinstance(ds, MaterializedDataset) and 0 < ds.num_blocks() < wanted:
        ds = _split(ds, batch_size_for(rows, actors))
    return ds, batch_size_for(rows, actors)


def _split(ds: Dataset, size: int) -> Dataset:
    """A materialized dataset of few blocks as blocks of `size` rows, in order, split here (Ray's `repartition`
    runs tasks, which wait for ever for a CPU the actors hold)."""
    import pyarrow as pa
    import ray
    import ray.data

    whole = pa.concat_tables([ray.get(ref) for ref in ds.to_arrow_refs()], promote_options="permissive")
    parts: list[Any] = [ray.put(whole.slice(start, size)) for start in range(0, whole.num_rows, size)]
    return ray.data.from_arrow_refs(parts)


def _check_columns(what: str, ds: Dataset, wanted: dict[str, str], added: tuple[str, ...]) -> None:
    schema = ds.schema()
    if schema is None:  # an empty dataset: nothing to score, nothing to check
        return
    have = list(schema.names)
    missing = [f"{argument}={name!r}" for argument, name in wanted.items() if name not in have]
    if missing:
        raise ValueError(
            f"{what}: the dataset has no column for {', '.join(missing)}; its columns are "
            f"{', '.join(map(repr, have))}. Name the columns to read with output=, label= and item="
        )
    taken = [name for name in added if name in have]
    if taken:
        raise ValueError(
            f"{what}: the dataset already has the column {', '.join(map(repr, taken))}, which the Score's columns "
            "would replace; drop it (ds.drop_columns) or give the Score's columns a prefix (prefix='score_')"
        )


def score_dataset(
    ds: Dataset,
    scorer: Scorer | Callable[[], Scorer],
    *,
    output: str = "output",
    label: str = "label",
    item: str | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    actors: int | tuple[int, int] | None = None,
    batch_size: int | None = None,
    num_cpus: float | None = None,
    on_error: OnError = "raise",
    prefix: str = "",
    runtime_env: Mapping[str, Any] | None = None,
    ray_options: Mapping[str, Any] | None = None,
) -> Dataset:
    """`ds` with every row scored: the row's columns, then the Score's (`SCORE_COLUMNS`).

    Lazy, as every Ray Dataset transformation is: the rows are scored when the
    result is consumed (written, iterated, `summarize`d, materialized), each
    time it is consumed. The Score's columns are `correct` (bool, null when
    unscored), `value` (float, null when unscored), `grade` ("C", "P", "I" or
    "N"), `outcome`, `failure_kind`, `explanation` (text or null) and
    `metadata` (the metadata as JSON text, "{}" when empty); `score_of(row)`
    reads a row back as the Score. For the same rows they are the Scores
    `scorer.score_many(items, outputs, labels)` gives; Ray keeps the rows in
    the dataset's order only when `DataContext.execution_options.preserve_order`
    is set.

    The rows are scored with `map_batches` on a pool of Ray actors:

    - scorer: a `Scorer`, pickled once on the driver and sent to every actor
      (the module that defines a scorer of yours travels by value, see
      docs/ray.md); or a function of no arguments that makes one, called once
      in each actor: the place to open a grader's client, or to make a scorer
      that cannot be pickled;
    - output, label, item: the columns read as each row's output, label and
      item (`item=None`: no item, the scorer gets None). A value reaches the
      scorer as a Python value (`to_pylist`): text, a number, None, a list
      (several accepted answers), a dict (a struct);
    - concurrency: rows an async scorer (a model-graded scorer with an async
      grader, say) scores at once in each actor; a sync scorer scores one row
      at a time, so add actors to score more at once;
    - actors: the pool's size, or (min, max) for a pool that starts with max
      actors and may shrink to min (an actor lost with its node and not
      placed again leaves it smaller); None lets Ray choose (it starts with
      one actor). Each actor is sent two calls at a time (it scores one, the
      next one's block is sent to it meanwhile);
    - batch_size: rows per call of an actor. None (the default): the rows
      split over the actors at hand (`actors`, else the cluster's CPUs over
      `num_cpus`) at 2 calls an actor at least, and at most 1,024 rows a
      call, when the dataset's row count is known without running it (a
      materialized dataset, `from_items`, ...); else 1,024. A materialized
      dataset with fewer blocks than 2 an actor is split into that many
      first (Ray sends a block to one actor: one block would leave every
      other actor idle). A lazy read of a few files is one block; give the
      read `override_num_blocks=`, or materialize it first;
    - num_cpus: CPUs each actor reserves (Ray's default, 1, when None; a
      fraction for a scorer that mostly waits on a grader);
    - on_error: an exception inside the scorer with "raise" (the default)
      fails the job with that exception (its note names the scorer); with
      "record", the row's Score is wrong with failure kind "error" and the
      exception in its explanation (`score_many(on_error="record")`), and
      the job goes on;
    - prefix: put before each Score column's name (`prefix="score_"` gives
      `score_correct`, ...), for a dataset that has a column of one of those
      names already;
    - runtime_env: Ray's runtime env for your own code on the workers
      (`{"working_dir": "src"}`, `{"py_modules": ["my_pkg"]}`, `pip`, ...).
      When Ray is not running yet it starts with it (`ray.init(runtime_env=)`,
      the job's); when it is, the local folders and modules are uploaded to
      the cluster as `ray.init` would upload them and the pool's actors get
      them (a path that does not exist is a ValueError);
    - ray_options: more arguments for `map_batches` (`memory`, `resources`,
      ...). A `runtime_env` there naming a local folder or module is a
      ValueError saying to pass it as `runtime_env=` (Ray takes local paths
      only for the whole job).

    Before anything is scheduled, the dataset's schema is read (`ds.schema()`):
    a column to read that it does not have, or a Score column it already has,
    is a ValueError naming them; wrong arguments are a TypeError or ValueError
    naming the argument; a scorer that cannot be pickled is a TypeError
    saying to pass a function that makes it.

    Faults: each call of an actor returns a new batch and has no other effect,
    so when Ray runs a call again (an actor lost with its node, or killed),
    the rows of the lost call are scored again and written once. A scorer
    with side effects (a grader you pay per call) may see a row twice.
    """
    import ray.data

    what = _describe(scorer)
    if not isinstance(ds, ray.data.Dataset):
        raise TypeError(f"{what}: ds must be a ray.data.Dataset; got {type(ds).__name__}")
    if not isinstance(scorer, Scorer) and not callable(scorer):
        raise TypeError(f"{what}: scorer must be a Scorer, or a function that makes one; got {type(scorer).__name__}")
    wanted = {"output": _column(what, "output", output), "label": _column(what, "label", label)}
    if item is not None:
        wanted["item"] = _column(what, "item", item)
    _whole(what, "concurrency", concurrency)
    if batch_size is not None:
        _whole(what, "batch_size", batch_size)
    if num_cpus is not None and (is_bool(num_cpus) or not is_number(num_cpus) or not 0 <= num_cpus < float("inf")):
        raise ValueError(f"{what}: num_cpus must be a number, 0 or more, or None; got {num_cpus!r:.80}")
    if type(on_error) is not str or on_error not in ("raise", "record"):
        raise ValueError(f"{what}: on_error must be 'raise' or 'record'; got {on_error!r:.80}")
    if not isinstance(prefix, str):
        raise TypeError(f"{what}: prefix must be a string; got {type(prefix).__name__}")
    extra = dict(ray_options or {})
    clash = sorted(_SET_HERE & extra.keys())
    if clash:
        raise ValueError(f"{what}: ray_options cannot set {', '.join(clash)}; score_dataset sets them")
    refuse_per_call(what, extra)
    compute = _compute(what, actors)
    columns = tuple(column_names(prefix).values())
    _check_columns(what, ds, wanted, columns)
    shipped = ship(scorer, what)  # before anything starts: a scorer that cannot be pickled is refused here
    for_actors = None if runtime_env is None else job_env(what, runtime_env)
    if for_actors is not None:
        extra["runtime_env"] = for_actors
    if batch_size is None:
        ds, batch_size = _spread(ds, actors_at_hand(actors, num_cpus))
    plan = _Plan(what, output, label, item, concurrency, on_error, columns)
    return ds.map_batches(
        _ScoreBatches,
        fn_constructor_kwargs={"shipped": shipped, "plan": plan},
        compute=compute,
        batch_format="pyarrow",
        batch_size=batch_size,
        num_cpus=num_cpus,
        **extra,
    )
