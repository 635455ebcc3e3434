"""Uploaded files: the one file uploader every page uses for text and corpus files, each file read
once per session (importing tokenizer files is ``imports``').

Reading bytes as text is ``bpe_core.corpora.text_files``'s job, reading corpus files (JSONL, JSON arrays, Parquet,
gzip/zstd) into documents ``bpe_core.corpora.documents``'s (the same rows ``train_files`` reads); this
module finds which fields of a structured file hold text, says bpe_core's reading errors in the page's
words (``in_plain_words``), and keeps the results in session state
(``state.UPLOADS``), so a rerun does not read a file again and a page can still offer what was
uploaded before the user left it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path

import streamlit as st

from bpe_core.corpora.documents import DocumentReader, file_format
from bpe_core.corpora.streams import ByteStream, import_pyarrow, is_text_type, json_array_elements, jsonl_rows
from bpe_core.corpora.text_files import decode_text
from bpe_core.errors import BpeError
from bpe_core.safe_io import create_new

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


def is_structured(name: str) -> bool:
    """Whether a corpus file holds rows with a text field (JSONL, JSON, Parquet; compressed or not)."""
    try:
        return file_format(name).kind != "text"
    except ValueError:  # e.g. .parquet.gz: read (and refused with the reason) like a structured file
        return True


#: Rows (or elements, or Parquet rows) looked at to find which fields of a structured file hold text.
SAMPLE_ROWS = 200
#: bpe_core's hints name its API (``text_field=``, ``--text-field``): on a page the user picks a field.
_API_HINT = re.compile(r";? ?name the (text column|field that holds the text) with text_field= \(--text-field\)")


def in_plain_words(message: str, path: str, name: str) -> str:
    """bpe_core's message about the file ``path`` as the page says it: the file's own name, not the
    server's temporary path, and the page's choice of field, not an API keyword.

    >>> in_plain_words("/tmp/x/a.parquet has no column 'c'; name the text column with text_field= (--text-field)",
    ...                "/tmp/x/a.parquet", "a.parquet")
    "a.parquet has no column 'c': pick the field that holds the text"
    """
    return _API_HINT.sub(": pick the field that holds the text", message.replace(path, name))


def text_fields(path: str, form) -> tuple[str, ...]:
    """The fields (Parquet columns, JSON object keys) that hold text in the first SAMPLE_ROWS rows of a
    structured file, the one with the most text first; empty when none does (or its rows are plain
    JSON strings, which need no field). Reading problems are left to the reader, which names them."""
    sizes: dict[str, int] = {}
    try:
        if form.kind == "parquet":
            pyarrow, parquet = import_pyarrow("reading Parquet needs pyarrow")
            handle = parquet.ParquetFile(path)
            names = [f.name for f in handle.schema_arrow if is_text_type(f.type)]
            batch = next(handle.iter_batches(batch_size=SAMPLE_ROWS, columns=names), None) if names else None
            for column_name in names:
                column = batch.column(column_name) if batch is not None else None
                sizes[column_name] = sum(len(v) for v in column.to_pylist() if isinstance(v, str)) if column else 0
        else:
            with ByteStream(path, form.compression) as stream:
                blocks = stream.blocks(1 << 16)
                rows = jsonl_rows(blocks) if form.kind == "jsonl" else json_array_elements(blocks, source=path)
                for _, raw in islice(rows, SAMPLE_ROWS):
                    try:
                        value = json.loads(raw)
                    except ValueError:
                        continue
                    for key, text in value.items() if isinstance(value, dict) else ():
                        if isinstance(text, str):
                            sizes[key] = sizes.get(key, 0) + len(text)
    except (ValueError, OSError, ImportError):
        return ()
    return tuple(sorted(sizes, key=lambda key: -sizes[key]))


def _columns(path: str) -> str:
    """A Parquet file's column names, or what keeps it from being read."""
    try:
        _, parquet = import_pyarrow("reading Parquet needs pyarrow")
        return ", ".join(parquet.ParquetFile(path).schema_arrow.names[:12]) or "none"
    except (ValueError, OSError, ImportError) as exc:
        return f"unreadable: {exc}"


def chosen_field(fields: Sequence[str], wanted: str | None = None) -> str:
    """The field to read: ``wanted`` when the file has it, else "text" when it has that, else the field
    holding the most text (and "text" for a file with none: its rows are strings, or the reader says
    what is wrong)."""
    if wanted in fields:
        return str(wanted)
    if "text" in fields or not fields:
        return "text"
    return fields[0]


def read_corpus_file(
    name: str, data: bytes, *, text_field: str | Callable[[Sequence[str]], str] = "text"
) -> tuple[list[str], list[str], int, str, tuple[str, ...], str]:
    """The documents of an uploaded corpus file, as ``bpe_core.train_files`` reads that file: (documents,
    warnings naming the first bad rows, the number of bad rows, what a row is called: "line" in JSONL,
    else "row", the fields holding text, the field read). A plain text file is one document (empty:
    none). ``text_field`` is the field to read, or picks it from the fields that hold text. ValueError,
    in plain words (``in_plain_words``), for a file that cannot be read."""
    form = file_format(name)
    unit = "line" if form.kind == "jsonl" else "row"
    if form.kind == "text" and form.compression is None:
        text = decode_text(data, source=name)
        return ([text] if text else []), ([] if text else [f"{name} is empty"]), 0, unit, (), "text"
    with tempfile.TemporaryDirectory(prefix="bpe-upload-") as folder:
        base = Path(name).name
        path = os.path.join(folder, base if base not in ("", ".", "..") else "upload")
        with create_new(path) as handle:  # a new file in a new private folder (safe_io's rule)
            handle.write(data)  # plain: a file, not Markdown
        fields = text_fields(path, form) if form.kind != "text" else ()
        field = text_field(fields) if callable(text_field) else text_field
        if form.kind == "parquet" and not fields:
            raise BpeError(f"{name} holds no text: none of its columns ({_columns(path)}) holds strings")
        if fields and field not in fields:
            found = ", ".join(repr(f) for f in fields)
            raise BpeError(f"{name} has no text in {field!r}: its fields that hold text are {found}")
        try:
            reader = DocumentReader([path], text_field=field)
            documents = ["".join(document) for document in reader.documents()]
        except ValueError as exc:
            raise BpeError(in_plain_words(str(exc), path, name)) from None
    examples = reader.bad_rows.examples
    warnings = [f"{name} {unit} {e['row']:,}: {in_plain_words(e['reason'], path, name)}" for e in examples]
    return documents, warnings, reader.bad_rows.count, unit, fields, field


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
