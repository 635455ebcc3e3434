"""plotly figures the pages draw: grouped bars with a parity line, a heatmap, line charts, count
bars, and the colours: one per tokenizer (the same on every chart, whatever else is chosen) and a
palette long enough for 21 languages. Builders only (they return figures; pages call
``st.plotly_chart``). Every label that can come from the user goes through ``render.plot_text``.

plotly is not thread-safe while it builds (its cache of property validators shares parameter dicts
between lookups, and a figure's nested properties are created on first read without a lock), and
every browser session runs its script in a thread of its own: two sessions building charts at once
could get "Invalid property specified for object of type Scatter: 'colorbar'". So every figure is
built or changed under ``PLOTLY_LOCK`` (``plotly_work`` for a function; ``with PLOTLY_LOCK:`` for
a line). Sending a built figure (``st.plotly_chart``) only copies its dicts and needs no lock."""

from __future__ import annotations

import functools
import hashlib
import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import ParamSpec, TypeVar

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from .render import plot_text

MARGIN = dict(l=10, r=10, t=50, b=10)
PARITY_COLOUR = "#495057"
#: The built-in tokenizers' colours, by tokenizer key: fixed, so GPT-2 is red on every chart.
BUILTIN_COLOURS = {
    "default": "#7048e8",
    "gpt2": "#e03131",
    "cl100k": "#1971c2",
    "o200k": "#0c8599",
    "llama3": "#2f9e44",
    "qwen3.5": "#f08c00",
    "mistral": "#c2255c",
    "deepseek": "#364fc7",
    "qwen": "#e8590c",
    "o200k_harmony": "#66a80f",
}
#: Colours for the other tokenizers (trained, saved, imported), picked by a hash of the name: greys,
#: browns and light tints, so none is mistaken for a built-in's saturated colour.
OTHER_COLOURS = [
    "#495057",
    "#a0522d",
    "#fcc419",
    "#20c997",
    "#ff8787",
    "#74c0fc",
    "#b197fc",
    "#f783ac",
    "#ffa94d",
    "#8ce99a",
    "#868e96",
]
#: 24 distinct colours for one line per sample (21 languages, 7 programs): plotly's Dark24.
SERIES_COLOURS = px.colors.qualitative.Dark24
SERIES_DASHES = ["solid", "dash", "dot", "dashdot"]

#: Held while any plotly figure is built or changed (the module's docstring says why); reentrant, as
#: builders call builders.
PLOTLY_LOCK = threading.RLock()
_P = ParamSpec("_P")
_R = TypeVar("_R")


def plotly_work(build: Callable[_P, _R]) -> Callable[_P, _R]:
    """``build``, run under ``PLOTLY_LOCK``."""

    @functools.wraps(build)
    def locked(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with PLOTLY_LOCK:
            return build(*args, **kwargs)

    return locked


#: plotly's modebar for every chart: its camera button saves the chart as SVG, drawn by plotly.js in the
#: browser (no kaleido, no server, no network); no plotly logo, no link to plotly's cloud.
PLOT_CONFIG: dict = {"displaylogo": False, "toImageButtonOptions": {"format": "svg", "scale": 1}}


def plot_config(name: str) -> dict:
    """``st.plotly_chart``'s ``config``: ``PLOT_CONFIG`` with the file name the camera button saves to
    (``name``.svg; anything but letters, digits, ``-`` and ``_`` becomes ``-``).

    >>> plot_config("Compression: cl100k")["toImageButtonOptions"]["filename"]
    'Compression-cl100k'
    """
    filename = "-".join(part for part in re.split(r"[^\w-]+", name, flags=re.ASCII) if part) or "chart"
    return {**PLOT_CONFIG, "toImageButtonOptions": {**PLOT_CONFIG["toImageButtonOptions"], "filename": filename}}


#: The smallest text a chart draws (CSS pixels): plotly's own default, kept for every label it writes.
FONT_SIZE = 12


@plotly_work
def compact(figure: go.Figure, height: int, top: int = 50, **layout) -> go.Figure:
    """Give a figure the app's small margins, a height, and text of FONT_SIZE px or more (plotly's
    bars and heatmap cells would otherwise shrink their text to fit; ``uniformtext`` keeps it whole,
    and hides a label that does not fit rather than drawing it smaller)."""
    figure.update_layout(
        height=height,
        margin={**MARGIN, "t": top},
        font_size=FONT_SIZE,
        uniformtext=dict(minsize=FONT_SIZE, mode="hide"),
        **layout,
    )
    return figure


def log_ticks(low: float, high: float) -> list[int]:
    """The 1-2-5 values from ``low`` to ``high``: where a log axis is labelled (plotly's own labels
    between the powers of ten are small digits, 9 px).

    >>> log_ticks(256, 2000), log_ticks(1, 30)
    ([500, 1000, 2000], [1, 2, 5, 10, 20])
    """
    ticks: list[int] = []
    power = 1
    while power <= max(high, 1):
        ticks += [power * step for step in (1, 2, 5) if low <= power * step <= high]
        power *= 10
    return ticks


@plotly_work
def log_x(figure: go.Figure, values: Sequence[float]) -> go.Figure:
    """Make the x axis logarithmic, labelled at ``log_ticks`` of ``values`` with thousands separators
    (12 px like every label; the axis's own minor digits are not drawn)."""
    shown = [v for v in values if v and v > 0]
    ticks = log_ticks(min(shown), max(shown)) if shown else []
    figure.update_xaxes(type="log", tickvals=ticks or None, ticktext=[f"{t:,}" for t in ticks] or None)
    return figure


def _hashed_colour(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode("utf-8", "surrogatepass")).digest()[:4], "big") % len(
        OTHER_COLOURS
    )


