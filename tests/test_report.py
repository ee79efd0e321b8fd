"""The report page's HTML, read as text: one file, no way out to the network, every user string escaped."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import scorebridge as sb
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
