"""The README's scorer example runs, and gives what its comments show."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
SHOWN = re.compile(r"^(?P<call>\S.*?)\s+# (?P<repr>Score\(.*?\))(?::.*)?$")


def example() -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    return next(block for block in blocks if "sb.scorer(" in block).splitlines()


def test_readme_example_gives_the_scores_its_comments_show() -> None:
    lines = example()
    namespace: dict[str, object] = {}
    exec("\n".join(line for line in lines if not SHOWN.match(line)), namespace)
    shown = [SHOWN.match(line) for line in lines if SHOWN.match(line)]
    assert len(shown) == 3
    for match in shown:
        assert match is not None
        assert repr(eval(match["call"], namespace)) == match["repr"]
