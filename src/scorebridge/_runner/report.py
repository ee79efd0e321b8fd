"""The report page: one self-contained HTML file of a run's summaries, or of a comparison of two runs.

The page is made of HTML, inline SVG charts and one inline style sheet, and
nothing else: no script, no font, no image file, no request of any kind when it
is viewed. Its Content-Security-Policy (`default-src 'none'`) says so to the
browser too, so even a hostile text that slipped through could load nothing.
Every text that comes from data (names, ids, outputs, options, file names) is
escaped, and a long one is cut (`compare.TEXT_LIMIT`).

What it shows, top to bottom: the accuracy with its 95% interval, a bar per
scorer, arm or group; the failure kinds as stacked bars (correct, each kind,
unscored), with a table of the counts; for a comparison, the paired difference
with its interval (the whole, then each group), the 2x2 table and McNemar's
test, and the flipped items with both runs' outputs side by side; the
provenance (scorer and options, files, counts, time).

A comparison shows two accuracies of each run, each under its own heading: on
the pairs scored in both runs (the paired difference, and with groups a table of
each group's pairs: the text report's `by COLUMN` table), and on each run's own
rows, paired or not (the bars: what `scorebridge score` says of that file, and
the JSON's `groups[].base` and `.new`). They differ where a row is in one run
only or a pair is unscored on a side, and the page says so.

A print style sheet keeps charts, rows and a heading with what follows it whole
on paper, repeats a table's header row on each page it spans, and never wraps
a number or an interval (`[0.942, 0.989]`) onto two lines.
"""

from __future__ import annotations

import html
import math
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from .._protocol.score import FAILURE_KINDS
from .summary import Summary, counted, number_cell

if TYPE_CHECKING:
    from .compare import Flip, Gate, PairedDifference, RunComparison
    from .groups import GroupedSummaries

__all__ = ["FailedRow", "FailingRows", "comparison_page", "summary_page", "write_page"]

COLOURS: Final = {
    "accuracy": "#3b6ea8",
    "base": "#a9c3e3",
    "interval": "#1a1a1a",
    "correct": "#4e9a5b",
    "parse_failure": "#e3a23b",
    "refusal": "#a66bbe",
    "not_in_document": "#5bb4c9",
    "wrong": "#d1495b",
    "budget_stop": "#8c6d46",
    "error": "#5a5a5a",
    "grader_failed": "#9e9ac8",
    "unscored": "#c9c9c9",
    "drop": "#c0392b",
    "gain": "#2e8b57",
    "same": "#555555",
}
"""The colours of the charts (accuracy bars, each failure kind, the difference's direction)."""

_CONTROL: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

_STYLE: Final = """
:root { --ink: #1a1a1a; --muted: #5f6368; --rule: #d9d9d9; --band: #f5f6f8; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: var(--ink); margin: 0 auto; padding: 24px 32px 48px; max-width: 1180px; background: #fff; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--rule); padding-bottom: 4px; }
.sub { color: var(--muted); margin: 0 0 12px; }
.verdict { font-size: 17px; font-weight: 600; padding: 8px 12px; border-radius: 4px; background: var(--band);
           display: inline-block; margin: 8px 0; }
.verdict.drop { color: #fff; background: #c0392b; } .verdict.gain, .verdict.pass { color: #fff; background: #2e8b57; }
.verdict.warn { background: #f6d58e; }
.verdict .gate { font-size: 14px; font-weight: 400; margin-top: 2px; }
h2.scorer { font-size: 21px; border-bottom: 3px solid var(--ink); margin-top: 40px; }
section.scorer h2:not(.scorer) { font-size: 16px; }
figure { margin: 8px 0 12px; }
svg { display: block; width: 100%; height: auto; max-width: 1100px; }
svg.narrow { max-width: 760px; }
.scroll { overflow-x: auto; max-width: 100%; }
svg text { font: 13px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; fill: var(--ink); }
svg .tick { fill: var(--muted); font-size: 12px; }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 14px; }
th, td { border-bottom: 1px solid var(--rule); padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: var(--band); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
b[data-field] { white-space: nowrap; }
table.flips { width: 100%; table-layout: fixed; }
table.flips td { overflow-wrap: anywhere; }
table.flips col.id { width: 14%; } table.flips col.side { width: 43%; }
table.failing { width: 100%; table-layout: fixed; } table.failing td { overflow-wrap: anywhere; }
table.failing col.id { width: 16%; } table.failing col.output { width: 34%; } table.failing col.label { width: 16%; }
table.failing col.kind { width: 12%; } table.failing col.why { width: 22%; }
h3 { font-size: 15px; margin: 16px 0 4px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 2px 0; font: 13px/1.35 ui-monospace, Menlo,
      Consolas, monospace; background: var(--band); padding: 4px 6px; border-radius: 3px; max-height: 16em;
      overflow: auto; }
.grade { display: inline-block; min-width: 1.6em; text-align: center; font-weight: 700; border-radius: 3px;
         color: #fff; padding: 0 4px; margin-right: 4px; }
.grade.C { background: #4e9a5b; } .grade.I { background: #d1495b; } .grade.P { background: #e3a23b; }
.grade.N { background: #9a9a9a; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 4px 0; font-size: 13px; color: var(--muted); }
.legend span::before { content: ""; display: inline-block; width: 11px; height: 11px; margin-right: 5px;
                       vertical-align: -1px; background: var(--c); }
.muted { color: var(--muted); }
dl.prov { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 6px 0; }
dl.prov dt { color: var(--muted); } dl.prov dd { margin: 0; overflow-wrap: anywhere; }
@media screen and (max-width: 820px) {
  body { padding: 12px 14px 32px; }
  svg.wide { display: none; }
  table { font-size: 13px; }
  th, td { padding: 3px 6px; }
  th { overflow-wrap: anywhere; }
  table.flips col.id { width: 22%; } table.flips col.side { width: 39%; }
}
@media not screen and (max-width: 820px) { svg.narrow { display: none; } }
@media print {
  @page { margin: 14mm; }
  body { font-size: 10.5pt; padding: 0; max-width: none; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  thead { display: table-header-group; }
  h2, .note, .legend, thead { break-after: avoid; }
  figure, tr, .note, .verdict, dl.prov { break-inside: avoid; }
  pre { max-height: none; overflow: visible; }
  .scroll { overflow: visible; }
}
"""


