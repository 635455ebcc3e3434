"""GPT-2's printable byte alphabet, used by ``vocab.json``, ``merges.txt`` and Hugging Face's
ByteLevel BPE: each byte is written as one printable character. Only the mapping lives here."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from itertools import repeat

from bpe_core.errors import BpeError


@functools.lru_cache(maxsize=1)
def byte_to_unicode() -> dict[int, str]:
    """GPT-2's reversible map from bytes to printable characters: printable Latin-1 bytes map to
    themselves, the other 68 bytes to U+0100 onwards, in byte order."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    mapping = {b: chr(b) for b in printable}
    shifted = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + shifted)
            shifted += 1
    return mapping


@functools.lru_cache(maxsize=1)
def unicode_to_byte() -> dict[str, int]:
    return {ch: b for b, ch in byte_to_unicode().items()}


def bytes_to_printable(token: bytes) -> str:
    table = byte_to_unicode()
    return "".join(table[b] for b in token)


@functools.lru_cache(maxsize=1)
def _to_latin1() -> tuple[dict[int, int], re.Pattern[str]]:
    """``str.translate``'s table turning each printable character into the character whose code is its
    byte, and a pattern finding any character outside the alphabet."""
    table = {ord(ch): b for ch, b in unicode_to_byte().items()}
    return table, re.compile(f"[^{re.escape(''.join(unicode_to_byte()))}]")


def printable_tokens(texts: Sequence[str]) -> list[bytes] | None:
    """``printable_to_bytes`` of every text, with no Python step per text (faster: bench/PERFORMANCE.md,
    "Figures behind choices in the code"); None when a character is outside the alphabet
    (``printable_to_bytes`` names it).

    >>> printable_tokens(["Ġhello", "!"]), printable_tokens(["a b"])
    ([b' hello', b'!'], None)
    """
    table, outside = _to_latin1()
    if outside.search("".join(texts)):
        return None
    return list(map(str.encode, map(str.translate, texts, repeat(table)), repeat("latin-1")))


@functools.lru_cache(maxsize=1)
def _pairs_table() -> tuple[dict[int, int], re.Pattern[str]]:
    """``_to_latin1``'s table with the space and the line break (neither in the alphabet) both turned
    into U+FFFE, which no turned character is, and a pattern finding any character outside the
    alphabet but those two."""
    table, _ = _to_latin1()
    return table | {ord(" "): 0xFFFE, ord("\n"): 0xFFFE}, re.compile(f"[^ \n{re.escape(''.join(unicode_to_byte()))}]")


def printable_pairs(lines: Sequence[str]) -> list[tuple[bytes, bytes]] | None:
    """Each ``"left right"`` line (merges as ``merges.txt`` and ``tokenizer.json`` write them) as a pair
    of byte strings, all at once: one ``str.translate`` of all the lines, no Python step per line. None
    when a line is not two tokens of the alphabet with one space between (the caller names it).

    >>> printable_pairs(["Ġ t", "h e"]), printable_pairs(["a b c"])
    ([(b' ', b't'), (b'h', b'e')], None)
    """
    if not lines:
        return []
    joined = "\n".join(lines)
    table, outside = _pairs_table()
    if set(map(str.count, lines, repeat(" "))) != {1} or joined.count("\n") != len(lines) - 1:
        return None
    if outside.search(joined):
        return None
    tokens = list(map(str.encode, joined.translate(table).split("\ufffe"), repeat("latin-1")))
    return list(zip(tokens[0::2], tokens[1::2], strict=True))


def printable_to_bytes(text: str, *, what: str = "token") -> bytes:
    table = unicode_to_byte()
    try:
        return bytes(table[ch] for ch in text)
    except KeyError as exc:
        raise BpeError(
            f"{what} {text!r} contains {exc.args[0]!r}, which is not in GPT-2's byte alphabet: "
            "this is not a byte-level BPE vocabulary"
        ) from None
