"""What tiktoken-style ranks hold (token bytes -> rank, the rank doubling as the id), found in
near-linear time: for each token, whether two lower-ranked tokens join into it (a BPE merge), two
parts join into it only after a higher-ranked merge made one of them (a *late merge*), or no two
parts ever do (a *whole-word token*, which tiktoken emits only when a whole pre-token equals it).

tiktoken encodes a piece by looking it up whole, then joining adjacent parts pair by pair, the pair
whose concatenation has the lowest rank first (leftmost among equals). ``rank_structure`` applies that
rule to every token's own bytes. This module knows nothing of text, regexes or files; ``bpe`` turns
the result into a merge list (``merges_from_ranks``) and encodes with it.
"""

from __future__ import annotations

import heapq
import sys
from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import cast

from bpe_core.errors import BpeError

#: Tokens longer than this (in bytes) are joined with a heap when the loop must run on them.
_LONG = 64
_NONE = 1 << 62


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


def _join_with_heap(ids: list[int], table: dict[int, int], base: int) -> list[int]:
    """``_join_by_position`` in O(n log n) for long pieces: a heap of candidate joins (position of
    the token, index of the left symbol) over a linked list of symbols; stale entries are skipped."""
    n = len(ids)
    symbols = list(ids)
    prev = list(range(-1, n - 1))
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    get = table.get
    heap = [(made, i) for i in range(n - 1) if (made := get(symbols[i] * base + symbols[i + 1])) is not None]
    heapq.heapify(heap)
    while heap:
        made, i = heapq.heappop(heap)
        j = nxt[i]
        if symbols[i] < 0 or j == -1 or get(symbols[i] * base + symbols[j]) != made:
            continue  # a stale entry: one of the two symbols changed since it was pushed
        symbols[i] = made
        symbols[j] = -1
        nxt[i] = k = nxt[j]
        if k != -1:
            prev[k] = i
            found = get(made * base + symbols[k])
            if found is not None:
                heapq.heappush(heap, (found, i))
        p = prev[i]
        if p != -1:
            found = get(symbols[p] * base + made)
            if found is not None:
                heapq.heappush(heap, (found, p))
    return [s for s in symbols if s >= 0]


def _join_by_position(ids: list[int], table: dict[int, int], base: int) -> list[int]:
    """tiktoken's merge loop on positions: join the adjacent pair whose token has the lowest
    position (rank order), the leftmost among equals, one at a time, until no pair is a token."""
    if len(ids) > _LONG:
        return _join_with_heap(ids, table, base)
    get = table.get
    none = _NONE
    made = [get(a * base + b, none) for a, b in zip(ids, ids[1:], strict=False)]
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
#: Tokens up to this many bytes run tiktoken's loop on their bytes directly (fewer lookups).
_SHORT = 6
_LOOKUPS_PER_BYTE = 4


def _crossing(
    a: int,
    b: int,
    rows: dict[int, dict[int, int]],
    left: list[int],
    right: list[int],
    born: list[int],
    regular: bytearray,
    late_rows: dict[int, set[int]],
    *,
    budget: int,
) -> bool:
    """Whether, on the bytes of ``a`` then ``b`` (two tokens built by plain merges), some merge joins
    one of ``a``'s last symbols ``x`` to one of ``b``'s first symbols ``y`` before they are complete:
    the chain check of ``self_encoding_ids``, with ``a`` and ``b`` themselves never absorbed. Positions
    are ranks: ``x`` lives from its birth (``born``: its position, or -1 for a byte) until its
    parent's position (``rho``), ``y`` until ``sigma``, and a plain merge of both comes after both,
    so when one dies before the other is born no lookup is needed. A late merge (``late_rows``; its
    timing is not its rank) across the join counts as crossing, and so does running out of
    ``budget``: the caller then runs the loop instead."""
    x, rho = a, _NONE
    while x >= 0:
        row = rows.get(x)
        late_row = late_rows.get(x) if late_rows else None
        if row is not None:
            y, sigma = b, _NONE
            while y >= 0:
                budget -= 1
                if not budget:
                    return True  # deep chains on both sides: running the loop is cheaper
                if born[x] < sigma and born[y] < rho:
                    made = row.get(y)
                    if made is not None and ((made < rho and made <= sigma) or not regular[made]):
                        return True
                elif late_row is not None and y in late_row:
                    return True
                y, sigma = left[y], y
        x, rho = right[x], x
    return False


