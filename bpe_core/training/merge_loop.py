"""The merge loop of standard training: merge the most frequent pair until done.

It works on words as id strings with pair counts kept incrementally and a lazy max-heap of pairs
(``merge_core``, shared with parity-aware training). One step per merge: pop the best pair, make its
token, merge it in every word that holds it, push the pairs that appeared. The plain rules' word
update (``merge_pair_in_words``: one count, no labels) is this loop's own, the hot loop of training;
the ``first`` rule's, which moves labels along, is ``merge_core.merge_pair_weighted``.

Rules (see docs/library/training.md, "Training rules"): a pair's count is the number of adjacent positions holding it,
weighted by word frequency (``aaaa`` holds ``(a, a)`` three times); ties are broken by ``tie_break``
(each rule's key is in ``tie_rules``); a pair whose bytes already exist as a token is never merged
(two ids never share bytes) and the loop moves on to the next pair. The readable algorithm is
``reference.train_reference``; tests check this loop against it and against a naive trainer.

The cyclic garbage collector is paused while the loop runs (it makes millions of lists and no
cycles) and restored after. This module does not count pre-tokens (``counting``) or build the
``Tokenizer`` (``trainer``).
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from dataclasses import dataclass
from itertools import compress, repeat
from operator import itemgetter, mul

from bpe_core.training.merge_core import (
    STOP_VOCAB_SIZE,
    PairHeap,
    Tokens,
    count_pairs,
    merge_pair_weighted,
    stop_reason,
)
from bpe_core.training.tie_rules import PairKeys, TieBreak

__all__ = ["MAX_VOCAB_SIZE", "LearnedMerge", "ProgressCallback", "learn_merges", "merge_pair_in_words"]
#: ``progress(phase, done, total)``: phase is "count" (done/total in documents or bytes) or "merge".
ProgressCallback = Callable[[str, int, int], None]

#: The largest vocabulary the loop can build: every id must fit in one character.
MAX_VOCAB_SIZE = 0x110000


@dataclass(frozen=True)
class LearnedMerge:
    left: int
    right: int
    id: int
    count: int
    tokens_after: int


def learn_merges(
    words: list[str],
    freqs: list[int],
    *,
    token_bytes: dict[int, bytes],
    next_id: int,
    num_merges: int,
    min_frequency: int,
    tie_break: TieBreak,
    progress: ProgressCallback | None = None,
) -> tuple[list[LearnedMerge], str]:
    """Run up to ``num_merges`` merges on ``words`` (each written one character per id, ``chr(id)``;
    see ``merge_core.id_string``), replacing each word with its merged form. ``token_bytes`` maps
    every existing id to its bytes and is extended with the new tokens. Returns the merges made and
    why training stopped.

    >>> from bpe_core.training.merge_core import id_string
    >>> words = [id_string(b"abab"), id_string(b"ab")]
    >>> merges, why = learn_merges(words, [1, 2], token_bytes={i: bytes([i]) for i in range(256)},
    ...                            next_id=256, num_merges=1, min_frequency=1, tie_break="lexicographic")
    >>> [(m.left, m.right, m.id, m.count) for m in merges], [list(map(ord, w)) for w in words]
    ([(97, 98, 256, 4)], [[256, 256], [256]])

    The cyclic garbage collector is paused while the loop runs: the loop makes millions of lists and
    tuples and no cycles, and each collection would walk all of them (measured in bench/PERFORMANCE.md,
    "Figures behind choices in the code").
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _learn_merges(
            words,
            freqs,
            token_bytes=token_bytes,
            next_id=next_id,
            num_merges=num_merges,
            min_frequency=min_frequency,
            tie_break=tie_break,
            progress=progress,
        )
    finally:
        if collecting:
            gc.enable()


