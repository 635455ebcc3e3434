"""Home: what the workbench answers, a path through it (train, tokenize, compare: one click each),
what the same sentence costs in six languages (``pages/_home/glance.py``), the other pages, and which
tokenizers are ready. It loads no tokenizer and imports no pandas: the strips' cuts are stored and the
table of built-ins is the catalogue's (``bpe_core.pretrained.catalogue.ABOUT``), so on a fresh server
the whole page is drawn in one step while the tokenizers Tokenize opens with load in the background."""

from __future__ import annotations

import streamlit as st

from bpe_core.workspace import shared_builtins
from pages._home import glance
from pages._ui import tokenizers
from pages._ui.render import markdown_text as md
from pages._ui.widgets import page_header

#: What the workbench answers, in a few lines (the first thing a newcomer reads).
ANSWERS = """
**What it answers:** how a tokenizer cuts a text into tokens; what the same message costs in each
language and kind of code; how byte pair encoding builds a vocabulary, merge by merge, from the 256
bytes; and how a tokenizer trained on your own text, or trained to be fairer across languages,
compares with today's models.
"""
#: The path through the workbench, one click a step: (page file, link label, icon, what it shows).
PATH = [
    (
        "pages/train.py",
        "1 · Train a tokenizer",
        ":material/model_training:",
        "On the built-in samples or your own files, with a live progress bar and its compression curve.",
    ),
    (
        "pages/tokenize_text.py",
        "2 · Tokenize a text",
        ":material/text_fields:",
        "Yours beside o200k, Llama 3, Qwen 3.5, cl100k and GPT-2: coloured tokens that follow your typing.",
    ),
    (
        "pages/compare.py",
        "3 · Compare the costs",
        ":material/compare_arrows:",
        "Characters per token and the premium of 21 languages and 7 programming languages.",
    ),
]
#: The other pages: (page file, link label, icon, what it shows).
MORE = [
    ("pages/merge_forest.py", "Merge forest", ":material/account_tree:", "how any token was built, merge by merge"),
    ("pages/step_through.py", "Step through", ":material/footprint:", "training one merge at a time"),
    ("pages/fairer.py", "Fairer training", ":material/balance:", "parity-aware BPE against standard BPE"),
    ("pages/languages.py", "Languages side by side", ":material/translate:", "one sentence, every language"),
    ("pages/vocab_diff.py", "Vocabulary diff", ":material/difference:", "the tokens two tokenizers do not share"),
    ("pages/lab.py", "Lab", ":material/science:", "BPE, SuperBPE and Picky BPE on one corpus"),
    ("pages/library.py", "Library", ":material/folder_open:", "your saved tokenizers: rename, import, download"),
]
GLANCE_TITLE = "One sentence, six languages"
GLANCE_NOTE = (
    "The same sentence as o200k (GPT-4o's tokenizer) cuts it: each coloured box is a token. A language pays its "
    "multiple of English's tokens for the same message; GPT-2's count is given beside, for a tokenizer with a "
    "quarter of the vocabulary."
)


COLUMNS = ("tokenizer", "used by", "ids", "licence", "package")


def builtin_rows() -> list[tuple[str, ...]]:
    """One row per built-in tokenizer (``COLUMNS``), from the catalogue alone (nothing is loaded): what
    it is, the models that use it, its number of ids, its licence, and its package (installed, or how
    to get it)."""
    rows: list[tuple[str, ...]] = []
    for status in shared_builtins.builtin_statuses():
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


def show_tokenizers(rows: list[tuple[str, ...]], mine: list[str]) -> None:
    """The built-in tokenizers (from the catalogue) and the names of the user's own: no tokenizer is
    loaded here."""
    st.subheader("Tokenizers available now")
    st.markdown(table_markdown(rows))  # plain: table_markdown escapes every cell
    if mine:
        st.caption(f"Yours: {md(', '.join(mine))} (the Library page lists and checks them).")
    st.caption(
        f"Also: **{tokenizers.EXAMPLE_LABEL}**, an example with {tokenizers.DEFAULT_MERGES:,} merges trained on "
        "the built-in samples when you first pick it."
    )


def links(pages: list[tuple[str, str, str, str]], per_row: int) -> None:
    """Page links in rows of ``per_row``, each with its line of text under it."""
    for start in range(0, len(pages), per_row):
        row = pages[start : start + per_row]
        for column, (page, label, icon, caption) in zip(st.columns(per_row), row, strict=False):
            with column:
                st.page_link(page, label=label, icon=icon)  # plain: constants of this module
                st.caption(caption)  # plain: constants of this module


def main() -> None:
    # Everything the page shows is known before its first element is sent (nothing here loads a
    # tokenizer or imports pandas): the browser draws it in one step.
    rows, mine, strips = builtin_rows(), tokenizers.own_tokenizer_names(), glance.glance_html()
    page_header(
        "BPE workbench",
        "Train, inspect and compare byte-level BPE tokenizers, built on the project's bpe_core library. "
        "Everything runs locally; nothing is downloaded.",
    )
    st.markdown(ANSWERS)
    st.subheader("Start here: train, tokenize, compare")
    links(PATH, 3)
    st.subheader(GLANCE_TITLE)
    st.html(strips)
    st.caption(GLANCE_NOTE)
    st.page_link("pages/languages.py", label="Every language and tokenizer: Languages side by side", icon="➡️")
    st.subheader("More to explore")
    links(MORE, 4)
    show_tokenizers(rows, mine)
    st.caption(f"Saved tokenizers live in {md(tokenizers.library().folder)}.")


if __name__ == "__main__":  # Streamlit runs each page file as __main__
    main()
