"""Encoding the text shown on a page, cached: token details for the part that is drawn, counts for
the part that is measured. Draws nothing; rendering is in ``render``."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from bpe_core import TokenInfo, Tokenizer

#: Characters of text rendered as coloured spans (statistics use up to MAX_STATS_CHARS).
MAX_RENDER_CHARS = 20_000
#: Characters of text encoded for statistics (token counts, usage counts).
MAX_STATS_CHARS = 2_000_000


@dataclass(frozen=True)
class Encoded:
    """Tokens of (the rendered part of) a text for one tokenizer, with statistics on the full text."""

    infos: list[TokenInfo]
    ids_total: int
    chars: int
    bytes: int
    stats_truncated: bool


def encode_kwargs(treat_special: bool) -> dict:
    """How ``Tokenizer.encode`` treats special-token text: as special tokens, or as ordinary text."""
    return {"allowed_special": "all"} if treat_special else {"disallowed_special": ()}


@st.cache_resource(show_spinner=False, max_entries=48)
def encode_text(fingerprint: str, text: str, treat_special: bool, _tokenizer: Tokenizer) -> Encoded:
    """Token details for the first MAX_RENDER_CHARS characters, counts for up to MAX_STATS_CHARS.

    A resource cache (no copy per rerun): callers must not modify the result."""
    kwargs = encode_kwargs(treat_special)
    shown = text[:MAX_RENDER_CHARS]
    infos = _tokenizer.encode_with_details(shown, **kwargs)
    stats_text = text[:MAX_STATS_CHARS]
    if len(stats_text) == len(shown):
        total = len(infos)
    else:
        total = len(_tokenizer.encode(stats_text, **kwargs))
    return Encoded(
        infos=infos,
        ids_total=total,
        chars=len(stats_text),
        bytes=len(stats_text.encode("utf-8", "replace")),
        stats_truncated=len(text) > len(stats_text),
    )
