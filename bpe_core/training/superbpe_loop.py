"""The merge loop of SuperBPE's stage 2 (``superbpe``): the tokenizer it starts from, each distinct
stage-2 piece as that tokenizer's tokens, and the greedy loop continued from them with some tokens
refused for good.

``inherit`` numbers an existing tokenizer as the merge loop needs it (the bytes 0..255, then one id per
merge in rank order, so every tie rule sees the creation order) and keeps the map back to its ids;
``chunk_words`` encodes each distinct piece once by the inherited merges (BPE by rank on the whole
piece, as the reference replays them); ``learn_superwords`` is ``merge_loop.learn_merges``' loop on
``merge_core``'s parts with the recipe's refusals added to the merge core's "bytes already a token"
check (``_Refusing``). This module does not count pieces (``counting``) nor build the tokenizer
(``superbpe``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import repeat
from operator import mul

from bpe_core.bpe.fast import PieceEncoder
from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import replace_surrogates
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.counting import WordCounts
from bpe_core.training.merge_core import (
    STOP_VOCAB_SIZE,
    PairHeap,
    Tokens,
    count_pairs,
    merge_pair_weighted,
    stop_reason,
)
from bpe_core.training.merge_loop import merge_pair_in_words
from bpe_core.training.tie_rules import PairKeys, TieBreak


@dataclass
class Inherited:
    """The tokenizer stage 2 starts from, numbered as the merge loop needs it: the bytes 0..255, then
    one id per merge in rank order (``token_bytes``); ``ids`` maps these numbers to the tokenizer's."""

    base: Tokenizer
    merges: list[tuple[bytes, bytes]]
    token_bytes: dict[int, bytes]
    ids: list[int]
    encoder: PieceEncoder


def inherit(base: Tokenizer) -> Inherited:
    if not isinstance(base, Tokenizer):
        raise TypeError(f"the tokenizer to extend must be a bpe_core Tokenizer, not {type(base).__name__}")
    if base.rule == "picky" or base.whole_word_tokens or base._late_merges:
        raise BpeError(
            f"{base.name!r} does not encode by its merges alone (Picky BPE events, or tiktoken's whole-word tokens "
            "and late merges), so stage 2 cannot continue from it: extend a BPE tokenizer"
        )
    specials = set(base.special_tokens.values())
    by_bytes = {token: token_id for token_id, token in base.vocab.items() if token_id not in specials}
    merges = base.merges
    token_bytes = {b: bytes([b]) for b in range(256)}
    ids = [by_bytes[bytes([b])] for b in range(256)]
    number = {token: b for b, token in token_bytes.items()}
    pair_rank: dict[tuple[int, int], tuple[int, int]] = {}
    for rank, (left, right) in enumerate(merges):
        made = 256 + rank
        token_bytes[made] = left + right
        number[left + right] = made
        ids.append(by_bytes[left + right])
        pair_rank[number[left], number[right]] = (rank, made)
    return Inherited(base, merges, token_bytes, ids, PieceEncoder(pair_rank, list(range(256))))


def chunk_words(counts: WordCounts, encoder: PieceEncoder) -> tuple[list[str], list[int], int]:
    """Each distinct stage-2 piece as its inherited tokens (one character per id), its count, and the
    corpus' bytes."""
    words, freqs, total = [], [], 0
    encode = encoder.encode
    for piece, freq in counts.counts.items():
        try:
            data = piece.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: U+FFFD, as encoding treats them
            data = replace_surrogates(piece).encode("utf-8")
        words.append("".join(map(chr, encode(data))))
        freqs.append(freq)
        total += len(data) * freq
    return words, freqs, total


class _Refusing(set[bytes]):
    """``Tokens.existing`` for stage 2: the bytes of every token, and also every token the recipe
    forbids, so the merge core's heap skips a forbidden pair for good as it skips a pair whose bytes
    are a token already. ``forbidden`` counts the pairs refused by the recipe."""

    def __init__(self, existing: Iterable[bytes], allowed: Callable[[bytes], bool]) -> None:
        super().__init__(existing)
        self.allowed = allowed
        self.forbidden = 0

    def __contains__(self, token: object) -> bool:
        if set.__contains__(self, token):
            return True
        if isinstance(token, bytes) and not self.allowed(token):
            self.forbidden += 1
            return True
        return False


@dataclass(frozen=True)
class Stage2:
    merges: list[tuple[int, int, int, int, int]]  # left, right, new id, count, tokens after
    stop_reason: str
    forbidden: int


def learn_superwords(
    words: list[str], freqs: list[int], token_bytes: dict[int, bytes], num_merges: int, min_frequency: int,
    tie_break: TieBreak, allowed: Callable[[bytes], bool], progress: Callable[[int], None] | None,
) -> Stage2:
    """The merge loop of ``merge_loop.learn_merges`` on words that start as inherited tokens, with the
    recipe's pairs refused (``_Refusing``); new ids follow ``token_bytes``' (long on purpose: one loop)."""
    pair_counts: dict[str, int] = {}
    where = count_pairs(words, zip(range(len(words)), repeat(pair_counts), freqs))
    tokens = Tokens(token_bytes)
    refusing = tokens.existing = _Refusing(tokens.existing, allowed)
    keys = PairKeys(tie_break, words, where, token_bytes)
    heap = PairHeap(pair_counts, max(min_frequency, 1), keys, tokens)
    total = sum(map(mul, map(len, words), freqs))
    next_id = max(token_bytes) + 1
    made: list[tuple[int, int, int, int, int]] = []
    while len(made) < num_merges:
        best = heap.pop()
        if best is None:
            return Stage2(made, stop_reason([pair_counts] if heap.below else [], tokens.refused), refusing.forbidden)
        pair, count = best
        new_id = next_id + len(made)
        keys.add(new_id, tokens.add(pair, new_id))
        holders = where.pop(pair)
        if keys.seen is None:
            replaced, created = merge_pair_in_words(pair, chr(new_id), holders, words, freqs, pair_counts, where)
        else:
            replaced, _, created = merge_pair_weighted(
                pair, chr(new_id), holders, words, where, keys.seen, freqs, pair_counts
            )
        del pair_counts[pair]
        keys.forget((pair,))
        left_out = heap.push_frequent(created)
        for fresh in left_out:
            del where[fresh]
        keys.forget(left_out)
        total -= replaced
        made.append((ord(pair[0]), ord(pair[1]), new_id, count, total))
        if progress:
            progress(len(made))
    return Stage2(made, STOP_VOCAB_SIZE, refusing.forbidden)
