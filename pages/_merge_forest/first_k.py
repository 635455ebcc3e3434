"""The Merge forest's "First k merges" tab: a text encoded with only the first k merges, k set by a
slider and a number box kept in step (a 200,000-step slider alone cannot hit one value). The
segmentation is ``MergeForest.first_k_infos``: milliseconds for any k, no truncated tokenizer built."""

from __future__ import annotations

import streamlit as st

from bpe_core.corpora.samples import sample_text
from bpe_core.display import glyphs
from pages._ui.encoding import encode_text
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.render import render_tokens_html

from .index import Picked

MAX_SEGMENT_CHARS = 5_000
SEG_TEXT = "forest.seg_text"


def _copy(source: str, target: str) -> None:
    """Widget callback: the other control of the pair takes the value just set."""
    st.session_state[target] = st.session_state[source]


def k_controls(picked: Picked) -> int:
    """The slider and the number box for k, in step; returns k."""
    n_merges = len(picked.forest)
    slider_key, box_key = f"forest.k:{picked.choice.key}", f"forest.k_box:{picked.choice.key}"
    start = st.session_state.get(slider_key, st.session_state.get(box_key, min(n_merges, 50)))
    for key in (slider_key, box_key):  # first time: both from the same value, so neither takes value=
        if st.session_state.get(key) != start:
            st.session_state[key] = start
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    k = left.slider("Merges applied (k)", 0, n_merges, key=slider_key, on_change=_copy, args=(slider_key, box_key))
    right.number_input(
        "k exactly", min_value=0, max_value=n_merges, step=1, key=box_key, on_change=_copy, args=(box_key, slider_key)
    )
    return int(k)


def first_k_tab(picked: Picked) -> None:
    """The text encoded with only the first k merges."""
    n_merges = len(picked.forest)
    if SEG_TEXT not in st.session_state:
        st.session_state[SEG_TEXT] = sample_text(400)
    seg_text = st.text_area("Text", key=SEG_TEXT, height=110)
    k = k_controls(picked)
    text = seg_text[:MAX_SEGMENT_CHARS]
    if len(seg_text) > MAX_SEGMENT_CHARS:
        st.caption(f"Only the first {MAX_SEGMENT_CHARS:,} characters are used here.")
    if not text:
        st.info("Type some text to watch its segmentation.")
        return
    try:
        infos = picked.forest.first_k_infos(text, k)
        full = encode_text(picked.choice.fingerprint, text, False, picked.tokenizer)
    except ValueError as exc:
        st.error(md(in_words(exc)))
        return
    columns = st.columns(3)
    columns[0].metric(f"tokens with {k:,} merges", f"{len(infos):,}")
    columns[1].metric(f"tokens with all {n_merges:,}", f"{full.ids_total:,}")
    columns[2].metric("bytes (k = 0)", f"{len(text.encode('utf-8', 'replace')):,}")
    if k:
        rank = k - 1
        forest = picked.forest
        left, right = picked.parts(rank)
        st.caption(
            f"Merge rank {rank:,} (the last applied) makes {md(picked.quote(forest.made[rank]))} from "
            f"{md(glyphs.quote(left))} + {md(glyphs.quote(right))}."
        )
    st.html(render_tokens_html(text, infos, rank_of=picked.forest.rank_of.get))
