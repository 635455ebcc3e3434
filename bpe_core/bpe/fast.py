"""BPE on one piece, fast: the variants the ``Tokenizer`` uses.

``PieceEncoder`` gives the ids of ``reference.encode_reference`` (BPE written the readable way: merge
the lowest-ranked adjacent pair everywhere, repeat) fast: a packed-integer loop for short pieces, a
heap over a linked list for long ones (so runs of spaces or digits do not go quadratic). Tests check
every variant against ``encode_reference``.

Also here: which tokens encode to themselves (``self_encoding_ids``, so a piece that is such a token
is looked up whole) and the merge list implied by tiktoken-style ranks (``merges_from_ranks``).
This module knows nothing of text, regexes, special tokens or files.
"""

from __future__ import annotations

import functools
import heapq
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import repeat
from operator import itemgetter, lshift, or_

from bpe_core.bpe.ranks import rank_structure
from bpe_core.bpe.reference import PairRanks, encode_reference
from bpe_core.errors import BpeError

#: Pieces longer than this (in bytes) use the heap-based loop instead of rescanning.
LONG_PIECE = 64
# The short-piece loop packs two ids into one int key (ids below 2**20).
_ID_BITS = 20
_NO_MERGE = 1 << 62


def encode_short(ids: list[int], pair_keys: Mapping[int, int]) -> list[int]:
    """``encode_reference`` for short pieces, with each adjacent pair's ``(rank << 20 | merged id)``
    looked up by ``(left << 20 | right)`` so that ``min`` finds the next merge in C.

    Merging the leftmost occurrence of the lowest-ranked pair, one at a time, is the same as merging
    all its occurrences left to right: a merge can only create pairs of higher rank.
    """
    get = pair_keys.get
    bits = _ID_BITS
    none = _NO_MERGE
    ranks = [get((a << bits) | b, none) for a, b in zip(ids, ids[1:], strict=False)]
    mask = (1 << bits) - 1
    while ranks:
        best = min(ranks)
        if best == none:
            break
        i = ranks.index(best)
        merged = best & mask
        ids[i : i + 2] = (merged,)
        del ranks[i]
        if i < len(ranks):
            ranks[i] = get((merged << bits) | ids[i + 1], none)
        if i:
            ranks[i - 1] = get((ids[i - 1] << bits) | merged, none)
    return ids


def linked(n: int) -> tuple[list[int], list[int], list[bool]]:
    """``(prev, next, alive)`` of ``n`` symbols as a doubly linked list (-1: no neighbour).

    >>> linked(3)
    ([-1, 0, 1], [1, 2, -1], [True, True, True])
    """
    nxt = list(range(1, n + 1))
    if n:
        nxt[-1] = -1
    return list(range(-1, n - 1)), nxt, [True] * n


def join_right(
    symbols: list[int], links: tuple[list[int], list[int], list[bool]], i: int, new_id: int
) -> tuple[int, int]:
    """Join the symbol at ``i`` and its right neighbour into ``new_id`` (``links`` as ``linked``
    makes them); the positions of the joined symbol's neighbours now, -1 where there is none."""
    prev, nxt, alive = links
    j = nxt[i]
    symbols[i] = new_id
    alive[j] = False
    k = nxt[i] = nxt[j]
    if k != -1:
        prev[k] = i
    return prev[i], k


