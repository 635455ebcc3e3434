"""Home: what the workbench does, which tokenizers are ready, where to start. It loads no tokenizer:
the table of built-ins is the catalogue's (``bpe_core.pretrained.catalogue.ABOUT``), so it draws at once
on a fresh server while the tokenizers Tokenize opens with load in the background."""

from __future__ import annotations

import streamlit as st

from pages._ui import builtins, tokenizers
from pages._ui.render import markdown_text as md
from pages._ui.widgets import page_header

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
  token premium over parallel translations of one passage, for today's models and your own tokenizers.
* **Vocabulary diff** of two tokenizers: the tokens only one has, how much their first *k* tokens share
  as *k* grows, and where their merge orders agree.
* **Lab**: train BPE, SuperBPE, Picky BPE and parity-aware BPE on one corpus in one go and compare them
  on held-out text, with SuperBPE's superwords and Picky BPE's removed tokens as examples.
"""
#: (page file, link label, icon, caption) of the "Where to start" links.
STARTS = [
    (
        "pages/tokenize_text.py",
        "Tokenize some text",
        ":material/text_fields:",
        "See o200k, Llama 3, Qwen 3.5, cl100k and GPT-2 cut the same text.",
    ),
    (
        "pages/train.py",
        "Train your own",
        ":material/model_training:",
        "Upload a corpus, pick a vocabulary size, press Train.",
    ),
    (
        "pages/step_through.py",
        "Learn how BPE trains",
        ":material/footprint:",
        "Next / Back through the merges of a ten-word example.",
    ),
    (
        "pages/merge_forest.py",
        "Explore a vocabulary",
        ":material/account_tree:",
        "Find a token and see the tree of merges that built it.",
    ),
]


COLUMNS = ("tokenizer", "used by", "ids", "licence", "package")


def builtin_rows() -> list[tuple[str, ...]]:
    """One row per built-in tokenizer (``COLUMNS``), from the catalogue alone (nothing is loaded): what
    it is, the models that use it, its number of ids, its licence, and its package (installed, or how
    to get it)."""
    rows: list[tuple[str, ...]] = []
    for status in builtins.builtin_statuses():
        about = status.about
        package = f"installed ({status.version})" if status.installed else f"not installed: {status.install_hint}"
        rows.append(
            (
                status.label,
                about.models if about else "—",
                f"{about.vocab_size:,}" if about else "—",
                about.licence if about else "—",
                package,
            )
        )
    return rows


def table_markdown(rows: list[tuple[str, ...]]) -> str:
    """A Markdown table of ``COLUMNS`` (cells escaped): it wraps, so nothing is cut at any width, and it
    needs no data frame (Home's first load imports no pandas)."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(md(cell) for cell in row) + " |" for row in rows]  # md escapes "|" too
    return "\n".join(lines)


def show_tokenizers() -> None:
    """The built-in tokenizers (from the catalogue) and the names of the user's own: no tokenizer is
    loaded here."""
    st.subheader("Tokenizers available now")
    st.markdown(table_markdown(builtin_rows()))  # plain: table_markdown escapes every cell
    mine = tokenizers.own_tokenizer_names()
    if mine:
        st.caption(f"Yours: {md(', '.join(mine))} (the Library page lists and checks them).")
    st.caption(
        f"Also: **{tokenizers.EXAMPLE_LABEL}**, an example with {tokenizers.DEFAULT_MERGES:,} merges trained on "
        "the built-in samples when you first pick it."
    )


def main() -> None:
    page_header(
        "BPE workbench",
        "Train, inspect and compare byte-level BPE tokenizers, built on the project's bpe_core library. "
        "Everything runs locally; nothing is downloaded.",
    )
    st.markdown(INTRODUCTION)
    st.subheader("Where to start")
    for column, (page, label, icon, caption) in zip(st.columns(len(STARTS)), STARTS, strict=True):
        with column:
            st.page_link(page, label=label, icon=icon)  # plain: STARTS
            st.caption(caption)  # plain: STARTS
    show_tokenizers()
    st.caption(f"Saved tokenizers live in {md(tokenizers.library().folder)}.")


if __name__ == "__main__":  # Streamlit runs each page file as __main__
    main()
