"""Tokenize's "BPE-dropout" expander: a few segmentations of the text sampled with BPE-dropout
(Provilkov et al. 2020: each merge skipped with probability p, every word segmented afresh) for one
of the chosen tokenizers, seeded so that a view can be had again, drawn with the page's own token
renderer, each with its token count against the plain encoding's. Its content runs only while it is
open (a closed expander costs the page nothing). The sampling is ``bpe_core.encoding.dropout``'s
(``dropout_details``: ``Tokenizer.encode(text, dropout=p, seed=s)``'s ids with their spans).
Tokenizers without ranked merges to skip (external ones, Picky BPE) are not offered, and the
expander says why."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from bpe_core import TokenInfo, Tokenizer
from bpe_core.encoding.dropout import dropout_details
from pages._ui import render, state
from pages._ui.render import markdown_text as md
from pages._ui.tokenizers import TokenizerChoice, rank_function

from . import markup

#: Sampled segmentations shown, and the characters of the text (from its start) they cover.
SAMPLES = 3
MAX_CHARS = 2_000
K_TOKENIZER, K_P, K_SEED = "tokenize.dropout.tokenizer", "tokenize.dropout.p", "tokenize.dropout.seed"
K_OPEN = "tokenize.dropout.open"  # the expander: its content runs only while it is open
DEFAULTS = {K_P: 0.1, K_SEED: 0}


def droppable(keys: Sequence[str], choices: dict[str, TokenizerChoice], loaded: dict) -> tuple[list[str], list[str]]:
    """The chosen tokenizers BPE-dropout applies to (bpe_core tokenizers with ranked merges), and the
    labels of those it does not."""
    offered: list[str] = []
    left_out: list[str] = []
    for key in keys:
        tokenizer = loaded.get(key)
        usable = isinstance(tokenizer, Tokenizer) and tokenizer.rule != "picky" and choices[key].kind != "external"
        (offered if usable else left_out).append(key if usable else choices[key].label)
    return offered, left_out


@st.cache_resource(show_spinner=False, max_entries=32)
def sampled(
    fingerprint: str, digest: str, dropout: float, seed: int, _tokenizer: Tokenizer, _text: str
) -> list[list[TokenInfo]]:
    """SAMPLES segmentations of ``_text`` (digest ``digest``) with seeds ``seed``, ``seed + 1``…"""
    return [
        dropout_details(_tokenizer, _text, dropout=dropout, seed=seed + n, disallowed_special=())
        for n in range(SAMPLES)
    ]


def dropout_section(choices: dict[str, TokenizerChoice], loaded: dict, text: str, digest: str) -> None:
    """The expander: a tokenizer, p and a seed, then SAMPLES segmentations of the text's start."""
    state.keep_widget_state(DEFAULTS, restore_only=[K_TOKENIZER])
    box = st.expander("BPE-dropout: sampled segmentations", key=K_OPEN, on_change="rerun")
    with box:
        if not box.open:  # nothing sampled, drawn or sent while it is closed
            return
        offered, left_out = droppable(list(loaded), choices, loaded)
        if left_out:
            st.caption("Not offered (no ranked merges to skip): " + md(", ".join(left_out)) + ".")
        if not offered:
            st.info("Choose a BPE tokenizer above (not an external or Picky BPE one) to sample segmentations.")
            return
        state.ensure_option(K_TOKENIZER, offered, offered[0])
        columns = st.columns([2, 1, 1])
        key = (
            columns[0].selectbox("Tokenizer", offered, format_func=lambda k: choices[k].label, key=K_TOKENIZER)
            or offered[0]
        )
        dropout = columns[1].number_input(
            "Dropout p",
            min_value=0.0,
            max_value=1.0,
            step=0.05,
            key=K_P,
            help="The probability of skipping each merge: 0 is plain BPE, 1 leaves single bytes. Provilkov et al. "
            "train with 0.1.",
        )
        seed = columns[2].number_input(
            "Seed",
            min_value=0,
            max_value=2**31 - 1,
            step=1,
            key=K_SEED,
            help=f"Sample n uses seed + n - 1: the same seed gives the same {SAMPLES}.",
        )
        tokenizer, excerpt = loaded[key], text[:MAX_CHARS]
        plain = len(tokenizer.encode(excerpt, disallowed_special=()))
        rank_of = rank_function(tokenizer)
        for number, infos in enumerate(
            sampled(choices[key].fingerprint, digest, float(dropout), int(seed), tokenizer, excerpt), 1
        ):
            line = f"**Sample {number}** (seed {int(seed) + number - 1:d}): {len(infos):,} tokens, "
            st.markdown(line + f"{len(infos) - plain:+,} against no dropout ({plain:,})")  # plain: numbers only
            panel = render.render_tokens_html(excerpt, infos, rank_of=rank_of, style=False)
            markup.draw(markup.trusted_html(panel), key=f"tokenize.dropout.{number}")
        more = f" (its first {MAX_CHARS:,} characters)" if len(text) > MAX_CHARS else ""
        st.caption(
            f"The text{md(more)} encoded {SAMPLES} times with BPE-dropout: each merge about to be applied is "
            "skipped with probability p, afresh at every occurrence of a word, so the segmentations differ "
            "and the ids always decode to the text. BPE-dropout is a training-time regulariser; a tokenizer "
            "encodes without it at test time."
        )
