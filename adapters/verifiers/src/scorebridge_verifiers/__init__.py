"""scorebridge_verifiers: scorebridge scorers as verifiers rewards, and verifiers rewards anywhere.

`to_verifiers(scorer)` gives a v1 reward (a `vf.Task` attribute, or a plugged
reward), `to_verifiers(scorer, legacy=True)` a reward function of the kind
`vf.Rubric(funcs=[...])` took before verifiers 0.4; `from_verifiers(reward)`
gives a scorebridge `Scorer` of either. docs/verifiers.md maps one onto the other.
"""

try:
    import verifiers.v1  # noqa: F401
except ModuleNotFoundError as exc:
    if exc.name not in ("verifiers", "verifiers.v1"):
        raise
    raise ImportError('scorebridge_verifiers needs verifiers: pip install "scorebridge[verifiers]"') from None

from ._from_verifiers import from_verifiers
from ._to_verifiers import to_verifiers

__all__ = ["from_verifiers", "to_verifiers"]
