"""Step-by-step traces of byte-level BPE training on small inputs, for teaching.

``trace_training`` runs the readable trainer's steps (``reference``: recount all pairs, rank them,
take the best with the same rules as ``train``, merge it everywhere), so its merges equal ``train``'s
on the same input, and records each step: the top pair counts and every unique pre-token's symbols
after the merge. It is quadratic and meant for inputs of a few kilobytes; use ``train`` for real
corpora.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bpe_core.bpe.reference import merge, pair_counts
from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.pretokenization.special_tokens import validate_special_tokens
from bpe_core.training.counting import count_words
from bpe_core.training.reference import Pair, choose_pair, symbols_of
from bpe_core.training.tie_rules import TIE_BREAKS

#: Inputs larger than this many characters are refused: the trace recounts everything each step.
MAX_TRACE_CHARACTERS = 200_000


@dataclass(frozen=True)
class WordState:
    """One unique pre-token: its current symbols and how often it occurs."""

    symbols: tuple[bytes, ...]
    freq: int


@dataclass(frozen=True)
class TraceStep:
    """Merge number ``number`` (1-based): ``pair`` with ``count`` became ``new_token`` (id ``new_id``)."""

    number: int
    pair: tuple[bytes, bytes]
    count: int
    new_id: int
    new_token: bytes
    top_pairs: list[tuple[tuple[bytes, bytes], int]]
    words: list[WordState]
    tokens_after: int


@dataclass(frozen=True)
class TraceResult:
    initial: list[WordState]
    steps: list[TraceStep]
    stop_reason: str

    @property
    def merges(self) -> list[tuple[bytes, bytes]]:
        return [step.pair for step in self.steps]


def _checked_documents(texts: str | Sequence[str], num_merges: int, tie_break: str) -> list[str]:
    if tie_break not in TIE_BREAKS:
        raise BpeError(f"tie_break must be one of {TIE_BREAKS}, got {tie_break!r}")
    if not isinstance(num_merges, int) or num_merges < 0:
        raise BpeError(f"num_merges must be a non-negative integer, got {num_merges!r}")
    documents = [texts] if isinstance(texts, str) else list(texts)
    size = sum(len(d) for d in documents if isinstance(d, str))
    if size > MAX_TRACE_CHARACTERS:
        raise BpeError(
            f"the input has {size:,} characters; the step-by-step trace takes at most "
            f"{MAX_TRACE_CHARACTERS:,}. Use bpe_core.train for larger corpora."
        )
    return documents


def trace_training(
    texts: str | Sequence[str],
    num_merges: int,
    *,
    pattern: str | None = "gpt2",
    tie_break: str = "first",
    min_frequency: int = 1,
    top: int = 10,
    special_tokens: Sequence[str] = (),
) -> TraceResult:
    """Train up to ``num_merges`` merges on ``texts`` and record every step."""
    documents = _checked_documents(texts, num_merges, tie_break)
    specials = validate_special_tokens(special_tokens)
    counted = count_words(documents, pretokenizer=PreTokenizer.build(pattern), special_tokens=specials)
    words = [symbols_of(word) for word in counted.counts]
    freqs = list(counted.counts.values())
    vocab = {bytes([byte]): byte for byte in range(256)}  # token -> id
    for offset, token in enumerate(specials):
        vocab.setdefault(token.encode("utf-8"), 256 + offset)
    skipped: set[Pair] = set()

    def snapshot() -> list[WordState]:
        return [WordState(tuple(symbols), freq) for symbols, freq in zip(words, freqs, strict=True)]

    initial = snapshot()
    steps: list[TraceStep] = []
    stop_reason = "reached num_merges"
    while len(steps) < num_merges:
        choice = choose_pair(pair_counts(words, freqs), tie_break, vocab, skipped, min_frequency)
        if choice.pair is None:
            stop_reason = choice.stop_reason
            break
        pair, new_token, new_id = choice.pair, choice.pair[0] + choice.pair[1], 256 + len(specials) + len(steps)
        words = [tuple(merge(symbols, pair, new_token)) for symbols in words]
        vocab[new_token] = new_id
        tokens_after = sum(len(symbols) * freq for symbols, freq in zip(words, freqs, strict=True))
        steps.append(
            TraceStep(
                len(steps) + 1, pair, choice.count, new_id, new_token, choice.ranked[:top], snapshot(), tokens_after
            )
        )
    return TraceResult(initial, steps, stop_reason)
