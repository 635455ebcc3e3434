"""Languages side by side: one sentence of the built-in parallel text in every language, tokenized by
one tokenizer, the token strips stacked under each other, each language's cost as a multiple of the
reference language's (and in money, at a price per million tokens), for teachers and talks. Exports
the strips as an SVG and the numbers as a CSV. The sentences are ``bpe_core.corpora.samples``'
parallel text; the strips are ``pages/_languages/strips.py``'s.
"""

from __future__ import annotations

import re

import pandas as pd
import streamlit as st

from bpe_core.analysis.csv_export import frame_csv
from bpe_core.analysis.parity_report import language_names
from bpe_core.corpora.samples import REFERENCE_ID, parallel_languages, parallel_text
from pages._languages.strips import Row, cost_text, multiple_text, rows_html, rows_svg
from pages._ui import state, tokenizers
from pages._ui.messages import in_words
from pages._ui.render import markdown_text as md
from pages._ui.tokenizers import TokenizerChoice
from pages._ui.widgets import page_header, show_table, tokenizer_picker

K_TOKENIZER = "langs.tokenizer"
K_SENTENCE = "langs.sentence"
K_REFERENCE = "langs.reference"
K_LANGUAGES = "langs.languages"
K_PRICE = "langs.price"
K_ORDER = "langs.order"
ORDERS = {"cost": "cheapest first", "given": "as listed"}
KEPT = [K_TOKENIZER, K_SENTENCE, K_REFERENCE, K_LANGUAGES, K_PRICE, K_ORDER]


@st.cache_data(show_spinner=False)
def sentences() -> dict[str, list[str]]:
    """language -> its 120 sentences (the built-in parallel text, training and held-out lines)."""
    return parallel_text(split="all")


@st.cache_data(show_spinner=False)
def names() -> dict[str, str]:
    """language -> its name (English, Hindi...)."""
    return language_names(parallel_languages())


@st.cache_resource(show_spinner=False, max_entries=64)
def encoded(fingerprint: str, language: str, index: int, _tokenizer) -> list:
    """The ``TokenInfo`` of sentence ``index`` in ``language``, cached per tokenizer."""
    return _tokenizer.encode_with_details(sentences()[language][index], disallowed_special=())


def read_inputs(choices: dict[str, TokenizerChoice]) -> tuple[TokenizerChoice, int, str, list[str], float | None]:
    """Draw the inputs: (tokenizer, sentence index, reference language, languages, price or None)."""
    english = sentences()[REFERENCE_ID]
    languages = list(sentences())
    top = st.columns([2, 3])
    with top[0]:
        choice = tokenizer_picker("Tokenizer", choices, key=K_TOKENIZER, default="gpt2" if "gpt2" in choices else None)
    state.ensure_option(K_SENTENCE, list(range(len(english))), 0)
    index = top[1].selectbox(
        "Sentence (the same in every language)",
        list(range(len(english))),
        format_func=lambda i: f"{i + 1}. {english[i]}",
        key=K_SENTENCE,
    )
    middle = st.columns([1, 1, 1])
    state.ensure_option(K_REFERENCE, languages, REFERENCE_ID)
    reference = middle[0].selectbox("Reference language", languages, format_func=lambda x: names()[x], key=K_REFERENCE)
    price = middle[1].number_input(
        "Price per million tokens (optional)",
        min_value=0.0,
        value=None,
        step=0.5,
        format="%.2f",
        key=K_PRICE,
        placeholder="e.g. 2.50",
        help="Any currency: each row then shows what a million such sentences cost.",
    )
    state.ensure_option(K_ORDER, list(ORDERS), "cost")
    order = middle[2].radio("Rows", list(ORDERS), format_func=ORDERS.get, key=K_ORDER, horizontal=True)
    if K_LANGUAGES not in st.session_state:
        st.session_state[K_LANGUAGES] = languages
    chosen = st.multiselect("Languages", languages, format_func=lambda x: names()[x], key=K_LANGUAGES)
    ordered = [x for x in languages if x in chosen]
    return choice, int(index or 0), reference or REFERENCE_ID, ordered if order == "given" else chosen, price


