"""The bytes and rows of one corpus file, streamed in bounded memory.

``ByteStream`` reads a file's bytes in blocks, decompressing gzip (the standard library) or zstd
(pyarrow, which the app already installs) and saying how far into the file it has read;
``jsonl_rows`` cuts a byte stream into lines; ``json_array_elements`` finds the elements of a JSON
array by tracking strings and nesting, so a large array is never parsed whole; ``parquet_rows`` reads
one column row group by row group. ``ByteStream`` is also the one place a byte-order mark at a file's
start is dropped, and ``import_pyarrow`` / ``is_text_type`` are the one pyarrow import and the one
"does this Arrow column hold text" test (``count_shards`` uses them too). Nothing here decides what a
bad row is or counts anything: that is ``datasets``'s and ``counting``'s job.
"""

from __future__ import annotations

import gzip
import os
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from bpe_core.errors import BpeError
from bpe_core.safe_io import open_regular

if TYPE_CHECKING:
    import pyarrow
    import pyarrow.parquet

#: Parquet rows are handed over in batches of at most this many (within one row group).
PARQUET_BATCH_ROWS = 8192
Progress = Callable[[int], None]  # told the bytes of the current file read so far


#: The UTF-8 byte-order mark: at the start of a file it says how the file is encoded; it is not text.
BOM = b"\xef\xbb\xbf"


class _Readable(Protocol):
    """What ``ByteStream`` reads from: the file itself, or a decompressing stream over it."""

    def read(self, size: int, /) -> bytes: ...

    def close(self) -> None: ...


class ByteStream:
    """A file's bytes, decompressed when its name says so, without a leading byte-order mark (dropped
    here, once for every format read through it; a U+FEFF anywhere else is text). ``start`` reads an
    uncompressed file from that offset instead (no mark is looked for there); ``first_offset`` is the
    stream offset of the first byte handed out (3 after a mark). ``position()`` is how far into the
    file (its compressed bytes) reading has got. Decompression errors are ValueErrors naming the file."""

    def __init__(self, path: str, compression: str | None, *, start: int = 0) -> None:
        if start and compression:
            raise BpeError(
                f"cannot start reading {path} at byte {start}: it is {compression}-compressed; read it from the start"
            )
        self.path = path
        self.raw: BinaryIO = open_regular(path, what="a corpus file")  # closed by close()
        self.stream: _Readable = self.raw
        self.head = b""  # bytes read to look for a mark and not yet handed out
        self.first_offset = start
        try:
            if compression == "gzip":
                self.stream = gzip.GzipFile(fileobj=self.raw, mode="rb")
            elif compression == "zstd":
                self.stream = _zstd_stream(self.raw, path)
            if start:
                self.raw.seek(start)
            else:
                self._drop_mark()
        except BaseException:
            self.close()
            raise

    def _drop_mark(self) -> None:
        head = b""
        while len(head) < len(BOM) and (more := self._read(len(BOM) - len(head))):
            head += more
        if head == BOM:
            self.first_offset = len(BOM)
        else:
            self.head = head

    def read(self, size: int) -> bytes:
        if size <= 0:
            return b""
        if not self.head:
            return self._read(size)
        data, self.head = self.head[:size], self.head[size:]
        return data + self._read(size - len(data)) if len(data) < size else data

    def _read(self, size: int) -> bytes:
        try:
            return self.stream.read(size)
        except (OSError, EOFError, zlib.error, ValueError) as exc:  # pyarrow's errors are OSError/ValueError
            if self.stream is self.raw:
                raise BpeError(f"cannot read {self.path}: {getattr(exc, 'strerror', None) or exc}") from None
            raise BpeError(
                f"{self.path} cannot be decompressed (at byte {self.position():,}): {exc}; "
                "the file is damaged or not what its name says"
            ) from None

    def position(self) -> int:
        return self.raw.tell()

    def blocks(self, size: int, progress: Progress | None = None, *, end: int | None = None) -> Iterator[bytes]:
        """The bytes in blocks of ``size``, telling ``progress`` the file position after each; with
        ``end``, up to that offset of an uncompressed file."""
        while block := self.read(size if end is None else min(size, end - self.position() + len(self.head))):
            if progress:
                progress(self.position())
            yield block

    def close(self) -> None:
        if self.stream is not self.raw:
            self.stream.close()
        self.raw.close()

    def __enter__(self) -> ByteStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def import_pyarrow(needs: str) -> tuple[Any, Any]:
    """``(pyarrow, pyarrow.parquet)``, or a ValueError: ``needs`` (what needs pyarrow), then how to install it.

    >>> import_pyarrow("reading a.parquet needs pyarrow")[0].__name__
    'pyarrow'
    """
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise BpeError(f"{needs}: pip install pyarrow") from None
    return pyarrow, pyarrow.parquet


