"""The merge loop of SuperBPE's stage 2 (``superbpe``): the tokenizer it starts from, each distinct
stage-2 piece as that tokenizer's tokens, and the greedy loop continued from them with some tokens
refused for good.

``inherit`` numbers an existing tokenizer as the merge loop needs it (the bytes 0..255, then one id per
merge in rank order, so every tie rule sees the creation order); ``chunk_words`` encodes each distinct
piece once by the inherited merges (BPE by rank on the whole piece, as the reference replays them,
with ``Tokenizer``'s exact engines); ``learn_superwords`` is ``merge_loop.learn_merges``' loop on
``merge_core``'s parts with the recipe's refusals added to the merge core's "bytes already a token"
check (``_Refusing``). This module does not count pieces (``counting``) nor build the tokenizer
(``superbpe``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import repeat
from operator import mul

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

#: Distinct pieces encoded per call of the inherited tokenizer (each call may use tiktoken's threads).
BATCH_PIECES = 4096


@dataclass
class Inherited:
    """The tokenizer stage 2 starts from, numbered as the merge loop needs it: the bytes 0..255, then
    one id per merge in rank order (``token_bytes``); ``encoder`` is that tokenizer with no
    pre-tokenization (BPE by rank on a whole piece, on tiktoken's engine where it is proved exact)."""

    base: Tokenizer
    merges: list[tuple[bytes, bytes]]
    token_bytes: dict[int, bytes]
    encoder: Tokenizer


def inherit(base: Tokenizer) -> Inherited:
    """``base`` renumbered for stage 2; a ``BpeError`` when it does not encode by its merges alone."""
    if not isinstance(base, Tokenizer):
        raise TypeError(f"the tokenizer to extend must be a bpe_core Tokenizer, not {type(base).__name__}")
    if base.rule == "picky" or base.whole_word_tokens or base._late_merges:
        raise BpeError(
            f"{base.name!r} does not encode by its merges alone (Picky BPE events, or tiktoken's whole-word tokens "
            "and late merges), so stage 2 cannot continue from it: extend a BPE tokenizer"
        )
    merges = base.merges
    token_bytes = {b: bytes([b]) for b in range(256)}
    token_bytes.update((256 + rank, left + right) for rank, (left, right) in enumerate(merges))
    encoder = Tokenizer(token_bytes, merges, pattern=None, name=f"{base.name} (inherited merges)")
    return Inherited(base, merges, token_bytes, encoder)


def chunk_words(counts: WordCounts, encoder: Tokenizer) -> tuple[list[str], list[int], int]:
    """Each distinct stage-2 piece as its inherited tokens (one character per id), its count, and the
    corpus' bytes."""
    words: list[str] = []
    freqs = list(counts.counts.values())
    pieces = list(counts.counts)
    total = 0
    for start in range(0, len(pieces), BATCH_PIECES):
        batch = pieces[start : start + BATCH_PIECES]
        for ids in encoder.encode_ordinary_batch(batch, workers=1):  # threads only: no copy of this process
            words.append("".join(map(chr, ids)))
    for piece, freq in zip(pieces, freqs, strict=True):
        try:
            total += len(piece.encode("utf-8")) * freq
        except UnicodeEncodeError:  # lone surrogates: U+FFFD, as encoding treats them
            total += len(replace_surrogates(piece).encode("utf-8")) * freq
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
    words: list[str],
    freqs: list[int],
    token_bytes: dict[int, bytes],
    num_merges: int,
    min_frequency: int,
    tie_break: TieBreak,
    allowed: Callable[[bytes], bool],
    progress: Callable[[int], None] | None,
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
