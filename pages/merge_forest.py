"""Merge forest: how a token was built and what it builds, where it occurs, vocabulary search, all
merges, segmentation with the first k merges, an overview of the whole forest, and tokens that
encoding never produces. Each tab is a module of ``pages/_merge_forest/``; the index behind them is
``bpe_core.analysis.forest`` (built once per tokenizer). ``?tokenizer=<key>&token=<id>`` opens a token.
A Picky BPE tokenizer has no forest: ``pages/_merge_forest/picky.py`` shows its tokens and removals."""

from __future__ import annotations

import streamlit as st

from pages._merge_forest.contexts import contexts_section
from pages._merge_forest.first_k import first_k_tab
from pages._merge_forest.index import KEPT, Picked, pick_tokenizer, token_by_text
from pages._merge_forest.link import link_token, read_link
from pages._merge_forest.merges import merges_tab
from pages._merge_forest.overview import overview_tab
from pages._merge_forest.picky import Picky, picky_view
from pages._merge_forest.search import search_tab
from pages._merge_forest.token import token_tab
from pages._merge_forest.unused import unused_tab
from pages._ui import state, tokenizers
from pages._ui.widgets import page_header

__all__ = ["main", "token_by_text"]  # token_by_text: tests and other pages find tokens as the page does

TABS = ["Find a token", "Search the vocabulary", "All merges", "First k merges", "Forest overview", "Unused tokens"]


def find_tab(picked: Picked) -> None:
    token_id = token_tab(picked)
    if token_id is not None:
        contexts_section(picked, token_id)


def main() -> None:
    page_header(
        "Merge forest",
        "Every merged token is the root of a binary tree of earlier merges down to single bytes; together they "
        "form the merge forest.",
    )
    choices, external = tokenizers.with_merges(tokenizers.available_tokenizers())
    state.keep_widget_state(restore_only=KEPT)
    link = read_link(choices)
    picked = pick_tokenizer(choices, external)
    if picked is None:
        return
    link_token(link, picked.choice.key, picked.vocab)
    if isinstance(picked, Picky):  # a Picky BPE tokenizer: its removals instead of a forest
        picky_view(picked)
        return
    tabs = st.tabs(TABS)
    for tab, draw in zip(tabs, [find_tab, search_tab, merges_tab, first_k_tab, overview_tab, unused_tab], strict=True):
        with tab:
            draw(picked)


if __name__ == "__main__":  # Streamlit runs each page file as __main__
    main()