def build_rows(
    choice: TokenizerChoice, index: int, reference: str, languages: list[str], price: float | None, *, by_cost: bool
) -> list[Row]:
    """One row per language (the reference first when it is not chosen); ValueError when the tokenizer fails."""
    tokenizer = choice.get()
    base = len(encoded(choice.fingerprint, reference, index, tokenizer))
    rows = []
    for language in dict.fromkeys([reference, *languages]):
        infos = encoded(choice.fingerprint, language, index, tokenizer)
        multiple = len(infos) / base if base else None
        cost = len(infos) * price if price is not None else None  # a million sentences x tokens / 1e6 x price
        rows.append(Row(names()[language], sentences()[language][index], infos, multiple, cost, language == reference))
    if by_cost:
        rows.sort(key=lambda row: (not row.reference, row.tokens))
    return rows


def downloads(rows: list[Row], choice: TokenizerChoice, index: int, price_label: str) -> None:
    title = f"The same sentence in {len(rows)} languages, tokenized by {choice.label}"
    subtitle = f"Sentence {index + 1} of the built-in parallel text · cost as a multiple of the reference language"
    base = re.sub(r"[^\w.-]+", "-", choice.label).strip("-") or "tokenizer"
    columns = st.columns(2)
    columns[0].download_button(
        "⬇ Strips as SVG (for slides)",
        rows_svg(rows, title=title, subtitle=subtitle, price_label=price_label),
        file_name=f"languages-side-by-side-{base}.svg",
        mime="image/svg+xml",
        key="langs.svg",
    )
    table = numbers_frame(rows, price_label)
    columns[1].download_button(
        "⬇ Numbers as CSV",
        frame_csv(table).encode("utf-8"),  # spreadsheet-safe cells
        mime="text/csv",
        file_name=f"languages-side-by-side-{base}.csv",
        key="langs.csv",
    )


def numbers_frame(rows: list[Row], price_label: str) -> pd.DataFrame:
    """The rows' numbers: language, characters, tokens, the multiple (and the cost)."""
    frame = pd.DataFrame(
        [
            {"language": row.name, "characters": len(row.text), "tokens": row.tokens, "× reference": multiple_text(row)}
            for row in rows
        ]
    )
    if rows and rows[0].cost is not None:
        frame[price_label] = [cost_text(row.cost) for row in rows]
    return frame


def main() -> None:
    page_header(
        "Languages side by side",
        "One sentence, translated into 21 languages, cut by one tokenizer: each row is that language's tokens, and "
        "what it costs next to the reference language. A character split between tokens is drawn once over its "
        "numbered pieces; hover a token for its id and bytes.",
    )
    state.keep_widget_state(restore_only=KEPT)
    choices = tokenizers.available_tokenizers()
    choice, index, reference, languages, price = read_inputs(choices)
    if not languages:
        st.info("Pick at least one language.")
        return
    try:
        with st.spinner(f"Tokenizing the sentence in {len(languages)} languages…"):
            by_cost = st.session_state.get(K_ORDER) == "cost"
            rows = build_rows(choice, index, reference, languages, price, by_cost=by_cost)
    except ValueError as exc:
        st.error(f"{md(choice.label)}: {md(in_words(exc))}")
        return
    price_label = "per million such sentences"
    st.html(rows_html(rows, price_label=price_label))
    dearest = max(rows, key=lambda row: row.tokens)
    if dearest.multiple:
        st.caption(
            f"{md(dearest.name)} needs {dearest.tokens:,} tokens for what {md(rows[0].name)} says in "
            f"{rows[0].tokens:,}: {dearest.multiple:.1f} times as many, so {dearest.multiple:.1f} times the "
            "price, and a context window holds that much less of it."
        )
    downloads(rows, choice, index, price_label)
    st.page_link(
        "pages/extend.py",
        label="Lower a language's cost in the model you use: extend its tokenizer",
        icon=":material/add_circle:",
    )
    with st.expander("The numbers as a table"):
        show_table(numbers_frame(rows, price_label))


if __name__ == "__main__":  # Streamlit runs each page file as __main__
    main()
