"""Uploaded files: the one file uploader every page uses for text and corpus files, each file read
once per session, and the importer of tokenizer files into the library.

Reading bytes as text or documents is ``bpe_core.corpus``'s job and parsing tokenizer files is
``bpe_core.formats``'s; this module only keeps the results in session state (``state.UPLOADS``),
so a rerun does not read a file again and a page can still offer what was uploaded before the user
left it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.external import ExternalTokenizer, is_external, loads_file
from bpe_core.corpus import decode_text, documents_from_bytes

from . import state
from .render import markdown_text as md
from .tokenizers import save_external, workspace


def upload_limit_mb() -> int:
    """The server's upload limit per file (server.maxUploadSize), in MB."""
    try:
        return int(st.get_option("server.maxUploadSize"))
    except Exception:  # option missing in exotic setups: Streamlit's default
        return 200


@dataclass(frozen=True)
class Upload:
    """One uploaded file, read: its documents (one, or one per JSONL line when split), warnings about
    skipped lines, or the error that made it unreadable; ``digest`` identifies its content."""

    file_id: str
    name: str
    documents: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    error: str | None = None
    digest: str = ""

    @property
    def text(self) -> str:
        """The whole file as text (for files read without splitting JSONL)."""
        return self.documents[0] if self.documents else ""


def _read(uploaded, split_jsonl: bool) -> Upload:
    data = uploaded.getvalue()
    digest = hashlib.sha256(data).hexdigest()[:16]
    try:
        if split_jsonl:
            documents, warnings = documents_from_bytes(data, source=uploaded.name)
        else:
            documents, warnings = [decode_text(data, source=uploaded.name)], []
    except ValueError as exc:
        return Upload(uploaded.file_id, uploaded.name, error=str(exc), digest=digest)
    return Upload(uploaded.file_id, uploaded.name, tuple(documents), tuple(warnings), None, digest)


def session_uploads(key: str) -> dict[str, Upload]:
    """Every file read from the uploader ``key`` in this session and still remembered: file_id -> Upload."""
    return st.session_state.setdefault(state.UPLOADS, {}).setdefault(key, {})


def file_uploader(
    label: str,
    key: str,
    *,
    help: str | None = None,
    multiple: bool = True,
    split_jsonl: bool = False,
    remember_removed: bool = False,
) -> list[Upload]:
    """A file uploader whose files are read once: the files in it now, in upload order.

    ``split_jsonl`` reads a ``.jsonl`` file as one document per line (corpus files); otherwise a file
    is one text. ``remember_removed`` keeps files the user removed (or that the uploader lost when the
    page was left) in ``session_uploads(key)``; otherwise they are forgotten.
    """
    files = st.file_uploader(label, accept_multiple_files=multiple, key=key, help=help)  # plain: callers' text
    files = list(files or []) if multiple else ([files] if files is not None else [])
    read = session_uploads(key)
    if not remember_removed:
        current = {f.file_id for f in files}
        for stale in [file_id for file_id in read if file_id not in current]:
            del read[stale]
    for uploaded in files:
        if uploaded.file_id not in read:
            read[uploaded.file_id] = _read(uploaded, split_jsonl)
    return [read[f.file_id] for f in files]


# ------------------------------------------------------------------------------------------------
# tokenizer files


def tokenizer_from_upload(name: str, data: bytes) -> Tokenizer | ExternalTokenizer:
    """Parse an uploaded tokenizer file, recognised by content: bpe_core JSON, Hugging Face
    ``tokenizer.json`` or a ``.tiktoken`` rank file (which gets the GPT-2 pattern) become a
    ``Tokenizer``; other ``tokenizer.json`` files and SentencePiece ``.model`` files an
    ``ExternalTokenizer`` (``bpe_core.external``)."""
    try:
        tokenizer = loads_file(data, source=name)
    except (TypeError, KeyError, AttributeError, IndexError, RecursionError) as exc:
        raise ValueError(f"{name} is not a usable tokenizer file: {exc}") from None
    stem = Path(name).name
    for suffix in (".json", ".tiktoken", ".tokenizer", ".model"):
        stem = stem.removesuffix(suffix)
    if tokenizer.name in ("", "tokenizer", "huggingface") or tokenizer.name == Path(name).stem:
        tokenizer.name = stem or "uploaded"
    return tokenizer


def tokenizer_upload_section(widget_key: str) -> None:
    """File uploader that imports tokenizer files into the library (each file once)."""
    files = st.file_uploader(
        "Load tokenizer files (bpe_core JSON, any Hugging Face tokenizer.json, .tiktoken, SentencePiece .model)",
        type=["json", "tiktoken", "model"],
        accept_multiple_files=True,
        key=widget_key,
        help=f"Up to {upload_limit_mb():,} MB per file. Imported tokenizers are saved to the library. "
        ".tiktoken files hold no pattern or special tokens: they get the GPT-2 pattern. Byte-level BPE files "
        "become bpe_core tokenizers; others (WordPiece, Unigram, SentencePiece, ...) are kept as external "
        "tokenizers, run read-only by the library that implements them (tokenizers, sentencepiece).",
    )
    done: set = st.session_state.setdefault(state.IMPORTED_FILES, set())
    for upload in files or []:
        marker = (widget_key, upload.file_id)
        if marker in done:
            continue
        done.add(marker)
        try:
            tokenizer = tokenizer_from_upload(upload.name, upload.getvalue())
            if is_external(tokenizer):
                name = save_external(tokenizer)
            else:  # one step, so two sessions importing one name at once get two names
                name = workspace().save_as_new(tokenizer, tokenizer.name or Path(upload.name).stem).name
        except (ValueError, OSError) as exc:
            st.error(f"Could not load {md(upload.name)}: {md(exc)}")
            continue
        if is_external(tokenizer):
            st.success(
                f"Loaded {md(upload.name)} into the library as the external tokenizer **{md(name)}**: "
                f"{md(tokenizer.kind)}, {tokenizer.vocab_size:,} ids. It is shown in Tokenize and Compare; "
                f"{md(tokenizer.note)}."
            )
            continue
        st.success(
            f"Loaded {md(upload.name)} into the library as **{md(name)}** "
            f"({tokenizer.vocab_size:,} ids, {len(tokenizer.merges):,} merges)."
        )