def merge_pair_in_words(
    pair: str,
    new: str,
    holders: list[int],
    words: list[str],
    freqs: list[int],
    pair_counts: dict[str, int],
    where: dict[str, list[int]],
) -> tuple[int, list[str]]:
    """Merge ``pair`` into the symbol ``new`` in the words listed in ``holders`` (those that lost it
    are skipped), updating the pair counts and ``where`` around each new symbol; return the number of
    symbols removed (weighted by frequency) and the pairs that first appeared. For every tie rule but
    "first" (whose labels ``merge_core.merge_pair_weighted`` moves along): ``merge_pair_weighted``
    for one count and no labels, with the words that lost the pair picked in C and the two
    neighbours unrolled.

    >>> words, counts, where = ["abab", "xy"], {"ab": 2, "ba": 1}, {"ab": [0]}
    >>> merge_pair_in_words("ab", "Z", [0, 1], words, [3, 1], counts, where)
    (6, ['ZZ'])
    >>> words, counts, where
    (['ZZ', 'xy'], {'ab': 2, 'ba': -2, 'ZZ': 3}, {'ab': [0], 'ZZ': [0]})
    """
    a, b = pair[0], pair[1]
    ba = b + a
    counts_get = pair_counts.get
    where_get = where.get
    created: list[str] = []
    replaced = 0
    # itemgetter fetches them in C without a call per word (about half the time of map(words.__getitem__, ...));
    # with one index it returns the word itself, not a tuple.
    held = itemgetter(*holders)(words) if len(holders) > 1 else [words[index] for index in holders]
    # The words still holding the pair, picked in C: a word listed for a pair it lost costs no more.
    for index, word in compress(zip(holders, held, strict=True), map(str.__contains__, held, repeat(pair))):
        merged = word.replace(pair, new)
        size = len(merged)
        freq = freqs[index]
        replaced += (len(word) - size) * freq
        words[index] = merged
        # Around each new symbol, the pair it broke loses this word's count and the pair it forms
        # gains it: on its left (unless that is a new symbol too, counted as its right), then on
        # its right.
        j = merged.find(new)
        while j >= 0:
            if j:
                neighbour = merged[j - 1]
                if neighbour != new:
                    pair_counts[neighbour + a] -= freq
                    fresh = neighbour + new
                    pair_counts[fresh] = counts_get(fresh, 0) + freq
                    listed = where_get(fresh)
                    if listed is None:
                        where[fresh] = [index]
                        created.append(fresh)
                    elif listed[-1] != index:
                        listed.append(index)
            if j + 1 < size:
                neighbour = merged[j + 1]
                pair_counts[ba if neighbour == new else b + neighbour] -= freq
                fresh = new + neighbour
                pair_counts[fresh] = counts_get(fresh, 0) + freq
                listed = where_get(fresh)
                if listed is None:
                    where[fresh] = [index]
                    created.append(fresh)
                elif listed[-1] != index:
                    listed.append(index)
            j = merged.find(new, j + 1)
    return replaced, created


def _learn_merges(
    words: list[str],
    freqs: list[int],
    *,
    token_bytes: dict[int, bytes],
    next_id: int,
    num_merges: int,
    min_frequency: int,
    tie_break: TieBreak,
    progress: ProgressCallback | None = None,
) -> tuple[list[LearnedMerge], str]:
    """``learn_merges`` with the garbage collector as the caller left it."""
    pair_counts: dict[str, int] = {}
    where = count_pairs(words, zip(range(len(words)), repeat(pair_counts), freqs))
    tokens = Tokens(token_bytes)
    keys = PairKeys(tie_break, words, where, token_bytes)
    heap = PairHeap(pair_counts, max(min_frequency, 1), keys, tokens)
    merge_in_words = _word_merger(words, freqs, pair_counts, where, keys)
    total_tokens = sum(map(mul, map(len, words), freqs))
    merges: list[LearnedMerge] = []
    report_every = max(1, num_merges // 100)
    if progress:
        progress("merge", 0, num_merges)
    while len(merges) < num_merges:
        best = heap.pop()
        if best is None:  # nothing at or above the threshold: say whether anything is left at all
            return merges, stop_reason([pair_counts] if heap.below else [], tokens.refused)
        pair, count = best
        new_id = next_id + len(merges)
        keys.add(new_id, tokens.add(pair, new_id))
        replaced, created = merge_in_words(pair, chr(new_id), where.pop(pair))
        del pair_counts[pair]
        keys.forget((pair,))
        left_out = heap.push_frequent(created)
        for fresh in left_out:
            del where[fresh]  # never chosen, so never looked up
        keys.forget(left_out)
        total_tokens -= replaced
        merges.append(LearnedMerge(ord(pair[0]), ord(pair[1]), new_id, count, total_tokens))
        if progress and (len(merges) % report_every == 0 or len(merges) == num_merges):
            progress("merge", len(merges), num_merges)
    return merges, STOP_VOCAB_SIZE


def _word_merger(
    words: list[str], freqs: list[int], pair_counts: dict[str, int], where: dict[str, list[int]], keys: PairKeys
) -> Callable[[str, str, list[int]], tuple[int, list[str]]]:
    """``merge(pair, new, holders)``: merge ``pair`` into ``new`` in the words listed, updating the
    counts and the index; return the symbols removed (weighted by frequency) and the pairs that
    appeared. The ``first`` rule's also moves its labels along."""
    seen = keys.seen
    if seen is None:

        def merge(pair: str, new: str, holders: list[int]) -> tuple[int, list[str]]:
            return merge_pair_in_words(pair, new, holders, words, freqs, pair_counts, where)

        return merge

    def merge_tracking_labels(pair: str, new: str, holders: list[int]) -> tuple[int, list[str]]:
        replaced, _, created = merge_pair_weighted(pair, new, holders, words, where, seen, freqs, pair_counts)
        return replaced, created

    return merge_tracking_labels
