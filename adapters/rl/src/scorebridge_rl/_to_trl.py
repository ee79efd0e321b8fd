"""`to_trl()`: a scorebridge scorer as a reward function for TRL's GRPOTrainer (and the stacks that copy it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from scorebridge import Score, Scorer
from scorebridge.kit import is_builtin

from ._batch import ErrorWarning, OnError, Rows, exact_rows, is_exact, log_batch, texts_of
from ._reading import prompt_text

__all__ = ["AsyncTRLReward", "ItemReader", "TRLReward", "to_trl"]

ItemReader = Callable[[Any], Any] | str | None
"""What a scorer is given as its item: a function of the prompt, a dataset column's name, or None."""

# Keywords TRL passes a reward function beside the dataset's columns: not columns.
_TRAINER_KEYWORDS: Final = frozenset({"trainer_state", "log_extra", "log_metric", "environments"})


class TRLReward:
    """The reward function `to_trl` gives: `reward(prompts, completions, completion_ids=None, **columns)`.

    Called by TRL as `reward(prompts=..., completions=..., completion_ids=...,
    **dataset_columns, trainer_state=..., log_extra=..., log_metric=...)`, it
    returns one float per completion, None for a completion left unscored. It
    needs neither TRL nor torch: any loop that calls rewards this way can use
    it. `scorer` is the scorebridge scorer it runs; `__name__` is the name TRL
    logs it under (`rewards/<name>/mean`).
    """

    def __init__(
        self, scorer: Scorer, name: str, label: str, item: ItemReader, on_error: OnError, concurrency: int
    ) -> None:
        self.scorer = scorer
        self.__name__ = self.__qualname__ = name
        self.label = label
        self.item = item
        self.on_error = on_error
        self.concurrency = concurrency
        self._errors = ErrorWarning(f"to_trl({name})")
        self._exact = is_exact(scorer)
        self._reads_items = not (scorer.fast and is_builtin(scorer))  # the fast built-ins never read the item

    def __repr__(self) -> str:
        return f"<to_trl reward {self.__name__} of {self.scorer!r}>"

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled (to a worker process, as TRL's picklable reward forms are) as what makes it again
        return (type(self), (self.scorer, self.__name__, self.label, self.item, self.on_error, self.concurrency))

    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Any] | None = None,
        **columns: Any,
    ) -> list[float | None]:
        items, outputs, labels = self._read(prompts, completions, columns)
        if self._exact:
            rows = exact_rows(outputs, labels, lambda rows: self._score(items, outputs, labels, rows))
        else:
            rows = Rows.of(self._scored(self.scorer.score_many(items, outputs, labels, **self._options)))
        log_batch(self.__name__, rows, columns.get("log_metric"), columns.get("log_extra"))
        return rows.values

    def _score(self, items: list[Any], outputs: list[Any], labels: Sequence[Any], rows: list[int]) -> list[Score]:
        """The rows `rows` of the batch scored by the scorer itself."""
        picked = ([items[i] for i in rows], [outputs[i] for i in rows], [labels[i] for i in rows])
        return self._scored(self.scorer.score_many(*picked, **self._options))

    @property
    def _options(self) -> dict[str, Any]:
        return {"concurrency": self.concurrency, "on_error": self.on_error}

    def _scored(self, scores: list[Score]) -> list[Score]:
        if self.on_error == "record":
            self._errors.check(self.__name__, scores)
        return scores

    def _read(
        self, prompts: Sequence[Any] | None, completions: Sequence[Any] | None, columns: dict[str, Any]
    ) -> tuple[list[Any], list[Any], Sequence[Any]]:
        where = f"to_trl({self.__name__})"
        if completions is None or isinstance(completions, (str, bytes, Mapping)):
            shown = type(completions).__name__
            raise TypeError(f"{where}: completions must be a list, one per completion; got {shown}")
        outputs = texts_of(completions)
        n = len(outputs)
        labels = self._column(where, self.label, columns, n, needed=self.scorer.needs_label, option="label")
        item = self.item
        if not self._reads_items or item is None:
            items: list[Any] = [None] * n
        elif isinstance(item, str):
            items = list(self._column(where, item, columns, n, needed=True, option="item"))
        else:
            if prompts is None:
                items = [None] * n
            else:
                items = [item(p) for p in prompts]
                if len(items) != n:
                    raise ValueError(f"{where}: {n} completions but {len(items)} prompts")
        return items, outputs, labels

    @staticmethod
    def _column(where: str, name: str, columns: dict[str, Any], n: int, *, needed: bool, option: str) -> Sequence[Any]:
        values = columns.get(name)
        if values is None or name in _TRAINER_KEYWORDS:
            if not needed:
                return [None] * n
            given = sorted(k for k in columns if k not in _TRAINER_KEYWORDS)
            raise ValueError(
                f"{where}: the dataset has no column {name!r} (the columns given are {given}); "
                f"name the {option}'s column with to_trl(..., {option}=COLUMN)"
            )
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or len(values) != n:
            shown = len(values) if isinstance(values, Sequence) else type(values).__name__
            raise ValueError(f"{where}: the column {name!r} must hold one value per completion ({n}); got {shown}")
        return values