def tokenizer_colours(keys: Sequence[str]) -> dict[str, str]:
    """One colour per tokenizer key, stable across pages and selections: the built-ins' own, others
    by a hash of their name (``new:x`` and ``lib:x`` share it, so saving keeps the colour); only when
    two chosen tokenizers would share a colour does the later one take the next free one.

    >>> tokenizer_colours(["gpt2"])["gpt2"] == tokenizer_colours(["new:mine", "cl100k", "gpt2"])["gpt2"]
    True
    >>> tokenizer_colours(["new:mine"])["new:mine"] == tokenizer_colours(["gpt2", "lib:mine"])["lib:mine"]
    True
    """
    colours: dict[str, str] = {}
    for key in keys:
        if key in BUILTIN_COLOURS:
            colours[key] = BUILTIN_COLOURS[key]
    taken = set(colours.values())
    for key in keys:
        if key in colours:
            continue
        start = _hashed_colour(key.split(":", 1)[-1])
        free = [OTHER_COLOURS[(start + k) % len(OTHER_COLOURS)] for k in range(len(OTHER_COLOURS))]
        colours[key] = next((c for c in free if c not in taken), free[0])
        taken.add(colours[key])
    return {key: colours[key] for key in keys}


@plotly_work
def grouped_bars(
    frame: pd.DataFrame,
    metric: str,
    names: Sequence[str],
    order: Sequence[str],
    title: str,
    axis_title: str,
    colours: Mapping[str, str] | None = None,
) -> go.Figure:
    """One bar per (sample label, tokenizer name) of ``frame[metric]``, samples in ``order``;
    ``colours`` maps a tokenizer name to its colour (``tokenizer_colours``). More than MAX_BAR_GROUPS
    samples are drawn as ``dot_rows`` instead (bars that thin would crowd their labels)."""
    if len(order) > MAX_BAR_GROUPS:
        return dot_rows(frame, metric, names, order, title, axis_title, colours)
    figure = go.Figure()
    for name in names:
        part = frame[frame["tokenizer"] == name].set_index("label").reindex(order)
        figure.add_bar(
            name=plot_text(name),
            marker_color=(colours or {}).get(name),
            x=[plot_text(label) for label in order],
            y=part[metric].tolist(),
            hovertemplate="%{x}: %{y:.2f}<extra>" + plot_text(name) + "</extra>",
        )
    return compact(
        figure,
        430,
        barmode="group",
        title=plot_text(title),
        yaxis_title=plot_text(axis_title),
        legend_title_text="tokenizer",
    )


#: Samples a grouped bar chart holds at most; past it, one row of dots per sample.
MAX_BAR_GROUPS = 24
#: Pixels per row of ``dot_rows`` (a 12 px label and its gap).
ROW_HEIGHT = 22


