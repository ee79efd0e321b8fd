"""docs/semantics.md's table cannot rot: its tests exist, its "ours" and "Inspect AI" cells are re-run.

For every row with plain inputs, CASES holds them: our scorer is run and must give
the row's "ours" cell; Inspect AI's nearest scorer, awaited directly on a
hand-built TaskState, must give the row's "Inspect AI" cell. Every row whose
Inspect AI cell claims a grade must have such a case.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import scorebridge as sb

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "docs" / "semantics.md"
GRADE = re.compile(r"([CIN])(?: \((\w+)\))?(?=$|[ ,])")


def table_rows() -> dict[str, dict[str, str]]:
    lines = TABLE.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| id |"))
    head = [cell.strip() for cell in lines[start].strip("|").split("|")]
    rows = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        assert len(cells) == len(head), f"a table row has {len(cells)} cells, not {len(head)}: {line}"
        rows[cells[0]] = dict(zip(head, cells, strict=True))
    return rows


ROWS = table_rows()


def claimed(cell: str) -> tuple[str, str | None] | None:
    """The grade and the bracketed failure kind or reason a cell starts with, or None."""
    found = GRADE.match(cell)
    return None if found is None else (found.group(1), found.group(2))


InspectMaker = Callable[[ModuleType], Any]  # inspect_ai.scorer -> one of its scorers


@dataclass(frozen=True)
class Case:
    ours: sb.Scorer
    output: Any
    label: Any
    inspect: InspectMaker | None = None


includes, match, exact = sb.detect_includes(), sb.detect_match(), sb.detect_exact()
line, word, letter = (sb.detect_answer(f) for f in ("line", "word", "letter"))
said = sb.detect_pattern(r"answer is (.+)$")
SAID = r"answer is (.+)$"
VITALS_GRADE = r"(?i)GRADE\s*:\s*([CPI])(.*)$"
AB_GRADE = r"(?i)GRADE\s*:\s*([AB])(.*)$"


def inc(output: str, label: Any) -> Case:
    return Case(includes, output, label, lambda s: s.includes())


def at(location: str, output: str, label: Any) -> Case:
    return Case(sb.detect_match(location), output, label, lambda s: s.match(location))


def pat(pattern: str, output: str, label: Any, **kw: Any) -> Case:
    inspect_kw = {"match_all": kw.get("all", False)}
    return Case(sb.detect_pattern(pattern, **kw), output, label, lambda s: s.pattern(pattern, **inspect_kw))


def ans(fmt: str, output: str, label: Any) -> Case:
    return Case(sb.detect_answer(fmt), output, label, lambda s: s.answer(fmt))


def ex(output: str, label: Any) -> Case:
    return Case(exact, output, label, lambda s: s.exact())


CASES: dict[str, list[Case]] = {
    "L1": [inc("The answer is Paris", "")],
    "L2": [at("end", "The answer is Paris", "")],
    "L3": [ex("Paris", "  ")],
    "L4": [pat(SAID, "The answer is Paris", ""), ans("line", "ANSWER: Paris", "")],
    "L5": [inc("I would say Paris is right", ["", "Lyon"]), at("end", "The answer is Paris", ["", "Lyon"])],
    "L6": [
        inc("I would say Paris is right", ["Lyon", "Paris"]),
        at("end", "The answer is Paris", ["Lyon", "Paris"]),
        pat(SAID, "The answer is Paris", ["Lyon", "Paris"]),
        ans("line", "ANSWER: Paris", ["Lyon", "Paris"]),
        ex("Paris", ["Lyon", "Paris"]),
    ],
    "L7": [Case(includes, "I would say 100000 is right", 1e5)],
    "L8": [inc("", "Paris"), Case(includes, None, "Paris"), Case(exact, b"Paris", "Paris")],
    "L9": [Case(includes, {"failure_kind": "refusal", "text": "Paris"}, "Paris")],
    "L10": [Case(includes, {"ok": False, "error": "rate limited"}, "Paris")],
    "L11": [inc("**NOT_IN_DOCUMENT.**", "Paris")],
    "L12": [Case(includes, None, None)],
    "IN1": [inc("The answer is C", "c")],
    "IN2": [
        Case(sb.detect_includes(case_sensitive=True), "The answer is C", "c", lambda s: s.includes(ignore_case=False))
    ],
    "IN3": [inc("STRASSE", "straße")],
    "IN4": [inc("Paris, France", " Paris ")],
    "IN5": [inc("The answer is 25", "5")],
    "IN6": [inc("25 or 5", "5")],
    "IN7": [inc("-5", "5")],
    "IN8": [inc("pages 3-5", "5")],
    "IN9": [inc("3.14", "3")],
    "IN10": [inc("3.14", "14")],
    "IN11": [inc("1,500", "500")],
    "IN12": [inc("1,2,3", "3")],
    "IN13": [inc("10-5", "-5")],
    "IN14": [inc("a catalogue", "cat")],
    "MA1": [at("end", "The capital is Paris", "Paris")],
    "MA2": [at("end", "Paris is the capital", "Paris")],
    "MA3": [at("end", "The capital is Paris.", "paris")],
    "MA4": [at("end", "The answer is **Paris**", "Paris")],
    "MA5": [at("exact", "New  York", "new york")],
    "MA6": [at("exact", " Paris. ", "paris")],
    "MA7": [at("exact", "Paris, France", "paris")],
    "MA8": [at("end", "The answer is 25", "5")],
    "MA9": [at("end", "ANSWER: 711", "11")],
    "MA10": [at("end", "The answer is -5", "5")],
    "MA11": [at("exact", "-5", "5")],
    "MA12": [at("end", "33.14", "3.14")],
    "MA13": [at("begin", "25 apples", "2")],
    "MA14": [at("begin", "5. Because five is prime", "5")],
    "MA15": [at("any", "between 15 and 25", "5")],
    "MA16": [at("end", "Really?", "?")],
    "MA17": [at("end", "Paris", ".")],
    "MA18": [at("end", "I would climb", "b")],
    "PA1": [pat(r"(\d+)", "The answer is 42", "42")],
    "PA2": [pat(r"(\d+)", "The answer is 420", "42")],
    "PA3": [pat(r"\d+", "The answer is 42", "42")],
    "PA4": [pat(r"\d+", "The answer is 99", "42", all=True)],
    "PA5": [pat(r"(\d+)", "no digits here", "42")],
    "PA6": [pat(r"(\d)", "1 and 2", "2")],
    "PA7": [pat(r"(a+)?(b+)?", "xyz", "a", all=True)],
    "PA8": [pat(r"ANSWER:(.*)", "ANSWER:  42 ", "42")],
    "PA9": [pat(r"(\d+)(?: or (\d+))?", "42", "42", all=True)],
    "PA10": [pat(r"CONTAINS\s+([a-z])", "The answer contains C", "c")],
    "PA11": [Case(sb.detect_pattern(r"(a+)+$", timeout=0.05), "a" * 50_000 + "!", "a")],
    "PA16": [Case(sb.detect_pattern(r"(a|a)*$", timeout=0.05), "a" * 40 + "!", "a")],
    "PA14": [Case(sb.detect_pattern(r"(\w+)\s+(\w+)", timeout=0.2), "a" * 2_000_000 + "!", "a")],
    "PA13": [pat(r"(\d+)", "The answer is 42", ["41", "42"])],
    "AN1": [ans("letter", "ANSWER: A\n... actually, ANSWER: C", "C")],
    "AN2": [ans("line", "ANSWER: C\nExplanation follows...", "C")],
    "AN3": [ans("letter", "Answer: b", "B")],
    "AN4": [ans("letter", "**Answer**: B", "B")],
    "AN5": [ans("letter", "ANSWER: **B**", "B")],
    "AN6": [ans("letter", "ANSWER: (B)", "B")],
    "AN7": [ans("letter", "ANSWER: $B$", "B")],
    "AN8": [ans("letter", "ANSWER: B.", "B")],
    "AN9": [ans("letter", "ANSWER: \\boxed{B}", "B")],
    "AN10": [ans("letter", "ANSWER: Carrot", "C")],
    "AN11": [ans("word", "ANSWER: yes because reasons", "yes")],
    "AN12": [ans("word", "ANSWER: **Yes**, because", "yes")],
    "AN13": [ans("line", "ANSWER: Paris.", "Paris")],
    "AN14": [ans("line", "ANSWER: paris, france  ", "Paris, France")],
    "AN15": [ans("line", "ANSWER:\nParis", "Paris")],
    "AN16": [ans("line", "I think it is Paris", "Paris")],
    "AN17": [ans("line", "ANSWER: Lyon", "Paris")],
    "EX1": [ex("Hello, world!", "hello world")],
    "EX2": [ex("don't", "dont")],
    "EX3": [ex("Hello,  world!", "hello world")],
    "EX4": [ex("3.14", "314")],
    "EX5": [ex("-5", "5")],
    "EX6": [ex("1,000", "1000")],
    "EX7": [ex("4.", "4")],
    "EX8": [ex("3.0", "3")],
    "EX9": [ex("The Paris", "Paris")],
    "EX10": [ex("New-York", "new york")],
    "EX11": [ex("“Paris”…", "paris")],
    "EX12": [ex("?", "?")],
    "EX13": [Case(sb.detect_exact(case_sensitive=True), "ANSWER: C", "ANSWER: c")],
    "EX14": [ex("Paris, France", ["Paris", "Paris, France"])],
    "V21": [pat(VITALS_GRADE, "The submission says 4.\nGRADE: C", "C")],
    "V22": [at("end", "R 1.0.0 came out in 2000", "2000.")],
    "V23": [pat(AB_GRADE, "Reasoning.\nGRADE: A", "A")],
}


def test_every_row_names_a_test_that_exists() -> None:
    missing = []
    for row_id, row in ROWS.items():
        module, _, name = row["test"].partition("::")
        source = ROOT / "tests" / f"test_detect_{module}.py"
        if not source.exists() or f"def {name}(" not in source.read_text(encoding="utf-8"):
            missing.append(f"{row_id}: {row['test']}")
    assert missing == []


def test_every_case_is_a_row_of_the_table() -> None:
    assert set(CASES) - set(ROWS) == set()


@pytest.mark.parametrize("row_id", list(CASES))
def test_ours_column(row_id: str) -> None:
    expected = claimed(ROWS[row_id]["ours"])
    assert expected is not None, f"{row_id}: the ours cell claims no grade"
    for case in CASES[row_id]:
        score = case.ours(None, case.output, case.label)
        assert (score.grade, score.failure_kind) == expected, f"{row_id}: {case.ours!r} on {case.output!r:.60}"


@pytest.fixture(scope="module")
def inspect_scorers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    scratch = tmp_path_factory.mktemp("inspect")
    with pytest.MonkeyPatch.context() as env:
        for var in ("INSPECT_LOG_DIR", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
            env.setenv(var, str(scratch))
        pytest.importorskip("inspect_ai")
        import inspect_ai.scorer

        yield inspect_ai.scorer


def inspect_score(scorers: ModuleType, make: InspectMaker, completion: str, target: str | list[str]) -> Any:
    """Inspect AI's scorer awaited directly, on a TaskState built by hand (no eval)."""
    from inspect_ai.model import ModelName, ModelOutput
    from inspect_ai.solver import TaskState

    state = TaskState(
        model=ModelName("mockllm/model"),
        sample_id="row",
        epoch=1,
        input="",
        messages=[],
        output=ModelOutput.from_content(model="mockllm/model", content=completion),
    )
    return asyncio.run(make(scorers)(state, scorers.Target(target)))


INSPECT_CLAIMS = [row_id for row_id, row in ROWS.items() if claimed(row["Inspect AI"]) is not None]


@pytest.mark.parametrize("row_id", INSPECT_CLAIMS)
def test_inspect_column(row_id: str, inspect_scorers: ModuleType) -> None:
    expected = claimed(ROWS[row_id]["Inspect AI"])
    cases = [case for case in CASES.get(row_id, []) if case.inspect is not None]
    assert cases, f"{row_id}: the Inspect AI cell claims a grade that no case checks"
    for case in cases:
        score = inspect_score(inspect_scorers, case.inspect, case.output, case.label)  # type: ignore[arg-type]
        assert (score.value, score.reason) == expected, f"{row_id}: Inspect AI on {case.output!r:.60}"