def esc(value: Any) -> str:
    """Any value as text safe inside HTML (element content or a quoted attribute).

    Control characters are dropped, a `str` UTF-8 cannot hold (a lone surrogate)
    is written as its escape, and `& < > " '` are escaped.
    """
    text = value if isinstance(value, str) else str(value)
    text = _CONTROL.sub("", text)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return html.escape(text, quote=True)


def _num(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _ci(interval: tuple[float, float] | None, signed: bool = False) -> str:
    if interval is None:
        return "-"
    f = "+.3f" if signed else ".3f"
    return f"[{interval[0]:{f}}, {interval[1]:{f}}]"


# --- charts --------------------------------------------------------------------------------------

_WIDTH: Final = 1000
_NARROW: Final = 640
_LABEL: Final = 230
_ROW: Final = 30


def _label_text(name: str, limit: int = 32) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


def _bar_colour(label: str) -> str:
    """A comparison's base run is drawn lighter than the new one, so the two read apart at a glance."""
    return COLOURS["base"] if label == "base" or label.endswith(" · base") else COLOURS["accuracy"]


class _Layout(NamedTuple):
    """Where a chart draws a row: wide (label, bar, figure side by side) or narrow (label and figure on a line,
    the bar under them across the width), for a page under 820 px wide, whose text would otherwise shrink."""

    width: int
    label: int  # the plot's left edge
    plot: int  # the plot's width
    row: int
    label_limit: int
    narrow: bool

    def label_at(self, y: float) -> str:
        """The x, y and anchor of a row's label."""
        return f'x="0" y="{y + 14}"' if self.narrow else f'x="{self.label - 10}" y="{y + 19}" text-anchor="end"'

    def figure_at(self, y: float) -> str:
        """The x, y and anchor of a row's figure."""
        if self.narrow:
            return f'x="{self.width - 1}" y="{y + 14}" text-anchor="end"'
        return f'x="{self.label + self.plot + 12}" y="{y + 19}"'

    def bar_top(self, y: float) -> float:
        """The top of a row's bar (a 17-high band in a wide row, under the text line in a narrow one)."""
        return y + (21 if self.narrow else 6)


def _layout(narrow: bool, figure: int) -> _Layout:
    """A chart's layout: `figure`, the room a wide row leaves right of the plot for its figures."""
    if narrow:
        return _Layout(_NARROW, 24, _NARROW - 48, 46, 44, True)
    return _Layout(_WIDTH, _LABEL, _WIDTH - _LABEL - figure, _ROW, 32, False)


def _svg(kind: str, layout: _Layout, height: float, label: str, extra: str = "") -> str:
    """A chart's opening tag: of class `kind` when wide, `kind-narrow` when narrow (only one is shown)."""
    shown = f"{kind}-narrow narrow" if layout.narrow else f"{kind} wide"
    return f'<svg class="chart {shown}" viewBox="0 0 {layout.width} {height}" role="img" aria-label="{label}"{extra}>'


def accuracy_chart(rows: Sequence[tuple[str, Summary]], *, paired: bool = False, narrow: bool = False) -> str:
    """An SVG of a bar per row (its accuracy) with the 95% interval as a whisker, and the figures beside it.

    With `paired` (a comparison), base's bars are lighter than new's. `narrow`: the layout for a narrow page.
    """
    at = _layout(narrow, 200)
    plot_w = at.plot
    top = 22
    height = top + at.row * len(rows) + 10

    def x(v: float) -> float:
        return at.label + v * plot_w

    parts = [
        _svg(
            "accuracy",
            at,
            height,
            "accuracy with its 95% interval",
            f' data-plot-left="{at.label}" data-plot-width="{plot_w}"',
        )
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{top - 4}" y2="{height - 8}" stroke="#e3e3e3"/>'
            f'<text class="tick" x="{x(tick):.1f}" y="{top - 8}" text-anchor="middle">{tick:g}</text>'
        )
    for n, (label, s) in enumerate(rows):
        y = top + n * at.row
        attrs = (
            f'data-name="{esc(label)}" data-accuracy="{"" if s.accuracy is None else s.accuracy!r}" '
            f'data-low="{"" if s.interval is None else s.interval[0]!r}" '
            f'data-high="{"" if s.interval is None else s.interval[1]!r}"'
        )
        parts.append(f'<g class="acc-row" {attrs}>')
        parts.append(f"<text {at.label_at(y)}>{esc(_label_text(label, at.label_limit))}</text>")
        bar = at.bar_top(y)
        if s.accuracy is not None:
            shown = min(max(s.accuracy, 0.0), 1.0)
            parts.append(
                f'<rect class="bar" x="{at.label}" y="{bar}" width="{shown * plot_w:.2f}" height="17" '
                f'fill="{_bar_colour(label) if paired else COLOURS["accuracy"]}">'
                f"<title>{esc(label)}: accuracy {_num(s.accuracy)}</title></rect>"
            )
        if s.interval is not None:
            lo, hi = x(s.interval[0]), x(s.interval[1])
            mid = bar + 8.5
            parts.append(
                f'<g class="whisker" stroke="{COLOURS["interval"]}" stroke-width="2">'
                f'<line x1="{lo:.2f}" x2="{hi:.2f}" y1="{mid}" y2="{mid}"/>'
                f'<line x1="{lo:.2f}" x2="{lo:.2f}" y1="{mid - 6}" y2="{mid + 6}"/>'
                f'<line x1="{hi:.2f}" x2="{hi:.2f}" y1="{mid - 6}" y2="{mid + 6}"/></g>'
            )
        figure = "no row scored" if s.accuracy is None else f"{_num(s.accuracy)} {_ci(s.interval)}"
        parts.append(
            f'<text class="figure" {at.figure_at(y)}>{esc(figure)} <tspan class="tick">n={s.scored}</tspan></text>'
        )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _segments(s: Summary) -> list[tuple[str, int]]:
    # the unscored rows whose grader failed apart from the others (no label): a failure to look into
    return [
        ("correct", s.correct),
        *((k, s.failure_kinds[k]) for k in FAILURE_KINDS),
        ("grader_failed", s.grader_failed),
        ("unscored", s.unscored - s.grader_failed),
    ]


def failure_chart(rows: Sequence[tuple[str, Summary]], *, narrow: bool = False) -> str:
    """An SVG of a stacked bar per row: its rows as correct, each failure kind, the grader's failures, and the
    other unscored rows."""
    at = _layout(narrow, 40)
    top = 6
    height = top + at.row * len(rows) + 6
    parts = [_svg("failures", at, height, "failure kinds")]
    for n, (label, s) in enumerate(rows):
        y = top + n * at.row
        bar = at.bar_top(y) - 1
        parts.append(f'<g class="kind-row" data-name="{esc(label)}" data-rows="{s.rows}">')
        parts.append(f"<text {at.label_at(y)}>{esc(_label_text(label, at.label_limit))}</text>")
        left = float(at.label)
        total = max(s.rows, 1)
        for kind, count in _segments(s):
            if not count:
                continue
            w = count / total * at.plot
            parts.append(
                f'<rect class="seg" data-kind="{kind}" data-count="{count}" x="{left:.2f}" y="{bar}" '
                f'width="{w:.2f}" height="19" fill="{COLOURS[kind]}"><title>{esc(label)}: {kind} {count}</title></rect>'
            )
            if w > 34:
                parts.append(
                    f'<text x="{left + w / 2:.2f}" y="{bar + 14}" text-anchor="middle" fill="#fff" '
                    f'style="fill:#fff;font-size:12px">{count}</text>'
                )
            left += w
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _legend(kinds: Iterable[str]) -> str:
    return '<div class="legend">' + "".join(f'<span style="--c:{COLOURS[k]}">{k}</span>' for k in kinds) + "</div>"


def _kinds_present(rows: Sequence[tuple[str, Summary]]) -> list[str]:
    return [
        k
        for k in ("correct", *FAILURE_KINDS, "grader_failed", "unscored")
        if any(c for s in rows for kk, c in _segments(s[1]) if kk == k)
    ]


def _table(kind: str, head: str, body: Iterable[str], columns: str = "") -> str:
    """An HTML table of class `kind`: its header row (`head`, the cells' HTML) in a `thead`, which print repeats
    on each page the table spans, and its rows (each a `<tr>`'s HTML) in a `tbody`; `columns`, a `colgroup`.
    It is in a box that scrolls sideways where the page is narrower than the table, so no column is cut off."""
    rows = "".join(body)
    table = f'<table class="{kind}">{columns}<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
    return f'<div class="scroll">{table}</div>'


def summary_table(rows: Sequence[tuple[str, Summary]], first: str) -> str:
    """The one summary as an HTML table: a row per summary, the figures the charts draw."""
    kinds = [k for k in FAILURE_KINDS if any(s.failure_kinds[k] for _, s in rows)]
    failed = ["grader failed"] if any(s.grader_failed for _, s in rows) else []
    head = "".join(
        f'<th class="num">{h}</th>'
        for h in ("rows", "scored", "correct", "accuracy", "95% CI", *kinds, *failed, "unscored")
    )
    body = []
    for label, s in rows:
        cells = [
            f'<td class="num" data-field="rows">{s.rows}</td>',
            f'<td class="num" data-field="scored">{s.scored}</td>',
            f'<td class="num" data-field="correct">{s.correct}</td>',
            f'<td class="num" data-field="accuracy">{number_cell(s.accuracy)}</td>',
            f'<td class="num" data-field="interval">{_ci(s.interval)}</td>',
            *(f'<td class="num" data-field="{k}">{s.failure_kinds[k]}</td>' for k in kinds),
            *(f'<td class="num" data-field="grader_failed">{s.grader_failed}</td>' for _ in failed),
            f'<td class="num" data-field="unscored">{s.unscored}</td>',
        ]
        body.append(f'<tr class="summary-row" data-name="{esc(label)}"><td>{esc(label)}</td>{"".join(cells)}</tr>')
    return _table("summary", f"<th>{esc(first)}</th>{head}", body)


def paired_table(rows: Sequence[tuple[str, PairedDifference]], first: str) -> str:
    """The paired figures as an HTML table, a row per group and the whole: what the text report's `by COLUMN`
    table says (pairs, both accuracies on them, the difference and its interval, the flips, McNemar's p)."""
    head = "".join(
        f'<th class="num">{h}</th>'
        for h in ("pairs", "base", "new", "difference", "95% CI", "regressed", "improved", "p")
    )
    body = []
    for label, p in rows:
        cells = [
            ("pairs", p.pairs),
            ("base_accuracy", number_cell(p.base_accuracy)),
            ("new_accuracy", number_cell(p.new_accuracy)),
            ("difference", "-" if p.difference is None else f"{p.difference:+.3f}"),
            ("interval", _ci(p.interval, signed=True)),
            ("regressed", p.regressed),
            ("improved", p.improved),
            ("p_value", f"{p.p_value:.4g}"),
        ]
        shown = "".join(f'<td class="num" data-field="{field}">{value}</td>' for field, value in cells)
        body.append(f'<tr class="paired-row" data-name="{esc(label)}"><td>{esc(label)}</td>{shown}</tr>')
    return _table("paired-groups", f"<th>{esc(first)}</th>{head}", body)


def difference_chart(rows: Sequence[tuple[str, PairedDifference]], *, narrow: bool = False) -> str:
    """An SVG of the paired difference (new - base) per row: a dot, its 95% interval, and a line at zero."""
    ends: list[float] = [abs(v) for _, p in rows for v in ((p.difference or 0.0), *(p.interval or ()))]
    span: float = min(1.0, math.ceil(max([0.05, *ends]) * 20) / 20)
    at = _layout(narrow, 330)
    plot_w = at.plot
    top = 22
    height = top + at.row * len(rows) + 10

    def x(v: float) -> float:
        return at.label + (v + span) / (2 * span) * plot_w

    parts = [_svg("difference", at, height, "paired difference in accuracy, new minus base, with its 95% interval")]
    for tick in (-span, -span / 2, 0.0, span / 2, span):
        colour = "#9a9a9a" if tick == 0 else "#e3e3e3"
        shown = f"{tick:+.3g}" if tick else "0"
        parts.append(
            f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{top - 4}" y2="{height - 8}" stroke="{colour}"/>'
            f'<text class="tick" x="{x(tick):.1f}" y="{top - 8}" text-anchor="middle">{shown}</text>'
        )
    for n, (label, p) in enumerate(rows):
        y = top + n * at.row
        colour = COLOURS["drop" if p.significant_drop else "gain" if p.significant_gain else "same"]
        parts.append(
            f'<g class="diff-row" data-name="{esc(label)}" '
            f'data-difference="{"" if p.difference is None else p.difference!r}">'
        )
        parts.append(f"<text {at.label_at(y)}>{esc(_label_text(label, at.label_limit))}</text>")
        mid = at.bar_top(y) + 8.5
        if p.interval is not None:
            lo, hi = x(max(-span, p.interval[0])), x(min(span, p.interval[1]))
            parts.append(
                f'<g stroke="{colour}" stroke-width="2.5"><line x1="{lo:.2f}" x2="{hi:.2f}" y1="{mid}" y2="{mid}"/>'
                f'<line x1="{lo:.2f}" x2="{lo:.2f}" y1="{mid - 6}" y2="{mid + 6}"/>'
                f'<line x1="{hi:.2f}" x2="{hi:.2f}" y1="{mid - 6}" y2="{mid + 6}"/></g>'
            )
        if p.difference is not None:
            parts.append(f'<circle cx="{x(p.difference):.2f}" cy="{mid}" r="6" fill="{colour}"/>')
        figure = "no pair" if p.difference is None else f"{p.difference:+.3f} {_ci(p.interval, signed=True)}"
        parts.append(
            f'<text class="figure" {at.figure_at(y)}>{esc(figure)} '
            f'<tspan class="tick">p={p.p_value:.3g}, {counted(p.pairs, "pair")}</tspan></text>'
        )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _drawn(draw: Callable[..., str], *args: Any, **options: Any) -> str:
    """A chart's wide and narrow drawings: the style sheet shows the one that fits the page (narrow under 820 px,
    where the wide one's text would shrink to about 7 px)."""
    return draw(*args, **options) + draw(*args, narrow=True, **options)


# --- the page --------------------------------------------------------------------------------------


def _page(title: str, subtitle: str, sections: Sequence[str]) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        'img-src data:">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{_STYLE}</style></head><body>"
        f'<header><h1>{esc(title)}</h1><p class="sub">{esc(subtitle)}</p></header>'
        + "".join(sections)
        + "</body></html>\n"
    )