@plotly_work
def dot_rows(
    frame: pd.DataFrame,
    metric: str,
    names: Sequence[str],
    order: Sequence[str],
    title: str,
    axis_title: str,
    colours: Mapping[str, str] | None = None,
) -> go.Figure:
    """``grouped_bars`` for many samples: one row per sample (its name at the left, in ``order`` from the
    top), one dot per tokenizer in its colour, the value along the x axis; as tall as the rows need."""
    figure = go.Figure()
    labels = [plot_text(label) for label in order]
    for name in names:
        part = frame[frame["tokenizer"] == name].set_index("label").reindex(order)
        figure.add_scatter(
            name=plot_text(name),
            x=part[metric].tolist(),
            y=labels,
            mode="markers",
            marker=dict(size=10, color=(colours or {}).get(name), line=dict(width=1, color="#ffffff")),
            hovertemplate="%{y}: %{x:.2f}<extra>" + plot_text(name) + "</extra>",
        )
    figure.update_yaxes(type="category", autorange="reversed", showgrid=True, gridcolor="#eef0f2")
    return compact(
        figure,
        ROW_HEIGHT * len(order) + 140,
        title=plot_text(title),
        xaxis_title=plot_text(axis_title),
        legend_title_text="tokenizer",
    )


@plotly_work
def add_parity_line(figure: go.Figure, reference_label: str) -> None:
    """The dashed line at premium 1.0, named in the legend (an annotation would hide behind bars);
    across the chart, or down it when the values run along the x axis (``dot_rows``, horizontal bars)."""
    if figure.layout.yaxis.type == "category":
        figure.add_vline(x=1.0, line_dash="dash", line_color=PARITY_COLOUR, line_width=2)
    else:
        figure.add_hline(y=1.0, line_dash="dash", line_color=PARITY_COLOUR, line_width=2)
    figure.add_scatter(
        x=[None],
        y=[None],
        mode="lines",
        line=dict(dash="dash", color=PARITY_COLOUR, width=2),
        name=plot_text(f"parity (1.0 = {reference_label})"),
        hoverinfo="skip",
    )


@plotly_work
def heatmap(grid: pd.DataFrame, title: str, higher_is_better: bool) -> go.Figure:
    """Rows of ``grid`` (sample labels) against its columns (tokenizer names), values written in the cells."""
    values = grid.astype(float)
    figure = go.Figure(
        go.Heatmap(
            z=values.values.tolist(),
            x=[plot_text(str(n)) for n in grid.columns],
            y=[plot_text(str(label)) for label in grid.index],
            text=[["" if pd.isna(v) else f"{v:.2f}" for v in row] for row in values.values],
            texttemplate="%{text}",
            colorscale="RdYlGn" if higher_is_better else "RdYlGn_r",
            colorbar_title=plot_text(title),
            hovertemplate="%{y} · %{x}: %{z:.3f}<extra></extra>",
        )
    )
    return compact(figure, max(300, 26 * len(grid.index) + 120), title=plot_text(title), yaxis_autorange="reversed")


