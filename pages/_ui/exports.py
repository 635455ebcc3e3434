"""Download buttons for a tokenizer in the three file formats the workbench writes: bpe_core JSON,
Hugging Face ``tokenizer.json`` and ``.tiktoken`` ranks. The files come from ``bpe_core.formats``;
this module only caches them and draws the buttons (a format the tokenizer cannot be written in
gets a disabled button with the reason)."""

from __future__ import annotations

import json
import re

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.formats import huggingface, tiktoken_file

from .render import markdown_text as md

#: format -> (file name suffix, MIME type, button label)
FORMATS = {
    "bpe_core": (".json", "application/json", "bpe_core JSON"),
    "huggingface": (".tokenizer.json", "application/json", "tokenizer.json (HF)"),
    "tiktoken": (".tiktoken", "text/plain", ".tiktoken"),
}


@st.cache_data(show_spinner=False, max_entries=16)
def export_files(fingerprint: str, _tokenizer: Tokenizer) -> dict[str, tuple[bytes | None, str]]:
    """The tokenizer in three formats: format -> (data or None, note)."""
    out: dict[str, tuple[bytes | None, str]] = {}
    out["bpe_core"] = (_tokenizer.to_json().encode("utf-8"), "bpe_core JSON (lossless)")
    try:
        hf = huggingface.to_huggingface_dict(_tokenizer)
        out["huggingface"] = (json.dumps(hf, ensure_ascii=False).encode("utf-8"), "Hugging Face tokenizer.json")
    except ValueError as exc:
        out["huggingface"] = (None, str(exc))
    try:
        out["tiktoken"] = (
            tiktoken_file.dumps_tiktoken(_tokenizer).encode("ascii"),
            ".tiktoken ranks (pattern and special tokens not included)",
        )
    except ValueError as exc:
        out["tiktoken"] = (None, str(exc))
    return out


def download_buttons(fingerprint: str, tokenizer: Tokenizer, key_prefix: str) -> None:
    """Three download buttons side by side, keyed ``<key_prefix>.dl.<format>``."""
    files = export_files(fingerprint, tokenizer)
    base = re.sub(r"[^\w.-]+", "_", tokenizer.name).strip("_") or "tokenizer"
    for column, (fmt, (suffix, mime, label)) in zip(st.columns(len(FORMATS)), FORMATS.items(), strict=True):
        data, note = files[fmt]
        with column:
            if data is None:
                st.button(f"⬇ {label}", disabled=True, key=f"{key_prefix}.dl.{fmt}", help=md(note))  # plain: FORMATS
                st.caption(f"Not available: {md(note)}")
            else:
                st.download_button(
                    f"⬇ {label}",  # plain: FORMATS
                    data=data,
                    file_name=base + suffix,
                    mime=mime,
                    key=f"{key_prefix}.dl.{fmt}",
                    help=md(note),
                )