def _provenance(items: Iterable[tuple[str, Any]], anchor: str = "provenance") -> str:
    rows = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in items if v is not None and v != "")
    return f'<section id="{anchor}"><h2>Provenance</h2><dl class="prov">{rows}</dl></section>'


def scorebridge_version() -> str:
    try:
        from importlib.metadata import version

        return version("scorebridge")
    except Exception:
        return "?"


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def scorer_text(identity: Mapping[str, Any] | None) -> str | None:
    """A scorer as the provenance names it: `name(option=value, ...)`."""
    if not identity:
        return None
    options = identity.get("options") or {}
    shown = ", ".join(f"{k}={v!r}" for k, v in options.items())
    return f"{identity.get('name')}({shown})"


def _summary_sections(rows: Sequence[tuple[str, Summary]], first: str, compared: str | None = None) -> list[str]:
    """The accuracy and failure sections; `compared`, for a comparison: the note saying what its bars count
    (each run's own rows), shown over a legend of base's lighter bars and new's."""
    kinds = _kinds_present(rows)
    heading, whose, intro = "Accuracy, with its 95% interval", "", ""
    if compared is not None:
        heading, whose = "Each run's accuracy on all its rows, with its 95% interval", " of each run's rows"
        intro = (
            f'<p class="note muted">{compared}</p><div class="legend"><span style="--c:{COLOURS["base"]}">base</span>'
            f'<span style="--c:{COLOURS["accuracy"]}">new</span></div>'
        )
    return [
        f'<section id="accuracy"><h2>{heading}</h2>{intro}'
        f"<figure>{_drawn(accuracy_chart, rows, paired=compared is not None)}</figure>{summary_table(rows, first)}"
        "</section>",
        f'<section id="failures"><h2>Failure kinds{whose}</h2>'
        f"{_legend(kinds)}<figure>{_drawn(failure_chart, rows)}</figure></section>",
    ]


