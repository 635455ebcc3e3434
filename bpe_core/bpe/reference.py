"""BPE written the plain way, for reading and for checking the fast code against.

``merge`` is the one step of BPE: replace every occurrence of a pair, left to right, without overlap.
``pair_counts`` counts adjacent pairs over words weighted by their frequency (training's inner
step), and ``encode_reference`` is BPE on one piece: find the adjacent pair with the lowest rank,
merge it everywhere, repeat. Every fast variant (``fast``) is tested equal to these.

The readable trainer built on them, ``bpe_core.training._educational`` (``train_reference``, the
traces, the textbook's BPE), lives in ``bpe_core.training``: it splits text with the pre-tokenization
regex, which sits in a layer above this package. This module knows nothing of text, regexes, special
tokens or files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
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
    for symbols, freq in zip(words, freqs, strict=True):
        for pair in zip(symbols, symbols[1:], strict=False):
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
        pairs = [pair for pair in zip(ids, ids[1:], strict=False) if pair in ranks]
        if not pairs:
            break
        pair = min(pairs, key=ranks.__getitem__)  # each pair has its own rank
        rank, new_id = ranks[pair]
        merged = merge(ids, pair, new_id)
        if applied is not None:
            applied.extend([rank] * (len(ids) - len(merged)))
        ids = merged
    return ids
