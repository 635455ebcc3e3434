"""What the Fairer training page shows of one ``compare_training`` result: metric cards, the premium
per language with bootstrap error bars and a parity line, the premium against vocabulary size, the
merges each language was served, and the table with its CSV. Builders and drawing only: the inputs
and the run are ``inputs``' and ``run``'s. User text reaches
plotly only through ``plot_text`` and Markdown only through ``md``.
"""

from __future__ import annotations

from collections import Counter

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from plotly.colors import qualitative

from bpe_core.analysis.csv_export import frame_csv
from bpe_core.analysis.parity_report import PARITY, STANDARD, ParityComparison
from pages._ui import charts
from pages._ui.render import markdown_text as md
from pages._ui.render import plot_text
from pages._ui.widgets import show_table

K_BESIDE = "fair.beside"
K_HIGHLIGHT = "fair.highlight"


def metric_cards(result: ParityComparison) -> None:
    """Worst premium both ways, the spread of premiums (Gini) and what the reference language pays."""
    before, after = result.fairness[STANDARD], result.fairness[PARITY]
    names = result.names
    cells = [*st.columns(2), *st.columns(2)]  # two rows: four labels side by side would be cut at 1280 px
    cells[0].metric(
        "Worst premium, standard BPE",
        f"{before.max_premium:.2f}x",
        help=md(f"{names.get(before.worst, before.worst)}, on the held-out sentences"),
    )
    cells[1].metric(
        "Worst premium, parity-aware",
        f"{after.max_premium:.2f}x",
        f"{after.max_premium / before.max_premium - 1:+.1%}",
        delta_color="inverse",
        help=md(f"{names.get(after.worst, after.worst)}; the change is against standard BPE"),
    )
    cells[2].metric(
        "Gini of token counts",
        f"{after.gini:.3f}",
        f"{after.gini - before.gini:+.3f}",
        delta_color="inverse",
        help=f"Standard BPE: {before.gini:.3f}. 0 is parity.",
    )
    reference = names.get(result.reference, result.reference)
    cells[3].metric(
        f"{md(reference)} pays",
        f"{result.reference_cost:+.1%}",
        delta_color="off",
        help=md(f"{reference}'s held-out tokens, parity-aware against standard BPE"),
    )
    excess = (before.max_premium - 1, after.max_premium - 1)
    if excess[0] > 0:
        st.caption(
            f"The worst premium's excess over parity (premium − 1) went from {excess[0]:.2f} to "
            f"{excess[1]:.2f}: {1 - excess[1] / excess[0]:.0%} of it removed."
        )


@charts.plotly_work
def premium_figure(result: ParityComparison, *, beside: bool = False) -> go.Figure:
    """Premium per language, one row per language (dearest under standard BPE at the top, its name at
    the left: 21 names never overlap), one bar per tokenizer: the two trained ones, and with
    ``beside`` the other tokenizers measured too, on a log axis then (GPT-2's 10x would flatten the
    trained ones' 1.2x on a linear one); error bars from the bootstrap interval, and the parity line."""
    rows = result.rows()
    standard = {r["language"]: r["premium"] for r in rows if r["tokenizer"] == STANDARD}
    order = sorted(standard, key=lambda language: -standard[language])
    labels = [STANDARD, PARITY] + ([t for t in result.fairness if t not in (STANDARD, PARITY)] if beside else [])
    figure = go.Figure()
    for label in labels:
        by_language = {r["language"]: r for r in rows if r["tokenizer"] == label}
        shown = [by_language[language] for language in order]
        figure.add_bar(
            name=plot_text(label),
            orientation="h",
            y=[plot_text(r["name"]) for r in shown],
            x=[r["premium"] for r in shown],
            error_x=dict(
                type="data",
                symmetric=False,
                array=[r["high"] - r["premium"] for r in shown],
                arrayminus=[r["premium"] - r["low"] for r in shown],
            ),
            customdata=[[r["low"], r["high"]] for r in shown],
            hovertemplate="%{y}: %{x:.2f}x (%{customdata[0]:.2f}-%{customdata[1]:.2f})<extra>"
            + plot_text(label)
            + "</extra>",
        )
    title = f"Held-out premium against {result.names.get(result.reference, result.reference)} (95% intervals)"
    figure.update_yaxes(type="category", autorange="reversed")
    if beside:
        premiums = [r["premium"] for r in rows if r["tokenizer"] in labels and r["premium"]]
        ticks = [t for t in (0.5, 1, 1.5, 2, 3, 5, 10, 20, 50) if min(premiums) / 1.2 <= t <= max(premiums) * 1.2]
        figure.update_xaxes(type="log", tickvals=ticks, ticktext=[f"{t:g}x" for t in ticks])
    charts.compact(
        figure,
        len(order) * (10 + 9 * len(labels)) + 160,
        barmode="group",
        title=plot_text(title),
        xaxis_title="tokens relative to the reference" + (" (log scale)" if beside else ""),
        legend_title_text="tokenizer",
    )
    charts.add_parity_line(figure, result.names.get(result.reference, result.reference))
    return figure