def summary_page(
    title: str,
    summaries: Sequence[Summary],
    *,
    kind: str,
    grouped: Sequence[GroupedSummaries] = (),
    provenance: Iterable[tuple[str, Any]] = (),
    failing: FailingRows | None = None,
) -> str:
    """The page of one run: a chart row per summary (a scorer, an arm), then per group of each, then (`failing`)
    each scorer's failing rows, then provenance. The title names the scorers."""
    rows: list[tuple[str, Summary]] = [(s.name, s) for s in summaries]
    several = len(summaries) > 1
    for whole, groups in zip(summaries, grouped, strict=False):
        for g in groups.groups:
            rows.append((f"{whole.name} · {g.name}" if several else g.name, g))
    first = kind if not grouped else f"{kind} / {', '.join(grouped[0].columns)}"
    sections = _summary_sections(rows, first)
    if failing is not None:
        sections.append(_failing_section(failing))
    prov = [*provenance, ("made", _now()), ("scorebridge", scorebridge_version())]
    sections.append(_provenance(prov))
    if kind == "scorer":  # every scorer scored the same rows
        how_many = f"{counted(summaries[0].rows if summaries else 0, 'row')}, {counted(len(summaries), 'scorer')}"
    else:
        how_many = f"{counted(sum(s.rows for s in summaries), 'record')}, {counted(len(summaries), kind)}"
    return _page(title, f"{how_many} · {_now()}", sections)


