"""`benchmark(out=PATH)`: a header naming the scorer, every record streamed as it is made; a second run resumes."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

import scorebridge as sb
from scorebridge.kit import run_sync

N = 12
ITEMS = [f"q{i}" for i in range(N)]
LABELS = [item.upper() for item in ITEMS]


def lines(path: Path) -> list[dict[str, Any]]:
    """The records of an out file: every line but the header."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert rows[0]["scorebridge"] == "benchmark"
    return rows[1:]


def keys(rows: list[dict[str, Any]]) -> list[tuple[str, Any, int]]:
    return [(r["arm"], r["item_id"], r["run"]) for r in rows]


class Counted:
    """A sync arm that counts its calls and raises KeyboardInterrupt (once) on one item, like a Ctrl-C."""

    def __init__(self, interrupt_on: str | None = None) -> None:
        self.calls = 0
        self.lock = threading.Lock()
        self.interrupt_on = interrupt_on

    def __call__(self, item: str) -> str:
        with self.lock:
            self.calls += 1
        if item == self.interrupt_on:
            self.interrupt_on = None
            raise KeyboardInterrupt
        return item.upper()


def test_out_gets_every_record_as_a_json_line(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    result = sb.benchmark({"x": Counted(), "y": Counted()}, ITEMS, LABELS, runs=2, out=out)
    assert sorted(keys(lines(out))) == sorted(keys(result.to_records()))
    assert lines(out)[0] == result.to_records()[0]


def test_keyboard_interrupt_mid_run_propagates_and_the_file_holds_what_was_done(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    with pytest.raises(KeyboardInterrupt, match=r"5 records saved in .*runs\.jsonl; run it again with the same out="):
        sb.benchmark({"x": Counted(interrupt_on="q5")}, ITEMS, LABELS, out=out)
    assert keys(lines(out)) == [("x", i, 0) for i in range(5)]


@pytest.mark.parametrize("concurrency", [1, 3])
def test_resume_after_a_keyboard_interrupt_completes_without_duplicates(tmp_path: Path, concurrency: int) -> None:
    out = tmp_path / "runs.jsonl"
    arms = {"x": Counted(interrupt_on="q5"), "y": Counted()}
    with pytest.raises(KeyboardInterrupt):
        sb.benchmark(arms, ITEMS, LABELS, runs=2, concurrency=concurrency, out=out)
    done = len(lines(out))

    again = {"x": Counted(), "y": Counted()}
    result = sb.benchmark(again, ITEMS, LABELS, runs=2, concurrency=concurrency, out=out)
    assert len(result) == 2 * N * 2
    assert len(set(keys(lines(out)))) == len(lines(out)) == 2 * N * 2
    assert again["x"].calls + again["y"].calls == 2 * N * 2 - done
    assert all(r.correct for r in result.records)


def test_resume_with_async_arms_at_concurrency_completes_without_duplicates(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    interrupt = {"q7"}

    async def arm(item: str) -> str:
        await asyncio.sleep(0.001)
        if item in interrupt:
            interrupt.clear()
            raise KeyboardInterrupt
        return item.upper()

    with pytest.raises(KeyboardInterrupt):
        sb.benchmark({"a": arm, "b": arm}, ITEMS, LABELS, concurrency=4, out=out)
    assert 0 < len(lines(out)) < 2 * N
    result = sb.benchmark({"a": arm, "b": arm}, ITEMS, LABELS, concurrency=4, out=out)
    assert len(set(keys(lines(out)))) == len(lines(out)) == len(result) == 2 * N


def test_resumed_records_are_loaded_not_run_again(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    first = sb.benchmark({"x": Counted()}, ITEMS, LABELS, out=out)
    again = Counted()
    second = sb.benchmark({"x": again}, ITEMS, LABELS, out=out)
    assert again.calls == 0
    assert second.records == first.records


def test_a_ctrl_c_in_the_event_loop_leaves_no_run_going_behind(tmp_path: Path) -> None:
    # A real Ctrl-C may land in the event loop itself, not in an arm: benchmark() must stop its
    # runs, or they would go on writing to `out` the next time this thread's loop runs.
    out = tmp_path / "runs.jsonl"

    def ctrl_c() -> None:
        raise KeyboardInterrupt

    interrupt = {"q3"}

    async def arm(item: str) -> str:
        if item in interrupt:
            interrupt.clear()
            asyncio.get_running_loop().call_soon(ctrl_c)
        await asyncio.sleep(0.01)
        return item.upper()

    with pytest.raises(KeyboardInterrupt):
        sb.benchmark({"a": arm}, ITEMS, LABELS, concurrency=4, out=out)
    written = out.read_text(encoding="utf-8")
    run_sync(asyncio.sleep(0.05))  # this thread's loop runs again
    assert out.read_text(encoding="utf-8") == written
    assert len(sb.benchmark({"a": arm}, ITEMS, LABELS, concurrency=4, out=out)) == N


def test_an_incomplete_last_line_is_dropped_with_a_warning(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    sb.benchmark({"x": Counted()}, ITEMS[:3], LABELS[:3], out=out)
    with out.open("a", encoding="utf-8") as f:
        f.write('{"arm": "x", "item_id": 3, "ru')  # a crash mid-write
    with pytest.warns(UserWarning, match=r"runs.jsonl:5: dropped an incomplete last record"):
        result = sb.benchmark({"x": Counted()}, ITEMS, LABELS, out=out)
    assert len(result) == N
    assert keys(lines(out)) == [("x", i, 0) for i in range(N)]


def test_a_whole_last_record_without_its_newline_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    sb.benchmark({"x": Counted()}, ITEMS[:3], LABELS[:3], out=out)
    out.write_text(out.read_text(encoding="utf-8").rstrip("\n"), encoding="utf-8")
    again = Counted()
    sb.benchmark({"x": again}, ITEMS, LABELS, out=out)
    assert again.calls == N - 3
    assert keys(lines(out)) == [("x", i, 0) for i in range(N)]


def test_a_malformed_line_before_the_last_is_an_error_naming_file_and_line(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    sb.benchmark({"x": Counted()}, ITEMS[:3], LABELS[:3], out=out)
    rows = out.read_text(encoding="utf-8").splitlines()
    out.write_text("\n".join([*rows[:2], "not json", *rows[2:]]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"runs.jsonl:3: not valid JSON"):
        sb.benchmark({"x": Counted()}, ITEMS, LABELS, out=out)


def test_a_line_that_is_not_a_record_is_an_error(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    sb.benchmark({"x": Counted()}, ITEMS[:1], LABELS[:1], out=out)
    with out.open("a", encoding="utf-8") as f:
        f.write('{"arm": "x", "item_id": 0}\n')
    with pytest.raises(ValueError, match=r"runs.jsonl:3: not a benchmark record: no run, correct"):
        sb.benchmark({"x": Counted()}, ITEMS, LABELS, out=out)


def test_a_file_without_the_header_is_not_taken_for_a_benchmark_file(tmp_path: Path) -> None:
    # A JSONL file of something else (or of scorebridge 0.1, which wrote no header) is never appended to.
    out = tmp_path / "runs.jsonl"
    out.write_text('{"arm": "x", "item_id": 0, "run": 0}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"runs.jsonl:1: not a benchmark file of this scorebridge"):
        sb.benchmark({"x": Counted()}, ITEMS, LABELS, out=out)


def test_records_for_other_arms_stay_in_the_file_and_out_of_the_result(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    sb.benchmark({"old": Counted()}, ITEMS, LABELS, out=out)
    with pytest.warns(UserWarning, match=f"{N} record"):
        result = sb.benchmark({"new": Counted()}, ITEMS, LABELS, out=out)
    assert {r.arm for r in result.records} == {"new"}
    assert len(lines(out)) == 2 * N


def test_adding_runs_resumes_with_the_new_runs_only(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    sb.benchmark({"x": Counted()}, ITEMS, LABELS, out=out)
    again = Counted()
    result = sb.benchmark({"x": again}, ITEMS, LABELS, runs=3, out=out)
    assert again.calls == 2 * N
    assert [r.run for r in result.records[:3]] == [0, 1, 2]


def test_mapping_item_ids_survive_the_json_round_trip(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    items = {"q1": "a", 7: "b"}
    first = sb.benchmark({"x": Counted()}, items, {"q1": "A", 7: "B"}, out=out)
    again = Counted()
    second = sb.benchmark({"x": again}, items, {"q1": "A", 7: "B"}, out=out)
    assert again.calls == 0
    assert [r.item_id for r in second.records] == [r.item_id for r in first.records] == ["q1", 7]


@pytest.mark.parametrize("item_id", [(1, 2), 1.5, True])
def test_item_ids_must_be_strings_or_ints_with_out(tmp_path: Path, item_id: Any) -> None:
    with pytest.raises(TypeError, match="item ids must be strings or ints"):
        sb.benchmark({"x": Counted()}, {item_id: "a"}, ["A"], out=tmp_path / "runs.jsonl")


def test_item_ids_may_be_any_hashable_without_out() -> None:
    result = sb.benchmark({"x": Counted()}, {(1, 2): "a"}, ["A"])
    assert result.records[0].item_id == (1, 2)


def test_a_file_written_before_records_held_the_output_resumes(tmp_path: Path) -> None:
    # Records gained `output`; a file of the records before it must still resume, not be refused as "no output".
    out = tmp_path / "runs.jsonl"
    sb.benchmark({"x": str.upper}, ITEMS[:4], LABELS[:4], out=out)
    header, *records = out.read_text(encoding="utf-8").splitlines()
    older = [json.loads(line) for line in records]
    for r in older:
        del r["output"]
    out.write_text("\n".join([header, *map(json.dumps, older)]) + "\n", encoding="utf-8")
    result = sb.benchmark({"x": str.upper}, ITEMS, LABELS, out=out)
    assert [r.output for r in result.records] == [None] * 4 + [i.upper() for i in ITEMS[4:]]
