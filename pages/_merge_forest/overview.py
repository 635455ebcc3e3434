"""The Merge forest's overview: counts, the depth and length distributions, and the first merges as
an icicle (each token under its left part; a few hundred boxes stay readable, so it is capped and
says so). Labels go through ``render.plot_text``."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from pages._ui import charts
from pages._ui.render import plot_text

from .index import Picked

MAX_HIERARCHY = 1_000


def hierarchy_figure(picked: Picked, subset: int) -> go.Figure:
    """The first ``subset`` merges as an icicle: each token under its left part, bytes at the top."""
    forest = picked.forest
    ranks = range(min(subset, len(forest)))
    roots = list(dict.fromkeys(forest.left[r] for r in ranks if forest.left[r] not in forest.rank_of))
    ids = [str(b) for b in roots] + [str(forest.made[r]) for r in ranks]
    labels = [plot_text(picked.shown(i)) for i in roots] + [plot_text(picked.shown(forest.made[r])) for r in ranks]
    parents = [""] * len(roots) + [str(forest.left[r]) for r in ranks]
    hover = [plot_text(f"byte {picked.vocab[b].hex()} · id {b}") for b in roots] + [
        plot_text(f"rank {r:,} · id {forest.made[r]} · {picked.quote(forest.left[r])} + {picked.quote(forest.right[r])}")
        + (f" · count {forest.counts[r]:,}" if forest.counts[r] is not None else "")
        for r in ranks
    ]
    figure = go.Figure(go.Icicle(ids=ids, labels=labels, parents=parents, hovertext=hover, hoverinfo="text",
                                 maxdepth=3, tiling=dict(orientation="h")))  # fmt: skip
    return charts.compact(figure, 560, top=10)


@st.cache_resource(show_spinner=False, max_entries=16)
def distributions(fingerprint: str, _picked: Picked) -> tuple[dict[str, float], go.Figure, go.Figure]:
    """The overview's numbers and its two bar charts (built once per tokenizer: ~0.3 s at 200k)."""
    forest = _picked.forest
    depths, lengths = list(forest.depth.values()), [len(forest.vocab[i]) for i in forest.made]
    numbers = {"deepest": max(depths), "mean depth": sum(depths) / len(depths), "longest": max(lengths)}
    return (
        numbers,
        charts.count_bars(depths, "derivation tree depth", "merged tokens", "Depth distribution"),
        charts.count_bars(lengths, "token length (bytes)", "merged tokens", "Token length distribution"),
    )


@st.cache_resource(show_spinner=False, max_entries=16)
def hierarchy_once(fingerprint: str, subset: int, _picked: Picked) -> go.Figure:
    return hierarchy_figure(_picked, subset)


def overview_tab(picked: Picked) -> None:
    forest = picked.forest
    n_merges = len(forest)
    numbers, depth_bars, length_bars = distributions(picked.choice.fingerprint, picked)
    columns = st.columns(4)
    columns[0].metric("merges", f"{n_merges:,}")
    columns[1].metric("deepest tree", f"{numbers['deepest']:,}")
    columns[2].metric("mean depth", f"{numbers['mean depth']:.2f}")
    columns[3].metric("longest token (bytes)", f"{numbers['longest']:,}")
    left, right = st.columns(2)
    left.plotly_chart(depth_bars, key="forest.depths")
    right.plotly_chart(length_bars, key="forest.lengths")
    st.markdown("**The first merges as a hierarchy**: each token sits under its left part (so *the* sits under "
                "*th*); click a box to zoom in, the top bar to zoom out.")  # fmt: skip
    subset_max = min(n_merges, MAX_HIERARCHY)
    subset = st.slider("Merges in the chart", min_value=1, max_value=max(subset_max, 2), value=min(subset_max, 300),
                       key=f"forest.subset:{picked.choice.key}")  # fmt: skip
    st.plotly_chart(hierarchy_once(picked.choice.fingerprint, int(subset), picked), key="forest.hierarchy")
    if n_merges > subset_max:
        st.caption(f"At most the first {MAX_HIERARCHY:,} of {n_merges:,} merges: more boxes would be too small to read. "
                   "For any token's own tree, and all it builds, use *Find a token*.")  # fmt: skip
