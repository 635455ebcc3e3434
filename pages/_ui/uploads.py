"""Uploaded files: the one file uploader every page uses for text and corpus files, each file read
once per session, and the importer of tokenizer files into the library.

Reading bytes as text is ``bpe_core.corpora.text_files``'s job, reading corpus files (JSONL, JSON arrays, Parquet,
gzip/zstd) into documents ``bpe_core.corpora.documents``'s (the same rows ``train_files`` reads), and parsing
tokenizer files ``bpe_core.formats``'s; this module only keeps the results in session state
(``state.UPLOADS``), so a rerun does not read a file again and a page can still offer what was
uploaded before the user left it.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.corpora.documents import DocumentReader, file_format
from bpe_core.corpora.text_files import decode_text
from bpe_core.pretrained.external import ExternalTokenizer, is_external, loads_file

from . import state
from .render import markdown_text as md
from .tokenizers import library, save_external


def upload_limit_mb() -> int:
    """The server's upload limit per file (server.maxUploadSize), in MB."""
    try:
        return int(st.get_option("server.maxUploadSize"))
    except Exception:  # option missing in exotic setups: Streamlit's default
        return 200


@dataclass(frozen=True)
class Upload:
    """One uploaded file, read: its documents (one, or one per row of a corpus file when split), warnings
    about skipped rows (``bad_rows`` counts them all, ``row_unit`` is what the reader calls a row: "line"
    in JSONL, else "row"), or the error that made it unreadable; ``digest`` identifies its content. A
    structured file keeps its bytes (``data``) and the ``text_field`` it was read with, so it can be read
    again when the field changes."""

    file_id: str
    name: str
    documents: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    error: str | None = None
    digest: str = ""
    bad_rows: int = 0
    text_field: str = "text"
    data: bytes = b""
    row_unit: str = "row"

    @property
    def text(self) -> str:
        """The whole file as text (for files read without splitting JSONL)."""
        return self.documents[0] if self.documents else ""


def is_structured(name: str) -> bool:
    """Whether a corpus file holds rows with a text field (JSONL, JSON, Parquet; compressed or not)."""
    try:
        return file_format(name).kind != "text"
    except ValueError:  # e.g. .parquet.gz: read (and refused with the reason) like a structured file
        return True


def read_corpus_file(name: str, data: bytes, *, text_field: str = "text") -> tuple[list[str], list[str], int, str]:
    """The documents of an uploaded corpus file, as ``bpe_core.train_files`` reads that file: (documents,
    warnings naming the first bad rows, the number of bad rows, what a row is called: "line" in JSONL,
    else "row"). A plain text file is one document (empty: none); ValueError for a file that cannot be read."""
    form = file_format(name)
    unit = "line" if form.kind == "jsonl" else "row"
    if form.kind == "text" and form.compression is None:
        text = decode_text(data, source=name)
        return ([text] if text else []), ([] if text else [f"{name} is empty"]), 0, unit
    with tempfile.TemporaryDirectory(prefix="bpe-upload-") as folder:
        path = os.path.join(folder, Path(name).name or "upload")
        with open(path, "wb") as handle:
            handle.write(data)  # plain: a file, not Markdown
        reader = DocumentReader([path], text_field=text_field)
        try:
            documents = ["".join(document) for document in reader.documents()]
        except ValueError as exc:
            raise ValueError(str(exc).replace(path, name)) from None
    warnings = [f"{name} {unit} {e['row']:,}: {e['reason']}" for e in reader.bad_rows.examples]
    return documents, warnings, reader.bad_rows.count, unit


def _read(uploaded, split_jsonl: bool, text_field: str = "text") -> Upload:
    data = uploaded.getvalue()
    digest = hashlib.sha256(data).hexdigest()[:16]
    structured = split_jsonl and is_structured(uploaded.name)
    kept = data if structured else b""
    try:
        if split_jsonl:
            documents, warnings, bad, unit = read_corpus_file(uploaded.name, data, text_field=text_field)
        else:
            documents, warnings, bad, unit = [decode_text(data, source=uploaded.name)], [], 0, "row"
    except ValueError as exc:
        return Upload(uploaded.file_id, uploaded.name, error=str(exc), digest=digest, text_field=text_field, data=kept)
    return Upload(uploaded.file_id, uploaded.name, tuple(documents), tuple(warnings), None, digest, bad, text_field,
                  kept, unit)  # fmt: skip


def skipped_rows_message(upload: Upload, shown: int = 5) -> str:
    """Markdown (every name and reason escaped) saying how many rows of ``upload`` were skipped, and why
    for the first ``shown``; rows are called what the reader called them (``Upload.row_unit``)."""
    skipped = max(upload.bad_rows, len(upload.warnings))
    lines = "\n".join(f"- {md(w)}" for w in upload.warnings[:shown])
    more = f"\n- … and {skipped - min(shown, len(upload.warnings)):,} more" if skipped > shown else ""
    return f"{md(upload.name)}: {skipped:,} {upload.row_unit}(s) skipped\n{lines}{more}"


class _Stored:
    """An upload's bytes again, to read a structured file under another text field."""

    def __init__(self, upload: Upload) -> None:
        self.file_id, self.name, self._data = upload.file_id, upload.name, upload.data

    def getvalue(self) -> bytes:
        return self._data


def refresh_text_field(key: str, text_field: str) -> None:
    """Read every structured file of the uploader ``key`` again whose text field is not ``text_field``."""
    read = session_uploads(key)
    for file_id, upload in list(read.items()):
        if upload.data and upload.text_field != text_field:
            read[file_id] = replace(_read(_Stored(upload), True, text_field), file_id=file_id)


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
    text_field: str = "text",
) -> list[Upload]:
    """A file uploader whose files are read once: the files in it now, in upload order.

    ``split_jsonl`` reads corpus files: JSONL, JSON arrays and Parquet (gzip/zstd too) as one document
    per row, its ``text_field`` (see ``read_corpus_file``); otherwise a file is one text.
    ``remember_removed`` keeps files the user removed (or that the uploader lost when the page was
    left) in ``session_uploads(key)``; otherwise they are forgotten.
    """
    files = st.file_uploader(label, accept_multiple_files=multiple, key=key, help=help)  # plain: callers' text
    files = list(files or []) if multiple else ([files] if files is not None else [])
    read = session_uploads(key)
    if not remember_removed:
        current = {f.file_id for f in files}
        for stale in [file_id for file_id in read if file_id not in current]:
            del read[stale]
    if split_jsonl:
        refresh_text_field(key, text_field)
    for uploaded in files:
        if uploaded.file_id not in read:
            read[uploaded.file_id] = _read(uploaded, split_jsonl, text_field)
    return [read[f.file_id] for f in files]


# ------------------------------------------------------------------------------------------------
# tokenizer files


def tokenizer_from_upload(name: str, data: bytes) -> Tokenizer | ExternalTokenizer:
    """Parse an uploaded tokenizer file, recognised by content: bpe_core JSON, Hugging Face
    ``tokenizer.json`` or a ``.tiktoken`` rank file (which gets the GPT-2 pattern) become a
    ``Tokenizer``; other ``tokenizer.json`` files and SentencePiece ``.model`` files an
    ``ExternalTokenizer`` (``bpe_core.pretrained.external``)."""
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
                name = library().save_as_new(tokenizer, tokenizer.name or Path(upload.name).stem).name
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
