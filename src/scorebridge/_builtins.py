"""The built-in scorers by name, for the CLI and the Inspect AI registry (`scorebridge/NAME`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Final

from ._exact import exact
from ._scorer import Scorer

__all__ = ["BUILTINS"]

BUILTINS: Final[Mapping[str, Callable[..., Scorer]]] = MappingProxyType(
    {
        "exact": exact,
    }
)
"""Every built-in scorer factory that can be made from plain options, by name."""