def _short_split(token: bytes, limit: int, position: Mapping[bytes, int], byte_at: list[int]) -> tuple[int, int] | None:
    """For a short token: the two parts tiktoken's loop leaves on its bytes with only the tokens
    ranked before it (position ``limit``), or None when more are left. Cheaper than the chain check
    for a few bytes; the two agree (both are tiktoken's loop)."""
    parts = [token[k : k + 1] for k in range(len(token))]
    while len(parts) > 2:
        best, at = limit, -1
        for k in range(len(parts) - 1):
            found = position.get(parts[k] + parts[k + 1])
            if found is not None and found < best:
                best, at = found, k
        if at < 0:
            return None
        parts[at : at + 2] = [parts[at] + parts[at + 1]]
    left, right = parts
    return (
        byte_at[left[0]] if len(left) == 1 else position[left],
        byte_at[right[0]] if len(right) == 1 else position[right],
    )


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
    recovery = _Recovery(ranks)
    for length in sorted(recovery.by_length):
        recovery.place(recovery.by_length[length], length)  # one call per length: the loop stays inline
    return recovery.result()


def vocab_of_ranks(
    ranks: Mapping[bytes, int] | Iterable[tuple[bytes, int]],
) -> tuple[Mapping[bytes, int], dict[int, bytes]]:
    """The ranks as a mapping and the vocabulary they make (rank -> token bytes); BpeError for a token
    given twice or two tokens sharing a rank.

    >>> vocab_of_ranks([(b"a", 0), (b"b", 1)])
    ({b'a': 0, b'b': 1}, {0: b'a', 1: b'b'})
    """
    if not isinstance(ranks, Mapping):
        pairs = list(ranks)
        ranks = dict(pairs)
        if len(ranks) != len(pairs):
            raise BpeError("a token appears twice in the ranks: each token has one rank")
    vocab = dict(zip(ranks.values(), ranks.keys(), strict=True))
    if len(vocab) != len(ranks):
        raise BpeError("two tokens share a rank: ranks must be distinct")
    return ranks, vocab


