"""The Merge forest's overview: counts, the depth and length distributions, and the first merges as a
collapsible tree (``outline``: each token under its left part, written as text a reader can read at
any size; capped at MAX_HIERARCHY merges, and says so). Chart labels go through ``render.plot_text``."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from pages._ui import charts

from .index import Picked
from .outline import Line, outline_html

MAX_HIERARCHY = 1_000


def hierarchy_html(picked: Picked, subset: int) -> str:
    """The first ``subset`` merges as a collapsible tree: each token under its left part, the bytes
    (and tokens merged before the range) as roots."""
    forest = picked.forest
    ranks = range(min(subset, len(forest)))
    made = {forest.made[r] for r in ranks}
    roots = list(dict.fromkeys(forest.left[r] for r in ranks if forest.left[r] not in made))
    lines = {str(b): Line(picked.shown(b), _root_note(picked, b), f"bytes {picked.vocab[b].hex(' ')}") for b in roots}
    children: dict[str, list[str]] = {}
    for r in ranks:
        token = forest.made[r]
        left, right = picked.parts(r)
        count = f" · count {forest.counts[r]:,}" if forest.counts[r] is not None else ""
        lines[str(token)] = Line(
            picked.shown(token),
            f"rank {r:,} · id {token} · ‘{left}’ + ‘{right}’{count}",
            f"bytes {picked.vocab[token].hex(' ')}",
        )
        children.setdefault(str(forest.left[r]), []).append(str(token))
    return outline_html([str(b) for b in roots], lines, children)


def _root_note(picked: Picked, token_id: int) -> str:
    rank = picked.forest.rank_of.get(token_id)
    return f"id {token_id}" + (f" · rank {rank:,}" if rank is not None else " · byte")


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
def hierarchy_once(fingerprint: str, subset: int, _picked: Picked) -> str:
    return hierarchy_html(_picked, subset)


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
    left.plotly_chart(depth_bars, key="forest.depths", config=charts.plot_config("merge-depths"))
    right.plotly_chart(length_bars, key="forest.lengths", config=charts.plot_config("token-lengths"))
    st.markdown(
        "**The first merges as a tree**: each token sits under its left part (so *the* sits under "
        "*th*); click a token to open or close what is built on it."
    )
    subset_max = min(n_merges, MAX_HIERARCHY)
    subset = st.slider(
        "Merges in the tree",
        min_value=1,
        max_value=max(subset_max, 2),
        value=min(subset_max, 300),
        key=f"forest.subset:{picked.choice.key}",
    )
    st.html(hierarchy_once(picked.choice.fingerprint, int(subset), picked))
    if n_merges > subset_max:
        st.caption(
            f"At most the first {MAX_HIERARCHY:,} of {n_merges:,} merges. For any token's own tree, and all "
            "it builds, use *Find a token*."
        )