class FailedRow(NamedTuple):
    """A row a scorer found wrong (or could not score for a failure: an error without a label): what the page
    shows of it, each text cut to `compare.TEXT_LIMIT` characters."""

    id: str
    line: int
    item: str | None
    output: str | None
    label: str | None
    grade: str
    failure_kind: str | None
    outcome: str | None
    explanation: str | None


class FailingRows:
    """The failing rows of a run, per scorer, for the score page: each scorer's `show` shortest (None: all) are
    kept as the rows go by, and all are counted, so a long run holds no more than `show` rows a scorer.

    A row fails when its Score is wrong (correct False) or unscored with a failure kind (an error on a row
    without a label). Shortest is by the length of the row's item, output and label text; ties keep the
    file's order. Its id is the row's `id` field, else its line.
    """

    def __init__(self, scorers: Sequence[str], show: int | None, *, fields: tuple[str | None, str, str]) -> None:
        self.scorers = list(scorers)
        self.show = show
        self.counts = [0] * len(scorers)
        self._item, self._output, self._label = fields
        self._kept: list[list[tuple[int, int, FailedRow]]] = [[] for _ in scorers]  # a heap of (-length, -line)

    def add(self, line: int, row: Mapping[str, Any], scores: Sequence[Any]) -> None:
        """Count (and keep, if among the shortest) the row `line` for each scorer whose Score in `scores` fails."""
        import heapq

        from .compare import ITEM_FIELDS, cut_text

        failed = [
            i
            for i, score in enumerate(scores)
            if score.correct is False or (score.correct is None and score.failure_kind)
        ]
        if not failed:
            return
        item_field = self._item or next((f for f in ITEM_FIELDS if f in row), None)
        texts = [row.get(item_field) if item_field else None, row.get(self._output), row.get(self._label)]
        length = sum(len(t) if isinstance(t, str) else len(str(t)) for t in texts if t is not None)
        for i in failed:
            self.counts[i] += 1
            kept = self._kept[i]
            if self.show is not None and len(kept) >= self.show and (-kept[0][0], -kept[0][1]) < (length, line):
                continue
            score = scores[i]
            shown_id = row.get("id")
            item, output, label = (cut_text(t) for t in texts)
            entry = FailedRow(
                str(shown_id) if shown_id is not None else f"line {line}",
                line,
                item,
                output,
                label,
                score.grade,
                score.failure_kind,
                cut_text(score.outcome),
                cut_text(score.explanation),
            )
            heapq.heappush(kept, (-length, -line, entry))
            if self.show is not None and len(kept) > self.show:
                heapq.heappop(kept)  # the longest (the latest of equal length)

    def rows(self, i: int) -> list[FailedRow]:
        """Scorer `i`'s kept failing rows, shortest first."""
        return [entry for _, _, entry in sorted(self._kept[i], key=lambda e: (-e[0], -e[1]))]


