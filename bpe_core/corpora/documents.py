"""Reading corpora in the formats people keep them: which files, and the documents in each.

``expand_inputs`` turns paths, folders and glob patterns into an ordered list of files, and
``DocumentReader`` streams the documents of those files in a fixed order (file order, then row order),
each document as consecutive blocks of text, in bounded memory whatever the file size (the bytes and
rows of one file come from ``row_streams``):

* text (``.txt``, ``.md``, source code: any name not listed below): one document per file, UTF-8;
* JSONL (``.jsonl``, ``.ndjson``): one document per line, a JSON object's text field (or a JSON string);
* JSON (``.json``): an array of such objects or strings, scanned element by element (never parsed whole);
* Parquet (``.parquet``, ``.pq``): one document per row of the text column, read row group by row group;
* ``.gz`` (gzip) and ``.zst`` (zstd, decompressed by pyarrow) versions of text, JSONL and JSON.

A byte-order mark at the start of a text, JSONL or JSON file (after decompression) is dropped where the
bytes are read (``row_streams.ByteStream``); a U+FEFF anywhere else is text.

A row that gives no text (invalid JSON or UTF-8, the field missing, null or not a string) is a *bad
row*: skipped and reported (``BadRows``: the total and the first examples with file and row), or, with
``on_bad_row="stop"``, a ValueError naming the file and row. A file that cannot be read at all (not
UTF-8 text, corrupt compression, not Parquet, no such column) is always a ValueError. ``progress`` is
told the bytes of the files read so far (compressed bytes for compressed files; Parquet advances row
group by row group). This module reads; it does not pre-tokenize or count (``counting`` does).
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from bpe_core.corpora.streams import ByteStream, Progress, json_array_elements, jsonl_rows, open_parquet, parquet_rows
from bpe_core.corpora.text_files import FILE_BLOCK_BYTES, iter_text_blocks
from bpe_core.errors import BpeError
from bpe_core.safe_io import json_value, require_regular

COMPRESSIONS = {".gz": "gzip", ".zst": "zstd", ".zstd": "zstd"}
KINDS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".parquet": "parquet", ".pq": "parquet"}
BAD_ROW_CHOICES = ("skip", "stop")
#: A report keeps this many bad rows as examples (and counts all of them).
BAD_ROW_EXAMPLES = 10
_GLOB_CHARACTERS = re.compile(r"[*?[]")


@dataclass(frozen=True)
class FileFormat:
    """How a file is read: ``kind`` (text, jsonl, json, parquet) and ``compression`` (None, gzip, zstd)."""

    kind: str
    compression: str | None = None


def file_format(path: str | os.PathLike[str]) -> FileFormat:
    """The format a file name says (its extensions, case-insensitive).

    >>> file_format("data/part-0.jsonl.zst")
    FileFormat(kind='jsonl', compression='zstd')
    >>> file_format("notes.md")
    FileFormat(kind='text', compression=None)
    """
    stem, extension = os.path.splitext(os.path.basename(os.fspath(path)).lower())
    compression = COMPRESSIONS.get(extension)
    if compression:
        stem, extension = os.path.splitext(stem)
    kind = KINDS.get(extension, "text")
    if kind == "parquet" and compression:
        raise BpeError(
            f"{os.fspath(path)}: a compressed Parquet file cannot be streamed; Parquet compresses "
            "its own pages, so write it uncompressed on the outside (e.g. compression='zstd' inside)"
        )
    return FileFormat(kind, compression)


def check_bad_row_choice(on_bad_row: str) -> str:
    if on_bad_row not in BAD_ROW_CHOICES:
        raise BpeError(
            f"on_bad_row must be 'skip' (skip bad rows and report them) or 'stop' (stop at the "
            f"first one), not {on_bad_row!r}"
        )
    return on_bad_row


def check_text_field(text_field: str) -> str:
    if not isinstance(text_field, str) or not text_field:
        raise BpeError(
            f"text_field must be the name of the field or column holding the text (e.g. 'text'), not {text_field!r}"
        )
    return text_field


# ------------------------------------------------------------------------------------------------
# which files


def _folder_files(folder: str) -> list[str]:
    """Every file under ``folder``, recursively, in sorted order, hidden files and folders skipped."""
    found: list[str] = []
    for root, folders, files in os.walk(folder):
        folders[:] = sorted(name for name in folders if not name.startswith("."))
        found.extend(os.path.join(root, name) for name in sorted(files) if not name.startswith("."))
    return found


def expand_inputs(inputs: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    """The files that ``inputs`` name, in order, each once: a file as given, a folder as every file
    under it (sorted, hidden ones skipped), a glob pattern (``*``, ``?``, ``[...]``; ``**`` crosses
    folders) as its matches in sorted order. ValueError for a name that does not exist, a pattern that
    matches nothing, a folder without files, or no inputs at all.

    >>> expand_inputs([__file__]) == [__file__]
    True
    """
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    wanted = "give a file, folder or glob pattern (str or pathlib.Path), or a list of them"
    if not isinstance(inputs, Iterable) or isinstance(inputs, bytes):
        raise TypeError(f"inputs must be files, folders or glob patterns, not {type(inputs).__name__}: {wanted}")
    files: list[str] = []
    seen: set[str] = set()
    for item in inputs:
        if not isinstance(item, (str, os.PathLike)):
            raise TypeError(f"an input is {type(item).__name__} {item!r}, not a path: {wanted}")
        name = os.fspath(item)
        if os.path.isfile(name):
            matched = [name]
        elif os.path.isdir(name):
            matched = _folder_files(name)
            if not matched:
                raise BpeError(f"the folder {name} holds no files (hidden files are skipped)")
        elif _GLOB_CHARACTERS.search(name):
            hits = sorted(glob.glob(name, recursive=True))
            matched = [f for hit in hits for f in ([hit] if os.path.isfile(hit) else _folder_files(hit))]
            if not matched:
                raise BpeError(
                    f"the pattern {name!r} matches no file; check it (quote it in the shell so that "
                    "bpe_core expands it, e.g. 'data/**/*.jsonl')"
                )
        elif os.path.lexists(name):  # a FIFO, a device, a socket, a dangling link: say what it is
            require_regular(name, what="a file, folder or glob pattern")
            matched = [name]
        else:
            raise BpeError(f"{name} is not a readable file: it does not exist (give files, folders or glob patterns)")
        for path in matched:
            key = os.path.normcase(os.path.realpath(path))
            if key not in seen:
                seen.add(key)
                files.append(path)
    if not files:
        raise BpeError("no input files given: give files, folders or glob patterns")
    return files


# ------------------------------------------------------------------------------------------------
# bad rows


@dataclass
class BadRows:
    """Rows that gave no text: how many, and the first ``BAD_ROW_EXAMPLES`` as ``{file, row, reason}``."""

    count: int = 0
    examples: list[dict] = field(default_factory=list)

    def add(self, file: str, row: int, reason: str) -> None:
        self.count += 1
        if len(self.examples) < BAD_ROW_EXAMPLES:
            self.examples.append({"file": file, "row": row, "reason": reason})

    def summary(self) -> str:
        """One line, e.g. ``3 bad rows skipped (first: a.jsonl row 2: not valid JSON ...)``."""
        if not self.count:
            return "no bad rows"
        first = self.examples[0]
        return f"{self.count:,} bad row(s) skipped (first: {first['file']} row {first['row']}: {first['reason']})"


def stop_message(file: str, row: int, reason: str) -> str:
    return (
        f"{file} row {row}: {reason}; fix or remove that row, or skip bad rows and have them reported "
        "(on_bad_row='skip', --bad-rows skip)"
    )


def row_text(value: object, text_field: str) -> tuple[str | None, str]:
    """The document a JSON row holds (an object's ``text_field`` string, or a string), else the reason.

    >>> row_text({"text": "hi"}, "text")
    ('hi', '')
    >>> row_text({"text": None}, "text")
    (None, "field 'text' is null")
    """
    if isinstance(value, str):
        return value, ""
    if not isinstance(value, dict):
        return None, f"a JSON {type(value).__name__}, not an object with a {text_field!r} field"
    if text_field not in value:
        keys = ", ".join(map(repr, list(value)[:5])) or "none"
        return None, f"no field {text_field!r} (fields: {keys})"
    text = value[text_field]
    if text is None:
        return None, f"field {text_field!r} is null"
    if not isinstance(text, str):
        return None, f"field {text_field!r} is a JSON {type(text).__name__}, not a string"
    return text, ""


def _parse_row(data: bytes, text_field: str) -> tuple[str | None, str]:
    """The document in one JSON value's bytes, else (None, why)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"invalid UTF-8 at byte {exc.start} of the row"
    try:
        value = json_value(text)
    except ValueError as exc:
        return None, str(exc)
    return row_text(value, text_field)


# ------------------------------------------------------------------------------------------------
# documents


class DocumentReader:
    """The documents of ``files`` (see ``expand_inputs``) in file order and row order: ``documents()``
    yields each as an iterable of text blocks (a text file streams; a row is one block). Bad rows go to
    ``bad_rows`` or, with ``on_bad_row="stop"``, raise. ``progress(done, total)`` follows the bytes
    of the files (``total_bytes``). Parquet files' columns are checked before anything is read."""

    def __init__(
        self,
        files: Sequence[str],
        *,
        text_field: str = "text",
        on_bad_row: str = "skip",
        progress: Callable[[int, int], None] | None = None,
        block_bytes: int | None = None,
    ) -> None:
        self.files = list(files)
        self.text_field = check_text_field(text_field)
        self.on_bad_row = check_bad_row_choice(on_bad_row)
        self.progress = progress
        self.block_bytes = block_bytes or FILE_BLOCK_BYTES
        self.formats = [file_format(path) for path in self.files]
        self.sizes = [os.path.getsize(path) for path in self.files]
        self.total_bytes = sum(self.sizes)
        self.bad_rows = BadRows()
        for path, form in zip(self.files, self.formats, strict=True):
            if form.kind == "parquet":
                open_parquet(path, self.text_field).close()

    def documents(self) -> Iterator[Iterable[str]]:
        done = 0
        if self.progress:
            self.progress(0, self.total_bytes)
        for path, form, size in zip(self.files, self.formats, self.sizes, strict=True):
            tell = self._teller(done, size)
            if form.kind == "text":
                yield self._text(path, form, tell)
            else:
                yield from self._rows(path, form, tell)
            done += size
            if self.progress:
                self.progress(done, self.total_bytes)

    def _teller(self, before: int, size: int) -> Progress:
        """``progress`` told about a file of ``size`` bytes that starts ``before`` bytes into the run
        (bound here: a text file's document may still be read after the loop has moved on)."""

        def tell(position: int) -> None:
            if self.progress:
                self.progress(before + min(position, size), self.total_bytes)

        return tell

    def _text(self, path: str, form: FileFormat, tell: Progress) -> Iterator[str]:
        with ByteStream(path, form.compression) as stream:
            blocks = stream.blocks(self.block_bytes, tell)
            for text, _ in iter_text_blocks(blocks, source=path, offset=stream.first_offset):
                yield text

    def _rows(self, path: str, form: FileFormat, tell: Progress) -> Iterator[tuple[str]]:
        good = 0
        first_bad = None
        for row, text, reason in self._row_texts(path, form, tell):
            if text is not None:
                good += 1
                yield (text,)
                continue
            if self.on_bad_row == "stop":
                raise BpeError(stop_message(path, row, reason))
            self.bad_rows.add(path, row, reason)
            first_bad = first_bad or f"row {row}: {reason}"
        if first_bad and not good:  # every row bad: most likely the text is in another field
            raise BpeError(
                f"{path} has no row with text in {self.text_field!r} (first bad {first_bad}); name the "
                "field that holds the text with text_field= (--text-field)"
            )

    def _row_texts(self, path: str, form: FileFormat, tell: Progress) -> Iterator[tuple[int, str | None, str]]:
        """``(row, text or None, why not)`` for each row of a JSONL, JSON or Parquet file."""
        if form.kind == "parquet":
            for row, value in parquet_rows(path, self.text_field, tell):
                if isinstance(value, bytes):
                    try:
                        value = value.decode("utf-8")
                    except UnicodeDecodeError as exc:
                        yield row, None, f"invalid UTF-8 at byte {exc.start} of the row"
                        continue
                yield row, value, "" if value is not None else f"column {self.text_field!r} is null"
            return
        with ByteStream(path, form.compression) as stream:
            blocks = stream.blocks(self.block_bytes, tell)
            if form.kind == "jsonl":
                for row, line in jsonl_rows(blocks):
                    yield row, *_parse_row(line, self.text_field)
                return
            for row, element in json_array_elements(blocks, source=path):
                yield row, *_parse_row(element, self.text_field)
