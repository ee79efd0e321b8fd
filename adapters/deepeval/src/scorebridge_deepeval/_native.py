"""What the adapter's two directions tell each other.

- `NATIVE`: `to_deepeval` carries deepeval's own test case with a scorebridge
  scorer's call, so a `from_deepeval` scorer called inside with those very
  arguments measures its metric on that test case, context and all;
- `MADE_FROM`: the attribute a metric made by `to_deepeval` keeps its scorer
  in, so `from_deepeval` gives that scorer back.
"""

from __future__ import annotations

from typing import Final

from deepeval.test_case import LLMTestCase

from scorebridge.kit import NativeCalls

__all__ = ["MADE_FROM", "NATIVE"]

NATIVE: Final[NativeCalls[LLMTestCase]] = NativeCalls("scorebridge_deepeval_native")
MADE_FROM: Final = "scorebridge_scorer"
