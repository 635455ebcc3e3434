"""The word updates of the merge engine (``engine.MergeRun``): merging a pair in the words that hold it,
updating the pair counts and the index around each new symbol (``pairs`` holds them).

``merge_pair_in_words`` (one count, no labels: the hot loop of training) and ``merge_pair_weighted``
(several counts, or the ``first`` rule's labels moved along, or a token made again). A pair no longer
counted (below ``min_frequency`` when counts only fall: ``pairs.count_frequent_pairs``) is skipped.
This module chooses nothing and keeps no state of its own.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import compress, repeat
from operator import contains, itemgetter
from typing import Any, cast

from bpe_core.training.tie_rules import KEY_SHIFT, FirstSeen


# long on purpose: the hot loop of training, its two neighbours written out (a call per neighbour costs more).
def merge_pair_in_words(
    pair: str,
    new: str,
    holders: list[int],
    words: list[str],
    freqs: list[int],
    pair_counts: dict[str, int],
    where: dict[str, list[int]],
    drop_below: int = 0,
) -> tuple[int, list[str]]:
    """Merge ``pair`` into the symbol ``new`` in the words listed in ``holders`` (those that lost it
    are skipped; no index twice), updating the pair counts and ``where`` around each new symbol;
    return the number of symbols removed (weighted by frequency) and the pairs that first appeared.
    The word update of every tie rule but "first" (``merge_pair_weighted`` moves its labels along),
    with the words that lost the pair picked in C and the two neighbours unrolled. ``new`` must be a
    symbol no pair was counted with (a pair holding it is indexed only once counted: a token taken
    apart and made again goes through ``merge_pair_weighted``). A pair whose count falls below
    ``drop_below`` (counts that only fall: it can never be chosen) is no longer counted nor indexed.

    >>> words, counts, where = ["abab", "xy"], {"ab": 6, "ba": 3, "xy": 1}, {"ab": [0]}
    >>> merge_pair_in_words("ab", "Z", [0, 1], words, [3, 1], counts, where)
    (6, ['ZZ'])
    >>> words, counts, where
    (['ZZ', 'xy'], {'ab': 6, 'ba': 0, 'xy': 1, 'ZZ': 3}, {'ab': [0], 'ZZ': [0]})
    """
    a, b = pair[0], pair[1]
    ba = b + a
    where_get, where_pop = where.get, where.pop
    created: list[str] = []
    replaced = 0
    # itemgetter fetches them in C without a call per word (about half the time of map(words.__getitem__, ...));
    # with one index it returns the word itself, not a tuple.
    held = itemgetter(*holders)(words) if len(holders) > 1 else [words[index] for index in holders]
    # The words still holding the pair, picked in C: a word listed for a pair it lost costs no more.
    for index, word in compress(zip(holders, held, strict=True), map(contains, held, repeat(pair))):
        merged = word.replace(pair, new)
        size = len(merged)
        freq = freqs[index]
        occurrences = len(word) - size  # the new symbols in merged (it held none before)
        replaced += occurrences * freq
        words[index] = merged
        # Around each new symbol, the pair it broke loses this word's count and the pair it forms
        # gains it: on its left (unless that is a new symbol too, counted as its right), then on
        # its right. Counting them spares the last find, which most words (one occurrence) would make.
        j = merged.find(new)
        while True:
            if j:
                neighbour = merged[j - 1]
                if neighbour != new:
                    lost = neighbour + a
                    try:
                        left = pair_counts[lost] - freq
                    except KeyError:  # too rare to be chosen: no longer counted
                        pass
                    else:
                        if left < drop_below:
                            del pair_counts[lost]
                            where_pop(lost, None)
                        else:
                            pair_counts[lost] = left
                    fresh = neighbour + new
                    listed = where_get(fresh)
                    if listed is None:
                        where[fresh] = [index]
                        created.append(fresh)
                        pair_counts[fresh] = freq
                    else:
                        pair_counts[fresh] += freq
                        if listed[-1] != index:
                            listed.append(index)
            if j + 1 < size:
                neighbour = merged[j + 1]
                lost = ba if neighbour == new else b + neighbour
                try:
                    left = pair_counts[lost] - freq
                except KeyError:  # too rare to be chosen: no longer counted
                    pass
                else:
                    if left < drop_below:
                        del pair_counts[lost]
                        where_pop(lost, None)
                    else:
                        pair_counts[lost] = left
                fresh = new + neighbour
                listed = where_get(fresh)
                if listed is None:
                    where[fresh] = [index]
                    created.append(fresh)
                    pair_counts[fresh] = freq
                else:
                    pair_counts[fresh] += freq
                    if listed[-1] != index:
                        listed.append(index)
            occurrences -= 1
            if not occurrences:
                break
            j = merged.find(new, j + 1)
    return replaced, created


# long on purpose: the first rule's hot loop, its two neighbours written out as in merge_pair_in_words.
def merge_pair_first_seen(
    pair: str,
    new: str,
    holders: list[int],
    words: list[str],
    freqs: list[int],
    pair_counts: dict[str, int],
    where: dict[str, list[int]],
    seen: FirstSeen,
) -> tuple[int, list[str]]:
    """``merge_pair_in_words`` under the ``first`` rule: each new pair's first occurrence is recorded
    (``seen.first``) and the long words' labels move along (``FirstSeen.drop_labels``).

    >>> words, counts, where = ["abab", "xy"], {"ab": 2, "ba": 1}, {"ab": [0]}
    >>> seen = FirstSeen(words, where, {i: bytes([i]) for i in range(256)})
    >>> merge_pair_first_seen("ab", "Z", [0, 1], words, [3, 1], counts, where, seen), words, seen.first["ZZ"]
    ((6, ['ZZ']), ['ZZ', 'xy'], 0)
    """
    a, b = pair[0], pair[1]
    ba = b + a
    where_get, first, long_labels, label_of = where.get, seen.first, seen.starts.get, seen.label
    created: list[str] = []
    replaced = 0
    held = itemgetter(*holders)(words) if len(holders) > 1 else [words[index] for index in holders]
    for index, word in compress(zip(holders, held, strict=True), map(contains, held, repeat(pair))):
        merged = word.replace(pair, new)
        size = len(merged)
        freq = freqs[index]
        occurrences = len(word) - size  # the new symbols in merged (it held none before)
        replaced += occurrences * freq
        words[index] = merged
        labels = long_labels(index)  # the labels of a long word, read at old positions: j + absorbed
        dropped: list[int] = []  # the merged right halves' labels
        absorbed = 0  # new symbols before merged[j] (long words only)
        j = merged.find(new)
        while True:  # until the last new symbol, as in merge_pair_in_words
            if j:
                neighbour = merged[j - 1]
                if neighbour != new:
                    try:
                        pair_counts[neighbour + a] -= freq
                    except KeyError:  # too rare to be chosen: no longer counted
                        pass
                    fresh = neighbour + new
                    listed = where_get(fresh)
                    if listed is None:
                        where[fresh] = [index]
                        created.append(fresh)
                        pair_counts[fresh] = freq
                        label = label_of(index, j - 1) if labels is None else labels[j - 1 + absorbed]
                        first[fresh] = index << KEY_SHIFT | label
                    else:
                        pair_counts[fresh] += freq
                        if listed[-1] != index:
                            listed.append(index)
            if j + 1 < size:
                neighbour = merged[j + 1]
                try:
                    pair_counts[ba if neighbour == new else b + neighbour] -= freq
                except KeyError:  # too rare to be chosen: no longer counted
                    pass
                fresh = new + neighbour
                listed = where_get(fresh)
                if listed is None:
                    where[fresh] = [index]
                    created.append(fresh)
                    pair_counts[fresh] = freq
                    label = label_of(index, j) if labels is None else labels[j + absorbed]
                    first[fresh] = index << KEY_SHIFT | label
                else:
                    pair_counts[fresh] += freq
                    if listed[-1] != index:
                        listed.append(index)
            if labels is not None:  # a short word's labels are computed when asked: nothing to move
                dropped.append(j + absorbed + 1)
                absorbed += 1
            occurrences -= 1
            if not occurrences:
                break
            j = merged.find(new, j + 1)
        if labels is not None:
            seen.drop_labels(index, dropped)
    return replaced, created


def merge_pair_weighted(
    pair: str,
    new: str,
    holders: list[int],
    words: list[str],
    where: dict[str, list[int]],
    seen: FirstSeen | None,
    weights: Sequence[Any],
    one_count: dict[str, int] | None = None,
) -> tuple[int, list[tuple[int, int]], list[str]]:
    """``merge_pair_in_words`` for every case: word ``index`` adds ``weights[index]`` to ``one_count``, or
    else (counts, weight) to each of its counts; ``seen``'s labels (the ``first`` rule) move along. Returns the
    symbols removed by frequency (one count), the words changed as (index, symbols removed), the new pairs.

    >>> words, counts, where = ["abab", "xy"], {"ab": 2, "ba": 1}, {"ab": [0]}
    >>> merge_pair_weighted("ab", "Z", [0, 1], words, where, None, [3, 1], counts), words, counts
    ((6, [], ['ZZ']), ['ZZ', 'xy'], {'ab': 2, 'ba': -2, 'ZZ': 3})
    """
    a, b = pair[0], pair[1]
    ba, where_get = b + a, where.get
    created: list[str] = []
    changed: list[tuple[int, int]] = []
    replaced = 0
    several, count, counts_get, long_labels, first = _update_modes(seen, one_count)
    for index in holders:
        word = words[index]
        merged = word.replace(pair, new)
        size = len(merged)
        if size == len(word):
            continue  # the word lost this pair to an earlier merge
        words[index] = merged
        weight = weights[index]  # with several counts, (counts, weight) for each
        occurrences = len(word) - size  # the new symbols in merged (it held none before)
        if several:
            changed.append((index, occurrences))
        else:
            replaced += occurrences * weight
        labels = long_labels(index)  # the first rule's labels of a long word (``FirstSeen``)
        dropped: list[int] = []  # the merged right halves' labels (long words only)
        absorbed = 0  # new symbols before merged[j]: labels are read at old positions, j + absorbed
        # Around each new symbol: the pair broken on its left (unless a new symbol: its right), then right.
        j = -1
        for _ in range(occurrences):  # no find after the last new symbol, as in merge_pair_in_words
            j = merged.find(new, j + 1)
            for side in (j - 1, j + 1):
                if side < 0 or side == size:
                    continue
                neighbour = merged[side]
                if side < j:
                    if neighbour == new:
                        continue
                    lost, fresh = neighbour + a, neighbour + new
                else:
                    lost, fresh = (ba if neighbour == new else b + neighbour), new + neighbour
                if several:
                    for counts, each_weight in weight:
                        counts[lost] -= each_weight
                        counts[fresh] = counts.get(fresh, 0) + each_weight
                else:
                    try:
                        count[lost] -= weight
                    except KeyError:  # too rare to be chosen: no longer counted
                        pass
                    count[fresh] = counts_get(fresh, 0) + weight
                listed = where_get(fresh)
                if listed is None:
                    where[fresh] = [index]
                    created.append(fresh)
                    if seen is not None:  # its first occurrence: the first word, leftmost
                        at = side if side < j else j
                        label = seen.label(index, at) if labels is None else labels[at + absorbed]
                        first[fresh] = index << KEY_SHIFT | label
                elif listed[-1] != index:
                    listed.append(index)
            if labels is not None:
                dropped.append(j + absorbed + 1)
            absorbed += 1
        if labels is not None:
            cast("FirstSeen", seen).drop_labels(index, dropped)
    return replaced, changed, created


def _update_modes(seen: FirstSeen | None, one_count: dict[str, int] | None) -> tuple[Any, ...]:
    """``merge_pair_weighted``'s modes: several counts or one (that count and its ``get``), each long
    word's labels (``FirstSeen.starts``'s ``get``), and the first-seen keys (empty without ``first``)."""
    count = one_count if one_count is not None else {}
    long_labels = (seen.starts if seen is not None else cast("dict[int, array]", {})).get
    first: dict[str, int] = seen.first if seen is not None else {}
    return one_count is None, count, count.get, long_labels, first