def encode_heap(ids: list[int], ranks: PairRanks) -> list[int]:
    """``encode_reference`` in O(n log n): lowest rank first, leftmost among equals, from a heap of
    candidate merges over a doubly linked list of symbols. Stale heap entries are skipped."""
    n = len(ids)
    symbols = list(ids)
    links = linked(n)
    _prev, nxt, alive = links
    heap: list[tuple[int, int, int, int, int]] = []
    for i in range(n - 1):
        found = ranks.get((symbols[i], symbols[i + 1]))
        if found is not None:
            heap.append((found[0], i, symbols[i], symbols[i + 1], found[1]))
    heapq.heapify(heap)
    while heap:
        rank, i, left, right, new_id = heapq.heappop(heap)
        if not alive[i] or symbols[i] != left:
            continue
        j = nxt[i]
        if j == -1 or symbols[j] != right:
            continue
        p, k = join_right(symbols, links, i, new_id)
        if k != -1:
            found = ranks.get((new_id, symbols[k]))
            if found is not None:
                heapq.heappush(heap, (found[0], i, new_id, symbols[k], found[1]))
        if p != -1:
            found = ranks.get((symbols[p], new_id))
            if found is not None:
                heapq.heappush(heap, (found[0], p, symbols[p], new_id, found[1]))
    out = []
    i = 0
    while i != -1:
        out.append(symbols[i])
        i = nxt[i]
    return out


class PieceEncoder:
    """BPE on the bytes of one piece with given merges, choosing the fastest exact variant.

    >>> PieceEncoder({(97, 98): (0, 256)}, range(256)).encode(b"abab")
    (256, 256)
    """

    _ranks_source: Callable[[], PairRanks]

    def __init__(self, ranks: PairRanks, byte_ids: Sequence[int]) -> None:
        self.ranks = ranks
        self.byte_ids = list(byte_ids)
        self._byte_table = bytes(self.byte_ids) if max(self.byte_ids) < 256 else None
        # encode_short's table costs a pass over the merges: it is built once as many new pieces as an
        # eighth of the merges have come (``_packed_when_due``); until then encode_reference merges them,
        # with the same ids, so loading and a short first text do not pay for it.
        self._pair_keys: dict[int, int] | None = None
        self._pieces_before_packing: int | None = len(ranks) // 8

    @functools.cached_property
    def ranks(self) -> PairRanks:
        """(left id, right id) -> (rank, merged id) (set by ``__init__``; built on first use by a subclass
        that gives ``_ranks_source``, as ``rank_pieces.RankPieceEncoder``)."""
        return self._ranks_source()

    def byte_symbols(self, piece: bytes) -> list[int]:
        """The ids of ``piece``'s single bytes."""
        if self._byte_table is not None:
            return list(piece.translate(self._byte_table))
        byte_ids = self.byte_ids
        return [byte_ids[b] for b in piece]

    def encode(self, piece: bytes) -> tuple[int, ...]:
        """The ids BPE gives ``piece`` (equal to ``encode_reference`` on its byte ids)."""
        table = self._byte_table
        ids = list(piece.translate(table)) if table is not None else self.byte_symbols(piece)
        if len(ids) < 2:
            return tuple(ids)
        if len(ids) > LONG_PIECE:
            return tuple(encode_heap(ids, self.ranks))
        keys = self._pair_keys or self._packed_when_due()
        if keys is None:
            return tuple(encode_reference(ids, self.ranks))
        return tuple(encode_short(ids, keys))

    def _packed_when_due(self) -> dict[int, int] | None:
        """``encode_short``'s table once it is due (see ``__init__``), else None (also for ids too large
        for it); counts one piece."""
        if self._pieces_before_packing is None:
            return None
        if self._pieces_before_packing > 0:
            self._pieces_before_packing -= 1
            return None
        self._pieces_before_packing = None
        self._pair_keys = _packed_pairs(self.ranks, max(self.byte_ids))
        return self._pair_keys

    def applied_ranks(self, piece: bytes) -> list[int]:
        """The rank of every merge BPE applies to ``piece``, in order, one entry per merged occurrence.

        Merges apply in non-decreasing rank (a pair made by merge r involves a token that only exists
        after r), so the first k merges leave ``len(piece)`` minus the number of ranks below k tokens:
        one pass serves every vocabulary size."""
        applied: list[int] = []
        encode_reference(self.byte_symbols(piece), self.ranks, applied)
        return applied


