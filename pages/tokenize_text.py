"""Tokenize: one text, several tokenizers side by side, with ids, statistics and cut differences."""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from pages import _common as ui

started = time.perf_counter()
EXAMPLE = (
    "Tokenizers cut text into pieces: \"unbelievable\" → un·believ·able?\n"
    "Numbers 1234567 and 3.14159, code `for i in range(10):  print(i**2)`,\n"
    "accents (naïve café), Chinese 你好世界, emoji 🙂👍🏽, and <b>markup</b>.\n"
)
ID_LIST_LIMIT = 5_000

ui.page_header(
    "Tokenize",
    "Type or upload text and compare how tokenizers cut it. Hover a token for its id, bytes and merge rank. "
    "The text (up to 2,000 characters) and the chosen tokenizers are kept in the URL, so you can share the view.",
)

choices = ui.available_tokenizers()
ui.keep_widget_state(
    {"tokenize.whitespace": False, "tokenize.special": True, "tokenize.diff": True},
    restore_only=[
        "tokenize.text", "tokenize.tokenizers", "tokenize.reference", "tokenize.cut_a", "tokenize.cut_b",
        "tokenize.decode_tokenizer", "tokenize.decode_ids",
    ],
)

# ------------------------------------------------------------------------------------------------
# state from the URL (first run of the page in this session)

if "tokenize.text" not in st.session_state:
    st.session_state["tokenize.text"] = st.query_params.get("text", EXAMPLE)
if "tokenize.tokenizers" not in st.session_state:
    wanted = [k for k in st.query_params.get_all("tok") if k in choices]
    defaults = [st.session_state.get(ui.LAST_TRAINED), ui.DEFAULT_KEY, "gpt2", "cl100k"]
    st.session_state["tokenize.tokenizers"] = wanted or [k for k in defaults if k in choices][:4]
else:  # drop tokenizers deleted since (e.g. on the Library page)
    st.session_state["tokenize.tokenizers"] = [k for k in st.session_state["tokenize.tokenizers"] if k in choices]

# ------------------------------------------------------------------------------------------------
# inputs

text = st.text_area("Text", key="tokenize.text", height=140)
upload = st.file_uploader(
    f"…or a UTF-8 text file (up to {ui.upload_limit_mb()} MB; it replaces the typed text while it is loaded)",
    key="tokenize.upload",
)
from_file = False
if upload is not None:
    try:
        text = ui.decode_upload(upload.name, upload.getvalue())
        from_file = True
        st.caption(f"Using **{upload.name}** ({len(text):,} characters). Remove the file to go back to the typed text.")
    except ValueError as exc:
        st.error(f"{exc} The typed text is used instead.")

selected = st.multiselect(
    "Tokenizers",
    list(choices),
    format_func=lambda k: choices[k].label,
    key="tokenize.tokenizers",
    max_selections=6,
)
options = st.columns(4)
show_ws = options[0].toggle("Show spaces, tabs, newlines", key="tokenize.whitespace")
treat_special = options[1].toggle(
    "Special-token text is special",
    key="tokenize.special",
    help="On: text such as <|endoftext|> becomes the special token. Off: it is encoded as ordinary text.",
)
highlight = options[2].toggle("Highlight cut differences", key="tokenize.diff")
reference = None
if highlight and len(selected) >= 2:
    ui.ensure_option("tokenize.reference", selected, "gpt2")
    reference = options[3].selectbox(
        "Reference tokenizer",
        selected,
        format_func=lambda k: choices[k].label,
        key="tokenize.reference",
    )

# keep the view shareable
st.query_params["tok"] = selected
if not from_file and len(text) <= ui.MAX_URL_TEXT:
    st.query_params["text"] = text
elif "text" in st.query_params:
    del st.query_params["text"]
if not from_file and len(text) > ui.MAX_URL_TEXT:
    st.caption(f"The text is longer than {ui.MAX_URL_TEXT:,} characters, so it is not put into the URL.")

if not selected:
    st.info("Pick at least one tokenizer.")
    st.stop()
if not text:
    st.info("Type some text (or upload a file) to tokenize.")
    st.stop()
if len(text) > ui.MAX_RENDER_CHARS:
    st.warning(
        f"The text has {len(text):,} characters: only the first {ui.MAX_RENDER_CHARS:,} are drawn as tokens. "
        f"Counts below use the first {min(len(text), ui.MAX_STATS_CHARS):,} characters."
    )
shown_text = text[: ui.MAX_RENDER_CHARS]

# ------------------------------------------------------------------------------------------------
# encode

encoded: dict[str, ui.Encoded] = {}
tokenizers = {}
for key in selected:
    choice = choices[key]
    try:
        tokenizer = choice.get()
        encoded[key] = ui.encode_text(choice.fingerprint, text, treat_special, tokenizer)
        tokenizers[key] = tokenizer
    except ValueError as exc:
        st.error(f"{choice.label}: {exc}")

