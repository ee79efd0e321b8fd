"""What the adapter's two directions tell each other.

`to_pydantic_evals` runs a scorebridge scorer on `(ctx.inputs, ctx.output,
ctx.expected_output)` and carries the `EvaluatorContext` with the call. When that
scorer (one of your own, say) calls a `from_pydantic_evals` scorer with those very
objects, the evaluator inside is handed pydantic-evals' own context (its case name,
metadata, duration, span tree, attributes and metrics), not one rebuilt from the
three (`scorebridge.kit.NativeCalls`).
"""

from __future__ import annotations

from typing import Any, Final

from pydantic_evals.evaluators import EvaluatorContext

from scorebridge.kit import NativeCalls

__all__ = ["NATIVE"]

NATIVE: Final[NativeCalls[EvaluatorContext[Any, Any, Any]]] = NativeCalls("scorebridge_pydantic_evals_native")
"""pydantic-evals' EvaluatorContext, carried with a scorebridge scorer's call by `to_pydantic_evals`."""
