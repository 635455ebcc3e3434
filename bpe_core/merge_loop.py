"""The one incremental merge loop of training: merge the most frequent pair until done.

Words are the unique pre-tokens, each written as a string with one character per id (``chr(id)``),
so that merging a pair is ``str.replace`` (left to right without overlap: BPE's rule) and finding it a
substring search, both in C. Pair counts are kept incrementally (the standard speed-up of the naive
algorithm): an index from each pair to the words that hold it, and a lazy max-heap in which a stale
entry is pushed back with its live count rather than dropped. Only ids up to U+10FFFF fit in a
character, hence ``MAX_VOCAB_SIZE``.

Rules (see README, "Training rules"): a pair's count is the number of adjacent positions holding it,
weighted by word frequency (``aaaa`` holds ``(a, a)`` three times); ties are broken by ``tie_break``;
a pair whose bytes already exist as a token is never merged (two ids never share bytes) and the loop
moves on to the next pair. The plain algorithm is ``trace.trace_training``; tests check this loop
against it and against a naive trainer.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import add
from typing import Literal

TieBreak = Literal["lexicographic", "first"]
TIE_BREAKS = ("lexicographic", "first")
#: ``progress(phase, done, total)``: phase is "count" (done/total in documents or bytes) or "merge".
ProgressCallback = Callable[[str, int, int], None]

# Stop reasons recorded in the training metadata.
STOP_VOCAB_SIZE = "reached vocab_size"
STOP_NO_PAIRS = "no pair left to merge"
STOP_MIN_FREQUENCY = "best pair count below min_frequency"

#: The largest vocabulary the loop can build: every id must fit in one character.
MAX_VOCAB_SIZE = 0x110000
_INVERT = bytes(range(255, -1, -1))
_KEY_END = "\u0100"  # greater than every inverted byte (0..255): a prefix sorts after its extensions


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


def tie_key(token: bytes) -> str:
    """The heap's tie key for ``lexicographic``: the greatest bytes get the smallest key, and a
    prefix ("a") sorts after its extensions ("ab"); two keys concatenated compare like the pair."""
    return token.translate(_INVERT).decode("latin-1") + _KEY_END


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


# long on purpose: the loop's state (counts, index, heap) is shared by every step, and local names
# are what keeps it fast.
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

    A pair is the 2-character string of its ids. Merging a pair in a word is ``str.replace`` (left to
    right without overlap: BPE's rule) and finding it a substring search, both in C. Pair counts are
    updated only around each new symbol. ``where`` maps a pair to the words that held it when it
    appeared, in increasing order; a word that lost the pair since stays listed (it is skipped when
    met: ``replace`` changes nothing). A pair counted below ``min_frequency`` when it appears can only
    lose counts afterwards, so it never enters the heap.
    """
    existing = set(token_bytes.values())
    pair_counts, where, total_tokens = count_pairs(words, freqs)
    counts_get = pair_counts.get
    where_get = where.get
    lexicographic = tie_break == "lexicographic"
    threshold = max(min_frequency, 1)  # pairs below it are never chosen: they only lose counts
    # Tie keys per symbol: the pair key is key(left) + key(right) (prefix-free, so this compares
    # like the tuple of the two keys). The "first" rule sorts ties itself and needs no key.
    keys: dict[str, str] = {}
    if lexicographic:
        for token_id, token in token_bytes.items():
            if token_id < MAX_VOCAB_SIZE:
                keys[chr(token_id)] = tie_key(token)
    heap = []
    below = False  # whether a pair with a positive count was left out of the heap
    for pair, count in pair_counts.items():
        if count >= threshold:
            heap.append((-count, keys[pair[0]] + keys[pair[1]] if lexicographic else "", pair))
        else:
            below = True
    heapq.heapify(heap)
    heappush = heapq.heappush
    heappop = heapq.heappop
    excluded: set[str] = set()

    def entry(pair: str, count: int):
        return (-count, keys[pair[0]] + keys[pair[1]] if lexicographic else "", pair)

    def pop_fresh():
        """Pop the heap until an entry whose stored count is the pair's live count."""
        nonlocal below
        while heap:
            item = heappop(heap)
            pair = item[2]
            live = pair_counts.get(pair, 0)
            if live != -item[0]:
                if live >= threshold:
                    heappush(heap, entry(pair, live))
                elif live > 0:
                    below = True
                continue
            if pair in excluded:
                continue
            return pair, live
        return None

    def first_occurrence(pair: str) -> tuple[int, int]:
        for index in where[pair]:
            position = words[index].find(pair)
            if position >= 0:
                return index, position
        raise AssertionError("index out of sync")  # internal invariant, not input validation

    def pop_best():
        best = pop_fresh()
        if best is None or lexicographic:
            return best
        # "first" rule: among all pairs tied at the best count, the one met first.
        tied = [best]
        count = best[1]
        while heap and -heap[0][0] >= count:
            more = pop_fresh()
            if more is None:
                break
            if more[1] == count:
                tied.append(more)
            else:
                heappush(heap, entry(*more))
                break
        tied.sort(key=lambda item: first_occurrence(item[0]))
        for other in tied[1:]:
            heappush(heap, entry(*other))
        return tied[0]

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
        if lexicographic:
            keys[new] = tie_key(new_bytes)
        ba = b + a

        created: list[str] = []  # the pairs this merge makes (each holds `new`)
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
                    elif holders[-1] != index:
                        holders.append(index)
                j = merged.find(new, j + 1)
        pair_counts.pop(pair, None)
        for fresh in created:
            live = pair_counts[fresh]
            if live >= threshold:
                heappush(heap, entry(fresh, live))
            else:
                below = True
                del where[fresh]  # never chosen, so never looked up
        total_tokens -= replaced
        merges.append(LearnedMerge(left, right, new_id, count, total_tokens))
        if progress and (len(merges) % report_every == 0 or len(merges) == num_merges):
            progress("merge", len(merges), num_merges)
    return merges, stop_reason


