"""Where a token occurs: up to ten places in the picked tokenizer's training text (kept by this
session for tokenizers trained here, and for the default tokenizer) where encoding gives the token,
the token highlighted. Found by ``bpe_core.analysis.contexts.token_contexts``, bounded in characters scanned,
cached per tokenizer, corpus and token."""

from __future__ import annotations

import html

import streamlit as st

from bpe_core.analysis.contexts import TokenContext, token_contexts
from bpe_core.display.marks import text_display
from pages._ui import tokenizers
from pages._ui.render import markdown_text as md

from .index import Picked

MAX_CONTEXTS = 10
MAX_SCAN_CHARS = 5_000_000
CONTEXT_CSS = (
    "<style>.bpe-ctx{font-family:ui-monospace,monospace;font-size:0.9rem;line-height:1.7;margin:0}"
    ".bpe-ctx li{white-space:pre-wrap;overflow-wrap:anywhere;color:#495057}"
    ".bpe-ctx mark{background:#ffd43b;color:#212529;padding:0 2px;border-radius:3px}</style>"
)


@st.cache_resource(show_spinner="Looking for the token in the training text…", max_entries=64)
def contexts_of(fingerprint: str, corpus_label: str, token_id: int, _tokenizer, _texts) -> list[TokenContext]:
    return token_contexts(_tokenizer, _texts, token_id, limit=MAX_CONTEXTS, max_chars=MAX_SCAN_CHARS, width=70)


def contexts_html(found: list[TokenContext]) -> str:
    """The snippets as a list, whitespace marked (␣ ↵) and the token in a highlight; all text escaped."""
    items = "".join(
        f"<li>…{html.escape(text_display(c.before))}<mark>{html.escape(text_display(c.token))}</mark>"
        f"{html.escape(text_display(c.after))}…</li>"
        for c in found
    )
    return f'{CONTEXT_CSS}<ol class="bpe-ctx">{items}</ol>'


def contexts_section(picked: Picked, token_id: int) -> None:
    st.markdown("**Where it occurs** in the training text")
    corpus = tokenizers.corpus_for(picked.choice.key)
    if corpus is None:
        st.caption(
            "Only for tokenizers trained in this session (and the default): this session does not have "
            f"the training text of {md(picked.choice.label)}."
        )
        return
    label, texts = corpus
    if picked.tokenizer.is_special_token(token_id):
        st.caption("A special token: training cuts special tokens out of the text, so it occurs nowhere in it.")
        return
    found = contexts_of(picked.choice.fingerprint, label, token_id, picked.tokenizer, texts)
    scanned = min(sum(map(len, texts)), MAX_SCAN_CHARS)
    if not found:
        st.caption(
            f"Encoding the first {scanned:,} characters of {md(label)} never gives this token "
            "(later merges may always absorb it into longer tokens)."
        )
        return
    st.html(contexts_html(found))
    count = "The first" if len(found) == MAX_CONTEXTS else "All"
    st.caption(f"{md(count)} {len(found):,} occurrence(s) in the first {scanned:,} characters of {md(label)}.")
