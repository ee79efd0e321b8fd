"""The report page's HTML, read as text: one file, no way out to the network, every user string escaped."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import scorebridge as sb
from scorebridge._cli.main import main
from scorebridge._runner.report import esc

HOSTILE = "</script><img src=x onerror=alert(1)>\"'&\x00\udc80"


class Tags(HTMLParser):
    """The element and attribute names of a page, as a browser's parser reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()
        self.attributes: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.names.add(tag)
        self.attributes.update(name for name, _ in attrs)


def page(tmp_path: Path, output: str) -> str:
    items = {HOSTILE: "q", "b": "r"}
    result = sb.benchmark({HOSTILE: lambda item: output, "plain": lambda item: "q"}, items, ["q", "r"])
    return Path(result.report(tmp_path / "r.html")).read_text("utf-8")


def test_a_hostile_string_is_text_in_the_page() -> None:
    shown = esc(HOSTILE)
    assert "<" not in shown and ">" not in shown and '"' not in shown and "'" not in shown
    assert "\x00" not in shown and "\\udc80" in shown  # a lone surrogate written as its escape, not an error


def test_the_page_forbids_every_load_and_has_no_script(tmp_path: Path) -> None:
    html = page(tmp_path, HOSTILE)
    assert "Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\"" in html
    tags = Tags()
    tags.feed(html)
    assert not {"script", "img", "link", "iframe", "object", "embed", "image"} & tags.names
    assert not {"src", "href", "srcset", "action"} & tags.attributes  # no element loads anything
    assert "url(" not in html and "@import" not in html


def test_a_benchmark_report_names_its_arms_and_scorer(tmp_path: Path) -> None:
    html = page(tmp_path, "q")
    assert esc(HOSTILE) in html and "plain" in html and "exact" in html


def rules(css: str) -> dict[str, str]:
    """Each selector of a style sheet (one of a comma list, in any block) and every declaration given it."""
    found: dict[str, str] = {}
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        for selector in selectors.split(","):
            found[selector.strip()] = found.get(selector.strip(), "") + body
    return found


def test_the_printed_page_repeats_each_tables_header_and_never_wraps_a_figure(tmp_path: Path) -> None:
    # Printed, a table's header row was left at a page's foot with its rows on the next and never repeated,
    # and a 95% CI cell wrapped onto two lines (`[0.942,` then `0.989]`); tests/test_report_browser.py prints
    # the page and reads the PDF where Chromium and pdftotext are at hand, this reads the rules wherever.
    runs = []
    for name in ("base", "new"):
        data = tmp_path / f"{name}-outputs.jsonl"
        outputs = ["a" if name == "base" or i % 3 else "b" for i in range(12)]
        rows = (json.dumps({"id": f"q{i}", "output": o, "label": "a", "k": i % 2}) for i, o in enumerate(outputs))
        data.write_text("\n".join(rows) + "\n", encoding="utf-8")
        runs.append(str(tmp_path / f"{name}.jsonl"))
        assert main(["score", str(data), "--scorer", "exact", "--out", runs[-1]]) == 0
    page = tmp_path / "report.html"
    assert main(["compare", *runs, "--group-by", "k", "--format", "json", "--report", str(page)]) == 0
    html = page.read_text("utf-8")
    style = html.split("<style>")[1].split("</style>")[0]
    on_paper = rules(style.split("@media print")[1])
    assert "display: table-header-group" in on_paper["thead"]  # repeated on each page the table spans
    for selector in ("h2", ".note", ".legend", "thead"):  # kept with what follows
        assert "break-after: avoid" in on_paper[selector], selector
    assert "break-inside: avoid" in on_paper["tr"]
    on_screen = rules(style.split("@media print")[0])
    for selector in ("td.num", "th.num", "b[data-field]"):  # every number and interval, on screen and paper
        assert "white-space: nowrap" in on_screen[selector], selector
    tables = re.findall(r"<table[^>]*>(.*?)</table>", html)
    assert len(tables) == 4  # the 2x2 table, the groups' pairs, the summary, the regressed items
    for table in tables:
        assert re.fullmatch(
            r"(<colgroup>.*?</colgroup>)?<thead><tr>(<th[^>]*>[^<]*</th>)+</tr></thead><tbody>.*", table
        )
    assert '<td class="num" data-field="interval">[' in html  # an interval is such a cell
