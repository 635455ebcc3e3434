"""The drawn window of a long text: the whole text encoded once (fast engine), pages of the text, and
the tokens of one page exactly as the whole-text encoding has them. Pure functions and plain data (no
streamlit, nothing drawn; numpy, which the workbench's extra installs): the workbench's Tokenize page
caches and draws them.

How a window stays exact. The window's tokens are never re-encoded from a slice of the text (a cut
inside a word, a run of spaces or a character would change the tokens there). The whole text is
encoded once with ``Tokenizer.encode`` (tiktoken's engine where proved exact); the token bytes,
concatenated, are the text's UTF-8 bytes, so the token ending at each byte offset is known
(``WholeText.byte_ends``). A window [a, b) of characters takes every whole-text token that overlaps
it, widened to whole characters: a token holding part of a character at either edge brings the other
tokens holding that character (they are drawn together, as on the full page). Its character spans are
computed from the bytes exactly as ``Tokenizer.encode_with_details`` computes them
(``bpe_core.bpe.tokens.piece_token_infos``), so the window's ``TokenInfo`` list is a slice of
``encode_with_details(text)`` (tested for every built-in tokenizer). Tokenizers whose token bytes
are not the text's bytes (external ones, or a normalizing pre-tokenizer) have their details computed
once on the whole text instead (``WholeText.infos``), and the window is the same slice of it.

Whole-text counts (tokens, cuts, cut differences) come from the same encoding; the per-character
index (``char_of_byte``) turns byte offsets into character offsets with numpy, without a Python loop
over the text.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bpe_core.bpe.tokens import TokenInfo, piece_token_infos
from bpe_core.pretrained.external import ExternalTokenizer
from bpe_core.tokenizer import Tokenizer

#: Characters per page of the drawn text (a page ends at a newline in its second half when it has one).
PAGE_CHARS = 2_000


@dataclass(frozen=True)
class TextIndex:
    """Byte offsets of a text's characters: ``char_of_byte[k]`` is the character holding byte ``k``."""

    char_of_byte: np.ndarray
    n_bytes: int

    def byte_of_char(self, position: int) -> int:
        """The first byte of character ``position`` (the byte length for the end of the text)."""
        return int(np.searchsorted(self.char_of_byte, position, side="left"))

    def char_start(self, byte: int) -> bool:
        """Whether byte offset ``byte`` is the first byte of a character (or the end of the text)."""
        return byte in (0, self.n_bytes) or self.char_of_byte[byte] != self.char_of_byte[byte - 1]


def text_index(text: str) -> TextIndex:
    """The byte -> character index of ``text`` (lone surrogates count as one byte each, like U+FFFD
    would as three: only ``WholeText.infos`` is used for such a text)."""
    data = np.frombuffer(text.encode("utf-8", "replace"), dtype=np.uint8)
    starts = (data & 0xC0) != 0x80
    return TextIndex(np.cumsum(starts, dtype=np.int32) - 1, len(data))


@dataclass(frozen=True)
class WholeText:
    """One tokenizer's encoding of a whole text: ids and where each token ends (in bytes), or the
    details of every token when its bytes are not the text's (``infos``)."""

    ids: Sequence[int]
    byte_ends: np.ndarray | None
    infos: list[TokenInfo] | None
    special_ids: frozenset[int]

    def known_ends(self) -> np.ndarray:
        """``byte_ends``, for an encoding that has them (``infos`` is None: the callers look there first)."""
        if self.byte_ends is None:
            raise ValueError("this encoding keeps every token's details (infos), not byte ends")
        return self.byte_ends


def encode_kwargs(treat_special: bool) -> dict:
    """How ``encode`` treats special-token text: as special tokens, or as ordinary text."""
    return {"allowed_special": "all"} if treat_special else {"disallowed_special": ()}


def encode_whole(tokenizer: Tokenizer | ExternalTokenizer, text: str, treat_special: bool) -> WholeText:
    """``text`` encoded once by ``tokenizer`` (its default engine): byte ends when its tokens' bytes
    concatenate to the text's UTF-8, else every token's details (``encode_with_details``)."""
    kwargs = encode_kwargs(treat_special)
    if isinstance(tokenizer, Tokenizer):
        ids = tokenizer.encode(text, **kwargs)
        pieces = tokenizer.decode_tokens_bytes(ids) if ids else []
        try:
            same = b"".join(pieces) == text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: encode replaced them
            same = False
        if same:
            ends = np.cumsum(np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces)))
            return WholeText(ids, ends, None, frozenset(tokenizer.special_tokens.values()))
    infos = tokenizer.encode_with_details(text, **kwargs)
    return WholeText([info.id for info in infos], None, infos, frozenset())


