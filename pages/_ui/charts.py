"""plotly figures the pages draw: grouped bars with a parity line, a heatmap, line charts, count
bars. Builders only (they return figures; pages call ``st.plotly_chart``). Every label that can
come from the user goes through ``render.plot_text``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from .render import plot_text

MARGIN = dict(l=10, r=10, t=50, b=10)
PARITY_COLOUR = "#495057"


def compact(figure: go.Figure, height: int, top: int = 50, **layout) -> go.Figure:
    """Give a figure the app's small margins and a height."""
    figure.update_layout(height=height, margin={**MARGIN, "t": top}, **layout)
    return figure


def grouped_bars(
    frame: pd.DataFrame, metric: str, names: Sequence[str], order: Sequence[str], title: str, axis_title: str
) -> go.Figure:
    """One bar per (sample label, tokenizer name) of ``frame[metric]``, samples in ``order``."""
    figure = go.Figure()
    for name in names:
        part = frame[frame["tokenizer"] == name].set_index("label").reindex(order)
        figure.add_bar(
            name=plot_text(name),
            x=[plot_text(label) for label in order],
            y=part[metric].tolist(),
            hovertemplate="%{x}: %{y:.2f}<extra>" + plot_text(name) + "</extra>",
        )
    return compact(
        figure, 430, barmode="group", title=plot_text(title), yaxis_title=plot_text(axis_title),
        legend_title_text="tokenizer",
    )


def add_parity_line(figure: go.Figure, reference_label: str) -> None:
    """The dashed line at premium 1.0, named in the legend (an annotation would hide behind bars)."""
    figure.add_hline(y=1.0, line_dash="dash", line_color=PARITY_COLOUR, line_width=2)
    figure.add_scatter(
        x=[None],
        y=[None],
        mode="lines",
        line=dict(dash="dash", color=PARITY_COLOUR, width=2),
        name=plot_text(f"parity (1.0 = {reference_label})"),
        hoverinfo="skip",
    )


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


def lines(series: Mapping[str, tuple[Sequence, Sequence]], hover: str, height: int, **layout) -> go.Figure:
    """One line per named (x, y) series; ``hover`` is the hover template before the series name."""
    figure = go.Figure()
    for name, (x, y) in series.items():
        figure.add_scatter(
            x=list(x), y=list(y), mode="lines", name=plot_text(name),
            hovertemplate=hover + "<extra>" + plot_text(name) + "</extra>",
        )  # fmt: skip
    return compact(figure, height, **layout)


def line(x: Sequence, y: Sequence, *, name: str, title: str, x_title: str, y_title: str, height: int,
         markers: bool = False, top: int = 40) -> go.Figure:  # fmt: skip
    """A single line (with markers if asked) under a title."""
    figure = go.Figure(
        go.Scatter(x=list(x), y=list(y), mode="lines+markers" if markers else "lines", name=plot_text(name))
    )
    return compact(
        figure, height, top=top, title=plot_text(title), xaxis_title=plot_text(x_title), yaxis_title=plot_text(y_title)
    )


def count_bars(values: Iterable[int], x_title: str, y_title: str, title: str) -> go.Figure:
    """How often each value occurs, as bars in value order."""
    counts = Counter(values)
    keys = sorted(counts)
    labels = {"x": plot_text(x_title), "y": plot_text(y_title)}
    figure = px.bar(x=keys, y=[counts[k] for k in keys], labels=labels, title=plot_text(title))
    return compact(figure, 300, top=40)
