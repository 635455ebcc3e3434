"""Library: the tokenizers saved in the library folder: list, rename, delete, download, import;
external tokenizers (files bpe_core reads but does not run): list, delete."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from bpe_core.workspace.library_folder import LibraryEntry, describe_age
from pages._library.hub import hub_section
from pages._ui import exports, state, tables, tokenizers
from pages._ui.imports import tokenizer_upload_section
from pages._ui.keep import session_section
from pages._ui.messages import in_words
from pages._ui.names import show_name_note
from pages._ui.render import markdown_text as md
from pages._ui.widgets import page_header, show_table

SELECTED = "library.selected"
NEW_NAME = "library.new_name"
CONFIRM = "library.confirm"
EXTERNAL_SELECTED = "library.external_selected"


def library_row(entry: LibraryEntry, choice: tokenizers.TokenizerChoice | None) -> dict:
    tokenizer = choice.get() if choice else None
    return {
        "name": entry.name,
        "status": "ok" if tokenizer is not None else "unreadable",
        "vocab size": tokenizer.vocab_size if tokenizer is not None else None,
        "merges": len(tokenizer.merges) if tokenizer is not None else None,
        "pattern": tables.pattern_label(tokenizer) if tokenizer is not None else "",
        "file size": f"{entry.size / 1024:,.1f} KB",
        "saved": describe_age(entry.modified),
    }


def rename_selected() -> None:
    """Button callback (runs before the widgets are drawn, so it may change their values)."""
    old = st.session_state.get(SELECTED)
    if not isinstance(old, str):
        return  # nothing selected (no tokenizer was left to select)
    new = st.session_state.get(NEW_NAME, "")
    if not new.strip():
        state.flash("error", f"Type the new name of **{md(old)}** first, then press Rename.")
        return
    try:
        entry = tokenizers.library().rename(old, new)
    except ValueError as exc:
        state.flash("error", f"Could not rename: {md(in_words(exc))}")
        return
    state.flash("success", f"Renamed **{md(old)}** to **{md(entry.name)}**.")
    st.session_state[SELECTED] = entry.name
    st.session_state[NEW_NAME] = ""


def delete_selected() -> None:
    name = st.session_state.get(SELECTED)
    if not isinstance(name, str):
        return  # nothing selected (no tokenizer was left to select)
    try:
        tokenizers.library().delete(name)
    except ValueError as exc:
        state.flash("error", f"Could not delete: {md(in_words(exc))}")
        return
    state.flash("success", f"Deleted **{md(name)}**.")
    st.session_state[CONFIRM] = False


def manage(entries: list[LibraryEntry], by_name: dict[str, tokenizers.TokenizerChoice]) -> None:
    """Rename, delete and download the selected tokenizer."""
    st.subheader("Manage")
    names = [entry.name for entry in entries]
    state.ensure_option(SELECTED, names)
    selected = st.selectbox("Tokenizer", names, key=SELECTED)
    rename = st.columns([3, 1], vertical_alignment="bottom")
    typed = rename[0].text_input("New name", key=NEW_NAME, placeholder=selected)
    rename[1].button("Rename", key="library.rename", on_click=rename_selected)
    show_name_note(typed, st)
    delete = st.columns([3, 1], vertical_alignment="bottom")
    sure = delete[0].checkbox(f"Yes, delete {md(selected)} from the library", key=CONFIRM)
    delete[1].button("Delete", key="library.delete", disabled=not sure, on_click=delete_selected)
    choice = by_name.get(selected)
    if choice is not None:
        st.markdown("**Download**")
        exports.download_buttons(choice.fingerprint, choice.get(), "library")


def external_section() -> None:
    """External tokenizers (files bpe_core reads but does not run): what they are, and deleting one."""
    choices, problems = tokenizers.external_choices()
    if not choices and not problems:
        return
    st.subheader("External tokenizers")
    st.caption(
        "Tokenizer files that are not byte-level BPE (WordPiece, Unigram, SentencePiece, ...), run read-only by the "
        "library that implements them. They appear in Tokenize and Compare; the merge forest, first-k merges and "
        f"step through need merges, which they do not have. Folder: {md(tokenizers.external_folder())}."
    )
    if choices:
        rows = [
            {
                "name": c.key[4:],
                "kind": c.note,
                "vocab size": c.get().vocab_size,
                "why not bpe_core": getattr(c.get(), "note", ""),
            }
            for c in choices
        ]
        show_table(pd.DataFrame(rows))
        columns = st.columns([3, 1], vertical_alignment="bottom")
        names = [c.key[4:] for c in choices]
        state.ensure_option(EXTERNAL_SELECTED, names)
        chosen = columns[0].selectbox("External tokenizer to delete", names, key=EXTERNAL_SELECTED)
        if columns[1].button("Delete", key="library.external_delete"):
            try:
                tokenizers.delete_external(chosen)
            except (ValueError, OSError) as exc:
                st.error(f"Could not delete: {md(in_words(exc))}")
            else:
                st.success(f"Deleted the external tokenizer **{md(chosen)}**.")
                st.rerun()
    for problem in problems:
        st.error(f"**{md(problem.name)}** cannot be used: {md(in_words(problem.error))}")


def main() -> None:
    page_header(
        "Tokenizer library",
        "Tokenizers you save or import are kept as bpe_core JSON files in the library folder and are shared "
        "by every page; they survive reloads and restarts.",
    )
    state.keep_widget_state(restore_only=[SELECTED])
    ws = tokenizers.library()
    st.caption(f"Folder: {md(ws.folder)} (set the environment variable BPE_WORKBENCH_DIR to use another).")
    listing = st.container()  # drawn above the import, filled after it so an import shows at once
    st.subheader("Import")
    tokenizer_upload_section("library.upload")
    with listing:
        session_section("library")
        library_listing(ws)
        hub_section()
    notes = tokenizers.not_installed_notes()
    if notes:
        st.caption("Built-in tokenizers whose package is missing: " + md("; ".join(notes)))


def library_listing(ws) -> None:
    """The saved tokenizers (read after this run's imports), managing them, and the external ones."""
    try:
        entries = ws.entries()
    except ValueError as exc:
        st.error(md(in_words(exc)))
        entries = []
    choices, problems = tokenizers.library_choices()
    by_name = {c.key[4:]: c for c in choices}
    if entries:
        show_table(pd.DataFrame([library_row(e, by_name.get(e.name)) for e in entries]))  # 4,000, and "—" for none
    else:
        st.info("The library is empty. Train a tokenizer on the Train page and save it, or import a file below.")
    for problem in problems:
        st.error(f"**{md(problem.name)}** cannot be used: {md(in_words(problem.error))}")
    if entries:
        manage(entries, by_name)
    external_section()


if __name__ == "__main__":  # Streamlit runs each page file as __main__
    main()
