"""GPT-2's printable byte alphabet, used by ``vocab.json``, ``merges.txt`` and Hugging Face's
ByteLevel BPE: each byte is written as one printable character. Only the mapping lives here."""

from __future__ import annotations

import functools

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


def printable_to_bytes(text: str, *, what: str = "token") -> bytes:
    table = unicode_to_byte()
    try:
        return bytes(table[ch] for ch in text)
    except KeyError as exc:
        raise BpeError(
            f"{what} {text!r} contains {exc.args[0]!r}, which is not in GPT-2's byte alphabet: "
            "this is not a byte-level BPE vocabulary"
        ) from None
