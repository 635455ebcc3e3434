"""The Merge forest's vocabulary search: tokens whose shown text starts with, contains or matches a
regex (``bpe_core.analysis.forest.MergeForest.search``), listed with id, rank, bytes and how each is built.
A bad or too slow regex is a message; results are cached per tokenizer and query."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from bpe_core.analysis.forest import SearchResult
from pages._ui.render import markdown_text as md
from pages._ui.widgets import show_table

from .index import Picked

MAX_RESULTS = 500
MODES = {"prefix": "starts with", "contains": "contains", "regex": "regex"}
BYTE_HELP = (
    "A byte that is not a whole character is typed as a backslash, x and its two hex digits: \\\\xe0 for "
    "the byte e0 (the first byte of every Devanagari letter)."
)


@st.cache_resource(show_spinner=False, max_entries=64)
def search_once(fingerprint: str, mode: str, query: str, _picked: Picked) -> tuple[SearchResult | None, str | None]:
    """The search's result, or the message of its ValueError (kept too: a pathological regex is refused once)."""
    try:
        return _picked.forest.search(query, mode=mode, limit=MAX_RESULTS), None
    except ValueError as exc:
        return None, str(exc)


def results_table(picked: Picked, ids: list[int]) -> pd.DataFrame:
    forest = picked.forest
    rows = [
        {
            "id": i,
            "rank": forest.rank_of.get(i),
            "token": picked.shown(i),
            "bytes": len(picked.vocab[i]),
            "made from": picked.how_built(i),
        }
        for i in ids
    ]
    return pd.DataFrame(rows, columns=["id", "rank", "token", "bytes", "made from"])


def search_tab(picked: Picked) -> None:
    st.caption(
        "Type a token's text: ␣ is a space, ↵ a newline. In *starts with* and *contains*, a typed space means ␣. "
        "A regex uses the `regex` module's syntax (^ and $ are the token's ends) and may use 2 seconds of "
        "processor time at most. ⟨न 1–2/3⟩ in the list is bytes 1 to 2 of the 3 bytes of न."
    )
    left, right = st.columns([1, 3])
    mode = left.radio("Search", list(MODES), format_func=MODES.__getitem__, key="forest.search_mode", horizontal=False)
    query = right.text_input(
        "Search the vocabulary",
        key=f"forest.search:{picked.choice.key}",
        placeholder="e.g. ␣token, ing, ^␣[A-Z][a-z]+$",
        help=BYTE_HELP,
    )
    if not query:
        st.info("Type a prefix, a part of a token or a regex to list the matching tokens.")
        return
    result, error = search_once(picked.choice.fingerprint, mode, query, picked)
    if result is None:  # the search refused the query: error says why
        st.error(md(error or "The search could not run."))
        return
    if not result.total:
        st.info(f"No token of {md(picked.choice.label)} matches.")
        return
    more = f" (the first {len(result.ids):,} are listed)" if result.total > len(result.ids) else ""
    st.markdown(f"**{result.total:,}** matching tokens{md(more)}.")
    show_table(results_table(picked, result.ids), height=320)
