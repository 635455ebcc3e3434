"""What a training run's state is made of (``engine.MergeRun``): words as id strings, pair counts
with the index of the words holding each pair, the tokens so far, and the lazy heap of pairs best first.

Words are the unique pre-tokens, each written as a string with one character per id (``chr(id)``),
so that merging a pair is ``str.replace`` (left to right without overlap: BPE's rule) and finding it a
substring search, both in C; a pair is the 2-character string of its ids. Only ids up to U+10FFFF fit
in a character. Pair counts are kept incrementally (the standard speed-up of the naive algorithm): an
index (``where``) from each pair to the words that held it when it appeared, in increasing order (a
word that lost the pair since stays listed and is skipped when met), and a lazy max-heap in which a
stale entry is pushed back with its live count rather than dropped. A pair below the threshold
(``min_frequency``) when counted or when it appears can only lose counts afterwards (but in Picky BPE),
so it never enters the heap; with one count it is not kept at all (``count_frequent_pairs``).

The word updates (``merge_pair_in_words``, ``merge_pair_weighted``) are ``word_update``'s, named here
too. This module holds no loop and decides nothing (``engine`` does); each tie rule's key is
``tie_rules``'.
"""

from __future__ import annotations

import heapq
from array import array
from collections import _count_elements  # type: ignore[attr-defined]
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from itertools import chain, compress
from operator import add
from typing import Any, cast

from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import replace_surrogates
from bpe_core.training.tie_rules import FirstSeen, PairKeys
from bpe_core.training.word_update import merge_pair_in_words as merge_pair_in_words
from bpe_core.training.word_update import merge_pair_weighted as merge_pair_weighted

#: The counts a word adds to, each with the word's weight in it (its frequency in that text):
#: parity-aware training's words have one per language.
WordWeights = Sequence[tuple[dict[str, int], int]]


def id_string(ids: Iterable[int]) -> str:
    """A word as the merge loops hold it: one character per id.

    >>> id_string([104, 105, 256])
    'hi\\u0100'
    """
    return "".join(map(chr, ids))


def pretoken_id_strings(pretokens: Iterable[str]) -> list[str]:
    """Pre-tokens as id strings: their UTF-8 bytes, one character per byte (latin-1), since ids
    0..255 are the bytes. Lone surrogates become U+FFFD, exactly as encoding treats them.

    >>> pretoken_id_strings(["hi", "é"])
    ['hi', 'Ã©']
    """
    strings: list[str] = []
    append = strings.append
    for pretoken in pretokens:
        try:
            append(pretoken.encode("utf-8").decode("latin-1"))
        except UnicodeEncodeError:
            append(replace_surrogates(pretoken).encode("utf-8").decode("latin-1"))
    return strings


def count_pairs(words: Sequence[str], weights: Iterable[tuple[int, dict[str, int], int]]) -> dict[str, list[int]]:
    """Add the adjacent pairs of words to counts: ``weights`` gives (word index, counts, weight)
    with word indices in increasing order (a word may come several times, once per count it adds
    to). Returns the index: each pair -> the words holding it, in increasing order.

    >>> counts = {}
    >>> count_pairs(["aaa", "ab"], [(0, counts, 2), (1, counts, 1)]), counts
    ({'aa': [0], 'ab': [1]}, {'aa': 4, 'ab': 1})
    """
    where: dict[str, list[int]] = {}
    where_get = where.get
    counts: dict[str, int] | None = None
    for index, each, weight in weights:
        word = words[index]
        if len(word) < 2:
            continue
        if each is not counts:  # rebinding ``get`` for every word costs (bench/PERFORMANCE.md, The merge core)
            counts, counts_get = each, each.get
        for pair in map(add, word, word[1:]):
            counts[pair] = counts_get(pair, 0) + weight
            holders = where_get(pair)
            if holders is None:
                where[pair] = [index]
            elif holders[-1] != index:
                holders.append(index)
    return where


