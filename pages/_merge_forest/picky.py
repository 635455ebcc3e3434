"""The Merge forest for a Picky BPE tokenizer (``rule="picky"``). Its tokens are made by merge events
and removed by removal events, and some tokens' parts were removed by the end, so it has no forest of
ranked merges (``MergeForest.of`` refuses it) and the tabs built on one say so. Shown instead: a token
found by text or id, with the merge step that made it and its parts, or, for a token removed for
good, when it was removed (the merge step), into what and why (its IoS); and the table of every
removal. The removals are ``bpe_core.analysis.picky_removals``'; this module draws."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.analysis.picky_removals import Removal, picky_removals, removed_tokens
from bpe_core.display.marks import parse_token_display
from pages._ui import tables
from pages._ui.render import markdown_text as md
from pages._ui.render import token_quote
from pages._ui.tokenizers import TokenizerChoice
from pages._ui.widgets import show_table

TABS = [
    "Find a token",
    "Removed tokens",
    "Search the vocabulary",
    "All merges",
    "First k merges",
    "Forest overview",
    "Unused tokens",
]
NO_FOREST = (
    "A Picky BPE tokenizer has merge and removal events, not ranked merges: a token it removed is split into "
    "its parts wherever it occurred, and a later merge may make it again. So there is no tree of ranked merges "
    "down to bytes, and the views built on one (derivation trees, the table of merges by rank, the first k "
    "merges, the overview, unused tokens) do not apply. Find a token and the removed tokens are shown instead."
)


@dataclass(frozen=True)
class Picky:
    """The picked Picky BPE tokenizer."""

    choice: TokenizerChoice
    tokenizer: Tokenizer

    @property
    def vocab(self) -> dict[int, bytes]:
        return dict(self.tokenizer.vocab)


def merge_events(tokenizer: Tokenizer) -> dict[bytes, tuple[int, tuple[bytes, ...]]]:
    """Each token present at the end -> (the merge step, from 0, that last made it, its parts)."""
    present = set(tokenizer.vocab.values())
    made: dict[bytes, tuple[int, tuple[bytes, ...]]] = {}
    step = 0
    for kind, token, parts in tokenizer.picky_events:
        if kind == "merge":
            if token in present:
                made[token] = (step, tuple(parts))
            step += 1
    return made


def removal_sentence(removal: Removal) -> str:
    """When, into what and why a token was removed (Markdown, every token escaped)."""
    parts = " + ".join(md(token_quote(part)) for part in removal.parts)
    why = f" with an IoS of {removal.ios:.3f}" if removal.ios is not None else ""
    return (
        f"{md(token_quote(removal.token))} was removed by the check after merge step {removal.merge_step:,}"
        f"{why}: its occurrences were split into {parts}."
    )


def find(picky: Picky) -> None:
    """Find a token by text or id: its facts, or, when it was removed for good, when and why."""
    tokenizer, key = picky.tokenizer, picky.choice.key
    mode = st.radio("Find by", ["text", "id"], horizontal=True, key="forest.mode")
    if mode == "id":
        token_id = int(
            st.number_input("Token id", min_value=0, max_value=max(picky.vocab), step=1, key=f"forest.id:{key}")
        )
    else:
        query = st.text_input(
            "Token text, as the pages show it (␣ is a space, ↵ a newline, \\xNN a byte) or typed plainly",
            key=f"forest.query:{key}",
        )
        if not query:
            return
        candidates = [query.encode("utf-8", "surrogatepass"), parse_token_display(query)]
        gone = removed_tokens(tokenizer)
        for candidate in candidates:
            if candidate in gone:
                st.warning(removal_sentence(gone[candidate]) + " It is not in the vocabulary.")  # plain: escaped
                return
        by_bytes = {token: token_id for token_id, token in picky.vocab.items()}
        found = next((by_bytes[c] for c in candidates if c in by_bytes), None)
        if found is None:
            st.info(f"{md(token_quote(query))} is not a token of {md(picky.choice.label)}, and it was never removed.")
            return
        token_id = found
    show_token(picky, token_id)


def show_token(picky: Picky, token_id: int) -> None:
    tokenizer = picky.tokenizer
    token = picky.vocab.get(token_id)
    if token is None:
        st.error(f"No token has the id {token_id:d}: ids go from 0 to {max(picky.vocab):d}.")
        return
    made = merge_events(tokenizer).get(token)
    st.subheader(md(token_quote(token)), anchor=False)
    facts = [("id", f"{token_id:d}"), ("bytes", f"{len(token):,}"), ("merge step", f"{made[0]:,}" if made else "—")]
    for column, (label, value) in zip(st.columns(3), facts, strict=True):
        column.metric(label, value)  # plain: constant labels, numbers
    if tokenizer.is_special_token(token_id):
        st.info("A special token: added whole, never made by a merge.")
    elif made is None:
        st.info("A single byte: no merge makes it, and Picky BPE never removes one.")
    else:
        present = set(picky.vocab.values())
        parts = " + ".join(md(token_quote(part)) + ("" if part in present else " (removed later)") for part in made[1])
        st.markdown(f"Made (last) by merge step **{made[0]:,}**: {parts}.")  # plain: parts escaped by md()
    earlier = [removal for removal in picky_removals(tokenizer) if removal.token == token]
    for removal in earlier:
        st.info(removal_sentence(removal) + " A later merge made it again.")  # plain: escaped


def removed_tab(picky: Picky) -> None:
    removals = picky_removals(picky.tokenizer)
    if not removals:
        st.info("This tokenizer removed no token.")
        return
    gone = sum(not removal.restored for removal in removals)
    st.markdown(f"**{len(removals):,}** removals; {gone:,} of them left the vocabulary for good.")
    show_table(tables.removals_frame(removals), height=420)
    st.caption(
        "When (the merge step, from 0, whose check removed it), what (the token and the parts its occurrences "
        "were split into) and why (its Intersection over Self: the share of its occurrences that merge took, "
        "above the threshold)."
    )


def picky_view(picky: Picky) -> None:
    st.info(NO_FOREST)
    tabs = st.tabs(TABS)
    with tabs[0]:
        find(picky)
    with tabs[1]:
        removed_tab(picky)
    for tab in tabs[2:]:
        with tab:
            st.info("Not for a Picky BPE tokenizer: " + NO_FOREST.split(": ", 1)[1])  # plain: a constant