class _Recovery:
    """``rank_structure``'s state: tokens by position (rank order, then the single bytes the ranks lack),
    each token's two parts once placed, and what they tell about later tokens."""

    def __init__(self, ranks: Mapping[bytes, int]) -> None:
        self.order = order = sorted(ranks, key=ranks.__getitem__)
        self.n = n = len(order)
        self.position = {token: i for i, token in enumerate(order)}
        self.base = base = n + 256  # positions n.. stand for single bytes the ranks lack
        self.tokens = order + [bytes([b]) for b in range(256)]
        self.size = list(map(len, self.tokens))
        self.byte_at = [self.position.get(bytes([b]), n + b) for b in range(256)]
        self.left = [-1] * base
        self.right = [-1] * base
        self.height = [-1] * base  # highest position a token's construction uses (-1 for bytes)
        self.regular = bytearray(base)  # bytes, and merges built from regular parts only
        for p in self.byte_at:
            self.regular[p] = 1
        self.kind = bytearray(n)  # 0 byte, 1 merge, 2 late merge, 3 whole-word token
        self.by_length: dict[int, list[int]] = {}
        for i, token in enumerate(order):
            if len(token) > 1:
                self.by_length.setdefault(len(token), []).append(i)
        self.table: dict[int, int] = {}  # left * base + right -> position of the token they make
        self.rows: dict[int, dict[int, int]] = {}  # the same as left -> {right: position}
        self.late_rows: dict[int, set[int]] = {}  # the late merges: left -> {right}
        # The positions of each token's longest proper prefixes that are tokens (a few), longest last.
        self.prefixes: list[tuple[int, ...]] = [()] * n

    def place(self, positions: list[int], length: int) -> None:
        """Find the parts of every token of ``length`` bytes (all shorter ones are placed already)."""
        order, position, byte_at, size, prefixes = self.order, self.position, self.byte_at, self.size, self.prefixes
        left, right, height, regular, kind = self.left, self.right, self.height, self.regular, self.kind
        table, rows, late_rows, base = self.table, self.rows, self.late_rows, self.base
        for i in positions:
            token = order[i]
            shorter = None
            for cut in range(length - 1, 0, -1):  # the longest proper prefix token brings the rest
                shorter = position.get(token[:cut])
                if shorter is not None:
                    break
            prefixes[i] = cuts = (prefixes[shorter] + (shorter,))[-_SPLITS_TRIED:] if shorter is not None else ()
            split: tuple[int, int] | None = None
            if length <= _SHORT:
                split = _short_split(token, i, position, byte_at)
            else:
                # The splits tried: after each of its longest prefix tokens, and the split of the longest
                # prefix token with the rest moved to the right part (how runs of one byte grow).
                splits = []
                for a in cuts + ((left[cuts[-1]],) if cuts else ()):
                    if a >= 0 and regular[a]:
                        b = position.get(token[size[a] :])
                        if b is not None and regular[b]:
                            splits.append((a if a > b else b, a, b))
                if len(splits) > 1:
                    splits.sort()  # the split into the earliest parts is nearly always the one
                for _, a, b in splits:
                    budget = _LOOKUPS_PER_BYTE * length
                    if not _crossing(a, b, rows, left, right, height, regular, late_rows, budget=budget):
                        split = a, b
                        break
            if split is None:
                parts = _join_by_position([byte_at[c] for c in token], table, base)
                if len(parts) != 2:
                    kind[i] = 3
                    continue
                a, b = parts
            else:
                a, b = split
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
                late_rows.setdefault(a, set()).add(b)

    def result(self) -> RankStructure:
        tokens, left, right, kind, n = self.tokens, self.left, self.right, self.kind, self.n
        return RankStructure(
            merges=[(tokens[left[i]], tokens[right[i]]) for i in range(n) if kind[i] == 1],
            late_merges=[(tokens[left[i]], tokens[right[i]]) for i in range(n) if kind[i] == 2],
            whole_tokens=[self.order[i] for i in range(n) if kind[i] == 3],
        )


#: "picky" is Picky BPE's event replay (``picky_replay``): no ranks, so nothing to recover here.
RULES = ("bpe", "tiktoken", "picky")


def tiktoken_rule_parts(
    rule: str,
    token_to_id: Mapping[bytes, int],
    merges: list[tuple[bytes, bytes]],
    structure: RankStructure | None = None,
) -> tuple[RankStructure | None, dict[tuple[int, int], int]]:
    """For a tokenizer following ``rule``: with ``"bpe"`` (BPE with the merge list) or ``"picky"``
    (Picky BPE's events) nothing; with
    ``"tiktoken"`` (ids are tiktoken's ranks) the ``RankStructure`` of its tokens, checked against
    ``merges``, and its late merges as ``(left id, right id) -> id made``. ``structure`` skips the
    recovery when the caller already has it. ValueError when the merges are not the ones the ids
    imply.

    >>> ids = {bytes([b]): b for b in range(256)} | {b"abc": 256, b"ab": 257}
    >>> tiktoken_rule_parts("tiktoken", ids, [(b"a", b"b")])[1]
    {(257, 99): 256}
    """
    if rule not in RULES:
        raise BpeError(
            f"rule must be 'bpe' (BPE with the merge list), 'tiktoken' (ids are ranks) or 'picky' (Picky BPE's "
            f"events), not {rule!r}"
        )
    if rule in ("bpe", "picky"):
        return None, {}
    if structure is None:
        structure = rank_structure(token_to_id)
    if list(merges) != structure.merges:
        raise BpeError(
            "with rule='tiktoken' the merges are those the ids imply (ids are tiktoken's ranks); "
            "build the tokenizer with Tokenizer.from_ranks"
        )
    late = {(token_to_id[left], token_to_id[right]): token_to_id[left + right] for left, right in structure.late_merges}
    return structure, late


