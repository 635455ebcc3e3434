"""A tokenizer's vocabulary as the vocabulary diff (``vocab_diff``) reads it: ordinary tokens in rank
order with their ids, special tokens by text, the merges in rank order, and whether ranks mean a
learning order (``Vocabulary``, made by ``vocabulary(tokenizer)``).

A token's *rank* is its position among the tokenizer's ordinary tokens in id order. External
tokenizers (``bpe_core.pretrained.external``) have no merge list and their ids are no learning order
(``Vocabulary.unordered`` says so); their tokens are the bytes the library reports, with
SentencePiece's ``▁`` read as the space it stands for. This module compares nothing and loads no
tokenizer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from bpe_core.errors import BpeError
from bpe_core.pretrained.external import ExternalTokenizer
from bpe_core.tokenizer import Tokenizer

#: SentencePiece's word-boundary mark (U+2581 "▁"), which stands for a space.
METASPACE = "\u2581".encode()
UNORDERED = (
    "it is an external tokenizer ({kind}): it has no merge list, and its ids are not the order in "
    "which tokens were learned, so only its token set is compared"
)


@dataclass(frozen=True)
class Vocabulary:
    """One tokenizer's vocabulary as the diff reads it: ordinary tokens in rank order with their ids,
    special tokens by text, merges in rank order, and ``unordered`` ("" when ranks mean an order,
    else why not). Usually made by ``vocabulary(tokenizer)``.

    >>> Vocabulary("t", (b"a", b"b", b"ab"), (0, 1, 2), merges=((b"a", b"b"),)).rank_of[b"ab"]
    2
    """

    name: str
    tokens: tuple[bytes, ...]
    ids: tuple[int, ...]
    specials: tuple[tuple[str, int], ...] = ()
    merges: tuple[tuple[bytes, bytes], ...] = ()
    unordered: str = ""
    note: str = ""
    rank_of: dict[bytes, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise TypeError(f"a vocabulary's name is a str, not {type(self.name).__name__}")
        if len(self.tokens) != len(self.ids):
            raise BpeError(f"{len(self.tokens)} tokens but {len(self.ids)} ids: give one id per token")
        if not all(map(bytes.__instancecheck__, self.tokens)):
            rank, token = next((r, t) for r, t in enumerate(self.tokens) if not isinstance(t, bytes))
            raise TypeError(f"token {rank} is {type(token).__name__}, not bytes: give tokens as bytes")
        rank_of = dict(zip(self.tokens, range(len(self.tokens)), strict=True))
        if len(rank_of) != len(self.tokens):
            rank, token = next((r, t) for r, t in enumerate(self.tokens) if rank_of[t] != r)
            raise BpeError(
                f"token {token!r} appears twice (ranks {rank} and {rank_of[token]}): tokens must be distinct"
            )
        object.__setattr__(self, "rank_of", rank_of)

    @cached_property
    def merge_rank_of(self) -> dict[tuple[bytes, bytes], int]:
        """(left, right) -> its first rank in the merge list (computed once per vocabulary)."""
        ranks: dict[tuple[bytes, bytes], int] = {}
        for rank, pair in enumerate(self.merges):
            ranks.setdefault(pair, rank)
        return ranks


def vocabulary(tokenizer: Tokenizer | ExternalTokenizer | Vocabulary) -> Vocabulary:
    """The ``Vocabulary`` of a bpe_core ``Tokenizer`` or an ``ExternalTokenizer`` (a ``Vocabulary``
    is returned as it is); anything else is a TypeError.

    >>> import bpe_core
    >>> v = vocabulary(bpe_core.train("ab ab ab", 258, min_frequency=1, pattern=None))
    >>> len(v.tokens), v.tokens[256:], v.merges
    (258, (b'ab', b'ab '), ((b'a', b'b'), (b'ab', b' ')))
    """
    if isinstance(tokenizer, Vocabulary):
        return tokenizer
    if isinstance(tokenizer, ExternalTokenizer):
        return _external_vocabulary(tokenizer)
    if not isinstance(tokenizer, Tokenizer):
        raise TypeError(
            f"a vocabulary diff takes bpe_core Tokenizers, ExternalTokenizers or Vocabularies, not "
            f"{type(tokenizer).__name__}: load it with bpe_core.load first"
        )
    special_ids = set(tokenizer.special_tokens.values())
    ordinary = sorted((i, token) for i, token in tokenizer.vocab.items() if i not in special_ids)
    specials = tuple(sorted(tokenizer.special_tokens.items(), key=lambda item: item[1]))
    return Vocabulary(
        tokenizer.name or "tokenizer",
        tuple(t for _, t in ordinary),
        tuple(i for i, _ in ordinary),
        specials,
        tuple(tokenizer.merges),
    )


def _external_vocabulary(tokenizer: ExternalTokenizer) -> Vocabulary:
    """Every id the library knows, its bytes with ``▁`` read as a space; a token whose bytes an
    earlier id already has (SentencePiece's ``▁`` and its byte-fallback ``<0x20>``) is left out."""
    special_ids = {i: text for text, i in tokenizer.special_tokens.items()}
    first: dict[bytes, int] = {}
    for token_id in range(tokenizer.n_vocab):
        if token_id not in special_ids:
            try:
                first.setdefault(tokenizer.decode_single_token_bytes(token_id).replace(METASPACE, b" "), token_id)
            except ValueError:  # an id the library does not use (a gap in WordPiece's vocabulary)
                pass
    note = (
        f"{tokenizer.name}'s tokens are the text {tokenizer.kind.split(' (')[0]} writes, with ▁ read as a space; "
        "a WordPiece continuation keeps its ## mark"
    )
    specials = tuple(sorted(tokenizer.special_tokens.items(), key=lambda item: item[1]))
    return Vocabulary(
        tokenizer.name or "external",
        tuple(first),
        tuple(first.values()),
        specials,
        (),
        UNORDERED.format(kind=tokenizer.kind),
        note,
    )
