"""Keeping one of the Lab page's variants: it joins this session's unsaved tokenizers (with Save and
Discard, as on the pages that train: ``pages/_ui/keep.py``) or goes straight to the library, under a
name the user types. Saving is ``pages/_ui/tokenizers``'; this module draws the choice."""

from __future__ import annotations

import copy
import re

import streamlit as st

from pages._ui import state, tokenizers
from pages._ui.keep import session_section
from pages._ui.messages import in_words
from pages._ui.names import show_name_note
from pages._ui.render import markdown_text as md

from .training import LabRun

PICK = "lab.keep.pick"
NAME = "lab.keep.name"


def default_name(label: str, vocab_size: int) -> str:
    """A library name for a variant: ``lab-`` and its label in lower case, spaces and ``=`` as dashes.

    >>> default_name("SuperBPE t=0.8", 2000), default_name("parity-aware BPE", 500)
    ('lab-superbpe-t0.8-2000', 'lab-parity-aware-bpe-500')
    """
    slug = re.sub(r"[^\w.]+", "-", label.lower().replace("=", "")).strip("-")
    return f"lab-{slug}-{vocab_size}"


def _keep(run: LabRun, *, save: bool) -> None:
    """Button callback: keep the chosen variant for this session, or save it to the library."""
    label = st.session_state.get(PICK)
    if label not in run.tokenizers:
        state.flash("error", "Pick one of the trained variants to keep.")
        return
    name = (st.session_state.get(NAME) or "").strip() or default_name(label, run.vocab_size)
    kept = copy.copy(run.tokenizers[label])  # the run keeps its own name for the variant
    kept.name = name
    key = tokenizers.add_session_tokenizer(kept, (run.corpus.label, run.corpus.documents))
    if not save:
        state.flash(
            "success",
            f"Kept **{md(label)}** for this session as **{md(key[4:])}**: save or discard it "
            "below, or pick it on any page.",
        )
        return
    try:
        new_key = tokenizers.save_to_library(key, kept, name)
    except ValueError as exc:
        state.flash(
            "error",
            f"Could not save **{md(name)}**: {md(in_words(exc))} It is kept for this session: type another "
            "name below and save it.",
        )
        return
    state.flash("success", f"Saved **{md(label)}** to the library as **{md(new_key[4:])}**.")


def keep_section(run: LabRun) -> None:
    st.header("4 · Keep a variant", divider="gray")
    labels = list(run.tokenizers)
    state.ensure_option(PICK, labels, labels[0])
    row = st.columns([3, 3, 2, 2], vertical_alignment="bottom")
    label = row[0].selectbox("Variant", labels, key=PICK) or labels[0]
    if st.session_state.get(state.LAB_KEEP_FOR) != (run.uid, label):  # a new pick or run: its default name
        st.session_state[state.LAB_KEEP_FOR] = (run.uid, label)
        st.session_state[NAME] = default_name(label, run.vocab_size)
    typed = row[1].text_input("Name", key=NAME, max_chars=120)
    row[2].button("Keep for this session", key="lab.keep.session", on_click=_keep, args=(run,), kwargs={"save": False})
    row[3].button("Save to the library", key="lab.keep.save", on_click=_keep, args=(run,), kwargs={"save": True})
    show_name_note(typed, st)
    st.caption("A kept variant is a tokenizer like the others: the other pages offer it.")
    session_section("lab")
