"""Deep links to the Merge forest: ``/merge_forest?tokenizer=<key>&token=<id>`` opens that token's
tree (Tokenize's tokens link here). The key is a ``TokenizerChoice.key`` (``gpt2``, ``o200k``,
``new:my-bpe``, ``lib:name``...). A link is applied when it arrives (a new link, or one that brought the
user here from another page), so the user's own choices on this page stand; a bad value is a
message, never a traceback."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import streamlit as st

from pages._ui import state
from pages._ui.render import markdown_text as md
from pages._ui.tokenizers import TokenizerChoice

LINK_READ = "wb.forest.link_read"  # the (tokenizer, token) of the last link applied in this session


@dataclass(frozen=True)
class Link:
    tokenizer: str | None
    token: str | None
    fresh: bool  # not applied yet in this session


def read_link(choices: dict[str, TokenizerChoice]) -> Link | None:
    """The link in the URL, if any, with its tokenizer selected (before the picker is drawn) the first
    time it is seen. An unknown tokenizer is said, and the picker keeps its choice."""
    tokenizer, token = st.query_params.get("tokenizer"), st.query_params.get("token")
    if tokenizer is None and token is None:
        return None
    signature = (tokenizer, token)
    # A link is fresh when it is new, or when it brought the user here from another page (Tokenize's
    # click on the same token again); reruns of this page leave the user's own choices alone.
    fresh = st.session_state.get(LINK_READ) != signature or state.arrived_from_another_page()
    if tokenizer is not None and tokenizer not in choices:
        if fresh:  # said once: the picker below is the way on
            st.error(
                f"The link names the tokenizer **{md(tokenizer)}**, which this session does not have (a tokenizer "
                "trained in another session, or a package not installed here): pick one below."
            )
        st.session_state[LINK_READ] = signature
        return None
    if fresh and tokenizer is not None:
        st.session_state["forest.tokenizer"] = tokenizer
    return Link(tokenizer, token, fresh)


def link_token(link: Link | None, choice_key: str, vocab: Mapping[int, bytes]) -> None:
    """Open the link's token (find by id) when the link is fresh and its id is one of the picked
    tokenizer's; say what is wrong with the id otherwise. Call before the token widgets are drawn."""
    if link is None or link.token is None or (link.tokenizer is not None and link.tokenizer != choice_key):
        return
    text = link.token.strip()
    token_id = int(text) if text.isascii() and text.isdigit() and len(text) <= 12 else None
    if token_id is None or token_id not in vocab:
        if link.fresh:
            st.error(
                f"The link's token **{md(link.token)}** is not a token id of this tokenizer: ids are whole numbers "
                f"from 0 to {max(vocab):d}. Find the token by text or id below."
            )
    elif link.fresh:
        st.session_state["forest.mode"] = "id"
        st.session_state[f"forest.id:{choice_key}"] = token_id
    st.session_state[LINK_READ] = (link.tokenizer, link.token)