def _failing_section(failing: FailingRows) -> str:
    """The failing rows of each scorer, as the compare page lists flips: id, output, label, kind, explanation."""
    parts = []
    for i, name in enumerate(failing.scorers):
        rows = failing.rows(i)
        count = failing.counts[i]
        whose = f" of {esc(name)}" if len(failing.scorers) > 1 else ""
        if not count:
            parts.append(f'<h3 class="failing-none">No failing row{whose}</h3>' if whose else "<p>No failing row.</p>")
            continue
        more = (
            f"The {len(rows)} shortest of {count:,}, shortest first (<code>--show N</code> for more)."
            if len(rows) < count
            else "Shortest first."
        )
        body = []
        for r in rows:
            item = f'<div class="muted">{esc(r.item)}</div>' if r.item else ""
            label = "" if r.label is None else f"<code>{esc(r.label)}</code>"
            kind = esc(r.failure_kind) if r.failure_kind else "-"
            outcome = f'<div class="muted">outcome <code>{esc(r.outcome)}</code></div>' if r.outcome is not None else ""
            output = "" if r.output is None else f"<pre>{esc(r.output)}</pre>"
            body.append(
                f'<tr class="failing" data-id="{esc(r.id)}" data-line="{r.line}" data-kind="{kind}">'
                f'<td><b>{esc(r.id)}</b><div class="muted">line {r.line}</div>{item}</td>'
                f'<td><span class="grade {r.grade}">{r.grade}</span>{output}{outcome}</td><td>{label}</td>'
                f"<td>{kind}</td><td>{esc(r.explanation or '')}</td></tr>"
            )
        columns = (
            '<colgroup><col class="id"><col class="output"><col class="label"><col class="kind">'
            '<col class="why"></colgroup>'
        )
        head = "<th>row</th><th>output</th><th>label</th><th>failure kind</th><th>explanation</th>"
        heading = f"<h3>{esc(name)}: {counted(count, 'failing row')}</h3>" if whose else ""
        parts.append(f'{heading}<p class="note muted">{more}</p>{_table("failing", head, body, columns)}')
    total = sum(failing.counts)
    return f'<section id="failing"><h2>Failing rows: {total:,}</h2>{"".join(parts)}</section>'


def _flip_side_html(side: Any) -> str:
    kind = f" {esc(side.failure_kind)}" if side.failure_kind else ""
    parts = [f'<span class="grade {side.grade}">{side.grade}</span><span class="muted">{kind}</span>']
    if side.outcome is not None:
        parts.append(f" outcome <code>{esc(side.outcome)}</code>")
    if side.output is not None:
        parts.append(f"<pre>{esc(side.output)}</pre>")
    if side.explanation:
        parts.append(f'<div class="muted">{esc(side.explanation)}</div>')
    return "".join(parts)


