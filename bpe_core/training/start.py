"""Where a training run starts (``Start``, for ``engine.MergeRun``): from bytes, or from an existing
tokenizer's merges.

A start is the words (each distinct pre-token or piece as an id string: ``pairs.id_string``), each
one's count, every id's bytes, and the first id a new token takes; with several counts (``counts``:
parity-aware training's languages), each word's share of each count (``shares``).

- ``Start.from_counts(counts, special_tokens)``: ordinary BPE. Ids 0..255 are the bytes, then the
  special tokens; each pre-token starts as its UTF-8 bytes.
- ``Start.from_tokenizer(base, counts)``: BPE continued from ``base``'s merges (SuperBPE's stage 2,
  extending a tokenizer). Inside the run ``base`` is numbered as the tie rules need it: the bytes
  0..255 by value, then one id per merge in rank order (``Continued.token_bytes``), so every rule
  sees the creation order; each distinct piece starts as its tokens under ``base``'s merges (BPE by
  rank on the whole piece, as the reference replays them, on ``Tokenizer``'s exact engines). Its
  special tokens are not tokens of the run (the counts never hold them). ``Continued.extended``
  then gives ``base``'s vocabulary and merges with the new tokens after them: every id, merge rank
  and special-token id of ``base`` kept, new ids from ``first_id`` (default: after the highest id in
  use).

This module neither counts (``counting``) nor merges (``engine``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from operator import mul

from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import replace_surrogates
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.pairs import pretoken_id_strings

#: Distinct pieces encoded per call of the inherited tokenizer (each call may use tiktoken's threads).
BATCH_PIECES = 4096


@dataclass
class Start:
    """A run's first state (module docstring). ``corpus_bytes`` is the UTF-8 bytes of the pieces
    counted (each times its count)."""

    words: list[str]
    freqs: list[int]
    token_bytes: dict[int, bytes]
    next_id: int
    shares: list[list[tuple[int, int]]] | None = None  # per word: (count index, weight in that count)
    counts: int = 1
    corpus_bytes: int = 0

    @classmethod
    def from_counts(cls, counts: Mapping[str, int], special_tokens: Sequence[str] = ()) -> Start:
        """Ordinary BPE on pre-token ``counts``: each pre-token as its bytes, ids 0..255 the bytes, then
        ``special_tokens`` (already checked).

        >>> start = Start.from_counts({"hi": 3}, ["<|end|>"])
        >>> start.words, start.freqs, start.token_bytes[256], start.next_id
        (['hi'], [3], b'<|end|>', 257)
        """
        words = pretoken_id_strings(counts)
        freqs = list(counts.values())
        token_bytes = {i: bytes([i]) for i in range(256)}
        for offset, token in enumerate(special_tokens):
            token_bytes[256 + offset] = token.encode("utf-8")
        total = sum(map(mul, map(len, words), freqs))  # an id string has one character per byte
        return cls(words, freqs, token_bytes, 256 + len(special_tokens), corpus_bytes=total)

    @classmethod
    def from_tokenizer(cls, base: Tokenizer, counts: Mapping[str, int]) -> Continued:
        """BPE continued from ``base``'s merges on pre-token ``counts`` (module docstring); a
        ``BpeError`` when ``base`` does not encode by its merges alone."""
        return Continued.of(base, counts)


@dataclass
class Continued(Start):
    """A start from an existing tokenizer (``Start.from_tokenizer``): ``base``, its merges, and
    ``encoder``, ``base`` with no pre-tokenization (BPE by rank on a whole piece)."""

    base: Tokenizer = field(kw_only=True)
    merges: list[tuple[bytes, bytes]] = field(kw_only=True)
    encoder: Tokenizer = field(kw_only=True)

    @classmethod
    def of(cls, base: Tokenizer, counts: Mapping[str, int]) -> Continued:
        check_continuable(base)
        merges = base.merges
        token_bytes = {b: bytes([b]) for b in range(256)}
        token_bytes.update((256 + rank, left + right) for rank, (left, right) in enumerate(merges))
        encoder = Tokenizer(token_bytes, merges, pattern=None, name=f"{base.name} (inherited merges)")
        words, freqs, total = _encoded_pieces(counts, encoder)
        return cls(
            words,
            freqs,
            dict(token_bytes),
            256 + len(merges),
            corpus_bytes=total,
            base=base,
            merges=merges,
            encoder=encoder,
        )

    def extended(
        self, new_merges: Sequence[tuple[int, int, int]], *, first_id: int | None = None
    ) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
        """``base``'s vocabulary and merges, then the run's new tokens: ``new_merges`` are (left, right,
        new id) in the run's numbering (``LearnedMerge``'s first three fields), in order; the k-th new
        token takes id ``first_id + k`` (default ``first_id``: the highest id in use, special tokens
        included, plus one)."""
        base = self.base
        if first_id is None:
            first_id = max([*base.vocab, *base.special_tokens.values()]) + 1
        taken = set(base.vocab) | set(base.special_tokens.values())
        token_bytes = dict(self.token_bytes)
        vocab = dict(base.vocab)
        merges = list(self.merges)
        for number, (left, right, made) in enumerate(new_merges):
            token_bytes[made] = token_bytes[left] + token_bytes[right]
            if first_id + number in taken:
                raise BpeError(f"first_id={first_id} gives new tokens ids that {base.name!r} uses already")
            vocab[first_id + number] = token_bytes[made]
            merges.append((token_bytes[left], token_bytes[right]))
        return vocab, merges


def check_continuable(base: object) -> None:
    """A ``TypeError`` unless ``base`` is a ``Tokenizer``, a ``BpeError`` unless it encodes by its merges
    alone (training can continue only from such a tokenizer)."""
    if not isinstance(base, Tokenizer):
        raise TypeError(f"the tokenizer to extend must be a bpe_core Tokenizer, not {type(base).__name__}")
    if base.rule == "picky" or base.whole_word_tokens or base._late_merges:
        raise BpeError(
            f"{base.name!r} does not encode by its merges alone (Picky BPE events, or tiktoken's whole-word tokens "
            "and late merges), so training cannot continue from it: extend a BPE tokenizer"
        )


def _encoded_pieces(counts: Mapping[str, int], encoder: Tokenizer) -> tuple[list[str], list[int], int]:
    """Each distinct piece as its tokens under ``encoder`` (one character per id), its count, and the
    pieces' bytes."""
    words: list[str] = []
    freqs = list(counts.values())
    pieces = list(counts)
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
