"""Encoding ordinary text fast: pre-tokenize, then BPE each distinct piece once, with caches.

``TextEncoder`` gives the same ids as pre-tokenizing and running ``bpe.encode_reference`` on every
piece; it only avoids repeating work. A piece is looked up, in order, in the piece cache, among the
tokens that encode to themselves (``whole_pieces``), and only then merged. With GPT-2's pattern, text
is also cut into *segments* (see ``PreTokenizer.segment_pattern``) whose ids are cached whole, in two
generations so that memory stays bounded. Merging a new piece is ``pieces.encode``: bpe_core's own
``bpe.PieceEncoder``, or ``NativePieces`` (tiktoken's compiled BPE, where ``tiktoken_engine`` proves it
gives the same ids). This module does not handle special tokens (the ``Tokenizer`` cuts them out
first) nor lone surrogates (``UnicodeEncodeError`` reaches the caller).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from itertools import chain, compress, islice, repeat
from operator import is_
from typing import TYPE_CHECKING, Any, cast

from bpe_core.bpe.fast import PieceEncoder
from bpe_core.pretokenization.pretokenizer import PreTokenizer

if TYPE_CHECKING:
    from bpe_core.pretokenization.stages import StagedPreTokenizer

# The piece cache is cleared when it would grow past this many entries, and the segment cache keeps
# two generations of about this many (see TextEncoder._remember_segments), bounding memory.
CACHE_LIMIT = 200_000

Ids = tuple[int, ...]


def _missing(keys: list[str], found: list[Ids | None]) -> dict[str, None]:
    """The distinct keys whose lookup found nothing, in order of first appearance."""
    return dict.fromkeys(compress(keys, map(is_, found, repeat(None))))


def _joined_ids(piece_lists: Iterable[list[str]], ids_of: Mapping[str, Ids]) -> Iterator[Ids]:
    """For each list of pieces, their ids joined in one tuple: ``tuple(ids for piece in pieces for
    ids in ids_of[piece])``, written as nested ``map`` calls so that no Python code runs per list."""
    ids_of_each = partial(map, ids_of.__getitem__)
    return map(tuple, map(chain.from_iterable, map(ids_of_each, piece_lists)))


class NativePieces:
    """A compiled BPE of one piece (tiktoken's ``encode_single_piece``) in ``PieceEncoder.encode``'s
    place: the same ids as a tuple.

    >>> NativePieces(lambda data: [len(data)]).encode(b"abc")
    (3,)
    """

    __slots__ = ("_encode",)

    def __init__(self, encode_single_piece: Callable[[bytes], list[int]]) -> None:
        self._encode = encode_single_piece

    def encode(self, piece: bytes) -> Ids:
        return tuple(self._encode(piece))


class TextEncoder:
    """Ids for ordinary text (no special tokens) with a given pre-tokenizer and merges."""

    def __init__(
        self,
        pretokenizer: PreTokenizer | StagedPreTokenizer,
        pieces: PieceEncoder | NativePieces,
        whole_pieces: Mapping[str, tuple[int]],
    ) -> None:
        self.pretokenizer = pretokenizer
        self.pieces = pieces
        self.whole_pieces = whole_pieces
        self._cache: dict[str, Ids] = {}  # piece -> ids
        # segment -> ids (GPT-2's pattern), in two generations: when the young one is full it becomes
        # the old one, whose entries move back to the young one when met again. A working set of up to
        # twice CACHE_LIMIT segments is served without thrashing.
        self._segment_cache: dict[str, Ids] = {}
        self._segment_old: dict[str, Ids] = {}
        self._segment_pattern = pretokenizer.segment_pattern()
        # Presets' piece finders: for ASCII text only (or None), and for any text.
        self._ascii_findall: Callable[[str], list[str]] | None = None
        self._findall: Callable[[str], list[str]] = pretokenizer.pieces
        if isinstance(pretokenizer, PreTokenizer) and pretokenizer.is_preset:
            self._ascii_findall, self._findall = pretokenizer.piece_finders()

    def encode(self, text: str) -> list[int]:
        """The ids of ``text``; ``UnicodeEncodeError`` if it holds a lone surrogate."""
        if self._ascii_findall is not None and text.isascii():
            # ASCII text goes piece by piece through the standard library's `re` (an exact equivalent
            # pattern, see pretokenize), not through segments: a new segment costs more than its
            # pieces, which only pays off when the same text comes back.
            return self._encode_pieces(self._ascii_findall(text))
        if self._segment_pattern is not None:
            return self._encode_segments(self._segment_pattern.findall(text))
        return self._encode_pieces(self.pretokenizer.pieces(text))

    def encode_piece(self, piece: str) -> Ids:
        """The ids of one pre-token (cached)."""
        found = self._cache.get(piece) or self.whole_pieces.get(piece)
        if found is None:
            found = self.pieces.encode(piece.encode("utf-8"))
            if len(self._cache) >= CACHE_LIMIT:
                self._cache.clear()
            self._cache[piece] = found
        return found

    def _encode_pieces(self, pieces: list[str]) -> list[int]:
        # Ids, or None where the cache has none. Any: a cast would be a call per text on this hot path.
        found: list[Any] = list(map(self._cache.get, pieces))
        if None in found:
            ids_of = self._piece_ids(_missing(pieces, found))
            return list(chain.from_iterable(map(ids_of.get, pieces, found)))
        return list(chain.from_iterable(found))

    def _encode_segments(self, segments: list[str]) -> list[int]:
        """A lookup per segment; pre-tokenization and merges only for distinct new segments."""
        found: list[Any] = list(map(self._segment_cache.get, segments))  # as in _encode_pieces
        if None in found:
            new = self._segment_ids(_missing(segments, found))
            self._remember_segments(new)
            return list(chain.from_iterable(map(new.get, segments, found)))
        return list(chain.from_iterable(found))

    def _remember_segments(self, new: dict[str, Ids]) -> None:
        cache = self._segment_cache
        if len(cache) + len(new) > CACHE_LIMIT:
            # The full young generation becomes the old one. One call's new segments go in whole,
            # even past the limit (they are no bigger than its text), so a text with more distinct
            # segments than the limit is served whole when it comes back.
            self._segment_old = cache
            self._segment_cache = new
        else:
            cache.update(new)

    def _segment_ids(self, unseen: Iterable[str]) -> dict[str, Ids]:
        """Ids of distinct segments missing from the young cache: from the old generation if there,
        otherwise pre-tokenized one by one (segments are context-free)."""
        new: dict[str, Ids] = {}
        segments = list(unseen)
        if self._segment_old:
            reused = list(map(self._segment_old.get, segments))
            if any(reused):
                new.update(cast("Iterator[tuple[str, Ids]]", compress(zip(segments, reused, strict=True), reused)))
                segments = list(compress(segments, map(is_, reused, repeat(None))))
        # Segments exist only for GPT-2's pattern, which always has an ASCII finder.
        is_ascii = list(map(str.isascii, segments))
        for finder, group in (
            (self._ascii_findall or self._findall, list(compress(segments, is_ascii))),
            (self._findall, list(compress(segments, map(is_, is_ascii, repeat(False))))),
        ):
            if group:
                piece_lists = list(map(finder, group))
                ids_of = self._piece_ids(dict.fromkeys(chain.from_iterable(piece_lists)))
                new.update(zip(group, _joined_ids(piece_lists, ids_of), strict=True))
        return new

    def _piece_ids(self, pieces: Iterable[str]) -> dict[str, Ids]:
        """Distinct pieces -> ids: from the piece cache, whole tokens, or BPE (then cached)."""
        pieces = list(pieces)
        cache = self._cache
        ids_of = dict(zip(pieces, map(cache.get, pieces, map(self.whole_pieces.get, pieces)), strict=True))
        if None in ids_of.values():
            new = list(compress(ids_of, map(is_, ids_of.values(), repeat(None))))
            merged = dict(zip(new, map(self.pieces.encode, map(str.encode, new)), strict=True))  # str.encode: UTF-8
            ids_of.update(merged)
            if len(cache) + len(merged) > CACHE_LIMIT:
                cache.clear()
            cache.update(islice(merged.items(), CACHE_LIMIT))
        return cast("dict[str, Ids]", ids_of)  # every piece has its ids now