def is_text_type(kind: pyarrow.DataType, *, binary: bool = False) -> bool:
    """Whether the Arrow type ``kind`` holds text: a string type (any layout); with ``binary=True``, as
    a corpus column may, also bytes (decoded as UTF-8 row by row), an all-null column, and any of these
    dictionary-encoded.

    >>> import pyarrow
    >>> is_text_type(pyarrow.large_string()), is_text_type(pyarrow.binary()), is_text_type(pyarrow.int64())
    (True, False, False)
    >>> is_text_type(pyarrow.dictionary(pyarrow.int32(), pyarrow.binary()), binary=True)
    True
    """
    pyarrow, _ = import_pyarrow("reading Parquet needs pyarrow")
    names = ["string", "large_string", "string_view"]
    if binary:
        names += ["binary", "large_binary", "binary_view", "null"]
        kind = kind.value_type if pyarrow.types.is_dictionary(kind) else kind
    return any(getattr(pyarrow.types, f"is_{name}", lambda _: False)(kind) for name in names)


def _zstd_stream(raw: BinaryIO, path: str) -> _Readable:
    pyarrow, _ = import_pyarrow(f"reading {path} (zstd) needs pyarrow")
    return pyarrow.CompressedInputStream(raw, "zstd")


def jsonl_rows(blocks: Iterable[bytes]) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` for each non-blank line of a byte stream (lines end at ``\\n`` only).

    >>> list(jsonl_rows([b'{"a": 1}\\n\\n{"b', b'": 2}']))
    [(1, b'{"a": 1}'), (3, b'{"b": 2}')]
    """
    number = 0
    held: list[bytes] = []  # the unfinished line, in parts (a line longer than a block is joined once)
    for block in blocks:
        lines = block.split(b"\n")
        for line in lines[:-1]:
            number += 1
            if held:
                line = b"".join([*held, line])
                held = []
            if line.strip():
                yield number, line
        if lines[-1]:
            held.append(lines[-1])
    line = b"".join(held)
    if line.strip():
        yield number + 1, line


_STRUCTURE = re.compile(rb'["\[\]{},]')
_STRING_STOP = re.compile(rb'["\\]')
_BLANK = re.compile(rb"[ \t\r\n]*")


# long on purpose: one scanner's state machine
def json_array_elements(blocks: Iterable[bytes], *, source: str) -> Iterator[tuple[int, bytes]]:
    """``(index from 1, element bytes)`` for each element of the JSON array that the byte ``blocks``
    hold, found by tracking strings and nesting (never parsing the whole array, so memory is one
    element plus a block). ValueError when the stream is not an array, and when it ends before the
    array's closing ``]`` (a truncated file is an error, as a truncated .gz is, never a short corpus).

    >>> list(json_array_elements([b'[{"t": "a,]"}, "b', b'"]'], source="x.json"))
    [(1, b'{"t": "a,]"}'), (2, b' "b"')]
    """
    buffer = bytearray()
    start = pos = depth = index = 0
    in_string = opened = closed = False
    for block in blocks:
        if start > len(buffer) // 2:  # drop what was handed out, rarely enough to stay linear
            del buffer[:start]
            pos -= start
            start = 0
        buffer += block
        if not opened:
            stripped = bytes(buffer).lstrip(b" \t\r\n")
            if not stripped:  # blank so far
                continue
            if stripped[:1] != b"[":
                raise BpeError(
                    f"{source} is not a JSON array (it starts with {stripped[:20]!r}): a .json corpus "
                    "file holds an array of objects or strings; use .jsonl for one object per line"
                )
            buffer = bytearray(stripped[1:])
            opened, start, pos = True, 0, 0
        while not closed:
            if in_string:
                found = _STRING_STOP.search(buffer, pos)
                if found is None:
                    pos = len(buffer)
                    break
                if found.group() == b"\\":
                    if found.end() >= len(buffer):
                        pos = found.start()  # the escaped character is in the next block
                        break
                    pos = found.end() + 1
                    continue
                in_string, pos = False, found.end()
                continue
            found = _STRUCTURE.search(buffer, pos)
            if found is None:
                pos = len(buffer)
                break
            mark, pos = found.group(), found.end()
            if mark == b'"':
                in_string = True
            elif mark in b"[{":
                depth += 1
            elif depth:
                depth -= mark != b","
            elif mark == b"," or mark == b"]":
                element = bytes(buffer[start : found.start()])
                if mark == b"," or element.strip() or index:
                    index += 1
                    yield index, element
                start = pos
                closed = mark == b"]"
        if closed and _BLANK.fullmatch(buffer, pos) is None:
            raise BpeError(
                f"{source} holds more after the array's closing ]: a .json corpus file holds one array "
                "(several arrays or objects: write them as .jsonl, one per line)"
            )
        if closed:
            start = pos = len(buffer)
    if opened and not closed:
        raise BpeError(
            f"{source} ends before the JSON array's closing ]: the file is truncated or damaged; copy "
            "or export it again"
        )


# ------------------------------------------------------------------------------------------------
# Parquet


def open_parquet(path: str, text_field: str) -> pyarrow.parquet.ParquetFile:
    """A ``pyarrow.parquet.ParquetFile`` whose column ``text_field`` holds text (only the footer is
    read); ValueError when it is not Parquet or has no such text column."""
    pyarrow, parquet = import_pyarrow(f"reading {path} (Parquet) needs pyarrow")
    try:
        handle = parquet.ParquetFile(path)
    except (pyarrow.ArrowException, OSError) as exc:
        raise BpeError(f"{path} is not a readable Parquet file ({exc})") from None
    schema = handle.schema_arrow
    if text_field not in schema.names:
        columns = ", ".join(schema.names[:12]) or "none"
        raise BpeError(
            f"{path} has no column {text_field!r} (its columns: {columns}); name the text column with "
            "text_field= (--text-field)"
        )
    kind = schema.field(text_field).type
    if not is_text_type(kind, binary=True):
        raise BpeError(
            f"{path}: column {text_field!r} holds {kind}, not text; name the text column with "
            "text_field= (--text-field)"
        )
    return handle


def _values(column: pyarrow.Array) -> list[str | bytes | None]:
    """A batch's column as Python values: str, bytes (binary columns, or text that is not UTF-8) or None."""
    import pyarrow

    try:
        return column.to_pylist()
    except (UnicodeDecodeError, pyarrow.ArrowException):  # a writer that let invalid UTF-8 through
        return column.cast(pyarrow.large_binary()).to_pylist()


def parquet_rows(path: str, text_field: str, progress: Progress | None) -> Iterator[tuple[int, str | bytes | None]]:
    """``(row number from 1, value)`` for the column ``text_field``, one row group at a time (only
    that column is read); ``progress`` gets the file's bytes in proportion to the row groups done."""
    import pyarrow

    handle = open_parquet(path, text_field)
    sizes = [handle.metadata.row_group(i).total_byte_size for i in range(handle.num_row_groups)]
    file_size, total, done, row = os.path.getsize(path), max(sum(sizes), 1), 0, 0
    try:
        for group, size in enumerate(sizes):
            batches = handle.iter_batches(
                batch_size=PARQUET_BATCH_ROWS, row_groups=[group], columns=[text_field], use_threads=False
            )
            try:
                for batch in batches:
                    for value in _values(batch.column(0)):
                        row += 1
                        yield row, value
            except (pyarrow.ArrowException, OSError) as exc:
                raise BpeError(f"{path}: row group {group} cannot be read ({exc}); the file is damaged") from None
            done += size
            if progress:
                progress(file_size * done // total)
    finally:
        handle.close()
