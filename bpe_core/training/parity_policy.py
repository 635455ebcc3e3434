"""Parity-aware training as a policy of the merge engine (``engine``): one pair count, and one heap,
per language; each merge serves the language ``parity_choice`` picks.

Words are the distinct pre-tokens of every language's training and development text (``word_table``),
each with its count in each language's training text (the engine's ``Start.shares``: one count per
language, and one more, n, for all training text while the hybrid's global merges last) and in each
development text. One merge updates every language's pair counts (the engine) and development token
count (``after_merge``, from the words it changed), with no re-encoding. ``choose`` picks the language
(``Chooser``), takes that language's best pair off its heap and records its count in all training
text; a language whose heap has no pair at ``min_frequency`` is exhausted. This module does not check
settings or build the tokenizer (``parity``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bpe_core.training.counting import WordCounts
from bpe_core.training.engine import MergeRun, Policy, Step
from bpe_core.training.pairs import pretoken_id_strings
from bpe_core.training.parity_choice import Chooser
from bpe_core.training.start import Start

#: The ``merge_language`` entry of a merge made by global frequency (the hybrid's first merges).
GLOBAL = -1
#: The stop reason when the paper's convention ends training at the first exhausted language.
STOP_LANGUAGE_EXHAUSTED = "a language has no pair at min_frequency left (the paper's convention stops there)"


@dataclass
class WordTable:
    """Every distinct pre-token of the training and development texts, as id strings (training words
    first, in order of first appearance), with its count in each language's training text (``train``:
    (language, count) pairs, the last pair being (n, count in all training text)) and development
    text (``dev``), for ``languages`` languages."""

    words: list[str]
    train: list[list[tuple[int, int]]]
    dev: list[list[tuple[int, int]]]
    train_bytes: int
    languages: int

    def start(self, token_bytes: dict[int, bytes], next_id: int, *, with_global: bool) -> Start:
        """The engine's start: each word's count in all training text, and its share of each
        language's count, and of count n (all training text) ``with_global``."""
        n = self.languages
        totals = [row[-1][1] if row else 0 for row in self.train]
        shares = self.train if with_global else [[(c, w) for c, w in row if c < n] for row in self.train]
        return Start(self.words, totals, token_bytes, next_id, shares=shares, counts=n + 1)


def word_table(train: Sequence[WordCounts], dev: Sequence[WordCounts]) -> WordTable:
    n = len(train)
    index: dict[str, int] = {}
    table = WordTable([], [], [], 0, n)

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


class ParityPolicy(Policy):
    """The language each merge serves (``served``: a language, or ``GLOBAL``), and each language's
    development tokens (``dev_tokens``) kept up to date. ``standing(policy)`` is each language's
    standing now (larger: worse compressed). The first ``global_merges`` merges take the best pair of
    all training text (count n)."""

    def __init__(self, table: WordTable, chooser: Chooser, global_merges: int) -> None:
        self.n, self.dev, self.chooser, self.global_merges = chooser.n, table.dev, chooser, global_merges
        self.dev_tokens = [0] * self.n
        for word, row in zip(table.words, table.dev, strict=True):
            for language, freq in row:
                self.dev_tokens[language] += len(word) * freq
        self.served: list[int] = []
        self.standing: Callable[[], Sequence[float]] = lambda: self.dev_tokens
        self._global = global_merges > 0

    def choose(self, run: MergeRun) -> tuple[str, int] | str:
        chooser, n = self.chooser, self.n
        while True:
            if len(run.merges) < self.global_merges:
                language, best = GLOBAL, run.best(n)
            else:
                if self._global:  # the merges by global frequency are done: stop keeping that count
                    self._global = False
                    run.drop_count(n)
                picked = chooser.pick(self.standing())
                if picked is None:
                    return run.stop_reason()
                language, best = picked, run.best(picked)
                if best is None:
                    chooser.exhausted[language] = True  # nothing frequent enough left, ever: counts only fall
                    if chooser.stops:
                        return STOP_LANGUAGE_EXHAUSTED
                    continue
            if best is None:
                return run.stop_reason()
            pair = best[0]
            self.served.append(language)
            return pair, sum(counts.get(pair, 0) for counts in run.counts[:n])  # its count in all training text

    def after_merge(self, run: MergeRun, step: Step) -> None:
        dev_tokens, dev = self.dev_tokens, self.dev
        for index, removed in step.changed:
            for language, freq in dev[index]:
                dev_tokens[language] -= removed * freq
