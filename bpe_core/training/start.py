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
  sees the creation order, then the tokens no merge makes (tiktoken's late merges and whole-word
  tokens: Llama 3, Qwen 3.5) in id order; each distinct piece starts as its tokens under ``base``'s
  own rule (BPE by rank on the whole piece, or tiktoken's rule for ranks, on ``Tokenizer``'s exact
  engines). Its special tokens are not tokens of the run (the counts never hold them).
  ``Continued.extended`` then gives ``base``'s vocabulary and merges with the new tokens after them:
  every id, merge rank and special-token id of ``base`` kept, new ids from ``first_id`` (default:
  after the highest id in use).

This module neither counts (``counting``) nor merges (``engine``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import mul
from typing import Protocol, cast

from bpe_core.encoding.codec import Codec
from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import replace_surrogates
from bpe_core.pretokenization.stages import Pipeline
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
    def from_tokenizer(cls, base: Tokenizer, counts: Mapping[str, int], *, release: bool = False) -> Continued:
        """BPE continued from ``base``'s merges on pre-token ``counts`` (module docstring); a
        ``BpeError`` when ``base`` does not encode by its merges alone. ``release``: ``counts`` (a
        dict) is emptied, each piece's text freed once encoded (a caller that needs them no more)."""
        return Continued.of(base, counts, release=release)


@dataclass
class Continued(Start):
    """A start from an existing tokenizer (``Start.from_tokenizer``): ``base``, its merges, and
    ``encoder``, ``base`` with no pre-tokenization and no special tokens (its own rule on a whole piece)."""

    base: Tokenizer = field(kw_only=True)
    merges: list[tuple[bytes, bytes]] = field(kw_only=True)
    encoder: Tokenizer = field(kw_only=True)

    @classmethod
    def of(cls, base: Tokenizer, counts: Mapping[str, int], *, release: bool = False) -> Continued:
        check_continuable(base)
        merges = base.merges
        token_bytes = {b: bytes([b]) for b in range(256)}
        token_bytes.update((256 + rank, left + right) for rank, (left, right) in enumerate(merges))
        run_ids = {token: run_id for run_id, token in token_bytes.items()}
        specials = set(base.special_tokens.values())
        ordinary = {i: token for i, token in base.vocab.items() if i not in specials}
        for token in (ordinary[i] for i in sorted(ordinary) if ordinary[i] not in run_ids):  # no merge makes it
            run_ids[token] = len(token_bytes)
            token_bytes[len(token_bytes)] = token
        # base with no pre-tokenization and no special tokens: its own rule on each whole piece
        encoder = Tokenizer._around(Codec(base._model, {}, None, name=f"{base.name} (inherited merges)"))
        symbol = {i: chr(run_ids[token]) for i, token in ordinary.items()}
        words, freqs, total = _encoded_pieces(counts, encoder, symbol, release)
        return cls(
            words,
            freqs,
            dict(token_bytes),
            len(token_bytes),
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
        included, plus one). ``first_id`` must be above every ordinary token's id (tiktoken's files and
        engine take the id for the merge's priority) and give no id in use."""
        base = self.base
        if first_id is None:
            first_id = max([*base.vocab, *base.special_tokens.values()]) + 1
        check_first_id(base, first_id)
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

    def extended_tokenizer(
        self,
        new_merges: Sequence[LearnedMergeLike],
        *,
        first_id: int | None = None,
        pattern: str | Pipeline | None,
        name: str,
        training: Mapping[str, object] | None = None,
    ) -> Tokenizer:
        """The ``Tokenizer`` of ``extended``, encoding by ``base``'s rule: BPE with the merges (each
        new merge's count in ``merge_counts``), or, for ranks that hold late merges or whole-word
        tokens (tiktoken's rule: Llama 3, Qwen 3.5), tiktoken's rule on the ranks, every id its rank.
        ``new_merges`` are the run's ``LearnedMerge``s; ``pattern`` the pre-tokenization."""
        base = self.base
        vocab, merges = self.extended([(m.left, m.right, m.id) for m in new_merges], first_id=first_id)
        if needs_rank_rule(base):
            specials = set(base.special_tokens.values())
            ranks = {token: i for i, token in vocab.items() if i not in specials}
            tokenizer = Tokenizer.from_ranks(ranks, special_tokens=base.special_tokens, pattern=pattern, name=name)
            tokenizer.training = dict(training or {})
            return tokenizer
        counts = [*base._merge_counts, *(m.count for m in new_merges)]
        return Tokenizer(
            vocab,
            merges,
            special_tokens=base.special_tokens,
            pattern=pattern,
            name=name,
            merge_counts=counts,
            training=training,
        )


class LearnedMergeLike(Protocol):
    """What ``extended_tokenizer`` reads of a merge (``engine.LearnedMerge``, which imports this module)."""

    @property
    def left(self) -> int: ...
    @property
    def right(self) -> int: ...
    @property
    def id(self) -> int: ...
    @property
    def count(self) -> int: ...


def needs_rank_rule(base: Tokenizer) -> bool:
    """Whether ``base`` follows tiktoken's rule with tokens its merges alone do not make (late merges,
    whole-word tokens), so that an extension of it must keep that rule (``extended_tokenizer``)."""
    return base.rule == "tiktoken" and bool(base.whole_word_tokens or base._late_merges)


def check_first_id(base: Tokenizer, first_id: object, count: int = 0) -> int:
    """``first_id`` checked for ``base``: an integer above every ordinary token's id (a ``BpeError``
    naming the smallest allowed value otherwise), and the ``count`` ids from it free (not a special
    token's; ``extended`` checks the ids it gives too)."""
    specials = set(base.special_tokens.values())
    lowest = max((i for i in base.vocab if i not in specials), default=-1) + 1
    if not isinstance(first_id, int) or isinstance(first_id, bool):
        raise TypeError(f"first_id must be an integer or None, not {type(first_id).__name__}")
    if first_id < lowest:
        raise BpeError(
            f"first_id={first_id} is below ids {base.name!r} uses for its tokens: new ids must come after "
            f"every one of them (tiktoken's files and engine take the id for the merge's priority), so give "
            f"first_id >= {lowest:,}, or leave it out for the first id not in use"
        )
    clash = min((i for i in specials if first_id <= i < first_id + count), default=None)
    if clash is not None:
        raise BpeError(
            f"first_id={first_id} gives new tokens ids that {base.name!r} uses already (special token id {clash}): "
            f"give first_id >= {max(specials) + 1:,}, or leave it out for the first id not in use"
        )
    return first_id


def check_continuable(base: object) -> None:
    """A ``TypeError`` unless ``base`` is a ``Tokenizer``, a ``BpeError`` unless it encodes by ranked
    merges (BPE's rule or tiktoken's; training can continue only from such a tokenizer)."""
    if not isinstance(base, Tokenizer):
        raise TypeError(f"the tokenizer to extend must be a bpe_core Tokenizer, not {type(base).__name__}")
    if base.rule == "picky":
        raise BpeError(
            f"{base.name!r} is a Picky BPE tokenizer: it does not encode by its merges alone (its events also "
            "remove tokens), so training cannot continue from it: extend a BPE tokenizer"
        )


def _encoded_pieces(
    counts: Mapping[str, int], encoder: Tokenizer, symbol: Mapping[int, str], release: bool = False
) -> tuple[list[str], list[int], int]:
    """Each distinct piece as its tokens under ``encoder`` (one character per run id: ``symbol`` of
    each id), its count, and the pieces' bytes. ``release``: ``counts`` (a dict) is emptied first and
    each piece's text dropped once encoded, so the text and the id strings are not all held at once."""
    words: list[str] = []
    freqs = list(counts.values())
    pieces: list[str | None] = list(counts)
    if release:
        counts.clear()  # type: ignore[attr-defined]  # a dict, as the caller says
    total = 0
    as_symbol = symbol.__getitem__
    for start in range(0, len(pieces), BATCH_PIECES):
        batch = cast("list[str]", pieces[start : start + BATCH_PIECES])
        for ids in encoder.encode_ordinary_batch(batch, workers=1):  # threads only: no copy of this process
            words.append("".join(map(as_symbol, ids)))
        for piece, freq in zip(batch, freqs[start : start + BATCH_PIECES], strict=True):
            try:
                total += len(piece.encode("utf-8")) * freq
            except UnicodeEncodeError:  # lone surrogates: U+FFFD, as encoding treats them
                total += len(replace_surrogates(piece).encode("utf-8")) * freq
        if release:
            pieces[start : start + BATCH_PIECES] = repeat(None, len(batch))
        del batch
    return words, freqs, total
