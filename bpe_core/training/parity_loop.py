"""The merge loop of parity-aware training: one pair count, and one lazy max-heap, per language.

Words are the distinct pre-tokens of every language's training and development text, written as id
strings; the pair counting, the heaps and the word update are ``merge_core``'s, shared with the
single-count loop (``merge_loop``). Each word carries its count in each language's training text and
development text, so one merge updates every language's pair counts and development token count at
once, with no re-encoding. Which language a merge serves is ``parity``'s choice; this module only
keeps the counts and makes the merges.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bpe_core.training.counting import WordCounts
from bpe_core.training.merge_core import (
    PairHeap,
    Tokens,
    count_pairs,
    merge_pair_weighted,
    pretoken_id_strings,
    stop_reason,
)
from bpe_core.training.tie_rules import PairKeys


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
    table.words = pretoken_id_strings(table.words)
    for i, word in enumerate(table.words):
        weights = table.train[i]
        if weights:
            total = sum(f for _, f in weights)
            weights.append((n, total))
            table.train_bytes += len(word) * total
    return table


class ParityLoop:
    """The merge loop with one pair count, and one lazy max-heap, per language (index n: all training
    text, kept while the hybrid's global merges last)."""

    def __init__(
        self,
        table: WordTable,
        n: int,
        token_bytes: dict[int, bytes],
        *,
        min_frequency: int,
        tie_break: str,
        use_global: bool,
    ) -> None:
        self.words, self.train, self.dev, self.n = table.words, table.train, table.dev, n
        self.counts: list[dict[str, int]] = [{} for _ in range(n + 1)]
        self.totals = [row[-1][1] if row else 0 for row in self.train]  # each word's count in all of it
        self.use_global = use_global
        self._set_weights()
        # Words of development text only are indexed too (merges change their token counts), adding
        # to no count.
        no_count: dict[str, int] = {}
        rows = (
            (index, counts, freq)
            for index, weights in enumerate(self.weights)
            for counts, freq in (weights or ((no_count, 0),))
        )
        self.where = count_pairs(self.words, rows)
        self.dev_tokens = [0] * n
        for word, row in zip(self.words, self.dev, strict=True):
            for language, freq in row:
                self.dev_tokens[language] += len(word) * freq
        self.train_tokens = sum(len(word) * total for word, total in zip(self.words, self.totals, strict=True))
        self.tokens = Tokens(token_bytes)
        self.keys = PairKeys(tie_break, self.words, self.where, token_bytes)
        threshold = max(min_frequency, 1)  # a pair below it is never chosen: counts only fall
        self.heaps = [PairHeap(counts, threshold, self.keys, self.tokens) for counts in self.counts]

    def _set_weights(self) -> None:
        """Per word: (pair counts of a language, the word's count in its training text) for each
        language that has it, and those languages; with (n, count in all training text) while the
        global counts are kept (the hybrid's first merges)."""
        n, counts, use_global = self.n, self.counts, self.use_global
        rows = [[(language, freq) for language, freq in row if use_global or language < n] for row in self.train]
        self.weights = [tuple((counts[language], freq) for language, freq in row) for row in rows]
        self.languages = [tuple(language for language, _ in row) for row in rows]

    def end_global(self) -> None:
        """Stop keeping the global counts: the merges by global frequency are done."""
        if self.use_global:
            self.use_global = False
            self._set_weights()
            self.counts[self.n].clear()
            self.heaps[self.n].clear()

    def count_of(self, pair: str) -> int:
        """``pair``'s count in all training text."""
        return sum(counts.get(pair, 0) for counts in self.counts[: self.n])

    def best(self, language: int) -> tuple[str, int] | None:
        """``language``'s best pair and its count, taken off its heap (pairs whose bytes are already
        a token are skipped); None when it has none at or above ``min_frequency``."""
        return self.heaps[language].pop()

    def merge(self, pair: str, new_id: int) -> None:
        """Merge ``pair`` into ``new_id`` in every word that holds it, updating every language's pair
        counts around each new symbol, the token counts, and the heaps."""
        self.keys.add(new_id, self.tokens.add(pair, new_id))
        _, changed, created = merge_pair_weighted(
            pair, chr(new_id), self.where.pop(pair), self.words, self.where, self.keys.seen, self.weights
        )
        dev_tokens, dev, totals, languages = self.dev_tokens, self.dev, self.totals, self.languages
        touched: set[int] = set()
        replaced = 0
        for index, removed in changed:
            for language, freq in dev[index]:
                dev_tokens[language] -= removed * freq
            replaced += removed * totals[index]
            touched.update(languages[index])
        self.train_tokens -= replaced
        for counts in self.counts:
            counts.pop(pair, None)
        self.keys.forget((pair,))
        # A new pair frequent enough in no language is never chosen, so never looked up.
        unwanted = set(created)
        heaps = self.heaps
        for language in touched:
            unwanted.intersection_update(heaps[language].push_frequent(created))
        where = self.where
        for fresh in unwanted:
            del where[fresh]
        self.keys.forget(unwanted)

    def stop_reason(self) -> str:
        return stop_reason(self.counts[: self.n], self.tokens.refused)
