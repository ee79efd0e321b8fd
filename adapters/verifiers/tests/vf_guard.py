"""Run a Python program behind the offline tests' socket guard: `python vf_guard.py PROGRAM [ARG...]`.

A connection leaving the machine (anything but 127.0.0.1, ::1, localhost) is
refused with an OSError, as in the tests' own process; when the program ends,
one line is appended to the file named by $SCOREBRIDGE_REFUSED: the JSON list
of the addresses refused (`[]` when none), so a test sees that the guard ran
in every program and that nothing left.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
from offline import refuse_connections


def main() -> None:
    seen: list[str] = []
    refuse_connections(pytest.MonkeyPatch(), seen)
    sys.argv = sys.argv[1:]
    try:
        runpy.run_path(sys.argv[0], run_name="__main__")
    finally:
        with open(os.environ["SCOREBRIDGE_REFUSED"], "a") as log:
            log.write(json.dumps(seen) + "\n")


if __name__ == "__main__":
    main()
