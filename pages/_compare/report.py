"""A Compare run as one self-contained HTML file: its settings, charts, sentences and tables, for
mailing or archiving. plotly.js is inlined (no CDN, no network: the file opens offline, each chart
still zooms, hovers and saves as PNG from its camera button), tables are plain HTML tables.

Every text in it is escaped: settings and table cells by ``html.escape`` (``DataFrame.to_html``
escapes), chart labels were escaped when the figures were built (``render.plot_text``), and the
figures' JSON has every ``</`` written ``<\\/`` so no text can close the script holding it. Collects
and writes; draws only the download button.
"""

from __future__ import annotations

import datetime as dt
import html
import json
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd
import plotly.graph_objects as go
import plotly.offline
import streamlit as st

import bpe_core
from pages._ui import charts, tables

REPORT_CSS = (
    "body{font-family:'Noto Sans','Segoe UI',Helvetica,Arial,sans-serif;max-width:1100px;margin:2rem auto;"
    "padding:0 1rem;color:#212529}h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid "
    "#dee2e6}table{border-collapse:collapse;font-size:0.85rem;margin:0.5rem 0}th,td{border:1px solid #dee2e6;"
    "padding:2px 6px;text-align:right}th{background:#f8f9fa}td:first-child,th:first-child{text-align:left}"
    "dl{display:grid;grid-template-columns:max-content auto;gap:2px 1rem}dt{font-weight:600}"
    ".sentences p{margin:0.2rem 0}.chart{margin:0.5rem 0}.wide{overflow-x:auto}"
)
REPORT_TEMPLATE = "plotly_white"
#: The charts' camera button in the report saves PNG (the app's saves SVG: both are a click away).
REPORT_PLOT_CONFIG = {"displaylogo": False, "responsive": True, "toImageButtonOptions": {"format": "png", "scale": 2}}


@dataclass
class Report:
    """What one Compare run showed, collected while the page draws it."""

    settings: list[tuple[str, str]] = field(default_factory=list)
    parts: list[tuple[str, str, object]] = field(default_factory=list)  # (kind, title, content)

    def setting(self, name: str, value: object) -> None:
        self.settings.append((name, str(value)))

    def figure(self, title: str, figure: go.Figure) -> None:
        """Keeps ``figure`` itself, restyled only when the report is written (a click, not every run of
        the page): it must not change after (Compare's figures are shared, built once and never changed)."""
        self.parts.append(("figure", title, figure))

    def table(self, title: str, frame: pd.DataFrame) -> None:
        self.parts.append(("table", title, frame.copy()))

    def sentences(self, lines: list[str]) -> None:
        if lines:
            self.parts.append(("sentences", "", list(lines)))

    @property
    def empty(self) -> bool:
        return not self.parts


@charts.plotly_work
def _figure_html(index: int, figure: go.Figure) -> str:
    """A div and the script that draws ``figure`` (a restyled copy) in it; the JSON with ``</`` as ``<\\/``."""
    figure = go.Figure(figure)
    # Streamlit's template is styled by its front end; the file has none, so plotly's own light one
    figure.update_layout(template=REPORT_TEMPLATE)
    payload = figure.to_json().replace("</", "<\\/")
    config = json.dumps(REPORT_PLOT_CONFIG)
    height = int(figure.layout.height or 450)
    return (
        f'<div class="chart" id="chart{index}" style="height:{height}px"></div>'
        f"<script>(function(){{var f={payload};Plotly.newPlot('chart{index}',f.data,f.layout,{config});}})();</script>"
    )


def _part_html(index: int, kind: str, title: str, content) -> str:
    heading = f"<h2>{html.escape(title, quote=False)}</h2>" if title else ""
    if kind == "figure":
        return heading + _figure_html(index, content)
    if kind == "table":
        frame, _ = tables.without_missing(content)  # a dash where a cell is empty, never "None"
        table = frame.to_html(index=False, escape=True, border=0, float_format=_number)
        return f'{heading}<div class="wide">{table}</div>'
    lines = "".join(f"<p>{html.escape(line, quote=False)}</p>" for line in content)
    return f'<div class="sentences">{lines}</div>'


def _number(value: float) -> str:
    return f"{value:,.3f}".rstrip("0").rstrip(".")


def report_html(report: Report, *, title: str = "Tokenizer comparison", now: dt.datetime | None = None) -> bytes:
    """The report as one HTML document (UTF-8): plotly.js inline, then the settings and each part."""
    now = now or dt.datetime.now(dt.timezone.utc)
    settings = report.settings + [("made", now.strftime("%Y-%m-%d %H:%M UTC")), ("bpe_core", bpe_core.__version__)]
    listing = "".join(f"<dt>{html.escape(name)}</dt><dd>{html.escape(value)}</dd>" for name, value in settings)
    body = "".join(_part_html(i, *part) for i, part in enumerate(report.parts))
    plotly_js = plotly.offline.get_plotlyjs().replace("</script", "<\\/script")
    document = (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{REPORT_CSS}</style><script>{plotly_js}</script></head><body>"
        f"<h1>{html.escape(title)}</h1><h2>Settings</h2><dl>{listing}</dl>{body}</body></html>"
    )
    return document.encode("utf-8")


def report_button(report: Report, *, key: str, file_name: str = "tokenizer-comparison.html") -> None:
    """One download button for the report, written when it is pressed (about 5 MB: plotly.js inside)."""
    if report.empty:
        return
    data: Callable[[], bytes] = lambda: report_html(report)  # noqa: E731 - a deferred download
    st.download_button(
        "⬇ Report as HTML (charts, tables, settings)",
        data,
        file_name=file_name,
        mime="text/html",
        key=key,
        help="One self-contained file: opens offline in any browser; its charts still hover, zoom and save as PNG.",
    )
