"""The report page as a person sees it: opened in a real headless Chromium (`tests/browser.py`), never a mock.

The figures the page shows are read from the rendered page (text and the bars' drawn sizes) and checked
against the JSON summary of the same run; every request the page makes is recorded (none may be); the
screenshot is decoded and must hold the chart. Skipped, with the reason, where no Chromium can be had.
"""

from __future__ import annotations

import base64
import http.server
import json
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from browser import Browser, find_chromium, read_png

from scorebridge._cli.main import main
from scorebridge._runner.report import COLOURS

CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium here (Debian: apt-get install chromium; .ci/run installs it)"
)
PDFTOTEXT = shutil.which("pdftotext")
needs_pdftotext = pytest.mark.skipif(
    PDFTOTEXT is None,
    reason="no pdftotext here to read the printed page (Debian: apt-get install poppler-utils; .ci/run installs it)",
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert CHROMIUM is not None
    with Browser.start(CHROMIUM) as b:
        yield b


def write_run(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def outputs(new: bool, hostile: str = "") -> list[dict[str, Any]]:
    rows = []
    for i in range(120):
        right = i % 6 != 0
        if new and i in (1, 2, 3, 4, 5, 7, 8):
            right = False
        if new and i in (0, 6):
            right = True
        output = f"answer {i}" if right else ("" if i % 12 == 0 else f"not {i}") + hostile
        rows.append({"id": f"q{i}", "question": f"question {i}", "output": output, "label": f"answer {i}",
                     "topic": ("geo", "art", "math")[i % 3]})  # fmt: skip
    return rows


def scored(tmp_path: Path, name: str, rows: list[dict[str, Any]]) -> Path:
    data = write_run(tmp_path / f"{name}-in.jsonl", rows)
    out = tmp_path / f"{name}.jsonl"
    assert main(["score", str(data), "--scorer", "exact", "--out", str(out), "--format", "json"]) == 0
    return out


@pytest.fixture
def comparison(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, dict[str, Any]]:
    base, new = scored(tmp_path, "base", outputs(False)), scored(tmp_path, "new", outputs(True))
    capsys.readouterr()
    page = tmp_path / "report.html"
    status = main(["compare", str(base), str(new), "--group-by", "topic", "--format", "json", "--report", str(page)])
    assert status == 0
    return page, json.loads(capsys.readouterr().out)


ROWS_JS = """[...document.querySelectorAll('tr.summary-row')].map(tr => ({
  name: tr.dataset.name,
  cells: Object.fromEntries([...tr.querySelectorAll('td[data-field]')].map(td => [td.dataset.field, td.innerText]))
}))"""

BARS_JS = """[...document.querySelectorAll('svg.accuracy g.acc-row')].map(g => {
  const svg = g.ownerSVGElement.getBoundingClientRect();
  const scale = svg.width / g.ownerSVGElement.viewBox.baseVal.width;
  const bar = g.querySelector('rect.bar');
  return {name: g.dataset.name, figure: g.querySelector('text.figure').textContent,
          bar: bar ? bar.getBoundingClientRect().width : 0,
          plot: Number(g.ownerSVGElement.dataset.plotWidth) * scale};
})"""


def rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def interval_text(interval: list[float] | None, signed: bool = False) -> str:
    if interval is None:
        return "-"
    f = "+.3f" if signed else ".3f"
    return f"[{interval[0]:{f}}, {interval[1]:{f}}]"


def test_the_pages_figures_are_the_json_summarys(browser: Browser, comparison: tuple[Path, dict[str, Any]]) -> None:
    page, data = comparison
    browser.open(page.as_uri())
    shown = {row["name"]: row["cells"] for row in browser.evaluate(ROWS_JS)}
    expected = {"base": data["base"], "new": data["new"]}
    for group in data["groups"]:
        expected[f"{group['name']} · base"] = group["base"]
        expected[f"{group['name']} · new"] = group["new"]
    assert set(shown) == set(expected)
    for name, summary in expected.items():
        cells = shown[name]
        assert cells["accuracy"] == f"{summary['accuracy']:.3f}", name
        assert cells["interval"] == interval_text(summary["interval"]), name
        for field in ("rows", "scored", "correct", "unscored"):
            assert int(cells[field]) == summary[field], (name, field)
        for kind, count in summary["failure_kinds"].items():
            assert int(cells.get(kind, "0")) == count, (name, kind)


def test_the_bars_are_drawn_to_the_accuracy(browser: Browser, comparison: tuple[Path, dict[str, Any]]) -> None:
    page, data = comparison
    browser.open(page.as_uri())
    bars = {b["name"]: b for b in browser.evaluate(BARS_JS)}
    for name in ("base", "new"):
        summary = data[name]
        assert bars[name]["bar"] / bars[name]["plot"] == pytest.approx(summary["accuracy"], abs=0.003)
        assert bars[name]["figure"].startswith(f"{summary['accuracy']:.3f} {interval_text(summary['interval'])}")
    kinds = browser.evaluate(
        "[...document.querySelectorAll('svg.failures g.kind-row')].map(g => ({name: g.dataset.name, "
        "segs: [...g.querySelectorAll('rect.seg')].map(r => [r.dataset.kind, Number(r.dataset.count)])}))"
    )
    by_name = {k["name"]: dict(k["segs"]) for k in kinds}
    for name in ("base", "new"):
        summary = data[name]
        wanted = {"correct": summary["correct"], **summary["failure_kinds"], "unscored": summary["unscored"]}
        assert by_name[name] == {k: v for k, v in wanted.items() if v}


def test_the_paired_difference_and_the_flips_are_shown(
    browser: Browser, comparison: tuple[Path, dict[str, Any]]
) -> None:
    page, data = comparison
    browser.open(page.as_uri())
    fields = browser.evaluate(
        "Object.fromEntries([...document.querySelectorAll('#difference [data-field]')]"
        ".map(e => [e.dataset.field, e.innerText]))"
    )
    paired = data["paired"]
    assert fields["difference"] == f"{paired['difference']:+.3f}"
    assert fields["difference_interval"] == interval_text(paired["interval"], signed=True)
    assert fields["p_value"] == f"{paired['p_value']:.4g}"
    assert int(fields["regressed"]) == paired["regressed"] == 7
    assert int(fields["improved"]) == paired["improved"] == 2
    flipped = browser.evaluate("[...document.querySelectorAll('tr.flip')].map(tr => tr.dataset.id)")
    assert sorted(flipped) == sorted(f["id"] for f in data["regressed"] + data["improved"])


def test_the_page_makes_no_request(browser: Browser, comparison: tuple[Path, dict[str, Any]]) -> None:
    page, _ = comparison
    requests = browser.open(page.as_uri())
    assert requests == [page.as_uri()]  # the page itself, and nothing else
    assert browser.evaluate("document.querySelectorAll('[src], [href], script, link, img, iframe, object').length") == 0


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.seen.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(b"x")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, list[str]]]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    _Recorder.seen = []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", _Recorder.seen
    finally:
        httpd.shutdown()


