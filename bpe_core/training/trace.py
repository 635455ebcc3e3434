"""Step-by-step traces of byte-level BPE training on small inputs, for teaching.

``trace_training`` runs the naive algorithm in the open: at every step it recounts all pairs,
shows the top counts, picks the best pair with the same rules as ``train`` (so its merges equal
``train``'s on the same input), and records every unique pre-token's symbols after the merge. It is
quadratic and meant for inputs of a few kilobytes; use ``train`` for real corpora.
"""

from __future__ import annotations

from bpe_core.errors import BpeError

from collections.abc import Sequence
from dataclasses import dataclass

from bpe_core.bpe.fast import merge, pair_counts
from bpe_core.training.counting import count_words
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.pretokenization.special_tokens import validate_special_tokens
from bpe_core.training.tie_rules import TIE_BREAKS, huggingface_byte_ids

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


def _ranked(
    counts: dict[tuple[bytes, bytes], int], tie_break: str, made: dict[bytes, int]
) -> list[tuple[tuple[bytes, bytes], int]]:
    """The pairs best first: highest count, then the tie rule (docs/library/training.md, "Training rules")."""
    if tie_break == "lexicographic":
        return sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    if tie_break == "first":
        # Dict order is order of first appearance, so sorting by count alone keeps the "first" rule.
        return sorted(counts.items(), key=lambda item: -item[1])
    byte_ids = huggingface_byte_ids() if tie_break == "huggingface" else range(256)

    def symbol_id(symbol: bytes) -> int:
        return byte_ids[symbol[0]] if len(symbol) == 1 else made[symbol]

    return sorted(counts.items(), key=lambda item: (-item[1], symbol_id(item[0][0]), symbol_id(item[0][1])))


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
    words = [[bytes([b]) for b in word.encode("utf-8")] for word in counted.counts]
    freqs = list(counted.counts.values())
    existing = {bytes([b]) for b in range(256)} | {t.encode("utf-8") for t in specials}
    next_id = 256 + len(specials)
    excluded: set[tuple[bytes, bytes]] = set()
    made: dict[bytes, int] = {}  # merged token -> its id

    def snapshot() -> list[WordState]:
        return [WordState(tuple(symbols), freq) for symbols, freq in zip(words, freqs)]

    initial = snapshot()
    steps: list[TraceStep] = []
    stop_reason = "reached num_merges"
    while len(steps) < num_merges:
        counts = {p: c for p, c in pair_counts(words, freqs).items() if p not in excluded}
        if not counts:
            stop_reason = "no pair left to merge"
            break
        ranked = _ranked(counts, tie_break, made)
        pair, count = ranked[0]
        if count < min_frequency:
            stop_reason = "best pair count below min_frequency"
            break
        new_token = pair[0] + pair[1]
        if new_token in existing:
            excluded.add(pair)
            continue
        existing.add(new_token)
        made[new_token] = next_id
        words = [merge(symbols, pair, new_token) for symbols in words]
        tokens_after = sum(len(s) * f for s, f in zip(words, freqs))
        steps.append(TraceStep(len(steps) + 1, pair, count, next_id, new_token, ranked[:top], snapshot(), tokens_after))
        next_id += 1
    return TraceResult(initial, steps, stop_reason)