def _packed_pairs(ranks: PairRanks, largest_byte_id: int) -> dict[int, int] | None:
    """``encode_short``'s table for ``ranks`` (see ``pack_columns``)."""
    lefts = list(map(itemgetter(0), ranks))
    rights = list(map(itemgetter(1), ranks))
    ranks_of = list(map(itemgetter(0), ranks.values()))
    made = list(map(itemgetter(1), ranks.values()))
    return pack_columns(lefts, rights, ranks_of, made, largest_byte_id)


def pack_columns(
    lefts: Sequence[int], rights: Sequence[int], ranks_of: Sequence[int], made: Sequence[int], largest_byte_id: int
) -> dict[int, int] | None:
    """``encode_short``'s table, ``(left << 20 | right) -> (rank << 20 | merged id)``, from the pairs'
    columns, or None when an id does not fit in 20 bits. Built with C-level ``map``, no Python step per
    pair (a 200k-merge table is built whenever a tokenizer is loaded)."""
    limit = 1 << _ID_BITS
    if max(max(lefts, default=0), max(rights, default=0), max(made, default=0), largest_byte_id) >= limit:
        return None
    keys = map(or_, map(lshift, lefts, repeat(_ID_BITS)), rights)
    return dict(zip(keys, map(or_, map(lshift, ranks_of, repeat(_ID_BITS)), made), strict=True))


class TiktokenPieceEncoder(PieceEncoder):
    """``PieceEncoder`` by tiktoken's rule, for ranks that hold late merges (see ``ranks``): the pairs
    are the merges and the late merges, each ranked by the id of the token it makes (tiktoken's ids
    are its ranks) and joined one at a time, lowest first, leftmost among equals: never all
    occurrences of a pair at once, since a late merge can be ranked below the merge that enabled it.
    ``applied_ranks`` reports the plain merges (``merge_ranks``), as for the first-k views.

    >>> byte_ids = range(2, 258)  # byte b has id b + 2; "abc" is id 0, "ab" id 1: abc joins ab + c late
    >>> TiktokenPieceEncoder({(99, 100): (0, 1)}, {(1, 101): 0}, byte_ids).encode(b"abcab")
    (0, 1)
    """

    _parts: Callable[[], tuple[PairRanks, Mapping[tuple[int, int], int]]]

    def __init__(self, merge_ranks: PairRanks, late: Mapping[tuple[int, int], int], byte_ids: Sequence[int]) -> None:
        super().__init__(tiktoken_pairs(merge_ranks, late), byte_ids)
        self.merge_ranks = merge_ranks

    @functools.cached_property
    def merge_ranks(self) -> PairRanks:
        """The plain merges' (rank, merged id) (set by ``__init__``; built on first use from ``_parts`` by
        ``rank_pieces.RankPieceEncoder``)."""
        return self._parts()[0]

    def encode(self, piece: bytes) -> tuple[int, ...]:
        ids = self.byte_symbols(piece)
        if len(ids) < 2:
            return tuple(ids)
        if len(ids) <= LONG_PIECE:
            keys = self._pair_keys or self._packed_when_due()
            if keys is not None:
                return tuple(encode_short(ids, keys))
        return tuple(encode_heap(ids, self.ranks))

    def applied_ranks(self, piece: bytes) -> list[int]:
        applied: list[int] = []
        encode_reference(self.byte_symbols(piece), self.merge_ranks, applied)
        return applied


def tiktoken_pairs(
    merge_ranks: PairRanks, late: Mapping[tuple[int, int], int]
) -> dict[tuple[int, int], tuple[int, int]]:
    """The merges and the late merges, each ranked by the id it makes: (merged id, merged id)."""
    merged = list(map(itemgetter(1), merge_ranks.values()))
    pairs = dict(zip(merge_ranks, zip(merged, merged, strict=True), strict=True))
    pairs.update(zip(late, zip(late.values(), late.values(), strict=True), strict=True))
    return pairs


# --------------------------------------------------------------------------------------------------
# facts about a merge list


