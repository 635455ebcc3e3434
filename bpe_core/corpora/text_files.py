"""Reading corpora as text: UTF-8 files block by block, and uploaded bytes.

Each way of reading gives one clear ``ValueError`` for text that is not UTF-8, naming the source and
the byte offset and saying how to fix it. This module only turns bytes into text; it does not
pre-tokenize or count (see ``counting``), nor split files into documents (JSONL, JSON, Parquet
rows: see ``datasets``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain

from bpe_core.errors import BpeError

#: Files are read in blocks of this many bytes; only the pre-token counts are kept.
FILE_BLOCK_BYTES = 1 << 20


def not_utf8_message(source: str, offset: int, snippet: bytes) -> str:
    """The one message for undecodable input: where it failed and how to fix it."""
    return (
        f"{source} is not valid UTF-8 at byte offset {offset:,} (bytes {snippet[:4]!r}); re-encode it "
        "as UTF-8 (e.g. iconv -f latin1 -t utf-8) or remove the binary data"
    )


def decode_text(data: bytes, *, source: str) -> str:
    """``data`` as strict UTF-8 text without a leading byte-order mark.

    >>> decode_text("héllo".encode(), source="a.txt")
    'héllo'

    ValueError for binary data (NUL bytes near the start) or invalid UTF-8, naming ``source``.
    """
    if b"\x00" in data[:8192]:
        raise BpeError(
            f"{source} looks like a binary file (it contains NUL bytes): use UTF-8 text "
            "(.txt, .md, source code or JSONL)"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BpeError(not_utf8_message(source, exc.start, data[exc.start : exc.start + 4])) from None
    return text.removeprefix("\ufeff")


def _complete_characters_end(data: bytes) -> int:
    """Where ``data`` stops holding whole UTF-8 characters: an unfinished last sequence is cut off."""
    back = 0
    while back < 3 and back < len(data) and (data[-1 - back] & 0xC0) == 0x80:
        back += 1
    if back < len(data) and data[-1 - back] >= 0xC0:
        return len(data) - back - 1
    return len(data)


def iter_text_blocks(blocks: Iterable[bytes], *, source: str, offset: int = 0) -> Iterator[tuple[str, int]]:
    r"""Yield ``(text, stream offset after it)`` for consecutive byte ``blocks`` of one UTF-8 stream,
    each piece of text cut at a character boundary (a character split between blocks is held back and
    decoded whole). ``offset`` is the stream offset of the blocks' first byte (a character's start), for
    reading part of a file. Invalid UTF-8 is a ValueError naming ``source`` and the stream offset.

    >>> list(iter_text_blocks([b"h\xc3", b"\xa9!"], source="a.txt"))
    [('h', 1), ('é!', 4)]
    >>> list(iter_text_blocks([b"\xc3\xa9!"], source="a.txt", offset=10))
    [('é!', 13)]
    """
    # `offset`: the stream offset of the first byte of `pending`
    pending = b""
    for block in chain(blocks, [b""]):
        data = pending + block if pending else block
        if not data:
            continue
        cut = _complete_characters_end(data) if block else len(data)
        chunk, pending = data[:cut], data[cut:]
        try:
            text = chunk.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BpeError(not_utf8_message(source, offset + exc.start, chunk[exc.start : exc.start + 4])) from None
        offset += len(chunk)
        if text or not block:
            yield text, offset
