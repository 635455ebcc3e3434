"""tiktoken's rule on one piece, straight from the ranks (token bytes -> rank, the rank doubling as the
id), with no merge list: what lets a tokenizer of tiktoken-style ranks encode before its merges are
recovered (``BpeModel.deferred``).

tiktoken takes a piece that is a token whole; otherwise it joins the piece's adjacent parts pair by
pair, the pair whose concatenation has the lowest rank first (leftmost among equals), until no two
adjacent parts make a token. ``RankPieceEncoder.encode`` does exactly that on the bytes (a heap over a
linked list of parts for long pieces, so long runs do not go quadratic); ``WholeTokens`` is the
lookup of a piece's text among the tokens. Both need only the ranks. What needs the merges (the pair
table of ``fast.TiktokenPieceEncoder``, ``applied_ranks``) comes from a function the model passes,
called on first use. This module knows nothing of text splitting, special tokens or files.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Mapping, Sequence

from bpe_core.bpe.fast import LONG_PIECE, TiktokenPieceEncoder, tiktoken_pairs
from bpe_core.bpe.reference import PairRanks

_NONE = 1 << 62


def join_by_rank(piece: bytes, ranks: Mapping[bytes, int]) -> list[int]:
    """The ids tiktoken's loop leaves on ``piece`` (not looked up whole first), whose single bytes
    must all be tokens.

    >>> join_by_rank(b"abc", {b"a": 0, b"b": 1, b"c": 2, b"bc": 3, b"ab": 4})
    [0, 3]
    """
    if len(piece) > LONG_PIECE:
        return _join_with_heap(piece, ranks)
    get = ranks.get
    none = _NONE
    starts = list(range(len(piece) + 1))  # part k is piece[starts[k] : starts[k + 1]]
    made = [get(piece[k : k + 2], none) for k in range(len(piece) - 1)]  # rank of parts k and k + 1 joined
    while made:
        best = min(made)
        if best == none:
            break
        k = made.index(best)
        del starts[k + 1]
        del made[k]
        if k < len(made):
            made[k] = get(piece[starts[k] : starts[k + 2]], none)
        if k:
            made[k - 1] = get(piece[starts[k - 1] : starts[k + 1]], none)
    return list(map(ranks.__getitem__, map(piece.__getitem__, map(slice, starts, starts[1:]))))


def _join_with_heap(piece: bytes, ranks: Mapping[bytes, int]) -> list[int]:
    """``join_by_rank`` in O(n log n): a heap of (rank, start of the left part, end of the right part)
    over a linked list of parts; an entry whose two parts no longer span those bytes is skipped."""
    n = len(piece)
    get = ranks.get
    after = list(range(1, n + 1))  # start -> start of the next part (n at the end)
    before = list(range(-1, n - 1))
    alive = [True] * n
    heap = [(rank, k, k + 2) for k in range(n - 1) if (rank := get(piece[k : k + 2])) is not None]
    heapq.heapify(heap)
    while heap:
        _rank, start, end = heapq.heappop(heap)
        middle = after[start]
        if not alive[start] or middle >= n or after[middle] != end:
            continue  # stale: one of the two parts changed since it was pushed
        alive[middle] = False
        after[start] = end
        if end < n:
            before[end] = start
            found = get(piece[start : after[end]])
            if found is not None:
                heapq.heappush(heap, (found, start, after[end]))
        previous = before[start]
        if previous >= 0:
            found = get(piece[previous:end])
            if found is not None:
                heapq.heappush(heap, (found, previous, end))
    ids = []
    start = 0
    while start < n:
        ids.append(ranks[piece[start : after[start]]])
        start = after[start]
    return ids


class RankPieceEncoder(TiktokenPieceEncoder):
    """``TiktokenPieceEncoder`` whose ``encode`` runs tiktoken's rule on the ranks themselves (the
    same ids: the pairs that encoder joins are those tiktoken's loop joins), so it needs no merge list;
    ``parts()`` gives the merge ranks and late merges for the rest (``ranks``, ``applied_ranks``, BPE-
    dropout) on first use.

    >>> ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256}
    >>> RankPieceEncoder(ranks, range(256), lambda: ({(97, 98): (0, 256)}, {})).encode(b"abab")
    (256, 256)
    """

    def __init__(
        self,
        token_ranks: Mapping[bytes, int],
        byte_ids: Sequence[int],
        parts: Callable[[], tuple[PairRanks, Mapping[tuple[int, int], int]]],
    ) -> None:
        self.token_ranks = token_ranks
        self.byte_ids = list(byte_ids)
        self._byte_table = bytes(self.byte_ids) if max(self.byte_ids) < 256 else None
        self._pair_keys = None
        self._pieces_before_packing = None  # its encode joins by rank, never by the packed table
        self._parts = parts
        self._ranks_source = self._pairs  # a bound method, not a lambda: encoders are pickled

    def _pairs(self) -> PairRanks:
        return tiktoken_pairs(*self._parts())

    def encode(self, piece: bytes) -> tuple[int, ...]:
        found = self.token_ranks.get(piece)
        if found is not None:
            return (found,)
        return tuple(join_by_rank(piece, self.token_ranks))


class WholeTokens(Mapping[str, tuple[int]]):
    """Piece text -> (id,) for every token whose bytes are that text's UTF-8: under tiktoken's rule
    every token encodes to itself, so this is the table of pieces encoded whole, found by one lookup
    per piece instead of a table decoded from the whole vocabulary.

    >>> WholeTokens({b"ab": 7}).get("ab"), WholeTokens({b"ab": 7}).get("\\ud800")
    ((7,), None)
    """

    def __init__(self, token_to_id: Mapping[bytes, int]) -> None:
        self._ids = token_to_id

    def get(self, piece: str, default: tuple[int] | None = None) -> tuple[int] | None:  # type: ignore[override]
        try:
            found = self._ids.get(piece.encode("utf-8"))
        except UnicodeEncodeError:  # a lone surrogate is in no token
            return default
        return default if found is None else (found,)

    def __getitem__(self, piece: str) -> tuple[int]:
        found = self.get(piece)
        if found is None:
            raise KeyError(piece)
        return found

    def __iter__(self) -> Iterator[str]:
        for token in self._ids:
            try:
                yield token.decode("utf-8")
            except UnicodeDecodeError:  # a partial character is never a piece
                pass

    def __len__(self) -> int:
        return sum(1 for _ in self)
