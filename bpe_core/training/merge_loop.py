"""The one incremental merge loop of training: merge the most frequent pair until done.

Words are the unique pre-tokens, each written as a string with one character per id (``chr(id)``),
so that merging a pair is ``str.replace`` (left to right without overlap: BPE's rule) and finding it a
substring search, both in C. Pair counts are kept incrementally (the standard speed-up of the naive
algorithm): an index from each pair to the words that hold it, and a lazy max-heap in which a stale
entry is pushed back with its live count rather than dropped. Only ids up to U+10FFFF fit in a
character, hence ``MAX_VOCAB_SIZE``.

Rules (see docs/library/training.md, "Training rules"): a pair's count is the number of adjacent positions holding it,
weighted by word frequency (``aaaa`` holds ``(a, a)`` three times); ties are broken by ``tie_break``
(each rule's key is in ``tie_rules``); a pair whose bytes already exist as a token is never merged
(two ids never share bytes) and the loop moves on to the next pair. The plain algorithm is
``trace.trace_training``; tests check this loop against it and against a naive trainer.

The cyclic garbage collector is paused while the loop runs (it makes millions of lists and no
cycles) and restored after. This module does not count pre-tokens (``counting``) or build the
``Tokenizer`` (``training``).
"""

from __future__ import annotations

import gc
import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from operator import add, itemgetter

from bpe_core.training.tie_rules import KEY_SHIFT, TIE_BREAKS, FirstSeen, TieBreak, symbol_key, tie_key

# TIE_BREAKS, TieBreak and tie_key live in tie_rules and are kept importable from here.
__all__ = [
    "MAX_VOCAB_SIZE", "TIE_BREAKS", "LearnedMerge", "ProgressCallback", "TieBreak", "count_pairs", "id_string",
    "learn_merges", "merge_pair_in_words", "tie_key",
]
#: ``progress(phase, done, total)``: phase is "count" (done/total in documents or bytes) or "merge".
ProgressCallback = Callable[[str, int, int], None]

# Stop reasons recorded in the training metadata.
STOP_VOCAB_SIZE = "reached vocab_size"
STOP_NO_PAIRS = "no pair left to merge"
STOP_MIN_FREQUENCY = "best pair count below min_frequency"

#: The largest vocabulary the loop can build: every id must fit in one character.
MAX_VOCAB_SIZE = 0x110000


@dataclass(frozen=True)
class LearnedMerge:
    left: int
    right: int
    id: int
    count: int
    tokens_after: int


def id_string(ids: Sequence[int]) -> str:
    """A word as the merge loop holds it: one character per id.

    >>> id_string([104, 105, 256])
    'hi\u0100'
    """
    return "".join(map(chr, ids))


