"""`dspy_grader()`: a DSPy LM as the grader of `model_graded_qa()` and `model_graded_fact()`."""

from __future__ import annotations

import json
from collections.abc import Callable

import dspy

__all__ = ["dspy_grader"]


def _secret(setting: str) -> bool:
    """True for an LM setting that is a credential (api_key, ..._key, ..._token, a secret, headers)."""
    name = setting.lower()
    return name.endswith(("key", "_token", "headers")) or "secret" in name or "password" in name


def _asked_once(lm: dspy.BaseLM) -> dspy.BaseLM:
    """`lm`, or a copy of it that makes one request a call (`num_retries=0`) when it retries on its own: the
    scorer's `Retry` retries it, paced by the grader's 429s, which DSPy's own retries would hide."""
    retries = getattr(lm, "num_retries", None)
    if not isinstance(retries, int) or isinstance(retries, bool) or retries <= 0:
        return lm
    once = lm.copy(num_retries=0)
    once.history = lm.history  # DSPy appends to it in place: the user's `lm.inspect_history()` shows the calls
    return once


class _DspyGrader:
    """A sync grader: the prompt goes to a DSPy LM, the text of its first output comes back."""

    __slots__ = ("asked", "lm")

    lm: dspy.BaseLM | None
    asked: dspy.BaseLM | None

    def __init__(self, lm: dspy.BaseLM | None) -> None:
        object.__setattr__(self, "lm", lm)
        object.__setattr__(self, "asked", None if lm is None else _asked_once(lm))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a DSPy grader is immutable; cannot set {name!r}")

    def __repr__(self) -> str:
        return "dspy_grader()" if self.lm is None else f"dspy_grader({getattr(self.lm, 'model', self.lm)!r})"

    def grader_identity(self) -> str:
        """What a `scorebridge.GraderCache` knows this grader's replies by: the LM's model, its kind and its
        settings (temperature, max_tokens, api_base, ...), never its key; the configured LM's when None."""
        lm = self.lm if self.lm is not None else dspy.settings.lm
        settings = {k: v for k, v in getattr(lm, "kwargs", {}).items() if not _secret(k)}
        shown = json.dumps(settings, sort_keys=True, default=repr)
        return f"dspy {getattr(lm, 'model', type(lm).__name__)} {getattr(lm, 'model_type', '')} {shown}"

    def __call__(self, prompt: str) -> str:
        """The LM's reply to `prompt`: the text of its first output."""
        lm = self.asked if self.asked is not None else dspy.settings.lm
        if lm is None:
            raise RuntimeError("dspy_grader: no LM was given and none is configured; call dspy.configure(lm=...)")
        if self.asked is None:
            lm = _asked_once(lm)
        outputs = lm(prompt)
        if not outputs:
            raise RuntimeError(f"the grader LM {getattr(lm, 'model', lm)!r} returned no output")
        reply = outputs[0]
        if isinstance(reply, dict):  # an output with reasoning, logprobs or tool calls beside its text
            reply = reply.get("text")
        if not isinstance(reply, str):
            raise TypeError(f"the grader LM returned {type(reply).__name__}, not text")
        return reply


def dspy_grader(lm: dspy.BaseLM | None = None) -> Callable[[str], str]:
    """A grader for `model_graded_qa()`/`model_graded_fact()` that asks a DSPy LM.

    `lm` is a `dspy.LM`, a `dspy.utils.DummyLM` or any other `dspy.BaseLM`;
    None uses the LM configured when the grader is called (`dspy.configure`
    or `dspy.context`, so DSPy's worker threads see their context's LM).

    The grader is sync (a scorer built on it is sync; DSPy's `Evaluate` runs
    metrics on worker threads). It calls `lm(prompt)` and returns the text of
    the first output. An LM that retries on its own (a `dspy.LM`'s
    `num_retries`, 3 by default) is called through a copy with
    `num_retries=0`: the scorer retries (its `retry=`), and sees each 429 to
    pace the grader by; DSPy's retries would hide them and add their own
    waits. The copy shares the LM's client, cache and history
    (`lm.inspect_history()` shows the grader's calls). A DummyLM formats its scripted answer as its adapter
    would, so `DummyLM([{"reply": "GRADE: C"}])` replies
    "[[ ## reply ## ]]\\nGRADE: C", which grades C.
    """
    if lm is not None and not isinstance(lm, dspy.BaseLM):
        raise TypeError(f"dspy_grader: lm must be a dspy.LM (any dspy.BaseLM) or None; got {type(lm).__name__}")
    return _DspyGrader(lm)