cuts = {key: ui.cut_positions(enc.infos) for key, enc in encoded.items()}

# summary table
rows = []
for key, enc in encoded.items():
    rows.append(
        {
            "tokenizer": choices[key].label,
            "tokens": enc.ids_total,
            "chars/token": round(enc.chars / enc.ids_total, 3) if enc.ids_total else None,
            "bytes/token": round(enc.bytes / enc.ids_total, 3) if enc.ids_total else None,
            "cuts not in reference": (
                "reference" if key == reference else f"{len(cuts[key] - cuts[reference]):,}"
            )
            if reference
            else "—",
        }
    )
if rows:
    st.dataframe(pd.DataFrame(rows), hide_index=True)

# side-by-side spans, at most three per row
keys = list(encoded)
for row_start in range(0, len(keys), 3):
    columns = st.columns(min(3, len(keys) - row_start))
    for column, key in zip(columns, keys[row_start : row_start + 3]):
        enc = encoded[key]
        tokenizer = tokenizers[key]
        compare_to = reference if reference and key != reference else None
        with column:
            st.markdown(f"**{choices[key].label}** · {enc.ids_total:,} tokens")
            ui.show_html(
                ui.tokens_html_cached(
                    choices[key].fingerprint,
                    choices[compare_to].fingerprint if compare_to else None,
                    text,
                    treat_special,
                    show_ws,
                    tokenizer,
                    enc,
                    encoded[compare_to] if compare_to else None,
                )
            )
            ids = [info.id for info in enc.infos]
            with st.expander(f"ids ({len(ids):,})"):
                if len(ids) > ID_LIST_LIMIT:
                    st.caption(f"First {ID_LIST_LIMIT:,} of {len(ids):,} ids.")
                st.code(", ".join(map(str, ids[:ID_LIST_LIMIT])), language=None, wrap_lines=True)
if reference:
    st.caption(
        f"A red bar marks a cut (token start) that **{choices[reference].label}** does not make. "
        "Dashed tokens hold only part of a UTF-8 character and show their bytes; dark tokens are special tokens."
    )
else:
    st.caption("Dashed tokens hold only part of a UTF-8 character and show their bytes; dark tokens are special tokens.")

# ------------------------------------------------------------------------------------------------
# where two tokenizers cut differently

if len(keys) >= 2:
    st.subheader("Where two tokenizers cut differently")
    pair_cols = st.columns(2)
    ui.ensure_option("tokenize.cut_a", keys, keys[0])
    ui.ensure_option("tokenize.cut_b", keys, keys[1])
    first = pair_cols[0].selectbox("First", keys, format_func=lambda k: choices[k].label, key="tokenize.cut_a")
    second = pair_cols[1].selectbox(
        "Second", keys, format_func=lambda k: choices[k].label, key="tokenize.cut_b"
    )
    only_a = cuts[first] - cuts[second]
    only_b = cuts[second] - cuts[first]
    shared = cuts[first] & cuts[second]
    st.html(
        ui.TOKEN_CSS
        + '<div class="bpe-legend bpe-cuts" style="max-height:none">'
        + f'<span class="a">cut only by {ui.html.escape(choices[first].label)}: {len(only_a):,}</span>'
        + f'<span class="b">cut only by {ui.html.escape(choices[second].label)}: {len(only_b):,}</span>'
        + f'<span class="both">cut by both: {len(shared):,}</span></div>'
    )
    ui.show_html(ui.render_cuts_html(shown_text, cuts[first], cuts[second]))

# ------------------------------------------------------------------------------------------------
# decode ids

st.subheader("Decode ids")
decode_cols = st.columns([1, 3])
with decode_cols[0]:
    decode_choice = ui.tokenizer_picker("Tokenizer", choices, key="tokenize.decode_tokenizer", default=keys[0])
with decode_cols[1]:
    raw_ids = st.text_input("Token ids (comma or space separated)", key="tokenize.decode_ids", placeholder="15496, 995")
if raw_ids.strip():
    try:
        ids = ui.parse_ids(raw_ids)
        decoder = decode_choice.get()
        decoded = decoder.decode(ids)
    except ValueError as exc:
        st.error(str(exc))
    else:
        st.markdown(f"{len(ids):,} id(s) → {len(decoded):,} character(s):")
        st.code(decoded, language=None, wrap_lines=True)
        if len(ids) <= 200:
            st.dataframe(
                pd.DataFrame(
                    {
                        "id": ids,
                        "token": [ui.token_display(decoder.token_bytes(i)) for i in ids],
                        "bytes (hex)": [decoder.token_bytes(i).hex(" ") for i in ids],
                    }
                ),
                hide_index=True,
            )

st.caption(f"Server time for this view: {(time.perf_counter() - started) * 1000:,.0f} ms.")