def count_pairs(words: list[str], freqs: list[int]) -> tuple[dict[str, int], dict[str, list[int]], int]:
    """Each adjacent pair's count (weighted by word frequency), the words holding it in increasing
    order, and the total number of symbols."""
    pair_counts: dict[str, int] = {}
    where: dict[str, list[int]] = {}
    counts_get = pair_counts.get
    where_get = where.get
    total_tokens = 0
    for index, word in enumerate(words):
        freq = freqs[index]
        total_tokens += len(word) * freq
        if len(word) < 2:
            continue
        for pair in map(add, word, word[1:]):
            pair_counts[pair] = counts_get(pair, 0) + freq
            holders = where_get(pair)
            if holders is None:
                where[pair] = [index]
            elif holders[-1] != index:
                holders.append(index)
    return pair_counts, where, total_tokens


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
    see ``id_string``), replacing each word with its merged form. ``token_bytes`` maps every existing
    id to its bytes and is extended with the new tokens. Returns the merges made and why training
    stopped.

    >>> words = [id_string(b"abab"), id_string(b"ab")]
    >>> merges, why = learn_merges(words, [1, 2], token_bytes={i: bytes([i]) for i in range(256)},
    ...                            next_id=256, num_merges=1, min_frequency=1, tie_break="lexicographic")
    >>> [(m.left, m.right, m.id, m.count) for m in merges], [list(map(ord, w)) for w in words]
    ([(97, 98, 256, 4)], [[256, 256], [256]])

    A pair is the 2-character string of its ids. Merging a pair in a word is ``str.replace`` (left to
    right without overlap: BPE's rule) and finding it a substring search, both in C. Pair counts are
    updated only around each new symbol. ``where`` maps a pair to the words that held it when it
    appeared, in increasing order; a word that lost the pair since stays listed (it is skipped when
    met). A pair counted below ``min_frequency`` when it appears can only lose counts afterwards, so
    it never enters the heap.

    The cyclic garbage collector is paused while the loop runs: the loop makes millions of lists and
    tuples and no cycles, and each collection would walk all of them (measured in bench/PERFORMANCE.md,
    "Figures behind choices in the code").
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _learn_merges(
            words, freqs, token_bytes=token_bytes, next_id=next_id, num_merges=num_merges,
            min_frequency=min_frequency, tie_break=tie_break, progress=progress,
        )
    finally:
        if collecting:
            gc.enable()


def merge_pair_in_words(
    pair: str, new: str, holders: list[int], words: list[str], freqs: list[int], pair_counts: dict[str, int],
    where: dict[str, list[int]],
) -> tuple[int, list[str]]:
    """Merge ``pair`` into the symbol ``new`` in the words listed in ``holders`` (those that lost it
    are skipped), updating the pair counts and ``where`` around each new symbol; return the number of
    symbols removed (weighted by frequency) and the pairs that first appeared. For every tie rule but
    "first" (whose labels ``_learn_merges`` moves along in its own loop).

    >>> words, counts, where = ["abab", "xy"], {"ab": 2, "ba": 1}, {"ab": [0]}
    >>> merge_pair_in_words("ab", "Z", [0, 1], words, [3, 1], counts, where)
    (6, ['ZZ'])
    >>> words, counts, where
    (['ZZ', 'xy'], {'ab': 2, 'ba': -2, 'ZZ': 3}, {'ab': [0], 'ZZ': [0]})
    """
    a, b = pair
    ba = b + a
    counts_get = pair_counts.get
    where_get = where.get
    created: list[str] = []
    replaced = 0
    # itemgetter fetches them in C without a call per word (about half the time of map(words.__getitem__, ...));
    # with one index it returns the word itself, not a tuple.
    held = itemgetter(*holders)(words) if len(holders) > 1 else [words[index] for index in holders]
    # The words still holding the pair, picked in C: a word listed for a pair it lost costs no more.
    for index, word in compress(zip(holders, held), map(str.__contains__, held, repeat(pair))):
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


# long on purpose: the loop's state (counts, index, heap) is shared by every step, and local names
# are what keeps it fast.
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
    existing = set(token_bytes.values())
    pair_counts, where, total_tokens = count_pairs(words, freqs)
    counts_get = pair_counts.get
    where_get = where.get
    threshold = max(min_frequency, 1)  # pairs below it are never chosen: they only lose counts
    # The heap takes the smallest (-count, key). The "first" rule's key is where the pair is first
    # met, kept by FirstSeen; the other rules' pair key is key(left) + key(right) (each prefix-free
    # or one character, so this compares like the tuple of the two keys).
    seen = FirstSeen(words, where, token_bytes) if tie_break == "first" else None
    keys: dict[str, str] = {}
    if seen is not None:
        first = seen.first
        key_of = first.__getitem__
        long_labels = seen.starts.get
    else:
        for token_id, token in token_bytes.items():
            if token_id < MAX_VOCAB_SIZE:
                keys[chr(token_id)] = symbol_key(tie_break, token_id, token)

        def key_of(pair: str) -> str:
            return keys[pair[0]] + keys[pair[1]]

    heap = []
    below = False  # whether a pair with a positive count was left out of the heap
    for pair, count in pair_counts.items():
        if count >= threshold:
            heap.append((-count, key_of(pair), pair))
        else:
            below = True
    heapq.heapify(heap)
    heappush = heapq.heappush
    heappop = heapq.heappop
    excluded: set[str] = set()

    def pop_best():
        """Pop the heap until an entry whose stored count and key are the pair's live ones: a stored
        entry never ranks after its live one (counts only fall, first occurrences only move later),
        so that entry is the best pair."""
        nonlocal below
        while heap:
            item = heappop(heap)
            pair = item[2]
            live = counts_get(pair, 0)
            if live != -item[0]:
                if live >= threshold:
                    heappush(heap, (-live, key_of(pair), pair))
                elif live > 0:
                    below = True
                continue
            if pair in excluded:
                continue
            if seen is not None:
                key = seen.exact(pair)
                if key != item[1]:
                    heappush(heap, (item[0], key, pair))
                    continue
            return pair, live
        return None

    merges: list[LearnedMerge] = []
    stop_reason = STOP_VOCAB_SIZE
    report_every = max(1, num_merges // 100)
    if progress:
        progress("merge", 0, num_merges)
    while len(merges) < num_merges:
        best = pop_best()
        if best is None:
            # Nothing at or above the threshold is left; say whether anything is left at all.
            if below and any(c > 0 and p not in excluded for p, c in pair_counts.items()):
                stop_reason = STOP_MIN_FREQUENCY
            else:
                stop_reason = STOP_NO_PAIRS
            break
        pair, count = best
        if count < min_frequency:
            stop_reason = STOP_MIN_FREQUENCY
            break
        a, b = pair
        left, right = ord(a), ord(b)
        new_bytes = token_bytes[left] + token_bytes[right]
        if new_bytes in existing:
            excluded.add(pair)
            continue
        new_id = next_id
        next_id += 1
        token_bytes[new_id] = new_bytes
        existing.add(new_bytes)
        new = chr(new_id)
        if seen is None:
            keys[new] = symbol_key(tie_break, new_id, new_bytes)
        if seen is None:
            replaced, created = merge_pair_in_words(pair, new, where.pop(pair), words, freqs, pair_counts, where)
        else:  # the same, with the first rule's labels moved along
            ba = b + a
            created = []  # the pairs this merge makes (each holds `new`)
            replaced = 0
            for index in where.pop(pair):
                word = words[index]
                merged = word.replace(pair, new)
                size = len(merged)
                if size == len(word):
                    continue  # the word lost this pair to an earlier merge
                freq = freqs[index]
                replaced += (len(word) - size) * freq
                words[index] = merged
                # The first rule's labels of a long word: copied up to each pair's left half, the right
                # half's dropped (``FirstSeen``); they are read at old positions, j + absorbed.
                labels = long_labels(index)
                if labels is not None:
                    view = memoryview(labels)
                    kept = []
                    previous = 0
                absorbed = 0  # new symbols before merged[j]
                # Around each new symbol, the pair it broke loses this word's count and the pair it
                # forms gains it: on its left (unless that is a new symbol too, handled as its right),
                # then on its right.
                j = merged.find(new)
                while j >= 0:
                    for side in (j - 1, j + 1):
                        if side < 0 or side == size:
                            continue
                        neighbour = merged[side]
                        if side < j:
                            if neighbour == new:
                                continue
                            pair_counts[neighbour + a] -= freq
                            fresh = neighbour + new
                        else:
                            pair_counts[ba if neighbour == new else b + neighbour] -= freq
                            fresh = new + neighbour
                        pair_counts[fresh] = counts_get(fresh, 0) + freq
                        holders = where_get(fresh)
                        if holders is None:
                            where[fresh] = [index]
                            created.append(fresh)
                            # its first occurrence: the first word, leftmost
                            at = side if side < j else j
                            label = seen.label(index, at) if labels is None else labels[at + absorbed]
                            first[fresh] = index << KEY_SHIFT | label
                        elif holders[-1] != index:
                            holders.append(index)
                    if labels is not None:
                        kept.append(view[previous : j + absorbed + 1])
                        previous = j + absorbed + 2
                    absorbed += 1
                    j = merged.find(new, j + 1)
                if labels is not None:
                    kept.append(view[previous:])
                    seen.relabel(index, kept)
                    view.release()
        pair_counts.pop(pair, None)
        if seen is not None:
            seen.forget(pair)
        for fresh in created:
            live = pair_counts[fresh]
            if live >= threshold:
                heappush(heap, (-live, key_of(fresh), fresh))
            else:
                below = True
                del where[fresh]  # never chosen, so never looked up
                if seen is not None:
                    seen.forget(fresh)
        total_tokens -= replaced
        merges.append(LearnedMerge(left, right, new_id, count, total_tokens))
        if progress and (len(merges) % report_every == 0 or len(merges) == num_merges):
            progress("merge", len(merges), num_merges)
    return merges, stop_reason


