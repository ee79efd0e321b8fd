"""Whether a progress bar is shown by default: only to a person watching standard error at a terminal."""

from __future__ import annotations

import sys

__all__ = ["stderr_is_terminal"]


def stderr_is_terminal() -> bool:
    """True when standard error is a terminal (False when it is a file, a pipe, closed or replaced)."""
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False
