"""BPE on one piece: the plain algorithm first, then the fast variants the ``Tokenizer`` uses.

The core operation is ``merge``: replace every occurrence of a pair, left to right, without overlap.
``encode_reference`` is BPE written the readable way (find the adjacent pair with the lowest rank,
merge it everywhere, repeat), and ``PieceEncoder`` gives the same ids fast: a packed-integer loop for
short pieces, a heap over a linked list for long ones (so runs of spaces or digits do not go
quadratic). Tests check every variant against ``encode_reference``.

Also here: which tokens encode to themselves (``self_encoding_ids``, so a piece that is such a token
is looked up whole) and the merge list implied by tiktoken-style ranks (``merges_from_ranks``).
This module knows nothing of text, regexes, special tokens or files.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

Symbol = TypeVar("Symbol")
#: (left id, right id) -> (rank, merged id), in rank order.
PairRanks = Mapping[tuple[int, int], tuple[int, int]]


def merge(symbols: Sequence[Symbol], pair: tuple[Symbol, Symbol], new: Symbol) -> list[Symbol]:
    """``symbols`` with every occurrence of ``pair`` replaced by ``new``, left to right, no overlap.

    >>> merge([1, 2, 3, 1, 2], (1, 2), 4)
    [4, 3, 4]
    >>> merge("aaa", ("a", "a"), "Z")
    ['Z', 'a']
    """
    out: list[Symbol] = []
    i = 0
    n = len(symbols)
    while i < n:
        if i < n - 1 and symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
            out.append(new)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def pair_counts(words: Iterable[Sequence[Symbol]], freqs: Iterable[int]) -> dict[tuple[Symbol, Symbol], int]:
    """How often each adjacent pair occurs, each word weighted by its frequency, in order of first
    occurrence.

    >>> pair_counts(["aaab", "ab"], [1, 2])
    {('a', 'a'): 2, ('a', 'b'): 3}
    """
    counts: dict[tuple[Symbol, Symbol], int] = {}
    for symbols, freq in zip(words, freqs):
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + freq
    return counts


def encode_reference(ids: Sequence[int], ranks: PairRanks, applied: list[int] | None = None) -> list[int]:
    """BPE on one piece, the readable way: merge the lowest-ranked adjacent pair everywhere, repeat.

    ``applied``, if given, receives the rank of every merged occurrence, in order.

    >>> encode_reference([1, 2, 3], {(1, 2): (0, 4), (4, 3): (1, 5)})
    [5]
    """
    ids = list(ids)
    while len(ids) > 1:
        pairs = [pair for pair in zip(ids, ids[1:]) if pair in ranks]
        if not pairs:
            break
        pair = min(pairs, key=ranks.__getitem__)  # each pair has its own rank
        rank, new_id = ranks[pair]
        merged = merge(ids, pair, new_id)
        if applied is not None:
            applied.extend([rank] * (len(ids) - len(merged)))
        ids = merged
    return ids


# --------------------------------------------------------------------------------------------------
# the fast variants

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
    ranks = [get((a << bits) | b, none) for a, b in zip(ids, ids[1:])]
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


def encode_heap(ids: list[int], ranks: PairRanks) -> list[int]:
    """``encode_reference`` in O(n log n): lowest rank first, leftmost among equals, from a heap of
    candidate merges over a doubly linked list of symbols. Stale heap entries are skipped."""
    n = len(ids)
    symbols = list(ids)
    prev = list(range(-1, n - 1))
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    alive = [True] * n
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
        symbols[i] = new_id
        alive[j] = False
        k = nxt[j]
        nxt[i] = k
        if k != -1:
            prev[k] = i
            found = ranks.get((new_id, symbols[k]))
            if found is not None:
                heapq.heappush(heap, (found[0], i, new_id, symbols[k], found[1]))
        p = prev[i]
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

    def __init__(self, ranks: PairRanks, byte_ids: Sequence[int]) -> None:
        self.ranks = ranks
        self.byte_ids = list(byte_ids)
        self._byte_table = bytes(self.byte_ids) if max(self.byte_ids) < 256 else None
        ids_fit = all(max(pair) < (1 << _ID_BITS) and merged < (1 << _ID_BITS) for pair, (_, merged) in ranks.items())
        self._pair_keys: dict[int, int] | None = (
            {(left << _ID_BITS) | right: (rank << _ID_BITS) | merged for (left, right), (rank, merged) in ranks.items()}
            if ids_fit and max(self.byte_ids) < (1 << _ID_BITS)
            else None
        )

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
        if self._pair_keys is None:
            return tuple(encode_reference(ids, self.ranks))
        return tuple(encode_short(ids, self._pair_keys))

    def applied_ranks(self, piece: bytes) -> list[int]:
        """The rank of every merge BPE applies to ``piece``, in order, one entry per merged occurrence.

        Merges apply in non-decreasing rank (a pair made by merge r involves a token that only exists
        after r), so the first k merges leave ``len(piece)`` minus the number of ranks below k tokens:
        one pass serves every vocabulary size."""
        applied: list[int] = []
        encode_reference(self.byte_symbols(piece), self.ranks, applied)
        return applied


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
        if left in proved and right in proved and not _crosses(left, right, rank, right_of, left_part, right_part, made_at):
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


def _crosses(left, right, rank, right_of, left_part, right_part, made_at) -> bool:
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


@dataclass(frozen=True)
class RankStructure:
    """What tiktoken-style ranks hold (see ``rank_structure``); each list in rank order."""

    #: (left, right) for every token two lower-ranked tokens join: a BPE merge list.
    merges: list[tuple[bytes, bytes]]
    #: (left, right) for the other tokens tiktoken joins from two parts: one part needs (maybe further
    #: down) a merge ranked after the token, so this is no BPE merge, but tiktoken makes it in context.
    late_merges: list[tuple[bytes, bytes]]
    #: tokens no two parts ever join: tiktoken emits them only for a whole pre-token.
    whole_tokens: list[bytes]


class _PositionPairs:
    """A packed ``(left * base + right) -> position`` table seen as ``encode_heap``'s pair ranks."""

    def __init__(self, table: dict[int, int], base: int) -> None:
        self.table = table
        self.base = base

    def get(self, pair: tuple[int, int]) -> tuple[int, int] | None:
        found = self.table.get(pair[0] * self.base + pair[1])
        return None if found is None else (found, found)


