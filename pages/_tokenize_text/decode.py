"""The Tokenize page's "Decode ids" box: token ids pasted in any common form (``parse_ids``), decoded
by a chosen tokenizer, with a table of the tokens written as ``glyphs`` writes them. Draws the box;
decoding is the tokenizer's."""

from __future__ import annotations

import re

import pandas as pd
import streamlit as st

from bpe_core.display import glyphs
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.tokenizers import TokenizerChoice
from pages._ui.widgets import show_table, tokenizer_picker


def parse_ids(text: str) -> list[int]:
    """Token ids from '1, 2, 3', '[1 2 3]' or one per line; ValueError naming the first bad entry."""
    cleaned = text.strip().strip("[]()")
    ids: list[int] = []
    for part in re.split(r"[\s,;]+", cleaned) if cleaned else []:
        if not part:
            continue
        if not re.fullmatch(r"\d+", part):
            raise ValueError(f"{part!r} is not a token id: ids are non-negative integers such as 15496")
        ids.append(int(part))
    return ids


#: The text whose ids the box offers as an example, in the chosen tokenizer's own ids.
EXAMPLE_TEXT = "Hello world"


def example_ids(choice: TokenizerChoice) -> str:
    """The ids of EXAMPLE_TEXT under the chosen tokenizer, as the box reads them ("13225, 2375" for
    o200k, "15496, 995" for GPT-2); empty when that tokenizer cannot be loaded (its error is the box's)."""
    try:
        return ", ".join(map(str, choice.get().encode(EXAMPLE_TEXT)))
    except (ValueError, TypeError):
        return ""


def decode_box(choices: dict[str, TokenizerChoice], default: str | None) -> None:
    st.subheader("Decode ids")
    columns = st.columns([1, 3])
    with columns[0]:
        choice = tokenizer_picker("Tokenizer", choices, key="tokenize.decode_tokenizer", default=default)
    example = example_ids(choice)
    with columns[1]:
        raw_ids = st.text_input(
            "Token ids (comma or space separated)",
            key="tokenize.decode_ids",
            placeholder=f"{example} ({EXAMPLE_TEXT} in these ids)" if example else None,
        )
    if not raw_ids.strip():
        return
    try:
        ids = parse_ids(raw_ids)
        decoder = choice.get()
        decoded = decoder.decode(ids)
    except ValueError as exc:
        st.error(md(in_words(exc)))
        return
    st.markdown(f"{len(ids):,} id(s) → {len(decoded):,} character(s):")
    st.code(decoded, language=None, wrap_lines=True)
    if len(ids) <= 200:
        tokens = [decoder.decode_single_token_bytes(i) for i in ids]
        shown = glyphs.labels_in(tokens)  # in sequence: the bytes of one character named as its pieces
        show_table(pd.DataFrame({"id": ids, "token": shown, "bytes": [t.hex(" ") for t in tokens]}))