class AsyncTRLReward(TRLReward):
    """The reward function `to_trl` gives for an async scorer: TRL awaits it, with its other async rewards.

    The batch's completions are scored concurrently (`Scorer.ascore_many`, up
    to `concurrency` at once) on the trainer's event loop.
    """

    async def __call__(  # type: ignore[override]
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Any] | None = None,
        **columns: Any,
    ) -> list[float | None]:
        items, outputs, labels = self._read(prompts, completions, columns)
        rows = Rows.of(self._scored(await self.scorer.ascore_many(items, outputs, labels, **self._options)))
        log_batch(self.__name__, rows, columns.get("log_metric"), columns.get("log_extra"))
        return rows.values


def to_trl(
    scorer: Scorer,
    *,
    label: str = "solution",
    item: ItemReader = prompt_text,
    on_error: OnError = "record",
    concurrency: int = 16,
    asynchronous: bool | None = None,
    name: str | None = None,
    timeout: float | None = None,
) -> Callable[..., Any]:
    """A reward function for `GRPOTrainer(reward_funcs=[...])` that scores each completion with `scorer`.

    - **What the scorer is given**: the output is the completion's text (the
      string itself, or the content of its assistant message, in TRL's
      conversational format); the label is the dataset column `label`
      ("solution", as TRL's own rewards name it); the item is
      `item(prompt)`, by default the prompt's text (`prompt_text`: a string
      prompt, or the last user message of a conversational one), or the
      column named by `item` when it is a string. The fast built-ins (exact
      and the detect scorers but detect_pattern) read no item, and none is read.
    - **What TRL is given**: the Score's value per completion (1.0 or 0.0,
      or the partial credit), and None for a completion left unscored (no
      label: TRL leaves it out of the means and of the group's baseline).
    - **Errors**: with `on_error="record"` (the default) a completion whose
      scoring raises gets the reward 0.0, recorded as failure kind "error"
      (counted wrong, as `score_many(on_error="record")` counts it in every
      harness, so the trainer's mean is the eval's accuracy), and the run goes
      on: the first such error is a RuntimeWarning, and every one is counted in
      `rewards/<name>/error`. With "raise" the exception propagates and TRL
      stops the step. A dataset with no column `label` is a ValueError at the
      first batch, whatever `on_error` says.
    - **Logs**: when TRL passes `log_metric` and `log_extra`, each batch logs
      the share of each failure kind among its scored completions
      (`rewards/<name>/parse_failure`, ...), the share left unscored
      (`rewards/<name>/unscored`), and a column `<name>/failure_kind` in the
      completions table.
    - **Concurrency**: a batch is scored with `Scorer.score_many`: a fast
      scorer inline (`exact()` by a batch path that makes no Score per
      completion), a blocking one in `concurrency` threads. For an async scorer
      the reward function is async (`asynchronous=None`), and TRL awaits it on
      its event loop, the batch's completions `concurrency` at a time;
      `asynchronous=False` gives a sync function for a loop that only calls
      (it runs the async scorer in an event loop of its own), True an async one
      for any scorer.

    `name` is the reward's `__name__`, which TRL logs it under; default the
    scorer's name.

    timeout: seconds the scorer may take on one completion (None, the default: no
    limit), as `Scorer.with_timeout` gives it (TRL has no limit of its own
    for a reward function): a call past it has raised a `scorebridge.ScorerTimeout` (a
    TimeoutError), recorded or raised as `on_error` says. A sync scorer's call
    past it is abandoned on its thread, still running (Python cannot stop a
    thread). A round trip is the identity: `to_trl(from_trl(f))` is
    `f` itself (TRL calls your function as before, its exceptions its own).
    """
    from ._from_trl import made_by_from_trl

    if not isinstance(scorer, Scorer):
        raise TypeError(f"to_trl: expected a scorebridge Scorer; got {type(scorer).__name__}")
    where = f"to_trl({scorer.name})"
    if timeout is not None:
        scorer = scorer.with_timeout(timeout)
    call = made_by_from_trl(scorer)
    if call is not None and name in (None, call.name):
        return call.reward  # a round trip is the identity
    if not isinstance(label, str) or not label.strip():
        raise TypeError(f"{where}: label must name a dataset column; got {label!r:.80}")
    if not (item is None or isinstance(item, str) or callable(item)):
        raise TypeError(f"{where}: item must be a function of the prompt, a column's name, or None")
    if on_error not in ("raise", "record"):
        raise ValueError(f"{where}: on_error must be 'raise' or 'record'; got {on_error!r:.80}")
    if type(concurrency) is not int or concurrency < 1:
        raise ValueError(f"{where}: concurrency must be a whole number, at least 1; got {concurrency!r:.80}")
    if asynchronous not in (None, True, False):
        raise TypeError(f"{where}: asynchronous must be None, True or False; got {asynchronous!r:.80}")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise TypeError(f"{where}: name must be a non-blank string; got {name!r:.80}")
    made = AsyncTRLReward if (scorer.is_async if asynchronous is None else asynchronous) else TRLReward
    return made(scorer, name or scorer.name, label, item, on_error, concurrency)
