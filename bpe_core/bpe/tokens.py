"""What a tokenizer reports about its tokens: merge records and per-token detail (ids, bytes,
character spans, whether a token holds part of a character).

Plain records and pure functions; nothing here encodes text. How tokens are shown to a person is
``bpe_core.display``'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class MergeRecord:
    """One merge: ``left`` + ``right`` became ``id`` at ``rank``; ``count`` is the pair count when it
    was chosen during training (None for tokenizers that were not trained here)."""

    rank: int
    left: int
    right: int
    id: int
    count: int | None = None


@dataclass(frozen=True)
class TokenInfo:
    """One encoded token, for visualisation.

    ``start``/``end`` are character offsets into the encoded text. A token that holds only part of a
    UTF-8 character (``partial``) reports the span of the whole character(s) it touches.
    """

    id: int
    bytes: bytes
    start: int
    end: int
    partial: bool
    special: bool


def piece_token_infos(piece: str, ids: Sequence[int], vocab: Mapping[int, bytes], *, offset: int) -> list[TokenInfo]:
    """``TokenInfo`` for each id of one piece (``ids`` are its encoding), ``offset`` being the piece's
    character offset in the text.

    >>> vocab = {195: b"\\xc3", 169: b"\\xa9"}
    >>> [(i.start, i.end, i.partial) for i in piece_token_infos("é", [195, 169], vocab, offset=4)]
    [(4, 5, True), (4, 5, True)]
    """
    char_of_byte: list[int] = []  # char_of_byte[k]: index (within piece) of the character holding byte k
    char_starts = {0}
    for index, ch in enumerate(piece):
        size = len(ch.encode("utf-8"))
        char_of_byte.extend([index] * size)
        char_starts.add(len(char_of_byte))
    out: list[TokenInfo] = []
    byte_position = 0
    for token_id in ids:
        token = vocab[token_id]
        end_byte = byte_position + len(token)
        partial = byte_position not in char_starts or end_byte not in char_starts
        start = offset + char_of_byte[byte_position]
        end = offset + char_of_byte[end_byte - 1] + 1
        out.append(TokenInfo(token_id, token, start, end, partial, False))
        byte_position = end_byte
    return out
