"""Library: the tokenizers saved in the workspace folder: list, rename, delete, download, import."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from bpe_core.workspace import describe_age

from pages import _common as ui

ui.page_header(
    "Tokenizer library",
    "Tokenizers you save or import are kept as bpe_core JSON files in the workspace folder and are shared by "
    "every page; they survive reloads and restarts.",
)
ui.keep_widget_state(restore_only=["library.selected"])
ws = ui.workspace()
st.caption(f"Folder: `{ws.folder}` (set the environment variable BPE_WORKBENCH_DIR to use another).")

try:
    entries = ws.entries()
except ValueError as exc:
    st.error(str(exc))
    entries = []

choices, problems = ui.library_choices()
rows = []
by_name = {c.key[4:]: c for c in choices}
for entry in entries:
    choice = by_name.get(entry.name)
    tokenizer = choice.get() if choice else None
    rows.append(
        {
            "name": entry.name,
            "status": "ok" if tokenizer is not None else "unreadable",
            "vocab size": tokenizer.vocab_size if tokenizer is not None else None,
            "merges": len(tokenizer.merges) if tokenizer is not None else None,
            "pattern": (tokenizer.pattern_name or ("none" if tokenizer.pattern is None else "custom")) if tokenizer is not None else "",
            "file size": f"{entry.size / 1024:,.1f} KB",
            "saved": describe_age(entry.modified),
        }
    )

if not rows:
    st.info("The library is empty. Train a tokenizer on the Train page and save it, or import a file below.")
else:
    st.dataframe(pd.DataFrame(rows), hide_index=True)
for problem in problems:
    st.error(f"**{problem.name}** cannot be used: {problem.error}")

def rename_selected() -> None:
    """Button callback (runs before the widgets are drawn, so it may change their values)."""
    old = st.session_state.get("library.selected")
    new = st.session_state.get("library.new_name", "")
    try:
        entry = ws.rename(old, new)
    except ValueError as exc:
        ui.flash("error", f"Could not rename: {exc}")
        return
    ui.flash("success", f"Renamed **{old}** to **{entry.name}**.")
    st.session_state["library.selected"] = entry.name
    st.session_state["library.new_name"] = ""


def delete_selected() -> None:
    name = st.session_state.get("library.selected")
    try:
        ws.delete(name)
    except ValueError as exc:
        ui.flash("error", f"Could not delete: {exc}")
        return
    ui.flash("success", f"Deleted **{name}**.")
    st.session_state["library.confirm"] = False


if entries:
    st.subheader("Manage")
    names = [entry.name for entry in entries]
    ui.ensure_option("library.selected", names)
    selected = st.selectbox("Tokenizer", names, key="library.selected")
    manage = st.columns([3, 1], vertical_alignment="bottom")
    manage[0].text_input("New name", key="library.new_name", placeholder=selected)
    manage[1].button("Rename", key="library.rename", on_click=rename_selected)
    delete = st.columns([3, 1], vertical_alignment="bottom")
    sure = delete[0].checkbox(f"Yes, delete {selected} from the library", key="library.confirm")
    delete[1].button("Delete", key="library.delete", disabled=not sure, on_click=delete_selected)
    choice = by_name.get(selected)
    if choice is not None:
        st.markdown("**Download**")
        ui.download_buttons(choice.fingerprint, choice.get(), "library")

st.subheader("Import")
ui.tokenizer_upload_section("library.upload")