def self_encoding_ids(pair_rank: PairRanks, byte_ids: Iterable[int]) -> set[int]:
    """The ids of the tokens whose own bytes encode to exactly that one token, proved from the merges
    without running BPE on each token.

    Let ``t`` be made by merge ``(l, r)`` at rank ``k``. Merges apply in increasing rank, so on ``t``'s
    bytes the left part evolves exactly as ``l``'s bytes alone (and the right as ``r``'s) until a merge
    joins a symbol of the left part to one of the right part. Such a cross merge can only join one of
    ``l``'s *last symbols* ``x`` (the last byte, then each token that absorbed it, up to ``l``; ``x`` is
    absorbed at rank ``rho``, ``l`` itself at ``k``) to one of ``r``'s *first symbols* ``y`` (absorbed
    at ``sigma``, ``r`` at ``k``), and it happens exactly when the merge ``(x, y)`` has a rank ``c``
    with ``c < rho`` (at ``c == rho`` the merge absorbing ``x`` is further left and goes first) and
    ``c <= sigma`` (at ``c == sigma`` the cross pair is the leftmost). So ``t`` encodes to itself iff
    ``l`` and ``r`` do and no such pair exists; the chains compose from the parts. Tests check this
    against BPE on every token of GPT-2, cl100k and random merge lists.
    """
    right_of: dict[int, dict[int, int]] = {}  # left id -> {right id: rank}
    for (left, right), (rank, _merged) in pair_rank.items():
        right_of.setdefault(left, {})[right] = rank
    # A token's chains are walked through its parts rather than stored: no allocation per token.
    left_part: dict[int, int] = {}
    right_part: dict[int, int] = {}
    made_at: dict[int, int] = {}
    proved = set(byte_ids)
    for (left, right), (rank, merged) in pair_rank.items():
        if (
            left in proved
            and right in proved
            and not _crosses(left, right, rank, right_of, left_part, right_part, made_at)
        ):
            proved.add(merged)
        left_part[merged] = left
        right_part[merged] = right
        made_at[merged] = rank
    return proved


def _chain(token: int, rank: int, part: dict[int, int], made_at: dict[int, int]) -> list[tuple[int, int]]:
    """``token`` and the symbols it absorbed on one side (via ``part``), each with the rank of the
    merge that absorbed it (``rank`` for ``token`` itself)."""
    chain = [(token, rank)]
    while token in part:
        chain.append((part[token], made_at[token]))
        token = part[token]
    return chain


def _crosses(
    left: int,
    right: int,
    rank: int,
    right_of: dict[int, dict[int, int]],
    left_part: dict[int, int],
    right_part: dict[int, int],
    made_at: dict[int, int],
) -> bool:
    """Whether a merge joins a last symbol of ``left`` to a first symbol of ``right`` before the two
    are complete (see ``self_encoding_ids``)."""
    firsts = None
    for x, rho in _chain(left, rank, right_part, made_at):
        row = right_of.get(x)
        if row is None:
            continue
        if firsts is None:
            firsts = _chain(right, rank, left_part, made_at)
        for y, sigma in firsts:
            cross = row.get(y)
            if cross is not None and cross < rho and cross <= sigma:
                return True
    return False


def merges_from_ranks(ranks: Mapping[bytes, int]) -> list[tuple[bytes, bytes]]:
    """The merge list implied by tiktoken-style ranks (token bytes -> rank): each multi-byte token
    splits into the two parts that BPE with only lower-ranked tokens produces. ValueError if some
    token is not such a merge (``rank_structure`` sorts those out; ``Tokenizer.from_ranks`` takes them).

    >>> merges_from_ranks({b"a": 0, b"b": 1, b"ab": 2})
    [(b'a', b'b')]
    """
    structure = rank_structure(ranks)
    odd = [left + right for left, right in structure.late_merges] + structure.whole_tokens
    if odd:
        token = min(odd, key=ranks.__getitem__)
        raise BpeError(
            f"token {token!r} (rank {ranks[token]}) cannot be built from two lower-ranked tokens: "
            "these ranks are not a BPE merge list (Tokenizer.from_ranks follows tiktoken's rule for them)"
        )
    return structure.merges