# -------------------------------------------------------------------------------------------------
# a RankStructure as bytes (for a cache of it: recovering one takes seconds on 200k ranks)

#: Changes whenever ``rank_structure`` could sort a token differently: older cached bytes are refused.
STRUCTURE_FORMAT = b"bpe_core rank structure 1\n"


def structure_to_bytes(structure: RankStructure, ranks: Mapping[bytes, int]) -> bytes:
    """``structure`` (recovered from ``ranks``) as compact bytes: parts by rank (a byte the ranks
    lack as ``-1 - byte``), read back by ``structure_from_bytes`` with the same ranks.

    >>> r = {b"a": 0, b"b": 1, b"ab": 2}
    >>> structure_from_bytes(structure_to_bytes(rank_structure(r), r), r) == rank_structure(r)
    True
    """

    def rank(part: bytes) -> int:
        found = ranks.get(part)
        return found if found is not None else -1 - part[0]

    numbers = array("q", [len(structure.merges), len(structure.late_merges), len(structure.whole_tokens)])
    for left, right in structure.merges + structure.late_merges:
        numbers.extend((rank(left), rank(right)))
    numbers.extend(ranks[token] for token in structure.whole_tokens)
    if sys.byteorder != "little":
        numbers.byteswap()
    return STRUCTURE_FORMAT + numbers.tobytes()


def structure_from_bytes(data: bytes, ranks: Mapping[bytes, int]) -> RankStructure:
    """The ``RankStructure`` that ``structure_to_bytes`` wrote for ``ranks``, checked: every pair
    joins into a token, merges in rank order from lower-ranked parts, and merges, late merges and
    whole-word tokens together are every multi-byte token once. ValueError when not (another
    format, other ranks, a damaged copy): the caller recovers the structure again."""
    if not data.startswith(STRUCTURE_FORMAT) or (len(data) - len(STRUCTURE_FORMAT)) % 8:
        raise BpeError("not a rank structure of this bpe_core version")
    numbers = array("q")
    numbers.frombytes(data[len(STRUCTURE_FORMAT) :])
    if sys.byteorder != "little":
        numbers.byteswap()
    n_merges, n_late, n_whole = numbers[:3] if len(numbers) >= 3 else (-1, -1, -1)
    if min(n_merges, n_late, n_whole) < 0 or len(numbers) != 3 + 2 * (n_merges + n_late) + n_whole:
        raise BpeError("a rank structure of the wrong size")
    vocab = {rank: token for token, rank in ranks.items()}
    maybe_part = [
        vocab.get(r) if r >= 0 else (bytes([-1 - r]) if r >= -256 else None)
        for r in numbers[3 : 3 + 2 * (n_merges + n_late)]
    ]
    if None in maybe_part:
        raise BpeError("a rank structure naming a rank these ranks lack")
    part = cast("list[bytes]", maybe_part)  # no None: checked just above
    pairs = list(zip(part[0::2], part[1::2], strict=True))
    merges, late = pairs[:n_merges], pairs[n_merges:]
    maybe_whole = [vocab.get(r) for r in numbers[3 + 2 * (n_merges + n_late) :]]
    maybe_made = [ranks.get(left + right) for left, right in pairs]
    if None in maybe_made or None in maybe_whole:
        raise BpeError("a rank structure whose parts do not join into tokens")
    whole, made = cast("list[bytes]", maybe_whole), cast("list[int]", maybe_made)  # no None: checked just above
    if any(len(token) < 2 for token in whole):
        raise BpeError("a rank structure whose parts do not join into tokens")
    merged = made[:n_merges]
    if any(b <= a for a, b in zip(merged, merged[1:], strict=False)) or any(
        ranks.get(left, -1) >= rank or ranks.get(right, -1) >= rank
        for (left, right), rank in zip(merges, merged, strict=True)
    ):
        raise BpeError("a rank structure whose merges are out of rank order")
    covered = set(made) | {ranks[token] for token in whole}
    if len(covered) != len(pairs) + n_whole or len(covered) != sum(len(token) > 1 for token in ranks):
        raise BpeError("a rank structure that does not cover every token once")
    return RankStructure(merges=merges, late_merges=late, whole_tokens=whole)
