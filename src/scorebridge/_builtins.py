"""The built-in scorers by name, for the CLI and the Inspect AI registry (`scorebridge/NAME`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Final

from ._detect import detect_answer, detect_exact, detect_includes, detect_match, detect_pattern
from ._exact import exact
from ._scorer import Scorer

__all__ = ["BUILTINS"]

BUILTINS: Final[Mapping[str, Callable[..., Scorer]]] = MappingProxyType(
    {
        "detect_answer": detect_answer,
        "detect_exact": detect_exact,
        "detect_includes": detect_includes,
        "detect_match": detect_match,
        "detect_pattern": detect_pattern,
        "exact": exact,
    }
)
"""Every built-in scorer factory that can be made from plain options, by name."""
