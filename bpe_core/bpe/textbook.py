"""Textbook BPE (Sennrich et al. 2016): characters, an end-of-word marker ``</w>``, no bytes.

This is the version textbooks trace by hand: words are split on whitespace, each becomes its
characters plus ``</w>``, and the most frequent adjacent pair is merged, ties going to the pair met
first (unique words in order of first appearance, left to right: the textbook's first-seen tie rule,
which is Python's ``max`` over a pair counter). Encoding applies the merges in the order they were
learned. It exists for teaching and comparison with byte-level BPE; it is not byte-level and cannot
encode arbitrary bytes losslessly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bpe_core.bpe.reference import merge, pair_counts
from bpe_core.errors import BpeError

END_OF_WORD = "</w>"


@dataclass(frozen=True)
class TextbookStep:
    number: int
    pair: tuple[str, str]
    merged: str
    count: int
    top_pairs: list[tuple[tuple[str, str], int]]
    words: list[tuple[tuple[str, ...], int]]


def _split_words(text_or_words: str | Sequence[str]) -> list[str]:
    if isinstance(text_or_words, str):
        return text_or_words.split()
    words = list(text_or_words)
    for word in words:
        if not isinstance(word, str):
            raise TypeError(f"words must be strings, got {type(word).__name__}")
    return [w for text in words for w in text.split()]


@dataclass(frozen=True)
class TextbookResult:
    initial: list[tuple[tuple[str, ...], int]]
    steps: list[TextbookStep]

    @property
    def merges(self) -> list[tuple[str, str]]:
        return [step.pair for step in self.steps]

    @property
    def vocabulary(self) -> list[str]:
        """Initial symbols (in order of first appearance) followed by the merged tokens."""
        seen: dict[str, None] = {}
        for symbols, _ in self.initial:
            for symbol in symbols:
                seen.setdefault(symbol, None)
        return list(seen) + [step.merged for step in self.steps]

    def encode_word(self, word: str) -> list[str]:
        """Tokenize one word: its characters plus ``</w>``, then every merge in learned order."""
        symbols: tuple[str, ...] = (*word, END_OF_WORD)
        for pair in self.merges:
            symbols = tuple(merge(symbols, pair, pair[0] + pair[1]))
        return list(symbols)

    def encode(self, text: str) -> list[str]:
        return [token for word in text.split() for token in self.encode_word(word)]

    @staticmethod
    def decode(tokens: Sequence[str]) -> str:
        return "".join(tokens).replace(END_OF_WORD, " ").strip()


def train_textbook(text_or_words: str | Sequence[str], num_merges: int, *, top: int = 10) -> TextbookResult:
    """Learn ``num_merges`` merges (fewer if pairs run out) on whitespace-separated words."""
    if not isinstance(num_merges, int) or num_merges < 0:
        raise BpeError(f"num_merges must be a non-negative integer, got {num_merges!r}")
    counts: dict[str, int] = {}
    for word in _split_words(text_or_words):
        counts[word] = counts.get(word, 0) + 1
    vocab = [((*word, END_OF_WORD), freq) for word, freq in counts.items()]
    initial = list(vocab)
    steps: list[TextbookStep] = []
    while len(steps) < num_merges:
        pairs = pair_counts([symbols for symbols, _ in vocab], [freq for _, freq in vocab])
        if not pairs:
            break
        ranked = sorted(pairs.items(), key=lambda item: -item[1])  # stable: first met wins ties
        pair, count = ranked[0]
        vocab = [(tuple(merge(symbols, pair, pair[0] + pair[1])), freq) for symbols, freq in vocab]
        steps.append(TextbookStep(len(steps) + 1, pair, pair[0] + pair[1], count, ranked[:top], list(vocab)))
    return TextbookResult(initial, steps)
