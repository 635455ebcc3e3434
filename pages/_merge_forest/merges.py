"""The Merge forest's table of all merges (rank from 0, left, right, result, ids, training count when
recorded), filtered by text and drawn one page at a time, so 200k merges stay fast: only the rows
shown become a table; the filter's ranks are cached per tokenizer and text."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from pages._ui.render import markdown_text as md
from pages._ui.widgets import show_table

from .index import Picked

PAGE_ROWS = 500
WHERE = {"any": "left, right or result", "result": "result", "left": "left part", "right": "right part"}


@st.cache_resource(show_spinner=False, max_entries=32)
def matching_ranks(fingerprint: str, where: str, query: str, _picked: Picked) -> list[int]:
    """Ranks of the merges whose shown part(s) contain ``query`` (typed whitespace means its mark)."""
    return _picked.forest.merges_matching(query, where=where)


def merges_frame(picked: Picked, ranks: list[int]) -> pd.DataFrame:
    """One row per merge rank given (only the page shown is ever built); the two parts written knowing
    each other (``Picked.parts``), the result alone; the training count when the tokenizer has one."""
    forest = picked.forest
    parts = [picked.parts(r) for r in ranks]
    frame = pd.DataFrame(
        {
            "rank": ranks,
            "left": [left for left, _ in parts],
            "right": [right for _, right in parts],
            "result": [picked.shown(forest.made[r]) for r in ranks],
            "left id": [forest.left[r] for r in ranks],
            "right id": [forest.right[r] for r in ranks],
            "new id": [forest.made[r] for r in ranks],
        }
    )
    if any(count is not None for count in forest.counts):
        frame["count"] = [forest.counts[r] for r in ranks]
    return frame


def merges_tab(picked: Picked) -> None:
    n_merges = len(picked.forest)
    left, middle = st.columns([3, 1])
    query = left.text_input(
        "Filter merges by text (a typed space means ␣)", key=f"forest.merges_filter:{picked.choice.key}"
    )
    where = middle.selectbox("in", list(WHERE), format_func=WHERE.__getitem__, key="forest.merges_where")
    ranks = matching_ranks(picked.choice.fingerprint, where, query, picked) if query else None
    total = n_merges if ranks is None else len(ranks)
    if total == 0:
        st.info("No merge matches the filter.")
        return
    pages = (total + PAGE_ROWS - 1) // PAGE_ROWS
    page_key = f"forest.merges_page:{picked.choice.key}"
    if st.session_state.get(page_key, pages + 1) > pages:  # first time, or the filter shrank the table
        st.session_state[page_key] = 1
    page = st.number_input("Page", min_value=1, max_value=pages, step=1, key=page_key, help=f"{pages:,} pages")
    start = (int(page) - 1) * PAGE_ROWS
    shown = list(range(start, min(start + PAGE_ROWS, total))) if ranks is None else ranks[start : start + PAGE_ROWS]
    scope = f"{total:,} of {n_merges:,} merges match" if ranks is not None else f"all {n_merges:,} merges"
    st.caption(
        f"Page {int(page):,} of {pages:,}: rows {start + 1:,}-{start + len(shown):,} of {md(scope)}; ranks "
        "count from 0 (rank 0 is the first merge). ⟨न 1–2/3⟩ is bytes 1 to 2 of the 3 bytes of न."
    )
    show_table(merges_frame(picked, shown), height=420)