def _join_by_position(ids: list[int], table: dict[int, int], base: int) -> list[int]:
    """tiktoken's merge loop on positions: join the adjacent pair whose token has the lowest
    position (rank order), the leftmost among equals, one at a time, until no pair is a token."""
    if len(ids) > LONG_PIECE:
        return encode_heap(ids, _PositionPairs(table, base))  # type: ignore[arg-type]
    get = table.get
    none = _NO_MERGE
    made = [get(a * base + b, none) for a, b in zip(ids, ids[1:])]
    while made:
        best = min(made)
        if best == none:
            break
        i = made.index(best)
        ids[i : i + 2] = (best,)
        del made[i]
        if i < len(made):
            made[i] = get(best * base + ids[i + 1], none)
        if i:
            made[i - 1] = get(ids[i - 1] * base + best, none)
    return ids


# Bounds that keep ``rank_structure`` near-linear on long tokens (runs of one byte, say): at most
# this many prefix splits are tried, and chain pairs checked up to this many per byte of the token,
# else the loop runs, which is O(n log n) on n bytes.
_SPLITS_TRIED = 8
_CROSSING_LOOKUPS_PER_BYTE = 4


def _crossing(a: int, b: int, rows: dict[int, dict[int, int]], left: list[int], right: list[int], regular, *, late: bool, budget: int) -> bool:
    """Whether, on the bytes of ``a`` then ``b`` (two tokens built by plain merges), some merge joins
    one of ``a``'s last symbols ``x`` to one of ``b``'s first symbols ``y`` before they are complete:
    the chain check of ``self_encoding_ids``, with ``a`` and ``b`` themselves never absorbed. Positions
    are ranks: ``x`` lives from its own position until its parent's (``rho``), ``y`` until ``sigma``,
    and a merge of both comes after both, so when neither outlives the other's birth no lookup is
    needed. Once a late merge exists (its timing is not its rank) every pair is looked up, and a late
    merge across the join counts as crossing, so the caller falls back to running the loop."""
    x, rho = a, _NO_MERGE
    while x >= 0:
        row = rows.get(x)
        if row is not None:
            y, sigma = b, _NO_MERGE
            while y >= 0:
                budget -= 1
                if not budget:
                    return True  # deep chains on both sides: running the loop is cheaper
                if late or (x < sigma and y < rho):
                    made = row.get(y)
                    if made is not None and ((made < rho and made <= sigma) or not regular[made]):
                        return True
                y, sigma = left[y], y
        x, rho = right[x], x
    return False

def _split(token: bytes, prefixes, tokens, position, rows, left, right, regular, *, late: bool):
    """The two tokens, both built by plain merges, that ``token``'s bytes end as under tiktoken's
    loop when no merge crosses their join (``_crossing``); None when no tried cut gives such a pair,
    and then only running the loop tells. The cuts tried: after each of ``prefixes`` (positions of
    its longest prefixes that are tokens), and the split of its prefix token with the last byte moved
    to the right part (how runs of one byte grow)."""
    splits = []
    budget = max(16, _CROSSING_LOOKUPS_PER_BYTE * len(token))
    for a in prefixes:
        if regular[a]:
            b = position.get(token[len(tokens[a]) :])
            if b is not None and regular[b]:
                splits.append((a if a > b else b, a, b))
    if prefixes and left[prefixes[-1]] >= 0:
        a = left[prefixes[-1]]
        b = position.get(token[len(tokens[a]) :])
        if b is not None and regular[a] and regular[b]:
            splits.append((a if a > b else b, a, b))
    if len(splits) > 1:
        splits.sort()  # the split into the earliest parts is nearly always the one
    for _, a, b in splits:
        if not _crossing(a, b, rows, left, right, regular, late=late, budget=budget):
            return a, b
    return None