@charts.plotly_work
def curves_figure(result: ParityComparison, highlight: list[str], steps: int = 20) -> go.Figure:
    """Premium against vocabulary size, one colour per language: standard BPE solid, parity dashed;
    one legend entry per language; the ``highlight`` languages in colour, the rest grey and named
    on hover (``charts.spotlight``)."""
    rows = result.premium_curves(steps)
    figure = go.Figure()
    palette = qualitative.Dark24
    languages = list(result.heldout)
    for label, dash in ((STANDARD, "solid"), (PARITY, "dash")):
        for index, language in enumerate(languages):
            points = [r for r in rows if r["tokenizer"] == label and r["text"] == language]
            shown = plot_text(result.names.get(language, language))
            # one legend entry per language (its solid line) toggles both of its lines
            figure.add_scatter(
                x=[r["vocab_size"] for r in points],
                y=[r["premium"] for r in points],
                mode="lines",
                name=shown,
                line=dict(dash=dash, color=palette[index % len(palette)]),
                legendgroup=plot_text(language),
                showlegend=label == STANDARD,
                hovertemplate="vocab %{x:,}: %{y:.2f}x<extra>" + shown + ", " + plot_text(label) + "</extra>",
            )
    charts.compact(
        figure,
        500,
        title="Premium against vocabulary size (solid: standard, dashed: parity-aware)",
        xaxis_title="vocabulary size (256 bytes + first k merges)",
        yaxis_title="premium",
    )
    return charts.spotlight(figure, [plot_text(language) for language in highlight], others="other languages")


def default_languages(result: ParityComparison, count: int = 2) -> list[str]:
    """The reference and the ``count`` languages standard BPE charges most for, on the held-out text."""
    rows = [r for r in result.rows() if r["tokenizer"] == STANDARD]
    dearest = [r["language"] for r in sorted(rows, key=lambda r: -r["premium"]) if r["language"] != result.reference]
    return [result.reference, *dearest[:count]]


def language_picker(result: ParityComparison) -> list[str]:
    """The languages drawn in colour on the curves (the user's, first ``default_languages``)."""
    languages = list(result.heldout)
    chosen = st.session_state.get(K_HIGHLIGHT)
    if chosen is None or any(language not in languages for language in chosen):
        st.session_state[K_HIGHLIGHT] = [x for x in default_languages(result) if x in languages]
    return st.multiselect(
        "Languages in colour on the curves (the rest are grey: hover a grey line for its name)",
        languages,
        format_func=lambda x: result.names.get(x, x),
        key=K_HIGHLIGHT,
        max_selections=6,
    )


def parity_record(result: ParityComparison) -> tuple[list[str], list[int]]:
    """The parity-aware training's languages and, for each of its merges, the index of the language it
    served (negative: chosen by global frequency); empty lists when its training record lacks them."""
    parity = result.parity.training.get("parity")
    if not isinstance(parity, dict):
        return [], []
    languages, served = parity.get("languages"), parity.get("merge_language")
    return (
        [str(language) for language in languages] if isinstance(languages, list) else [],
        [index for index in served if isinstance(index, int)] if isinstance(served, list) else [],
    )


def served_frame(result: ParityComparison) -> pd.DataFrame:
    """Merges of the parity-aware tokenizer by the language they served (the global ones, chosen by
    frequency over all languages, are ``global_merges`` in the caption)."""
    languages, served = parity_record(result)
    counts = Counter(served)
    rows = [
        {"served": result.names.get(language, language), "merges": counts.get(index, 0)}
        for index, language in enumerate(languages)
    ]
    return pd.DataFrame(rows, columns=["served", "merges"])


def results_table(result: ParityComparison) -> pd.DataFrame:
    """One row per tokenizer and language, for the table and its CSV."""
    frame = pd.DataFrame(result.rows())
    return frame.rename(columns={"low": "premium low (95%)", "high": "premium high (95%)", "worst": "worst"})


def show_result(result: ParityComparison) -> None:
    """The sentence, the cards, the charts and the table of one run."""
    st.markdown(f"**{md(result.sentence)}**")
    metric_cards(result)
    beside = st.toggle(
        "Beside the other tokenizers measured (a log scale then)",
        key=K_BESIDE,
        help="GPT-2 and today's models on the same held-out sentences, beside the two trained here.",
    )
    st.plotly_chart(
        premium_figure(result, beside=beside), key="fair.chart.premium", config=charts.plot_config("held-out-premium")
    )
    st.caption(
        "Measured on sentences neither tokenizer was trained on. Error bars: 95% bootstrap intervals "
        "(the sentences resampled); when two bars' intervals overlap, the sentences cannot tell them apart."
    )
    highlight = language_picker(result)
    st.plotly_chart(
        curves_figure(result, highlight),
        key="fair.chart.curves",
        config=charts.plot_config("premium-by-vocabulary-size"),
    )
    st.caption(
        "The first k merges of a tokenizer are a tokenizer too: each line is one language's premium as "
        "the vocabulary grows (solid: standard BPE, dashed: parity-aware). Click a name in the legend to hide "
        "it, double-click to show only it."
    )
    served = served_frame(result)
    title = "Parity merges of the parity-aware tokenizer, by the language they served"
    with charts.PLOTLY_LOCK:
        bars = go.Bar(x=[plot_text(s) for s in served["served"]], y=served["merges"].tolist())
        figure = charts.compact(go.Figure(bars), 320, yaxis_title="merges", title=title)
    chosen = sum(1 for index in parity_record(result)[1] if index < 0)
    st.plotly_chart(figure, key="fair.chart.served", config=charts.plot_config("parity-merges-by-language"))
    st.caption(
        f"Before these, {chosen:,} merges were chosen by frequency over all languages (the hybrid's "
        "global share), as standard BPE chooses them."
    )
    table = results_table(result)
    two = st.column_config.NumberColumn(format="%.2f")
    show_table(
        table, key="fair.table", column_config={c: two for c in ("premium", "premium low (95%)", "premium high (95%)")}
    )
    st.download_button(
        "⬇ Table as CSV",
        data=frame_csv(table).encode("utf-8"),  # spreadsheet-safe cells
        file_name="fairer-tokenizer.csv",
        mime="text/csv",
        key="fair.csv",
    )
    seconds = result.seconds
    st.caption(
        f"Training took {seconds.get('standard', 0):.1f} s (standard) and {seconds.get('parity', 0):.1f} s "
        "(parity-aware)."
    )
