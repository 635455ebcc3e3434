"""A corpus file given as bytes (an upload, a download) read into documents as ``bpe_core.train_files``
reads that file (``read_corpus_bytes``): a plain text file is one document; JSONL, JSON arrays and
Parquet (gzip/zstd too) one document per row, from the field the caller names or picks from those that
hold text (``text_fields``, the one with the most text first; ``chosen_field``); the rows skipped are
counted, and the first named with their reason. Messages name the file by the name it was given.

Reading is ``documents.DocumentReader``'s (the bytes are written to a new file in a private temporary
folder first, which is removed after); keeping what was read, and wording its messages for a page, are
the caller's (the workbench's: ``pages/_ui/uploads.py``).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from bpe_core.corpora.documents import DocumentReader, FileFormat, file_format
from bpe_core.corpora.streams import ByteStream, import_pyarrow, is_text_type, json_array_elements, jsonl_rows
from bpe_core.corpora.text_files import decode_text
from bpe_core.errors import BpeError
from bpe_core.safe_io import create_new

#: Rows (or elements, or Parquet rows) looked at to find which fields of a structured file hold text.
SAMPLE_ROWS = 200


@dataclass(frozen=True)
class CorpusFile:
    """A corpus file read: its ``documents``; ``warnings`` naming the first rows skipped ("c.jsonl line
    2: ..."), ``bad_rows`` counting them all, ``row_unit`` what a row is called ("line" in JSONL, else
    "row"); a structured file's ``fields`` that hold text (the most text first) and the ``text_field``
    read."""

    documents: list[str]
    warnings: list[str]
    bad_rows: int
    row_unit: str
    fields: tuple[str, ...]
    text_field: str


def is_structured(name: str) -> bool:
    """Whether a corpus file holds rows with a text field (JSONL, JSON, Parquet; compressed or not).

    >>> is_structured("c.jsonl.gz"), is_structured("notes.txt"), is_structured("c.parquet.gz")
    (True, False, True)
    """
    try:
        return file_format(name).kind != "text"
    except ValueError:  # e.g. .parquet.gz: read (and refused with the reason) like a structured file
        return True


def text_fields(path: str, form: FileFormat | None = None) -> tuple[str, ...]:
    """The fields (Parquet columns, JSON object keys) that hold text in the first SAMPLE_ROWS rows of
    the structured file ``path`` (``form``: its ``file_format``), the one with the most text first;
    empty when none does (or its rows are plain JSON strings, which need no field). Reading problems
    are left to the reader, which names them."""
    form = form or file_format(path)
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
    what is wrong).

    >>> chosen_field(("body", "text"), "body"), chosen_field(("body", "text")), chosen_field(("body", "id"))
    ('body', 'text', 'body')
    """
    if wanted in fields:
        return str(wanted)
    if "text" in fields or not fields:
        return "text"
    return fields[0]


def read_corpus_bytes(
    name: str, data: bytes, *, text_field: str | Callable[[Sequence[str]], str] = "text"
) -> CorpusFile:
    """The documents of the corpus file ``name`` whose bytes are ``data``, as ``bpe_core.train_files``
    reads that file (a plain text file is one document; empty: none). ``text_field`` is the field to
    read, or picks it from the fields that hold text. ``BpeError`` (a ValueError) naming the file
    ``name`` for a file that cannot be read."""
    form = file_format(name)
    unit = "line" if form.kind == "jsonl" else "row"
    if form.kind == "text" and form.compression is None:
        text = decode_text(data, source=name)
        return CorpusFile([text] if text else [], [] if text else [f"{name} is empty"], 0, unit, (), "text")
    with tempfile.TemporaryDirectory(prefix="bpe-upload-") as folder:
        base = Path(name).name
        path = os.path.join(folder, base if base not in ("", ".", "..") else "upload")
        with create_new(path) as handle:  # a new file in a new private folder (safe_io's rule)
            handle.write(data)
        fields = text_fields(path, form) if form.kind != "text" else ()
        field = text_field(fields) if callable(text_field) else text_field
        if form.kind == "parquet" and not fields:
            columns = _columns(path).replace(path, name)
            raise BpeError(f"{name} holds no text: none of its columns ({columns}) holds strings")
        if fields and field not in fields:
            found = ", ".join(repr(f) for f in fields)
            raise BpeError(f"{name} has no text in {field!r}: its fields that hold text are {found}")
        try:
            reader = DocumentReader([path], text_field=field)
            documents = ["".join(document) for document in reader.documents()]
        except ValueError as exc:
            raise BpeError(str(exc).replace(path, name)) from None
    warnings = [f"{name} {unit} {e['row']:,}: {e['reason'].replace(path, name)}" for e in reader.bad_rows.examples]
    return CorpusFile(documents, warnings, reader.bad_rows.count, unit, fields, field)