def test_hostile_outputs_load_nothing_and_read_as_text(
    browser: Browser, server: tuple[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, seen = server
    # The harness sees a request when a page makes one: a page that loads from the server is recorded.
    control = tmp_path / "control.html"
    control.write_text(f'<img src="{url}/control">', encoding="utf-8")
    browser.open(control.as_uri())
    assert seen == ["/control"]
    seen.clear()
    hostile = (
        f'</pre></td></tr></table><img src="{url}/img"><script>fetch("{url}/js")</script></script>'
        f'<link rel="stylesheet" href="{url}/css"><style>@import url({url}/import);</style>'
        f'<iframe src="{url}/frame"></iframe>"><svg><image href="{url}/svg"/></svg>'
    )
    base = scored(tmp_path, "base", outputs(False, hostile))
    rows = outputs(True, hostile + "x" * 300_000)
    rows[1]["id"] = f'<b id="x" onmouseover="fetch(\'{url}/id\')">q1</b>'
    new = scored(tmp_path, "new", rows)
    page = tmp_path / "hostile.html"
    assert main(["compare", str(base), str(new), "--report", str(page)]) == 0
    capsys.readouterr()
    requests = browser.open(page.as_uri(), settle=1.0)
    assert requests == [page.as_uri()]
    assert seen == []
    text = browser.evaluate("document.body.innerText")
    assert f'<img src="{url}/img">' in text and "</script>" in text
    assert "characters in all" in text  # the 300,000 characters are cut, their length said
    assert page.stat().st_size < 2_000_000


def test_the_screenshot_is_not_blank_and_holds_the_chart(
    browser: Browser, comparison: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    page, data = comparison
    browser.open(page.as_uri())
    box = browser.evaluate(
        "(() => { const r = document.querySelector('svg.accuracy').getBoundingClientRect();"
        " return {x: r.x, y: r.y + window.scrollY, width: r.width, height: r.height}; })()"
    )
    whole = read_png(browser.screenshot())
    colours = whole.colours()
    white = colours.get((255, 255, 255), 0)
    assert len(colours) > 50 and white < 0.97 * whole.width * whole.height  # not blank
    chart = read_png(browser.screenshot(box)).colours()
    new_pixels, base_pixels = (chart.get(rgb(COLOURS[name]), 0) for name in ("accuracy", "base"))
    # the bars' drawn area: each row's accuracy x the plot's width x the bar's height (17 of the view's units)
    scale = box["width"] / 1000
    plot = 570 * scale

    def area(summaries: list[dict[str, Any]]) -> float:
        return sum(s["accuracy"] * plot * 17 * scale for s in summaries)

    assert new_pixels == pytest.approx(area([data["new"], *(g["new"] for g in data["groups"])]), rel=0.15)
    assert base_pixels == pytest.approx(area([data["base"], *(g["base"] for g in data["groups"])]), rel=0.15)
    (tmp_path / "chart.png").write_bytes(browser.screenshot(box))


def test_the_score_report_shows_the_score_summary(
    browser: Browser, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_run(tmp_path / "in.jsonl", outputs(True))
    page = tmp_path / "score.html"
    argv = ["score", str(data), "--scorer", "exact", "--group-by", "topic", "--format", "json", "--report", str(page)]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert browser.open(page.as_uri()) == [page.as_uri()]
    shown = {row["name"]: row["cells"] for row in browser.evaluate(ROWS_JS)}
    assert shown["exact"]["accuracy"] == f"{summary['accuracy']:.3f}"
    assert shown["exact"]["interval"] == interval_text(summary["interval"])
    for group in summary["groups"]:
        assert shown[group["name"]]["accuracy"] == f"{group['accuracy']:.3f}"
        assert int(shown[group["name"]]["wrong"]) == group["failure_kinds"]["wrong"]


def test_the_page_prints(browser: Browser, comparison: tuple[Path, dict[str, Any]]) -> None:
    page, _ = comparison
    browser.open(page.as_uri())
    browser.send("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        assert browser.evaluate("getComputedStyle(document.body).paddingTop") == "0px"  # the print style sheet
        assert browser.evaluate("document.querySelector('svg.accuracy').getBoundingClientRect().width") > 300
    finally:
        browser.send("Emulation.setEmulatedMedia", {"media": ""})
    pdf = browser.send("Page.printToPDF", {"printBackground": True})["data"]
    assert len(pdf) > 1000


def test_a_groups_accuracy_on_its_pairs_and_on_each_runs_rows_are_told_apart(
    browser: Browser, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # With rows in one run only, a group's bars (each run's rows: `math · new` over 42 rows) and the text
    # report's `by topic` table (the 40 pairs) gave two accuracies of one group, and the page did not say which
    # was which, nor show the paired one of each group.
    extra = [{"id": f"x{i}", "question": "late", "output": "no", "label": "yes", "topic": "math"} for i in range(2)]
    base, new = scored(tmp_path, "base", outputs(False)), scored(tmp_path, "new", outputs(True) + extra)
    page = tmp_path / "report.html"
    assert main(["compare", str(base), str(new), "--group-by", "topic", "--report", str(page)]) == 0
    text = capsys.readouterr().out
    by_topic = [line.split() for line in text.split("by topic:\n")[1].split("\n\n")[0].splitlines()[2:]]
    assert main(["compare", str(base), str(new), "--group-by", "topic", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    browser.open(page.as_uri())
    paired = browser.evaluate(
        "[...document.querySelectorAll('#paired-groups tr.paired-row')].map(tr => [tr.dataset.name, "
        "...['pairs', 'base_accuracy', 'new_accuracy', 'difference', 'interval', 'regressed', 'improved', "
        "'p_value'].map(f => tr.querySelector(`td[data-field=${f}]`).innerText)])"
    )
    assert [" ".join(row).split() for row in paired] == by_topic  # the text report's figures, group by group
    math = next(g for g in data["groups"] if g["name"] == "math")
    own = f"{math['new']['accuracy']:.3f}"
    assert own != next(row for row in by_topic if row[0] == "math")[3]  # two accuracies of one group, then:
    headings = browser.evaluate(
        "Object.fromEntries([...document.querySelectorAll('section[id] > h2')]"
        ".map(h => [h.parentNode.id, h.innerText]))"
    )
    assert headings["paired-groups"] == "By topic, on the pairs scored in both runs"
    assert headings["difference"].startswith(
        f"Paired difference in accuracy (new − base) on the {data['paired']['pairs']} "
    )
    assert headings["accuracy"] == "Each run's accuracy on all its rows, with its 95% interval"
    note = browser.evaluate("document.querySelector('#accuracy .note').innerText")
    assert f"base {data['base']['rows']} rows, new {data['new']['rows']}; 0 only in base, 2 only in new" in note
    assert "for a group, the group's rows in that run" in note
    bars = {b["name"]: b["figure"] for b in browser.evaluate(BARS_JS)}
    assert bars["math · new"].startswith(own)  # the figure under that heading is each run's own rows'


@pytest.fixture
def printed(browser: Browser, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[list[str], dict[str, Any]]:
    """A comparison's page printed to PDF by Chromium, as the text of each page (pdftotext -layout), and its JSON.

    Its groups have long names (the summary table is as wide as the paper) and its 14 regressed items long
    outputs (the flips table spans pages, each row shorter than a page).
    """
    assert PDFTOTEXT is not None
    runs = []
    for name in ("base", "new"):
        rows = [
            {"id": f"q{i}", "question": f"question {i}", "label": "yes", "output": "yes",
             "topic": f"topic {i % 3} of the questions, named at some length"}
            for i in range(40)
        ]  # fmt: skip
        for row in rows[::3] if name == "new" else ():
            row["output"] = "no " + "word " * 60
        runs.append(str(scored(tmp_path, name, rows)))
    capsys.readouterr()
    page = tmp_path / "report.html"
    assert main(["compare", *runs, "--group-by", "topic", "--format", "json", "--report", str(page)]) == 0
    data = json.loads(capsys.readouterr().out)
    browser.open(page.as_uri())
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(base64.b64decode(browser.send("Page.printToPDF", {"printBackground": True})["data"]))
    text = subprocess.run([PDFTOTEXT, "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return text.split("\f"), data


@needs_pdftotext
def test_a_printed_table_repeats_its_header_on_each_page_and_never_leaves_it_alone_at_a_foot(
    printed: tuple[list[str], dict[str, Any]],
) -> None:
    # Printed, the flips table's header row was left at the foot of a page with its rows on the next, and not
    # repeated on the pages after: the header is a thead now, kept with a row and repeated.
    pages, data = printed
    header, ids = ["item", "base", "new"], {f["id"] for f in data["regressed"]}
    spanned = 0
    for number, page in enumerate(pages, 1):
        lines = [line.split() for line in page.splitlines() if line.strip()]
        heads = [n for n, words in enumerate(lines) if words == header]
        rows = [n for n, words in enumerate(lines) if words[0] in ids]
        assert all(any(r > h for r in rows) for h in heads), f"page {number}: the header alone at its foot"
        if rows:
            spanned += 1
            assert heads and heads[0] < rows[0], f"page {number}: rows of the table without its header"
    assert spanned >= 2  # the table was long enough to span pages


@needs_pdftotext
def test_a_printed_interval_stays_on_one_line(printed: tuple[list[str], dict[str, Any]]) -> None:
    # Printed, a table's 95% CI cells wrapped onto two lines (`[0.942,` then `0.989]`), the table being as wide
    # as the paper: no number or interval is wrapped now.
    pages, data = printed
    text = "\f".join(pages)
    assert not re.findall(r"\[[-+]?\d\.\d{3},(?!\s*[-+]?\d\.\d{3}\])", text)  # an interval cut after its comma
    for summary in (data["base"], data["new"], *(g[side] for g in data["groups"] for side in ("base", "new"))):
        assert text.count(interval_text(summary["interval"])) >= 2  # the chart's figure and the table's


def test_the_score_report_of_a_run_with_failures_lists_them_shortest_first(
    browser: Browser, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # guards: the score page had no rows at all, so a user could not see which outputs failed
    rows = outputs(True)
    rows[7]["output"] = "a much longer wrong answer than the others"
    data = write_run(tmp_path / "in.jsonl", rows)
    page = tmp_path / "score.html"
    out = tmp_path / "out.jsonl"
    argv = ["score", str(data), "--scorer", "exact", "--report", str(page), "--show", "4", "--out", str(out)]
    assert main(argv) == 0
    scored = out.read_text("utf-8").splitlines()[1:]  # after the --out file's header
    kinds = {r["id"]: r["exact.failure_kind"] for r in map(json.loads, scored)}
    wrong = sum(kind is not None for kind in kinds.values())
    browser.open(page.as_uri())
    listed = browser.evaluate(
        "[...document.querySelectorAll('#failing tr.failing')].map(tr => [...tr.children].map(td => td.innerText))"
    )
    heading = browser.evaluate("document.querySelector('#failing h2').innerText")
    assert heading == f"Failing rows: {wrong}"
    failed = [r for r in rows if r["output"] != r["label"]]
    shortest = sorted(failed, key=lambda r: (len(r["question"] + r["output"] + r["label"]), rows.index(r)))[:4]
    assert [cells[0].split("\n")[0] for cells in listed] == [r["id"] for r in shortest]
    first = shortest[0]
    row, output, label, kind, _ = listed[0]
    assert first["question"] in row and first["output"] in output
    assert (label, kind) == (first["label"], kinds[first["id"]])
    assert "The 4 shortest of" in browser.evaluate("document.querySelector('#failing .note').innerText")


def test_the_compare_pages_title_names_the_scorer(browser: Browser, comparison: tuple[Path, dict[str, Any]]) -> None:
    # guards: the scorer was named only at the very bottom of the page
    page, _ = comparison
    browser.open(page.as_uri())
    assert browser.evaluate("document.title").startswith("exact: ")
    assert browser.evaluate("document.querySelector('h1').innerText").startswith("exact: ")


NARROW_JS = """(() => {
  const texts = [...document.querySelectorAll('svg.chart')].filter(svg => svg.getBoundingClientRect().width > 0)
    .flatMap(svg => {
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      return [...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
    });
  const cut = [...document.querySelectorAll('table')].filter(t => {
    const box = t.parentElement, right = box.getBoundingClientRect().right;
    return t.getBoundingClientRect().right > right + 1 && box.scrollWidth <= box.clientWidth;
  }).length;
  return {smallest: Math.min(...texts), texts: texts.length, page: document.documentElement.scrollWidth,
          wide: [...document.querySelectorAll('svg.wide')].filter(s => s.getBoundingClientRect().width > 0).length,
          cut};
})()"""


def test_at_700_pixels_the_charts_text_stays_readable_and_no_table_is_cut(
    browser: Browser, comparison: tuple[Path, dict[str, Any]]
) -> None:
    # guards: at 700 px the charts were scaled down to about 7 px text and wide tables ran off the page
    page, _ = comparison
    browser.send("Emulation.setDeviceMetricsOverride", {"width": 700, "height": 900, "deviceScaleFactor": 1,
                                                          "mobile": False})  # fmt: skip
    try:
        browser.open(page.as_uri())
        seen = browser.evaluate(NARROW_JS)
    finally:
        browser.send("Emulation.clearDeviceMetricsOverride")
    assert seen["texts"] > 20 and seen["wide"] == 0
    assert seen["smallest"] >= 11, seen
    assert seen["page"] <= 700 and seen["cut"] == 0, seen


def test_at_700_pixels_the_score_page_with_its_failing_rows_fits_too(
    browser: Browser, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_run(tmp_path / "in.jsonl", outputs(True, hostile="x" * 300))
    page = tmp_path / "score.html"
    argv = ["score", str(data), "--scorer", "exact", "--scorer", "detect_includes", "--group-by", "topic"]
    assert main([*argv, "--report", str(page)]) == 0
    capsys.readouterr()
    browser.send("Emulation.setDeviceMetricsOverride", {"width": 700, "height": 900, "deviceScaleFactor": 1,
                                                          "mobile": False})  # fmt: skip
    try:
        browser.open(page.as_uri())
        seen = browser.evaluate(NARROW_JS)
        failing = browser.evaluate("document.querySelectorAll('#failing tr.failing').length")
    finally:
        browser.send("Emulation.clearDeviceMetricsOverride")
    assert failing > 0 and seen["texts"] > 10
    assert seen["smallest"] >= 11 and seen["page"] <= 700 and seen["cut"] == 0, seen
