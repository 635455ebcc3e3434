"""The Compare page's "Compression against vocabulary size": one tokenizer's characters per token at
each vocabulary size, one line per sample, read at a glance: the reference and a few chosen samples
in colour (a picker, the costliest and the cheapest by default), the rest grey and named on hover
(``charts.spotlight``), the legend one row that never scrolls. Draws the section and adds its chart
to the run's report; the numbers are ``measures``'.
"""

from __future__ import annotations

import streamlit as st

from pages._ui import charts, state, tokenizers
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.render import plot_text
from pages._ui.widgets import show_sentences

from .measures import (
    CURVE_EVERY_SIZE_UP_TO,
    Comparison,
    Selection,
    curve_rows,
    curve_series,
    full_vocabulary_sentence,
    shared_figure,
)
from .report import Report

K_CURVE_TOKENIZER = "cmp.curve_tokenizer"
K_CURVE_LOG = "cmp.curve_log"
K_HIGHLIGHT = "cmp.curve_highlight"
#: Samples in colour at most (more would be the tangle the grey lines avoid).
MAX_HIGHLIGHT = 6


def curve_figure(curve: list[dict], texts: dict[str, str], name: str, log_axis: bool, highlight: list[str]):
    """The lines of ``curve`` (``curve_rows``'), the ``highlight`` ones in colour."""
    figure = charts.lines(
        curve_series(curve, list(texts)),
        "vocab %{x:,}: %{y:.2f} chars/token",
        480,
        title=plot_text(f"{name}: characters per token by vocabulary size"),
        xaxis_title="vocabulary size (256 bytes + special tokens + first k merges)",
        yaxis_title="characters per token",
    )
    if log_axis:
        charts.log_x(figure, [r["vocab_size"] for r in curve])
    return charts.spotlight(figure, [plot_text(label) for label in highlight])


def highlight_picker(curve: list[dict], labels: list[str], reference: str | None) -> list[str]:
    """The samples drawn in colour: the user's choice, first the reference, the two costliest and the
    cheapest at the full vocabulary (``charts.default_spotlight``)."""
    last = max((r["merges"] for r in curve), default=0)
    final = {r["text"]: r["chars_per_token"] for r in curve if r["merges"] == last}
    chosen = st.session_state.get(K_HIGHLIGHT)
    if chosen is None or any(label not in labels for label in chosen):
        st.session_state[K_HIGHLIGHT] = charts.default_spotlight(final, reference)[:MAX_HIGHLIGHT]
    return st.multiselect(
        "Samples in colour (the rest are grey: hover a grey line for its name)",
        labels,
        key=K_HIGHLIGHT,
        max_selections=MAX_HIGHLIGHT,
    )


def draw_curve(key: str, name: str, tokenizer, selection: Selection, choices, log_axis: bool, report: Report) -> None:
    """One tokenizer's curve over the chosen samples, with a sentence on its full vocabulary."""
    total = len(tokenizer.merges)
    points = tuple(range(total + 1)) if total <= CURVE_EVERY_SIZE_UP_TO else None
    try:
        curve = curve_rows(
            choices[key].fingerprint, tuple(selection.sample_key), points, tokenizer, selection.texts_for_curve
        )
    except (ValueError, TypeError) as exc:
        st.error(f"Could not compute the curve: {md(in_words(exc))}")
        return
    texts = selection.texts_for_curve
    highlight = highlight_picker(curve, list(texts), selection.reference_label or None)
    view = (choices[key].fingerprint, tuple(selection.sample_key), points is None, name)
    figure = shared_figure(
        view, f"curve:{log_axis}:{highlight}", lambda: curve_figure(curve, texts, name, log_axis, highlight)
    )
    st.plotly_chart(figure, key="cmp.chart.curve", config=charts.plot_config(f"compression-{name}"))
    report.figure("Compression against vocabulary size", figure)
    sentence = full_vocabulary_sentence(curve, name, tokenizer)
    detail = "every vocabulary size" if points is not None else f"{len({r['merges'] for r in curve})} vocabulary sizes"
    show_sentences([sentence] if sentence else [])
    report.sentences([sentence] if sentence else [])
    st.caption(f"Computed at {md(detail)} from 256 + special tokens to {tokenizer.vocab_size:,}.")


def curve_section(result: Comparison | None, selection: Selection, choices, report: Report) -> None:
    st.subheader("Compression against vocabulary size", divider="gray")
    st.caption(
        "BPE's merges form prefixes: the first k merges are the tokenizer of size 256 + special tokens + k. "
        "Each line is one sample: how many characters fit into a token as the vocabulary grows. A line that "
        "stays flat is a text the merges never learned to shorten."
    )
    if result is None:
        st.info("Pick tokenizers and samples above to see how compression grows with the vocabulary.")
        return
    keys = [k for k, tok in result.loaded.items() if len(getattr(tok, "merges", ())) > 0]
    picky = [k for k in keys if getattr(result.loaded[k], "rule", "bpe") == "picky"]
    if picky:  # events, not ranked merges: a prefix of them is no smaller tokenizer
        keys = [k for k in keys if k not in picky]
        st.caption(
            "Not drawn here: " + md(", ".join(result.names[k] for k in picky)) + " (Picky BPE: a prefix of "
            "its merge and removal events is no smaller tokenizer, so it has no curve)."
        )
    if not keys:
        st.info("None of the chosen tokenizers has merges: train one (below or on the Train page) to see its curve.")
        return
    preferred = st.session_state.get(state.CMP_TRAIN_RESULT) or st.session_state.get(state.LAST_TRAINED)
    state.ensure_option(K_CURVE_TOKENIZER, keys, preferred if preferred in keys else tokenizers.DEFAULT_KEY)
    columns = st.columns([2, 1], vertical_alignment="bottom")
    key = columns[0].selectbox(
        "Tokenizer (one with merges)", keys, format_func=lambda k: result.names[k], key=K_CURVE_TOKENIZER
    )
    log_axis = columns[1].toggle("Logarithmic vocabulary axis", key=K_CURVE_LOG)
    if key is None:
        return
    draw_curve(key, result.names[key], result.loaded[key], selection, choices, log_axis, report)
