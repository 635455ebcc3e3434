"""The incremental merge loop of parity-aware training: one pair count, and one lazy max-heap, per
language.

Words are the distinct pre-tokens of every language's training and development text, written one
character per id as in ``merge_loop`` (whose single-count loop this follows: merging is
``str.replace``, pair counts change only around each new symbol, stale heap entries are pushed back
with their live count). Each word carries its count in each language's training text and development
text, so one merge updates every language's pair counts and development token count at once, with
no re-encoding. Which language a merge serves is ``parity``'s choice; this module only keeps the
counts and makes the merges.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from operator import add
from dataclasses import dataclass

from bpe_core.training.counting import WordCounts
from bpe_core.training.merge_loop import STOP_MIN_FREQUENCY, STOP_NO_PAIRS
from bpe_core.pretokenization.pretokenizer import replace_surrogates
from bpe_core.training.tie_rules import KEY_SHIFT, FirstSeen, symbol_key


@dataclass
class WordTable:
    """Every distinct pre-token of the training and development texts, as id strings (training words
    first, in order of first appearance), with its count in each language's training text (``train``:
    (language, count) pairs, the last pair being (n, count in all training text)) and development
    text (``dev``)."""

    words: list[str]
    train: list[list[tuple[int, int]]]
    dev: list[list[tuple[int, int]]]
    train_bytes: int


def id_string(word: str) -> str:
    """A pre-token as the merge loop holds it: its UTF-8 bytes, one character per byte (ids 0..255)."""
    try:
        return word.encode("utf-8").decode("latin-1")
    except UnicodeEncodeError:  # lone surrogates: U+FFFD, exactly as encoding treats them
        return replace_surrogates(word).encode("utf-8").decode("latin-1")


def word_table(train: Sequence[WordCounts], dev: Sequence[WordCounts]) -> WordTable:
    n = len(train)
    index: dict[str, int] = {}
    table = WordTable([], [], [], 0)

    def row(word: str) -> int:
        i = index.get(word)
        if i is None:
            i = index[word] = len(table.words)
            table.words.append(word)
            table.train.append([])
            table.dev.append([])
        return i

    for language, counts in enumerate(train):
        for word, freq in counts.counts.items():
            table.train[row(word)].append((language, freq))
    for language, counts in enumerate(dev):
        for word, freq in counts.counts.items():
            table.dev[row(word)].append((language, freq))
    for i, word in enumerate(table.words):
        weights = table.train[i]
        table.words[i] = id_string(word)
        if weights:
            total = sum(f for _, f in weights)
            weights.append((n, total))
            table.train_bytes += len(table.words[i]) * total
    return table


# The state is shared by the steps; methods keep the hot loop's names local.
class ParityLoop:
    """The incremental merge loop with one pair count, and one lazy max-heap, per language (index n:
    all training text); see ``merge_loop`` for the single-count loop this follows."""

    def __init__(self, table: WordTable, n: int, token_bytes: dict[int, bytes], *, min_frequency: int,
                 tie_break: str, use_global: bool) -> None:
        self.words, self.train, self.dev, self.n = table.words, table.train, table.dev, n
        self.token_bytes = token_bytes
        self.threshold = max(min_frequency, 1)  # a pair below it is never chosen: counts only fall
        self.counts: list[dict[str, int]] = [{} for _ in range(n + 1)]
        self.where: dict[str, list[int]] = {}
        self.dev_tokens = [0] * n
        self.train_tokens = 0  # symbols in all training text
        self.totals = [row[-1][1] if row else 0 for row in self.train]  # each word's count in all of it
        self.use_global = use_global
        self._set_weights()
        self._count()
        self.seen = FirstSeen(self.words, self.where, token_bytes) if tie_break == "first" else None
        self.tie_break = tie_break
        self.keys = {} if self.seen else {chr(i): symbol_key(tie_break, i, b) for i, b in token_bytes.items()}
        self.heaps = [self._heap(c) if (l < n or use_global) else [] for l, c in enumerate(self.counts)]
        self.excluded: set[str] = set()
        self.existing = set(token_bytes.values())

    def key_of(self, pair: str):
        if self.seen is not None:
            return self.seen.first[pair]
        return self.keys[pair[0]] + self.keys[pair[1]]

    def _set_weights(self) -> None:
        """Per word: (pair counts of a language, the word's count in its training text) for each
        language that has it, and those languages; with (n, count in all training text) while the
        global counts are kept (the hybrid's first merges)."""
        n, counts, use_global = self.n, self.counts, self.use_global
        rows = [[(l, f) for l, f in row if use_global or l < n] for row in self.train]
        self.weights = [tuple((counts[l], f) for l, f in row) for row in rows]
        self.languages = [tuple(l for l, _ in row) for row in rows]

    def end_global(self) -> None:
        """Stop keeping the global counts: the merges by global frequency are done."""
        if self.use_global:
            self.use_global = False
            self._set_weights()
            self.counts[self.n].clear()
            self.heaps[self.n] = []

    def count_of(self, pair: str) -> int:
        """``pair``'s count in all training text."""
        return sum(counts.get(pair, 0) for counts in self.counts[: self.n])

    def _count(self) -> None:
        where = self.where
        for index, word in enumerate(self.words):
            size = len(word)
            for language, freq in self.dev[index]:
                self.dev_tokens[language] += size * freq
            weights = self.weights[index]
            self.train_tokens += size * self.totals[index]
            for pair in map(add, word, word[1:]):
                for counts, freq in weights:
                    counts[pair] = counts.get(pair, 0) + freq
                holders = where.get(pair)
                if holders is None:
                    where[pair] = [index]
                elif holders[-1] != index:
                    holders.append(index)

    def _heap(self, counts: dict[str, int]) -> list:
        heap = [(-count, self.key_of(pair), pair) for pair, count in counts.items() if count >= self.threshold]
        heapq.heapify(heap)
        return heap

    def best(self, language: int) -> tuple[str, int] | None:
        """Pop ``language``'s heap until an entry holds the pair's live count and key (stored entries
        never rank after their live ones), skipping pairs whose bytes are already a token."""
        heap, counts, seen = self.heaps[language], self.counts[language], self.seen
        threshold = self.threshold
        while heap:
            item = heapq.heappop(heap)
            pair = item[2]
            live = counts.get(pair, 0)
            if live != -item[0]:
                if live >= threshold:
                    heapq.heappush(heap, (-live, self.key_of(pair), pair))
                continue
            if pair in self.excluded:
                continue
            if seen is not None:
                key = seen.exact(pair)
                if key != item[1]:
                    heapq.heappush(heap, (item[0], key, pair))
                    continue
            made = self.token_bytes[ord(pair[0])] + self.token_bytes[ord(pair[1])]
            if made in self.existing:  # two ids never share bytes: this pair is never merged
                self.excluded.add(pair)
                continue
            return pair, live
        return None

    # long on purpose: the hot loop of training, written out so its names stay local.
    def merge(self, pair: str, new_id: int) -> None:
        """Merge ``pair`` into ``new_id`` in every word that holds it, updating every language's pair
        counts around each new symbol, the token counts, and the heaps."""
        a, b = pair
        new = chr(new_id)
        made = self.token_bytes[ord(a)] + self.token_bytes[ord(b)]
        self.token_bytes[new_id] = made
        self.existing.add(made)
        if self.seen is None:
            self.keys[new] = symbol_key(self.tie_break, new_id, made)
        words, where, seen = self.words, self.where, self.seen
        where_get = where.get
        all_counts, dev_tokens, all_weights, all_languages = self.counts, self.dev_tokens, self.weights, self.languages
        totals, dev = self.totals, self.dev
        replaced = 0
        ba = b + a
        created: list[str] = []
        touched: set[int] = set()
        for index in where.pop(pair):
            word = words[index]
            merged = word.replace(pair, new)
            size = len(merged)
            removed = len(word) - size
            if not removed:
                continue  # the word lost this pair to an earlier merge
            words[index] = merged
            for language, freq in dev[index]:
                dev_tokens[language] -= removed * freq
            weights = all_weights[index]
            if weights:
                replaced += removed * totals[index]
                touched.update(all_languages[index])
            labels = seen.starts.get(index) if seen is not None else None
            if labels is not None:  # first rule, long word: labels kept up to each left half
                view = memoryview(labels)
                kept = []
                previous = 0
            absorbed = 0  # new symbols before merged[j]
            j = merged.find(new)
            while j >= 0:
                for side in (j - 1, j + 1):
                    if side < 0 or side == size:
                        continue
                    neighbour = merged[side]
                    if side < j:
                        if neighbour == new:
                            continue  # counted as the right side of the previous new symbol
                        lost, fresh = neighbour + a, neighbour + new
                    else:
                        lost, fresh = (ba if neighbour == new else b + neighbour), new + neighbour
                    for counts, freq in weights:
                        counts[lost] -= freq
                        counts[fresh] = counts.get(fresh, 0) + freq
                    holders = where_get(fresh)
                    if holders is None:
                        where[fresh] = [index]
                        created.append(fresh)
                        if seen is not None:  # its first occurrence: the first word, leftmost
                            at = side if side < j else j
                            label = seen.label(index, at) if labels is None else labels[at + absorbed]
                            seen.first[fresh] = index << KEY_SHIFT | label
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
        self.train_tokens -= replaced
        for counts in all_counts:
            counts.pop(pair, None)
        if seen is not None:
            seen.forget(pair)
        self._push(created, touched)

    def _push(self, created: list[str], touched: set[int]) -> None:
        """Give each heap the new pairs frequent enough in its language; forget pairs frequent in none."""
        threshold = self.threshold
        languages = sorted(touched)
        for fresh in created:
            wanted = False
            for language in languages:
                live = self.counts[language].get(fresh, 0)
                if live >= threshold:
                    heapq.heappush(self.heaps[language], (-live, self.key_of(fresh), fresh))
                    wanted = True
            if not wanted:
                del self.where[fresh]  # never chosen, so never looked up
                if self.seen is not None:
                    self.seen.forget(fresh)

    def stop_reason(self) -> str:
        if any(c > 0 and p not in self.excluded for counts in self.counts[: self.n] for p, c in counts.items()):
            return STOP_MIN_FREQUENCY
        return STOP_NO_PAIRS

