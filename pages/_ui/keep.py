"""The unsaved tokenizers of this session, each with its own Save and Discard: drawn by every page
that trains (Train, Compare) and by the Library page, so a tokenizer can be kept from where it was
made and from the Library. Saving and discarding are in ``tokenizers``; this module only draws."""

from __future__ import annotations

import streamlit as st

from . import state, tokenizers
from .messages import in_words
from .names import show_name_note
from .render import markdown_text as md


def _save(page: str, key: str, uid: str) -> None:
    """Button callback: save one session tokenizer under the name typed beside it."""
    held = tokenizers.available_tokenizers().get(key)
    if held is None:
        state.flash("error", "That tokenizer is gone (saved or discarded meanwhile): nothing to save.")
        return
    name = (st.session_state.get(f"{page}.keep.{uid}.name") or "").strip() or key[4:]
    try:
        new_key = tokenizers.save_to_library(key, held.get(), name)
    except ValueError as exc:
        state.flash("error", f"Could not save **{md(key[4:])}**: {md(in_words(exc))} Type another name and save again.")
        return
    state.flash("success", f"Saved **{md(new_key[4:])}** to the library ({md(tokenizers.library().folder)}).")


def _discard(key: str) -> None:
    tokenizers.discard_session_tokenizer(key)
    state.flash("info", f"Discarded the unsaved tokenizer **{md(key[4:])}**.")


def session_section(page: str) -> None:
    """One row per unsaved tokenizer of this session: name to save under, Save, Discard.
    ``page`` prefixes the widget keys (``<page>.keep.<uid>.save``…)."""
    held = st.session_state.get(state.SESSION_TOKENIZERS, {})
    if not held:
        return
    st.subheader("Unsaved tokenizers of this session")
    st.caption(
        "Every tokenizer trained in this session stays here until you save or discard it; "
        "unsaved ones disappear when the page is reloaded."
    )
    for name, item in list(held.items()):
        key, uid = f"new:{name}", item.uid
        row = st.columns([3, 3, 1, 1], vertical_alignment="bottom")
        tokenizer = item.tokenizer
        row[0].markdown(f"**{md(name)}**: {tokenizer.vocab_size:,} ids, {len(tokenizer.merges):,} merges")
        name_key = f"{page}.keep.{uid}.name"
        if name_key not in st.session_state:
            st.session_state[name_key] = name
        typed = row[1].text_input("Library name", key=name_key, max_chars=120)
        row[2].button("Save", key=f"{page}.keep.{uid}.save", on_click=_save, args=(page, key, uid))
        row[3].button("Discard", key=f"{page}.keep.{uid}.discard", on_click=_discard, args=(key,))
        show_name_note(typed, st)