def rank_structure(ranks: Mapping[bytes, int]) -> RankStructure:
    """Sort every token of tiktoken-style ranks (token bytes -> rank) into a merge, a late merge or
    a whole-word token, by tiktoken's own rule: a piece's bytes are joined pair by pair, the pair
    whose concatenation has the lowest rank first (leftmost among equals).

    Tokens are taken by length, so the parts of a token are always known before it. The parts of a
    token are what tiktoken's loop leaves on its bytes just before the token itself: usually its
    prefix token and last byte (or first byte and suffix token) when no merge crosses that join (the
    chain check of ``self_encoding_ids``, on the spine of the prefix), else found by running the loop
    on its bytes. Two parts built only by lower-ranked merges make a merge; two parts one of which
    needed a higher-ranked merge (or a late merge) make a late merge, which tiktoken still joins inside
    longer pieces; more than two parts make a whole-word token. The cost is near-linear in the size of
    the ranks.

    >>> s = rank_structure({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4, b"abc": 5})
    >>> s.merges, s.late_merges, s.whole_tokens
    ([(b'a', b'b'), (b'b', b'c'), (b'ab', b'c')], [], [])
    >>> s = rank_structure({b"a": 0, b"b": 1, b"c": 2, b"abc": 3, b"ab": 4, b"ca": 5, b"abca": 6})
    >>> s.merges, s.late_merges, s.whole_tokens  # a b c -> ab c -> abc: "ab" is ranked after "abc"
    ([(b'a', b'b'), (b'c', b'a')], [(b'ab', b'c'), (b'abc', b'a')], [])
    >>> rank_structure({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abca": 4}).whole_tokens  # ab c a: stuck
    [b'abca']
    """
    # long on purpose: the per-token loop is inlined; a call per token would double its cost.
    order = sorted(ranks, key=ranks.__getitem__)
    n = len(order)
    position = {token: i for i, token in enumerate(order)}
    base = n + 256  # positions n.. stand for single bytes the ranks lack
    tokens = order + [bytes([b]) for b in range(256)]
    byte_at = [position.get(bytes([b]), n + b) for b in range(256)]
    left = [-1] * base
    right = [-1] * base
    height = [-1] * base  # highest position a token's construction uses (-1 for bytes)
    regular = bytearray(base)  # bytes, and merges built from regular parts only
    for p in byte_at:
        regular[p] = 1
    kind = bytearray(n)  # 0 byte, 1 merge, 2 late merge, 3 whole-word token
    by_length: dict[int, list[int]] = {}
    for i, token in enumerate(order):
        if len(token) > 1:
            by_length.setdefault(len(token), []).append(i)
    table: dict[int, int] = {}  # left * base + right -> position of the token they make
    rows: dict[int, dict[int, int]] = {}  # the same as left -> {right: position}
    late = False  # whether a late merge was found (then no merge's timing is taken from its rank)
    # The positions of each token's longest proper prefixes that are tokens (a few), longest last.
    prefixes: list[tuple[int, ...]] = [()] * n
    for length in sorted(by_length):
        for i in by_length[length]:
            token = order[i]
            shorter = None
            for cut in range(length - 1, 0, -1):  # the longest proper prefix token brings the rest
                shorter = position.get(token[:cut])
                if shorter is not None:
                    break
            prefixes[i] = (prefixes[shorter] + (shorter,))[-_SPLITS_TRIED:] if shorter is not None and shorter < n else ()
            b = _split(token, prefixes[i], tokens, position, rows, left, right, regular, late=late)
            if b is not None:
                a, b = b
            if b is None:
                parts = _join_by_position([byte_at[c] for c in token], table, base)
                if len(parts) != 2:
                    kind[i] = 3
                    continue
                a, b = parts
            table[a * base + b] = i
            row = rows.get(a)
            if row is None:
                rows[a] = {b: i}
            else:
                row[b] = i
            left[i], right[i] = a, b
            below = max(height[a], height[b])
            height[i] = max(below, i)
            if below < i and regular[a] and regular[b]:
                kind[i] = 1
                regular[i] = 1
            else:
                kind[i] = 2
                late = True
    return RankStructure(
        merges=[(tokens[left[i]], tokens[right[i]]) for i in range(n) if kind[i] == 1],
        late_merges=[(tokens[left[i]], tokens[right[i]]) for i in range(n) if kind[i] == 2],
        whole_tokens=[order[i] for i in range(n) if kind[i] == 3],
    )


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
        raise ValueError(
            f"token {token!r} (rank {ranks[token]}) cannot be built from two lower-ranked tokens: "
            "these ranks are not a BPE merge list (Tokenizer.from_ranks follows tiktoken's rule for them)"
        )
    return structure.merges