def cut_chars(whole: WholeText, index: TextIndex) -> np.ndarray:
    """Sorted character offsets where tokens start (0 left out): ``render.cut_positions`` of the
    whole text, in numpy."""
    if whole.infos is not None:
        starts = np.fromiter((info.start for info in whole.infos), dtype=np.int64)
    else:
        ends = whole.known_ends()
        starts = index.char_of_byte[ends[:-1]] if len(ends) > 1 else np.zeros(0, np.int64)
    cuts = np.unique(starts)
    return cuts[cuts > 0]


def token_range(whole: WholeText, index: TextIndex, start: int, end: int) -> tuple[int, int]:
    """Indexes [i0, i1) of the whole-text tokens overlapping characters [start, end), widened so that
    no character at either edge is left with only some of its tokens.

    >>> whole = WholeText([1, 2, 3], np.array([1, 3, 4]), None, frozenset())  # 'a', 'é' in two, 'b'
    >>> index = TextIndex(np.array([0, 1, 1, 2]), 4)
    >>> token_range(whole, index, 2, 3)
    (2, 3)
    """
    if whole.infos is not None:
        chosen = [k for k, info in enumerate(whole.infos) if info.end > start and info.start < end]
        if not chosen:
            return 0, 0
        return chosen[0], chosen[-1] + 1
    ends = whole.known_ends()
    first, last = index.byte_of_char(start), index.byte_of_char(end)
    i0 = int(np.searchsorted(ends, first, side="right"))
    i1 = min(int(np.searchsorted(ends, last, side="left")) + 1, len(ends))
    if i0 >= i1:
        return i0, i0
    while i0 > 0 and not index.char_start(int(ends[i0 - 1])):
        i0 -= 1
    while i1 < len(ends) and not index.char_start(int(ends[i1 - 1])):
        i1 += 1
    return i0, i1


def window_infos(
    tokenizer: Tokenizer | ExternalTokenizer, whole: WholeText, index: TextIndex, text: str, start: int, end: int
) -> list[TokenInfo]:
    """The ``TokenInfo`` of every whole-text token overlapping characters [start, end) (widened as in
    ``token_range``): equal to that slice of ``encode_with_details(text)``."""
    i0, i1 = token_range(whole, index, start, end)
    if whole.infos is not None:
        return whole.infos[i0:i1]
    if i0 == i1:
        return []
    ends = whole.known_ends()
    first_byte = int(ends[i0 - 1]) if i0 else 0
    c0 = int(index.char_of_byte[first_byte])
    c1 = int(index.char_of_byte[int(ends[i1 - 1]) - 1]) + 1
    ids = list(whole.ids[i0:i1])
    vocab = {token_id: tokenizer.decode_single_token_bytes(token_id) for token_id in set(ids)}
    infos = piece_token_infos(text[c0:c1], ids, vocab, offset=c0)
    special = whole.special_ids
    return [dataclasses.replace(info, special=True) if info.id in special else info for info in infos]


def page_starts(text: str, size: int = PAGE_CHARS) -> list[int]:
    """Where each page of ``text`` starts: pages of at most ``size`` characters, each ending after
    the last newline in its second half when there is one (so pages end with lines).

    >>> page_starts("ab\\ncd\\nef", 4)
    [0, 3, 6]
    """
    if size < 1:
        raise ValueError(f"a page holds at least one character, not {size}")
    starts = [0]
    while len(text) - starts[-1] > size:
        start = starts[-1]
        newline = text.rfind("\n", start + size // 2, start + size)
        starts.append(newline + 1 if newline >= 0 else start + size)
    return starts


def page_of(starts: Sequence[int], position: int) -> int:
    """The page (from 0) holding character ``position``.

    >>> page_of([0, 3, 6], 4)
    1
    """
    return max(0, int(np.searchsorted(np.asarray(starts), position, side="right")) - 1)