def count_frequent_pairs(
    words: Sequence[str], freqs: Sequence[int], threshold: int
) -> tuple[dict[str, int], dict[str, list[int]]]:
    """The pairs of ``words`` (word ``i`` counted ``freqs[i]`` times) that occur at least ``threshold``
    times: their counts, and the index of the words holding each (in increasing order, an array). The pairs below
    it are counted and then dropped, never indexed: when counts only fall they are never chosen, and
    with long words (SuperBPE's pieces) most pairs occur once. Words counted once are counted in C.

    >>> counts, where = count_frequent_pairs(["ab", "ab", "aaa", "xy"], [1, 1, 2, 1], 2)
    >>> counts, {pair: list(holders) for pair, holders in where.items()}
    ({'ab': 2, 'aa': 4}, {'ab': [0, 1], 'aa': [2]})
    """
    _, counts, where = count_top_pairs(words, freqs, threshold, None)
    return counts, where


def count_top_pairs(
    words: Sequence[str],
    freqs: Sequence[int],
    threshold: int,
    top: int | None,
    *,
    refused: Collection[str] = (),
    below: int | None = None,
) -> tuple[int, dict[str, int], dict[str, list[int]]]:
    """``count_frequent_pairs`` with the threshold raised to the count of the ``top``-th most frequent
    pair not ``refused`` (None: not raised), but kept under ``below`` (None: no bound; else above
    ``threshold``): the threshold used, the counts and the index of the pairs reaching it. With ``top``,
    only the pairs likely to reach it are counted (``_likely_top_pair_counts``), not every pair.

    >>> count_top_pairs(["ab", "ab", "aaa", "xy"], [1, 1, 2, 1], 1, 1)[:2]
    (4, {'aa': 4})
    >>> count_top_pairs(["ab", "ab", "aaa", "xy"], [1, 1, 2, 1], 1, 1, refused={"aa"}, below=4)[:2]
    (2, {'ab': 2, 'aa': 4})
    """
    if top is None or top <= 0:
        counts = _pair_counts(words, freqs)
    else:
        highest = None if below is None else below - 1
        threshold, counts = _likely_top_pair_counts(words, freqs, top, threshold, highest)
        allowed = [count for pair, count in counts.items() if pair not in refused] if refused else counts.values()
        largest = heapq.nlargest(top, allowed)
        if len(largest) == top and largest[-1] > threshold:  # every pair this frequent was counted
            threshold = largest[-1] if highest is None else min(largest[-1], highest)
        del allowed, largest
    if any(count < threshold for count in counts.values()):
        counts = {pair: count for pair, count in counts.items() if count >= threshold}  # a compact copy
    # Arrays of word indices: half a list's memory, and the engine treats them as lists.
    where: dict[str, list[int]] = {pair: holder_array((), len(words)) for pair in counts}  # type: ignore[misc]
    where_get = where.get
    for index, word in enumerate(words):
        for pair in map(add, word, word[1:]):
            holders = where_get(pair)
            if holders is not None and (not holders or holders[-1] != index):
                holders.append(index)
    return threshold, counts, where


def holder_array(indices: Iterable[int], words: int) -> array:
    """The indices of the words holding a pair as an array: 4 bytes an index where ``words`` allows (a
    list holds 8 and keeps an int object alive for each index above 256).

    >>> holder_array([3, 70000], 100000)
    array('I', [3, 70000])
    """
    return array("I" if words < 1 << 32 else "Q", indices)


def _pair_counts(words: Sequence[str], freqs: Sequence[int]) -> dict[str, int]:
    """Every pair's count; the words counted once are counted in C."""
    counts: dict[str, int] = {}
    counts_get = counts.get
    once = [word for word, freq in zip(words, freqs, strict=True) if freq == 1]
    _count_elements(counts, chain.from_iterable(map(add, word, word[1:]) for word in once))
    del once
    for word, freq in zip(words, freqs, strict=True):
        if freq != 1:
            for pair in map(add, word, word[1:]):
                counts[pair] = counts_get(pair, 0) + freq
    return counts


def _batch_pair_counts(words: Sequence[str], freqs: Sequence[int]) -> Iterator[dict[str, int]]:
    """``_pair_counts`` of each batch of ``PAIR_BATCH`` words in turn (a batch's pairs repeat: each is
    then looked at once a batch, not once an occurrence)."""
    for start in range(0, len(words), PAIR_BATCH):
        yield _pair_counts(words[start : start + PAIR_BATCH], freqs[start : start + PAIR_BATCH])