def _flips_table(title: str, flips: Sequence[Flip], show: int | None, anchor: str) -> str:
    if not flips:
        return f'<section id="{anchor}"><h2>{esc(title)}: none</h2></section>'
    shown = flips if show is None else flips[:show]
    more = (
        f'<p class="note muted">The first {len(shown)} of {len(flips)}, shortest first.</p>'
        if len(shown) < len(flips)
        else '<p class="note muted">Shortest first.</p>'
    )
    body = []
    for f in shown:
        item = f'<div class="muted">{esc(f.base.item)}</div>' if f.base.item else ""
        label = f.base.label if f.base.label is not None else f.new.label
        if label is not None:
            item += f'<div class="muted">label <code>{esc(label)}</code></div>'
        group = f'<div class="muted">{esc(f.group)}</div>' if f.group else ""
        body.append(
            f'<tr class="flip" data-id="{esc(f.id)}"><td><b>{esc(f.id)}</b>{group}{item}</td>'
            f"<td>{_flip_side_html(f.base)}</td><td>{_flip_side_html(f.new)}</td></tr>"
        )
    columns = '<colgroup><col class="id"><col class="side"><col class="side"></colgroup>'
    table = _table("flips", "<th>item</th><th>base</th><th>new</th>", body, columns)
    return f'<section id="{anchor}"><h2>{esc(title)}: {len(flips)}</h2>{more}{table}</section>'


def _verdict_box(c: RunComparison, gate: Gate) -> str:
    """The verdict, coloured by what `--fail-on-regression` says when it was given (`gate`: its N, None for
    `significant`): red when the run fails it, green when it passes; else by McNemar's test: red for a
    significant drop, green for a significant gain, amber for more regressed than improved that is not
    significant, grey for the rest."""
    p = c.paired
    said = esc(p.verdict())
    if gate is not False:
        reason = c.regression(gate)
        flag = "--fail-on-regression" + ("=significant" if gate is None else f"={gate}" if gate else "")
        verdict_class = "drop" if reason else "pass"
        said += (
            f'<div class="gate">{esc(flag)}: fails: {esc(reason)}</div>'
            if reason
            else f'<div class="gate">{esc(flag)}: passes</div>'
        )
    else:
        verdict_class = (
            "drop"
            if p.significant_drop
            else "gain"
            if p.significant_gain
            else "warn"
            if p.regressed > p.improved
            else "same"
        )
    return f'<div class="verdict {verdict_class}" data-verdict="{verdict_class}">{said}</div>'


def _comparison_sections(c: RunComparison, show: int | None, gate: Gate, suffix: str) -> list[str]:
    """The sections of one comparison (one scorer's), each id ending in `suffix` (several scorers on a page)."""
    prov = c.provenance
    p = c.paired
    rows: list[tuple[str, Summary]] = [("base", c.base), ("new", c.new)]
    for g in c.groups:
        rows += [(f"{g.name} · base", g.base), (f"{g.name} · new", g.new)]
    columns = ", ".join(c.group_by)
    first = "run" if not c.groups else f"run / {columns}"
    in_group, or_group = (" (for a group, the group's rows in that run)", " or group") if c.groups else ("", "")
    only = f"{counted(len(c.only_base), 'row')} only in base, {len(c.only_new):,} only in new"
    unscored = f"{counted(c.unscored_pairs, 'pair')} unscored on a side"
    own_rows = (
        f"Each run on its own, as <code>scorebridge score</code> counts its file: all its rows{in_group}, paired "
        f"or not: base {counted(c.base.rows, 'row')}, new {c.new.rows:,}; {len(c.only_base)} only in base, "
        f"{len(c.only_new)} only in new, {unscored}. The paired figures above count only the "
        f"{counted(p.pairs, 'pair')} scored in both runs, so an accuracy here can differ from the paired one of the "
        f"same run{or_group}."
    )
    sections = _summary_sections(rows, first, compared=own_rows)
    diff_rows: list[tuple[str, PairedDifference]] = [("all", p)] + [(g.name, g.paired) for g in c.groups]
    table = _table(
        "paired",
        '<th></th><th class="num">new right</th><th class="num">new wrong</th>',
        [
            f'<tr><th>base right</th><td class="num" data-field="both_correct">{p.both_correct}</td>'
            f'<td class="num" data-field="regressed">{p.regressed}</td></tr>',
            f'<tr><th>base wrong</th><td class="num" data-field="improved">{p.improved}</td>'
            f'<td class="num" data-field="both_wrong">{p.both_wrong}</td></tr>',
        ],
    )
    flips = p.regressed + p.improved
    figures = (
        f'<p>On the <b data-field="pairs">{p.pairs}</b> {"pair" if p.pairs == 1 else "pairs"} scored in both runs: '
        f'base <b data-field="base_accuracy">{number_cell(p.base_accuracy)}</b>, new '
        f'<b data-field="new_accuracy">{number_cell(p.new_accuracy)}</b>; difference (new − base) '
        f'<b data-field="difference">{"-" if p.difference is None else format(p.difference, "+.3f")}</b>, '
        f'95% CI <b data-field="difference_interval">{_ci(p.interval, signed=True)}</b>; '
        f"exact McNemar test on the {counted(flips, 'flip')}: p = "
        f'<b data-field="p_value">{p.p_value:.4g}</b>. {unscored} {"is" if c.unscored_pairs == 1 else "are"} '
        f"left out; {only}.</p>"
    )
    sections.insert(
        0,
        f'<section id="verdict{suffix}">{_verdict_box(c, gate)}'
        f'<p class="muted">{p.regressed} regressed · {p.improved} improved · {len(c.only_base)} only in base · '
        f"{len(c.only_new)} only in new</p></section>",
    )
    sections.insert(  # what changed comes first, after the verdict; then each run's own figures
        1,
        f'<section id="difference{suffix}"><h2>Paired difference in accuracy (new − base) on the '
        f"{counted(p.pairs, 'pair')} scored in both runs, with its 95% interval</h2>"
        f"<figure>{_drawn(difference_chart, diff_rows)}</figure>{figures}{table}</section>",
    )
    if c.groups:
        by_group = paired_table([*((g.name, g.paired) for g in c.groups), ("all", p)], columns)
        sections.insert(
            2,
            f'<section id="paired-groups{suffix}"><h2>By {esc(columns)}, on the pairs scored in both runs</h2>'
            '<p class="note muted">Each group\'s accuracy in base and in new on its pairs scored in both runs (a '
            "pair's group is base's value), the difference and McNemar's test: the text report's "
            f"<code>by {esc(columns)}</code> table. A row in one run only is in no pair.</p>{by_group}</section>",
        )
    sections.append(_flips_table("Regressed (right in base, wrong in new)", c.regressed, show, f"regressed{suffix}"))
    sections.append(_flips_table("Improved (wrong in base, right in new)", c.improved, show, f"improved{suffix}"))
    for label, ids, anchor in (("Only in base", c.only_base, "only-base"), ("Only in new", c.only_new, "only-new")):
        if ids:
            listed = ", ".join(esc(i) for i in ids[:500]) + (" …" if len(ids) > 500 else "")
            sections.append(f'<section id="{anchor}{suffix}"><h2>{label}: {len(ids)}</h2><p>{listed}</p></section>')

    def side(name: str) -> list[tuple[str, Any]]:
        info = prov[name]
        size = info.get("bytes")
        return [
            (f"{name} file", info.get("source")),
            (f"{name} rows", f"{info.get('rows')}" + (f" ({size:,} bytes)" if size is not None else "")),
            (f"{name} scorer", scorer_text(info.get("scorer"))),
            (f"{name} arm", info.get("arm")),
        ]

    from .compare import id_text

    about = [*side("base"), *side("new"), ("paired by", id_text(prov["id"], str)), ("group by", ", ".join(c.group_by))]
    made = [("compared", prov.get("made")), ("scorebridge", prov.get("scorebridge"))]
    sections.append(_provenance([*about, *made], f"provenance{suffix}"))
    return sections


