"""Uploaded files: the one file uploader every page uses for text and corpus files, each file read
once per session (importing tokenizer files is ``imports``').

Reading bytes as text is ``bpe_core.corpora.text_files``'s job, reading a corpus file's bytes (JSONL,
JSON arrays, Parquet, gzip/zstd) into documents, with the fields that hold text,
``bpe_core.corpora.corpus_bytes``' (the same rows ``train_files`` reads); this module says bpe_core's
reading errors in the page's words (``in_plain_words``) and keeps the results in session state
(``state.UPLOADS``), so a rerun does not read a file again and a page can still offer what was
uploaded before the user left it.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import streamlit as st

from bpe_core.corpora.corpus_bytes import is_structured, read_corpus_bytes
from bpe_core.corpora.text_files import decode_text
from bpe_core.errors import BpeError

from . import state
from .render import markdown_text as md


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
    fields: tuple[str, ...] = ()  # a structured file's fields that hold text, the most text first

    @property
    def text(self) -> str:
        """The whole file as text (for files read without splitting JSONL)."""
        return self.documents[0] if self.documents else ""


#: bpe_core's hints name its API (``text_field=``, ``--text-field``): on a page the user picks a field.
_API_HINT = re.compile(r";? ?name the (text column|field that holds the text) with text_field= \(--text-field\)")


def in_plain_words(message: str) -> str:
    """bpe_core's message about a corpus file as the page says it: the page's choice of field, not an
    API keyword.

    >>> in_plain_words("a.parquet has no column 'c'; name the text column with text_field= (--text-field)")
    "a.parquet has no column 'c': pick the field that holds the text"
    """
    return _API_HINT.sub(": pick the field that holds the text", message)


def read_corpus_file(
    name: str, data: bytes, *, text_field: str | Callable[[Sequence[str]], str] = "text"
) -> tuple[list[str], list[str], int, str, tuple[str, ...], str]:
    """``bpe_core.corpora.corpus_bytes.read_corpus_bytes`` of an uploaded file, its messages in the
    page's words (``in_plain_words``): (documents, warnings naming the first bad rows, the number of bad
    rows, what a row is called, the fields holding text, the field read). ValueError, in plain words,
    for a file that cannot be read."""
    try:
        read = read_corpus_bytes(name, data, text_field=text_field)
    except ValueError as exc:
        raise BpeError(in_plain_words(str(exc))) from None
    warnings = [in_plain_words(warning) for warning in read.warnings]
    return read.documents, warnings, read.bad_rows, read.row_unit, read.fields, read.text_field


def _read(uploaded, split_jsonl: bool, text_field: str | Callable[[Sequence[str]], str] = "text") -> Upload:
    data = uploaded.getvalue()
    digest = hashlib.sha256(data).hexdigest()[:16]
    structured = split_jsonl and is_structured(uploaded.name)
    kept = data if structured else b""
    field = text_field if isinstance(text_field, str) else "text"
    try:
        if split_jsonl:
            documents, warnings, bad, unit, fields, field = read_corpus_file(uploaded.name, data, text_field=text_field)
        else:
            documents, warnings, bad, unit, fields = [decode_text(data, source=uploaded.name)], [], 0, "row", ()
    except ValueError as exc:
        return Upload(uploaded.file_id, uploaded.name, error=str(exc), digest=digest, text_field=field, data=kept)
    return Upload(
        uploaded.file_id, uploaded.name, tuple(documents), tuple(warnings), None, digest, bad, field, kept, unit, fields
    )


def skipped_rows_message(upload: Upload, shown: int = 5) -> str:
    """Markdown (every name and reason escaped) saying how many rows of ``upload`` were skipped, and why
    for the first ``shown``; rows are called what the reader called them (``Upload.row_unit``)."""
    if not upload.documents and not upload.bad_rows and not is_structured(upload.name):
        return (
            f"{md(upload.name)} is empty: it adds nothing to the corpus. Remove it, or upload the file with its text."
        )
    skipped = max(upload.bad_rows, len(upload.warnings))
    lines = "\n".join(f"- {md(w)}" for w in upload.warnings[:shown])
    more = f"\n- … and {skipped - min(shown, len(upload.warnings)):,} more" if skipped > shown else ""
    rows = upload.row_unit if skipped == 1 else f"{upload.row_unit}s"
    return f"{md(upload.name)}: {skipped:,} {rows} skipped\n{lines}{more}"


class _Stored:
    """An upload's bytes again, to read a structured file under another text field."""

    def __init__(self, upload: Upload) -> None:
        self.file_id, self.name, self._data = upload.file_id, upload.name, upload.data

    def getvalue(self) -> bytes:
        return self._data


def refresh_text_field(key: str, text_field: str | Callable[[str, Sequence[str]], str]) -> None:
    """Read every structured file of the uploader ``key`` again whose field is no longer the one wanted:
    ``text_field`` for all, or ``text_field(file_id, fields)`` for each."""
    read = session_uploads(key)
    for file_id, upload in list(read.items()):
        want = text_field if isinstance(text_field, str) else text_field(file_id, upload.fields)
        if upload.data and upload.text_field != want:
            read[file_id] = replace(_read(_Stored(upload), True, want), file_id=file_id)


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
    text_field: str | Callable[[str, Sequence[str]], str] = "text",
) -> list[Upload]:
    """A file uploader whose files are read once: the files in it now, in upload order.

    ``split_jsonl`` reads corpus files: JSONL, JSON arrays and Parquet (gzip/zstd too) as one document
    per row, its ``text_field``: one for every file, or ``text_field(file_id, fields)`` picking each
    file's from the fields that hold text (see ``read_corpus_file``); otherwise a file is one text.
    ``remember_removed`` keeps files the user removed (or that the uploader lost when the page was
    left) in ``session_uploads(key)``; otherwise they are forgotten.
    """
    given = st.file_uploader(label, accept_multiple_files=multiple, key=key, help=help)  # plain: callers' text
    files = list(given) if isinstance(given, list) else ([given] if given is not None else [])
    read = session_uploads(key)
    if not remember_removed:
        current = {f.file_id for f in files}
        for stale in [file_id for file_id in read if file_id not in current]:
            del read[stale]
    if split_jsonl:
        refresh_text_field(key, text_field)
    for uploaded in files:
        if uploaded.file_id not in read:
            picks = text_field if isinstance(text_field, str) else functools.partial(text_field, uploaded.file_id)
            read[uploaded.file_id] = _read(uploaded, split_jsonl, picks)
    return [read[f.file_id] for f in files]