def _likely_top_pair_counts(
    words: Sequence[str], freqs: Sequence[int], top: int, lowest: int, highest: int | None
) -> tuple[int, dict[str, int]]:
    """A cut (from ``lowest`` to ``highest``, None: no bound) and the counts of the pairs that may reach
    it, every pair that does among them, without holding every pair's count: pairs are hashed into
    buckets (up to ``PAIR_BUCKETS``), a bucket's sum bounds each of its pairs' counts, and the cut is
    half the ``top``-th largest sum."""
    buckets = min(PAIR_BUCKETS, 1 << sum(map(len, words)).bit_length())
    sums = array("q", bytes(8 * buckets))
    mask = buckets - 1
    for batch in _batch_pair_counts(words, freqs):
        for bucket, count in zip(map(mask.__and__, map(hash, batch)), batch.values(), strict=True):
            sums[bucket] += count
    largest = heapq.nlargest(top, sums)
    cut = max(lowest, largest[-1] // 2 if len(largest) == top else 0)
    if highest is not None:
        cut = min(cut, highest)
    del largest
    counts: dict[str, int] = {}
    counts_get = counts.get
    reaches = cut.__le__
    for batch in _batch_pair_counts(words, freqs):  # each pair's bucket sum compared in C
        for pair, count in compress(
            batch.items(), map(reaches, map(sums.__getitem__, map(mask.__and__, map(hash, batch))))
        ):
            counts[pair] = counts_get(pair, 0) + count
    return cut, counts


class Tokens:
    """The tokens so far: each id's bytes (``token_bytes``, extended by ``add``), the bytes of the tokens
    present (``existing``), each bytes' id (``ids``: a token made again gets its id back, as Picky BPE
    restores a removed token), and the pairs refused for good (``refused``): those whose bytes already
    are a token (two ids never share bytes) and those ``refuse`` (a predicate on the bytes a pair would
    make, or None) turns down. A refused pair is never merged; the loop moves on to the next."""

    def __init__(self, token_bytes: dict[int, bytes], refuse: Callable[[bytes], bool] | None = None) -> None:
        self.token_bytes = token_bytes
        self.existing = set(token_bytes.values())
        self.ids = {token: token_id for token_id, token in token_bytes.items()}
        self.refused: set[str] = set()
        self.refuse = refuse

    def made(self, pair: str) -> bytes:
        """The bytes merging ``pair`` makes."""
        return self.token_bytes[ord(pair[0])] + self.token_bytes[ord(pair[1])]

    def turns_down(self, pair: str) -> bool:
        """Whether ``pair`` is refused for good now (added to ``refused``): its bytes already are a token,
        or ``refuse`` turns them down. The heap asks once a pair is live and not refused already.

        >>> tokens = Tokens({i: bytes([i]) for i in range(256)}, refuse=lambda made: made == b"xy")
        >>> tokens.turns_down("ab"), tokens.turns_down("xy"), tokens.refused
        (False, True, {'xy'})
        """
        made = self.token_bytes[ord(pair[0])] + self.token_bytes[ord(pair[1])]
        if made in self.existing or (self.refuse is not None and self.refuse(made)):
            self.refused.add(pair)
            return True
        return False

    def add(self, made: bytes, new_id: int) -> None:
        """Record the token ``new_id`` with bytes ``made`` (``made(pair)``)."""
        self.token_bytes[new_id] = made
        self.existing.add(made)
        self.ids[made] = new_id


#: Buckets the pairs are hashed into to find the likely most frequent ones (``count_top_pairs``).
PAIR_BUCKETS = 1 << 20
#: Words counted at a time when finding them (each batch's pairs counted in C first).
PAIR_BATCH = 1 << 14

#: A text heap entry starts with its pair's count, inverted, in this many characters below 256.
COUNT_CHARS = 6
#: The largest count a heap entry holds (``COUNT_CHARS`` bytes).
MAX_PAIR_COUNT = (1 << 8 * COUNT_CHARS) - 1
#: A packed heap entry is ``rank << 2 * CODE_BITS | code(left) << CODE_BITS | code(right)``.
CODE_BITS = 21
_CODE_MASK = (1 << CODE_BITS) - 1
#: Under ``first`` an entry is ``(inverted count << RANK_SHIFT | first-seen key, pair)``.
RANK_SHIFT = 96


class PairHeap:
    """The pairs of one count dict, best first: the largest count, then the tie rule's smallest key.

    A lazy min-heap with one entry per pair that compares in one C comparison: under the rules whose
    key is text (``PairKeys.of``: prefix-free among pairs) the string ``count_text(count) + key + pair``
    (the count inverted in ``COUNT_CHARS`` fixed-width characters, the pair its last two characters);
    under ``PairKeys.packed`` rules one integer, the count inverted then the two symbols' codes
    (``CODE_BITS`` each, ``PairKeys.codes``); under ``first``, whose key is a number that moves,
    ``(rank, pair)`` with the count and the first-seen key in one integer (``RANK_SHIFT``). Counts change
    without touching the heap, so a popped entry whose count is not the pair's live one is pushed back
    with it (or left out below the threshold); a stored entry never ranks after its live one (counts
    only fall, first occurrences only move later), so the first entry found live is the best pair.
    ``below`` says whether a pair with a positive count was ever left out below the threshold.

    ``pop()`` takes the best pair and its count off the heap, or gives None when no pair reaches the
    threshold; a pair whose bytes already are a token, or that ``Tokens.refuse`` turns down, is refused
    for good (``Tokens.refused``) and skipped.

    >>> counts = {"ab": 3, "bc": 3, "cd": 1}
    >>> tokens = Tokens({i: bytes([i]) for i in range(256)})
    >>> heap = PairHeap(counts, 2, PairKeys("lexicographic", [], {}, tokens.token_bytes), tokens)
    >>> heap.pop(), heap.below
    (('bc', 3), True)
    """

    def __init__(self, counts: dict[str, int], threshold: int, keys: PairKeys, tokens: Tokens) -> None:
        self.counts, self.threshold, self.keys, self.tokens = counts, threshold, keys, tokens
        self.texts: dict[int, str] = {}  # count -> count_text(count), for every count pushed as text
        self.packed, self.ranked = keys.packed, keys.seen is not None
        entry = self._packed_entry if self.packed else self._ranked_entry if self.ranked else self._text_entry
        self._entry = entry
        self.heap: list = [entry(pair, count) for pair, count in counts.items() if count >= threshold]
        heapq.heapify(self.heap)
        self.below = any(0 < count < threshold for count in counts.values())
        # The rule's own pop, bound once: the loop calls it every merge, without a dispatch in between.
        self.pop: Callable[[], tuple[str, int] | None] = (
            self._pop_packed if self.packed else self._pop_ranked if self.ranked else self._pop_text
        )

    def count_text(self, count: int) -> str:
        """``count`` as a text entry begins: inverted, so that a larger count sorts first.

        >>> heap = PairHeap({}, 1, PairKeys("lexicographic", [], {}, {}), Tokens({}))
        >>> heap.count_text(5) < heap.count_text(4), len(heap.count_text(4))
        (True, 6)
        """
        text = self.texts.get(count)
        if text is None:
            if count > MAX_PAIR_COUNT:
                raise BpeError(f"a pair occurs {count:,} times: bpe_core trains on counts up to {MAX_PAIR_COUNT:,}")
            text = self.texts[count] = (MAX_PAIR_COUNT - count).to_bytes(COUNT_CHARS, "big").decode("latin-1")
        return text

    def _text_entry(self, pair: str, count: int) -> str:
        key_of: Callable[[str], Any] = self.keys.of  # text under these rules
        return self.count_text(count) + key_of(pair) + pair

    def _packed_entry(self, pair: str, count: int) -> int:
        if count > MAX_PAIR_COUNT:
            raise BpeError(f"a pair occurs {count:,} times: bpe_core trains on counts up to {MAX_PAIR_COUNT:,}")
        codes = self.keys.codes
        return ((MAX_PAIR_COUNT - count) << CODE_BITS | codes[pair[0]]) << CODE_BITS | codes[pair[1]]

    def _ranked_entry(self, pair: str, count: int) -> tuple[int, str]:
        if count > MAX_PAIR_COUNT:
            raise BpeError(f"a pair occurs {count:,} times: bpe_core trains on counts up to {MAX_PAIR_COUNT:,}")
        key_of: Callable[[str], Any] = self.keys.of  # a number under the first rule
        return (MAX_PAIR_COUNT - count) << RANK_SHIFT | key_of(pair), pair

    def clear(self) -> None:
        self.heap = []

    def push_frequent(self, pairs: Iterable[str]) -> list[str]:
        """Push the pairs whose count reaches the threshold; return the others."""
        counts_get, threshold, heap, keys = self.counts.get, self.threshold, self.heap, self.keys
        texts_get, count_text, codes, symbols = self.texts.get, self.count_text, keys.codes, keys.symbols
        key_of: Callable[[str], Any] = keys.of  # a number under the first rule
        packed, ranked, heappush = self.packed, self.ranked, heapq.heappush
        left_out = []
        below = self.below
        for pair in pairs:
            live = counts_get(pair, 0)
            if live < threshold:
                left_out.append(pair)
                below = below or live > 0
            elif live > MAX_PAIR_COUNT:
                self._packed_entry(pair, live)  # refuses it
            elif packed:
                heappush(heap, ((MAX_PAIR_COUNT - live) << CODE_BITS | codes[pair[0]]) << CODE_BITS | codes[pair[1]])
            elif ranked:
                heappush(heap, ((MAX_PAIR_COUNT - live) << RANK_SHIFT | key_of(pair), pair))
            else:
                heappush(heap, (texts_get(live) or count_text(live)) + symbols[pair[0]] + symbols[pair[1]] + pair)
        self.below = below
        return left_out

    def _requeue(self, pair: str, live: int) -> None:
        """A stale entry's pair pushed back with its live count, or left out below the threshold."""
        if live >= self.threshold:
            heapq.heappush(self.heap, self._entry(pair, live))
        elif live > 0:
            self.below = True

    def _pop_text(self) -> tuple[str, int] | None:
        """``pop`` on text entries."""
        heap, counts_get, texts_get, symbols = self.heap, self.counts.get, self.texts.get, self.keys.symbols
        refused, turns_down, threshold = self.tokens.refused, self.tokens.turns_down, self.threshold
        heappop, heappush = heapq.heappop, heapq.heappush
        while heap:
            item = heappop(heap)
            pair = item[-2:]
            live = counts_get(pair, 0)
            text = texts_get(live)
            if item[:COUNT_CHARS] != text:  # never pushed with its live count: stale (``_requeue``, inline)
                if live >= threshold:
                    heappush(heap, (text or self.count_text(live)) + symbols[pair[0]] + symbols[pair[1]] + pair)
                elif live > 0:
                    self.below = True
            elif pair not in refused and not turns_down(pair):
                return pair, live
        return None

    def _pop_packed(self) -> tuple[str, int] | None:
        """``pop`` on packed entries."""
        heap, counts_get, chars, codes = self.heap, self.counts.get, self.keys.chars, self.keys.codes
        refused, turns_down, threshold = self.tokens.refused, self.tokens.turns_down, self.threshold
        heappop, heappush = heapq.heappop, heapq.heappush
        while heap:
            item = heappop(heap)
            pair = chars[item >> CODE_BITS & _CODE_MASK] + chars[item & _CODE_MASK]
            live = counts_get(pair, 0)
            if item >> 2 * CODE_BITS != MAX_PAIR_COUNT - live:  # never pushed with its live count: stale
                if live >= threshold:  # ``_requeue`` inline; a count above MAX_PAIR_COUNT was refused when pushed
                    heappush(
                        heap, ((MAX_PAIR_COUNT - live) << CODE_BITS | codes[pair[0]]) << CODE_BITS | codes[pair[1]]
                    )
                elif live > 0:
                    self.below = True
            elif pair not in refused and not turns_down(pair):
                return pair, live
        return None

    def _pop_ranked(self) -> tuple[str, int] | None:
        """``pop`` under the ``first`` rule: a live entry's first-seen key is checked (``FirstSeen.exact``)
        and pushed back if the first occurrence moved."""
        heap, counts_get, seen, requeue = self.heap, self.counts.get, cast("FirstSeen", self.keys.seen), self._requeue
        refused, turns_down = self.tokens.refused, self.tokens.turns_down
        heappop, heappush = heapq.heappop, heapq.heappush
        while heap:
            rank, pair = heappop(heap)
            live = counts_get(pair, 0)
            inverted = MAX_PAIR_COUNT - live
            if rank >> RANK_SHIFT != inverted:  # never pushed with its live count: stale
                requeue(pair, live)
                continue
            if pair in refused:
                continue
            key = seen.exact(pair)
            if inverted << RANK_SHIFT | key != rank:
                heappush(heap, (inverted << RANK_SHIFT | key, pair))
                continue
            if turns_down(pair):
                continue
            return pair, live
        return None
