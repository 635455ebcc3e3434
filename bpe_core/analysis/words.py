"""The words of a text and how many of them a tokenization splits, for ``metrics``' fertility and
split_share, fast enough for texts of millions of characters.

A word is a whitespace-separated chunk (``re``'s ``\\S+``, i.e. ``str.isspace``) with leading and
trailing punctuation (Unicode category P*) stripped; a chunk that is all punctuation is not a word. A
word is split when a token boundary falls strictly inside its UTF-8 bytes (it then overlaps two or
more tokens). ``word_spans`` lists the words' character spans one by one; ``word_metrics`` counts
words and split words without a Python loop over characters or tokens, on a "class image" of the
text's UTF-8 bytes: every byte of a character becomes ``b" "`` (white space), ``b"!"``
(punctuation) or ``b"a"`` (anything else), so offsets in the image are the text's byte offsets and a
word is a run from the first ``b"a"`` to the last ``b"a"`` of a chunk. Pure Python (the work is done
by ``bytes.replace``, ``bytes.translate``, ``re`` and big-integer OR); imports nothing from bpe_core.
It does not encode: the caller passes the tokens' bytes.
"""

from __future__ import annotations

import re
import unicodedata
from collections import deque
from collections.abc import Sequence
from itertools import accumulate, repeat
from operator import itemgetter

_CHUNK = re.compile(r"\S+")


def is_punctuation(ch: str) -> bool:
    """Whether ``ch`` is Unicode punctuation (category P*).

    >>> is_punctuation("—"), is_punctuation("$")
    (True, False)
    """
    return unicodedata.category(ch).startswith("P")


def word_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the words of ``text``: whitespace-separated chunks with leading and
    trailing punctuation stripped (``"river."`` -> ``"river"``); all-punctuation chunks are dropped.

    >>> word_spans("(Hi) ... don't")
    [(1, 3), (9, 14)]
    """
    spans = []
    for match in _CHUNK.finditer(text):
        start, end = match.span()
        while start < end and is_punctuation(text[start]):
            start += 1
        while end > start and is_punctuation(text[end - 1]):
            end -= 1
        if end > start:
            spans.append((start, end))
    return spans


# ASCII bytes by class; every byte >= 0x80 left after the multi-byte spaces and punctuation are
# replaced belongs to some other character (a letter, a digit, a symbol, an emoji...).
_ASCII_CLASSES = bytes(
    (0x20 if chr(b).isspace() else 0x21 if is_punctuation(chr(b)) else 0x61) if b < 0x80 else 0x61 for b in range(256)
)
# Bit 0x80 marks the last byte of a token: b"\xe1" is a marked b"a", b"\xa1" a marked b"!".
_TOKEN_END = 0x80
_WORD = re.compile(rb"[a\xe1](?:[a\xe1!\xa1]*[a\xe1])?")


def class_image(text: str, encoded: bytes | None = None) -> bytes:
    """``text``'s UTF-8 bytes (``encoded`` if given) with every byte of a character replaced by its
    class: ``b" "`` white space, ``b"!"`` punctuation, ``b"a"`` anything else.

    >>> class_image("Hi, été—ok")
    b'aa! aaaaa!!!aa'
    """
    if not text.isascii():
        # Multi-byte spaces and punctuation become ASCII b" " / b"!" of their UTF-8 length first
        # (one translate, however many distinct ones the text has); every byte >= 0x80 left is
        # another character's.
        table = {
            ord(ch): (" " if ch.isspace() else "!") * len(ch.encode("utf-8"))
            for ch in set(text)
            if ord(ch) >= 0x80 and (ch.isspace() or is_punctuation(ch))
        }
        encoded = text.translate(table).encode("utf-8") if table else encoded
    if encoded is None:
        encoded = text.encode("utf-8")
    return encoded.translate(_ASCII_CLASSES)


# Joined with b"\xff" (never in UTF-8) between tokens, every byte becomes 0 and every separator 0x80.
_SEPARATOR_TO_MARK = bytes(_TOKEN_END if b == 0xFF else 0 for b in range(256))


def token_end_marks(encoded: bytes, token_bytes: Sequence[bytes]) -> bytes | None:
    """Bytes as long as ``encoded`` with 0x80 on the last byte of every token and 0 elsewhere; None
    when ``token_bytes`` do not concatenate to ``encoded``. C-level passes only: the tokens joined
    with a separator (which also checks the tiling), each byte and separator mapped by one
    translate, and each byte before a separator dropped, which moves the mark onto it.

    >>> token_end_marks(b"abc", [b"ab", b"c"])
    b'\\x00\\x80\\x00'
    """
    try:
        joined = b"\xff".join(token_bytes)
    except TypeError:  # something other than bytes-like: no byte spans known
        return None
    if joined.count(b"\xff") != len(token_bytes) - 1 or joined.replace(b"\xff", b"") != encoded:
        return None  # (a token holding 0xFF, never valid UTF-8, shows in the count)
    marks = joined.translate(_SEPARATOR_TO_MARK).replace(b"\x00\x80", b"\x80")
    if len(marks) != len(encoded):  # an empty token (two separators in a row): mark one by one
        slow = bytearray(len(encoded))
        ends = accumulate(map(len, token_bytes))
        # (an empty first token gives index -1: the text's last byte, never inside a word either)
        deque(map(slow.__setitem__, map((-1).__add__, ends), repeat(_TOKEN_END)), maxlen=0)
        return bytes(slow)
    # the last token has no separator after it: its last byte is the text's, never inside a word
    return marks


def word_metrics(
    text: str, encoded: bytes, token_bytes: Sequence[bytes] | None, *, image: bytes | None = None
) -> tuple[int, float | None]:
    """(number of words, share of words split into several tokens) of ``text``; ``encoded`` is its
    UTF-8 and ``image`` its ``class_image`` when the caller has them (they do not depend on the
    tokenizer). The share is None without words, and without ``token_bytes`` that concatenate to
    ``encoded`` (then no token spans are known).

    >>> word_metrics("ab, c", b"ab, c", [b"a", b"b, c"])
    (2, 0.5)
    """
    if image is None:
        image = class_image(text, encoded)
    if not image:
        return 0, None
    marks = token_end_marks(encoded, token_bytes) if token_bytes is not None else None
    if marks is None:
        return len(_WORD.findall(image)), None
    # one OR of two big integers instead of a Python loop over the bytes
    marked = (int.from_bytes(image, "big") | int.from_bytes(marks, "big")).to_bytes(len(image), "big")
    words = _WORD.findall(marked)
    if not words:
        return 0, None
    # a word is split when a token ends on one of its bytes before its last
    unsplit = sum(map(bytes.isascii, map(itemgetter(slice(None, -1)), words)))
    return len(words), (len(words) - unsplit) / len(words)
