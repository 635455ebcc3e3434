"""Encoding the text shown on a page, cached: the whole text once per tokenizer with the fast engine
(counts, cuts), and token details only for the window that is drawn (``window``). Draws nothing;
rendering is in ``render``.

Caches are keyed by the tokenizer's fingerprint and a digest of the text, so flipping a toggle or
turning a page never encodes again: only the drawn window is rendered.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import streamlit as st

from bpe_core import TokenInfo
from bpe_core.workspace import window
from bpe_core.workspace.window import TextIndex, WholeText

#: Characters of a text that are encoded, counted and drawn page by page (the rest is left out, said so).
MAX_STATS_CHARS = 2_000_000


@dataclass(frozen=True)
class Encoded:
    """One tokenizer's encoding of a whole text (up to MAX_STATS_CHARS) and its counts."""

    whole: WholeText
    ids_total: int
    chars: int
    bytes: int
    stats_truncated: bool

    @property
    def ids(self):
        return self.whole.ids


@dataclass(frozen=True)
class Page:
    """The text as measured (at most MAX_STATS_CHARS characters), its digest and index, and the window
    [start, end) of characters drawn."""

    text: str
    digest: str
    index: TextIndex
    start: int
    end: int


@st.cache_data(show_spinner=False, max_entries=8)
def page_starts(digest: str, _text: str) -> list[int]:
    """``window.page_starts`` of the text whose digest is ``digest``."""
    return window.page_starts(_text)


def text_digest(text: str) -> str:
    """A short digest of a text, for cache keys."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


@st.cache_resource(show_spinner=False, max_entries=4)
def indexed_text(digest: str, _text: str) -> TextIndex:
    """``window.text_index`` of the text whose digest is ``digest``."""
    return window.text_index(_text)


@st.cache_resource(show_spinner=False, max_entries=48)
def encode_digest(fingerprint: str, digest: str, treat_special: bool, _tokenizer, _text: str) -> Encoded:
    """``window.encode_whole`` of the first MAX_STATS_CHARS characters of ``_text`` (whose digest is
    ``digest``), with its counts. A resource cache (no copy per rerun): callers must not modify it."""
    measured = _text[:MAX_STATS_CHARS]
    whole = window.encode_whole(_tokenizer, measured, treat_special)
    return Encoded(
        whole=whole,
        ids_total=len(whole.ids),
        chars=len(measured),
        bytes=len(measured.encode("utf-8", "replace")),
        stats_truncated=len(_text) > len(measured),
    )


def encode_text(fingerprint: str, text: str, treat_special: bool, tokenizer) -> Encoded:
    """``encode_digest`` for a text given as it is (its digest computed here)."""
    return encode_digest(fingerprint, text_digest(text), treat_special, tokenizer, text)


@st.cache_resource(show_spinner=False, max_entries=48)
def cuts_of(fingerprint: str, digest: str, treat_special: bool, _encoded: Encoded, _index: TextIndex) -> np.ndarray:
    """Sorted character offsets where the tokenizer cuts the whole text (``window.cut_chars``)."""
    return window.cut_chars(_encoded.whole, _index)


@st.cache_data(show_spinner=False, max_entries=64)
def cut_overlap(
    fingerprint_a: str, fingerprint_b: str, digest: str, treat_special: bool, _a: np.ndarray, _b: np.ndarray
) -> tuple[int, int, int]:
    """(cuts only in ``_a``, only in ``_b``, in both) for two tokenizers' ``cuts_of`` the same text,
    cached: a page turn or a toggle never recounts half a million cuts."""
    shared = int(np.count_nonzero(np.isin(_a, _b, assume_unique=True)))
    return len(_a) - shared, len(_b) - shared, shared


def window_tokens(encoded: Encoded, tokenizer, index: TextIndex, text: str, start: int, end: int) -> list[TokenInfo]:
    """The whole-text tokens overlapping characters [start, end) with their details (``window.window_infos``)."""
    return window.window_infos(tokenizer, encoded.whole, index, text, start, end)
