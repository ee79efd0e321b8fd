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


def five_regressed_three_improved() -> sb.RunComparison:
    """40 pairs: 5 right in base only, 3 right in new only (p = 0.73, no significant drop), one unscored pair."""
    base = [{"id": i, "correct": i >= 3} for i in range(40)]
    new = [{"id": i, "correct": not 3 <= i < 8} for i in range(40)]
    base.append({"id": 40, "correct": None})
    new.append({"id": 40, "correct": True})
    return sb.compare(base, new)


def verdict_class(html_text: str) -> str:
    found = re.search(r'<div class="verdict (\w+)"', html_text)
    assert found is not None
    return found.group(1)


def test_the_verdict_is_red_when_fail_on_regression_would_fail_the_run(tmp_path: Path) -> None:
    # guards: the verdict box was neutral grey with 5 regressed against 3 improved, though the gate failed the run
    compared = five_regressed_three_improved()
    shown = Path(compared.report(tmp_path / "r.html", fail_on_regression=0)).read_text("utf-8")
    assert verdict_class(shown) == "drop"
    assert "--fail-on-regression: fails: 5 items regressed, more than 0" in shown


def test_the_verdict_is_green_when_the_gate_passes(tmp_path: Path) -> None:
    compared = five_regressed_three_improved()
    shown = Path(compared.report(tmp_path / "r.html", fail_on_regression=5)).read_text("utf-8")
    assert verdict_class(shown) == "pass" and "--fail-on-regression=5: passes" in shown


def test_without_a_gate_more_regressed_than_improved_is_amber_not_grey(tmp_path: Path) -> None:
    shown = Path(five_regressed_three_improved().report(tmp_path / "r.html")).read_text("utf-8")
    assert verdict_class(shown) == "warn"


def test_counts_of_one_are_singular_on_the_compare_page(tmp_path: Path) -> None:
    # guards: "1 pairs unscored"
    shown = Path(five_regressed_three_improved().report(tmp_path / "r.html")).read_text("utf-8")
    assert "1 pair unscored on a side is left out" in shown
    assert re.search(r"(?<![\d,.])1 (pairs|rows|flips)\b", shown) is None


def test_a_page_of_two_scorers_has_a_section_for_each(tmp_path: Path) -> None:
    rows = [{"id": i, "a.correct": i % 2 == 0, "a.grade": "C", "b.correct": True, "b.grade": "C"} for i in range(6)]
    flipped = [{**r, "a.correct": True} for r in rows]
    each = sb.compare_scorers(rows, flipped)
    from scorebridge._runner.compare import write_comparisons

    shown = Path(write_comparisons(each, tmp_path / "r.html")).read_text("utf-8")
    assert re.findall(r'<h2 class="scorer">Scorer (\w+)</h2>', shown) == ["a", "b"]
    assert "<title>a, b: " in shown
    assert 'id="verdict-1"' in shown and 'id="verdict-2"' in shown
