"""Byte-level BPE training written the plain way: the readable version of ``bpe_core.train``.

Pre-tokenize the texts with the regex and count the distinct pieces, each as its bytes; then repeat:
count every adjacent pair (weighted by how often its piece occurs), take the most frequent (ties
broken by the rule), merge it everywhere. Each step recounts everything, so it is meant for small
inputs; tests hold it equal, merge for merge, to the fast trainer (``merge_loop``) under every tie
rule, and the step-by-step trace (``trace``) is built on its steps (``choose_pair``).

Two rules of bpe_core's training beyond the textbook's: a pair whose bytes already are a token is
skipped for good (two ids never share bytes), and training stops when the best pair is rarer than
``min_frequency``.

Why here and not in ``bpe_core.bpe.reference``, beside the ``merge`` and ``pair_counts`` it uses:
it splits text with the pre-tokenization regex, and ``bpe_core.bpe`` sits below
``bpe_core.pretokenization`` in the layers (tests/project/test_layout.py). This module has no
special tokens, files or workers (``trainer`` has).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bpe_core.bpe.reference import merge, pair_counts
from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import PreTokenizer, replace_surrogates
from bpe_core.training.merge_core import STOP_MIN_FREQUENCY, STOP_NO_PAIRS
from bpe_core.training.tie_rules import TIE_BREAKS, huggingface_byte_ids

Pair = tuple[bytes, bytes]


def train_reference(
    texts: str | Iterable[str],
    vocab_size: int,
    *,
    pattern: str | None = "gpt2",
    min_frequency: int = 2,
    tie_break: str = "lexicographic",
) -> list[Pair]:
    """The merges BPE learns from ``texts`` for a vocabulary of ``vocab_size`` ids (the 256 bytes,
    then one per merge), as (left bytes, right bytes): ``bpe_core.train(...).merges``, the slow way.

    >>> train_reference(["ab ab ab ab", "abc abc"], 259, min_frequency=1)
    [(b'a', b'b'), (b' ', b'ab'), (b'ab', b'c')]
    """
    if tie_break not in TIE_BREAKS:
        raise BpeError(f"tie_break must be one of {TIE_BREAKS}, got {tie_break!r}")
    pretokenizer = PreTokenizer.build(pattern)
    word_counts: dict[tuple[bytes, ...], int] = {}  # each distinct piece, as its bytes, and how often it occurs
    for text in [texts] if isinstance(texts, str) else texts:
        for piece in pretokenizer.pieces(text):
            word = symbols_of(piece)
            word_counts[word] = word_counts.get(word, 0) + 1
    words: list[Sequence[bytes]] = list(word_counts)
    freqs = list(word_counts.values())
    vocab = {bytes([byte]): byte for byte in range(256)}  # token -> id
    skipped: set[Pair] = set()
    merges = []
    while len(vocab) < vocab_size:
        counts = pair_counts(words, freqs)  # every adjacent pair, weighted by its word's count
        best = choose_pair(counts, tie_break, vocab, skipped, min_frequency).pair  # the most frequent
        if best is None:
            break
        new_token = best[0] + best[1]
        words = [merge(word, best, new_token) for word in words]  # merged everywhere
        vocab[new_token] = len(vocab)
        merges.append(best)
    return merges


def symbols_of(pretoken: str) -> tuple[bytes, ...]:
    """A pre-token as training starts it: one symbol per UTF-8 byte (lone surrogates as U+FFFD,
    exactly as encoding treats them).

    >>> symbols_of("hé")
    (b'h', b'\\xc3', b'\\xa9')
    """
    return tuple(bytes([byte]) for byte in replace_surrogates(pretoken).encode("utf-8"))


@dataclass(frozen=True)
class Choice:
    """One step's pick: the pairs still in the running, best first (``ranked``), and the pair to
    merge with its count, or ``pair`` None and why training stops."""

    ranked: list[tuple[Pair, int]]
    pair: Pair | None
    count: int = 0
    stop_reason: str = ""


def choose_pair(
    counts: Mapping[Pair, int], tie_break: str, vocab: Mapping[bytes, int], skipped: set[Pair], min_frequency: int
) -> Choice:
    """The pair to merge: the best of ``rank_pairs`` not skipped before, unless it is rarer than
    ``min_frequency`` (training stops). A pair whose bytes already are a token (in ``vocab``) is
    skipped for good: added to ``skipped``, and the next one is taken.

    >>> vocab = {bytes([byte]): byte for byte in range(256)}
    >>> choose_pair({(b"a", b"b"): 2, (b"c", b"d"): 2}, "first", vocab, set(), 1).pair
    (b'a', b'b')
    """
    ranked = rank_pairs({pair: count for pair, count in counts.items() if pair not in skipped}, tie_break, vocab)
    for place, (pair, count) in enumerate(ranked):
        if count < min_frequency:
            return Choice(ranked[place:], None, stop_reason=STOP_MIN_FREQUENCY)
        if pair[0] + pair[1] not in vocab:
            return Choice(ranked[place:], pair, count)
        skipped.add(pair)
    return Choice([], None, stop_reason=STOP_NO_PAIRS)


def rank_pairs(counts: Mapping[Pair, int], tie_break: str, vocab: Mapping[bytes, int]) -> list[tuple[Pair, int]]:
    """The pairs best first: the highest count, then the tie rule (README, "Training rules";
    ``tie_rules``). ``counts`` is in order of first occurrence; ``vocab`` gives merged tokens' ids.

    >>> vocab = {bytes([byte]): byte for byte in range(256)}
    >>> rank_pairs({(b"a", b"b"): 1, (b"b", b"a"): 1}, "lexicographic", vocab)
    [((b'b', b'a'), 1), ((b'a', b'b'), 1)]
    """
    if tie_break == "lexicographic":  # the greatest (left bytes, right bytes)
        return sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    if tie_break == "first":  # sorting is stable, and the counts are in order of first occurrence
        return sorted(counts.items(), key=lambda item: -item[1])
    # the smallest (left id, right id): single bytes numbered by the rule, merged tokens by creation
    byte_ids = huggingface_byte_ids() if tie_break == "huggingface" else range(256)

    def symbol_id(symbol: bytes) -> int:
        return byte_ids[symbol[0]] if len(symbol) == 1 else vocab[symbol]

    return sorted(counts.items(), key=lambda item: (-item[1], symbol_id(item[0][0]), symbol_id(item[0][1])))
