"""The plugin's summary by a case field: `--scorebridge-group-by FIELD`, a line per group, then the whole."""

from __future__ import annotations

import json

import pytest

CASES = "".join(
    json.dumps(
        {"id": f"c{i}", "output": "Paris" if i % 3 else "Lyon", "label": "Paris", "topic": ("geo", "art")[i % 2]}
    )
    + "\n"
    for i in range(12)
)
TESTS = """
import pytest
import scorebridge as sb

@pytest.mark.scorebridge_cases("cases.jsonl")
def test_case(case, scorebridge_record):
    scorebridge_record(sb.exact(), case["output"], case["label"])
"""


def _section(result: pytest.RunResult) -> list[str]:
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if "= scorebridge =" in line) + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("="))
    return lines[start:end]


def test_the_summary_by_a_case_field_adds_up_to_the_whole(pytester: pytest.Pytester) -> None:
    pytester.makefile(".jsonl", cases=CASES)
    pytester.makepyfile(test_cases=TESTS)
    result = pytester.runpytest("--scorebridge-group-by", "topic")
    result.assert_outcomes(passed=12)
    lines = _section(result)
    at = lines.index("exact by topic:")
    table = lines[at + 1 :]
    assert [line.split()[0] for line in table] == ["topic", "-----", "art", "geo", "all"]
    art, geo, whole = (line.split() for line in table[2:5])
    assert [int(a) + int(g) for a, g in zip(art[1:4], geo[1:4], strict=True)] == [int(w) for w in whole[1:4]]
    assert whole[1:] == next(line for line in lines if line.startswith("exact ")).split()[1:]


def test_without_the_option_the_summary_is_as_before(pytester: pytest.Pytester) -> None:
    pytester.makefile(".jsonl", cases=CASES)
    pytester.makepyfile(test_cases=TESTS)
    result = pytester.runpytest()
    assert not any(" by " in line for line in _section(result))


def test_a_field_no_case_has_is_said_in_the_summary(pytester: pytest.Pytester) -> None:
    # A misspelt --scorebridge-group-by put every Score in one "(none)" group with no word why.
    pytester.makefile(".jsonl", cases=CASES)
    pytester.makepyfile(test_cases=TESTS)
    result = pytester.runpytest("--scorebridge-group-by", "topc")
    result.assert_outcomes(passed=12)
    assert _section(result)[-1] == (
        "--scorebridge-group-by: no test's case has the field 'topc', so every Score is in (none)"
    )