@plotly_work
def lines(series: Mapping[str, tuple[Sequence, Sequence]], hover: str, height: int, **layout) -> go.Figure:
    """One line per named (x, y) series; ``hover`` is the hover template before the series name.
    Each series has its own colour up to 24 (SERIES_COLOURS), then colour and dash together."""
    figure = go.Figure()
    for index, (name, (x, y)) in enumerate(series.items()):
        colour = SERIES_COLOURS[index % len(SERIES_COLOURS)]
        dash = SERIES_DASHES[(index // len(SERIES_COLOURS)) % len(SERIES_DASHES)]
        figure.add_scatter(
            x=list(x),
            y=list(y),
            mode="lines",
            name=plot_text(name),
            line=dict(color=colour, dash=dash),
            hovertemplate=hover + "<extra>" + plot_text(name) + "</extra>",
        )
    return compact(figure, height, **layout)


@plotly_work
def line(
    x: Sequence,
    y: Sequence,
    *,
    name: str,
    title: str,
    x_title: str,
    y_title: str,
    height: int,
    markers: bool = False,
    top: int = 40,
) -> go.Figure:
    """A single line (with markers if asked) under a title."""
    figure = go.Figure(
        go.Scatter(x=list(x), y=list(y), mode="lines+markers" if markers else "lines", name=plot_text(name))
    )
    return compact(
        figure, height, top=top, title=plot_text(title), xaxis_title=plot_text(x_title), yaxis_title=plot_text(y_title)
    )


@plotly_work
def count_bars(values: Iterable[int], x_title: str, y_title: str, title: str) -> go.Figure:
    """How often each value occurs, as bars in value order."""
    counts = Counter(values)
    keys = sorted(counts)
    labels = {"x": plot_text(x_title), "y": plot_text(y_title)}
    figure = px.bar(x=keys, y=[counts[k] for k in keys], labels=labels, title=plot_text(title))
    return compact(figure, 300, top=40)


#: Lines not in the spotlight: thin and light, named on hover.
BACKGROUND_LINE = "#ced4da"


@plotly_work
def spotlight(
    figure: go.Figure, highlight: Sequence[str], *, others: str = "other samples (hover for names)"
) -> go.Figure:
    """A line chart read at a glance: the series named in ``highlight`` (a trace's ``legendgroup``,
    else its name) keep their colours, drawn thick and on top, each named at its last point; every
    other series is a thin grey line that shows its name and value in its own colour on hover, and all
    of them share one legend entry (``others``, a click hides or shows them). The legend is one row
    under the chart that wraps: it never scrolls."""
    wanted = set(highlight)
    front: list = []
    back: list = []
    for trace in figure.data:
        (front if (trace.legendgroup or trace.name) in wanted else back).append(trace)
    for trace in back:
        trace.update(
            line=dict(color=BACKGROUND_LINE, width=1),
            showlegend=False,
            legendgroup="others",
            hoverlabel=dict(bgcolor=trace.line.color or BACKGROUND_LINE),
        )
    labels = []
    log_x = figure.layout.xaxis.type == "log"
    for trace in front:
        trace.update(line=dict(width=3))
        points = [(x, y) for x, y in zip(trace.x or (), trace.y or (), strict=False) if x is not None and y is not None]
        if points and trace.showlegend is not False:
            x, y = points[-1]
            labels.append(
                dict(
                    x=math.log10(x) if log_x and x > 0 else x,
                    y=y,
                    text=trace.name,
                    showarrow=False,
                    xanchor="left",
                    xshift=4,
                    font=dict(color=trace.line.color, size=12),
                )
            )
    spread_labels(labels, figure, [y for trace in figure.data for y in (trace.y or ()) if y is not None])
    figure.data = tuple(back + front)
    if back:
        figure.add_scatter(
            x=[None],
            y=[None],
            mode="lines",
            name=plot_text(others),
            legendgroup="others",
            line=dict(color=BACKGROUND_LINE, width=1),
            hoverinfo="skip",
        )
    figure.update_layout(
        annotations=list(figure.layout.annotations) + labels,
        hovermode="closest",
        legend=dict(orientation="h", yanchor="top", y=-0.22, xanchor="left", x=0),
        margin={**MARGIN, "t": figure.layout.margin.t or MARGIN["t"], "r": 110, "b": 40},
    )
    return figure


#: Pixels between two line-end labels, at least (a 12 px line of text and a little air).
LABEL_GAP = 15


def spread_labels(labels: list[dict], figure: go.Figure, values: Sequence[float]) -> None:
    """Move line-end labels (annotations at their line's last point) up just enough that no two are
    drawn over each other: ``yshift`` from the bottom one up, at LABEL_GAP px at least, the pixels per
    unit of y estimated from the figure's height and the range of ``values`` (a linear y axis)."""
    if len(labels) < 2 or not values:
        return
    low, high = min(values), max(values)
    margin = figure.layout.margin
    plot = (figure.layout.height or 450) - (margin.t or 0) - (margin.b or 0) - 80  # the legend under it
    per_unit = plot / (high - low) if high > low else 0.0
    last = float("-inf")
    for label in sorted(labels, key=lambda item: item["y"]):
        at = (label["y"] - low) * per_unit
        shift = max(0.0, last + LABEL_GAP - at)
        if shift:
            label["yshift"] = shift
        last = at + shift


def default_spotlight(final: Mapping[str, float], reference: str | None, count: int = 2) -> list[str]:
    """The series to highlight first: the reference, the ``count`` with the lowest final value (the
    costliest, for characters per token) and the one with the highest.

    >>> default_spotlight({"en": 4.0, "hi": 1.0, "zh": 1.5, "de": 3.5, "my": 0.8}, "en")
    ['en', 'my', 'hi']
    """
    ordered = sorted(final, key=lambda name: final[name])
    chosen = [reference] if reference is not None and reference in final else []
    chosen += [name for name in ordered[:count] if name not in chosen]
    if ordered and ordered[-1] not in chosen:
        chosen.append(ordered[-1])
    return chosen