def comparison_page(
    comparisons: Sequence[RunComparison],
    *,
    title: str | None = None,
    show: int | None = 200,
    gate: Gate = False,
) -> str:
    """The page of a comparison, or of one per scorer (a section each): the verdict, the paired difference (with
    groups: each group's pairs), both runs' accuracy and failures on all their rows, the flips, provenance.

    Each figure says what it counts: the pairs scored in both runs, or each run's own rows (for a group, the
    group's rows in that run, paired or not), which differ where a row is in one run only or a pair is
    unscored on a side. `gate` is `--fail-on-regression`'s N (None: `significant`; False: not given), which
    colours each verdict (`_verdict_box`). The title names the scorers and the two runs.
    """
    if not comparisons:
        raise ValueError("a comparison page needs at least one comparison")
    first = comparisons[0]
    prov = first.provenance
    scorers = [c.scorer for c in comparisons if c.scorer]
    runs = f"{prov['base']['source']} → {prov['new']['source']}"
    name = title or (f"{', '.join(scorers)}: {runs}" if scorers else runs)
    if len(comparisons) == 1:
        sections = _comparison_sections(first, show, gate, "")
    else:
        listed = "".join(
            f'<li><a href="#scorer-{k}">{esc(c.scorer)}</a>: {esc(c.paired.verdict())}</li>'
            for k, c in enumerate(comparisons, start=1)
        )
        sections = [f'<nav id="scorers"><p>{len(comparisons)} scorers compared:</p><ul>{listed}</ul></nav>']
        for k, c in enumerate(comparisons, start=1):
            inner = "".join(_comparison_sections(c, show, gate, f"-{k}"))
            sections.append(
                f'<section class="scorer" id="scorer-{k}" data-scorer="{esc(c.scorer)}">'
                f'<h2 class="scorer">Scorer {esc(c.scorer)}</h2>{inner}</section>'
            )
    from .compare import not_compared

    left = not_compared(comparisons)
    if left:
        sections.insert(0, f'<p class="note muted" id="not-compared">{esc("; ".join(left))}</p>')
    pairs = ", ".join(counted(c.paired.pairs, "pair") for c in comparisons)
    return _page(name, f"scorebridge compare · {pairs} · {_now()}", sections)


def write_page(path: str | os.PathLike[str], page: str) -> str:
    """Write `page` to `path` as UTF-8 (its folder must exist); the path, as text."""
    target = os.fspath(path)
    with open(target, "w", encoding="utf-8") as f:
        f.write(page)
    return target
