"""BPE-dropout: encoding with merges randomly skipped, for subword regularisation in training.

Provilkov, Emelianenko, Voita 2020, "BPE-Dropout: Simple and Effective Subword Regularization" (ACL):
while a piece is being merged, each merge about to be applied is dropped with probability p;
p = 0 is plain BPE, p = 1 leaves single bytes; every occurrence of a piece is segmented afresh. The
authors used it for training only (p = 0.1 in most experiments), never at test time.

The sampling follows the reference implementations exactly (Hugging Face tokenizers,
``Word::merge_all`` in ``tokenizers/src/models/bpe/word.rs``, and YouTokenToMe's ``DropoutQueue``):

1. a min-heap holds one candidate per adjacent pair that has a merge, keyed (rank, position);
2. pop the top and draw u ~ U[0, 1); if u < p, set the candidate aside and pop the next one;
3. otherwise put every candidate set aside back into the heap, then check the popped one is still
   current (its left symbol alive, with a right neighbour, and the pair there still makes the same
   token); a stale one is dropped, its draw spent; a current one is merged and the candidates of
   the pairs it forms with its neighbours are pushed;
4. when the heap is empty (everything left was dropped) the piece is done.

One draw per pop, stale pops included. Here the draws come from ``random.Random(seed)``, one
generator per call consumed in document order (piece by piece, pop by pop), so a seed gives the
same ids on every machine; Hugging Face draws 32-bit floats from an unseedable thread generator,
so its exact sequences cannot be reproduced, only the procedure. As in Hugging Face, dropout
bypasses every shortcut of the plain encoder (the piece cache, the lookup of a piece that is a
whole token, tiktoken's "ignore_merges"): with p > 0 every piece is merged from its bytes. For a
tokenizer with whole-word tokens (which no two parts ever join, e.g. some of Llama 3's) those
tokens therefore never appear when p > 0. With p = 0 no draw is made and the ids are
``tokenizer.encode``'s. Pre-tokenization and special tokens are the tokenizer's own, so the ids
always decode to what ``tokenizer.encode``'s decode to (the text itself, unless the tokenizer's
pipeline normalizes or drops characters).

Not here: SuperBPE's variant (only merges whose right part starts with a space droppable),
dropout during training, and Picky BPE tokenizers (events, not ranked merges: refused). This module
encodes one text at a time and keeps no cache.
"""

from __future__ import annotations

import heapq
import math
import random
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypedDict, cast

from bpe_core.bpe.fast import PairRanks, PieceEncoder, join_right, linked
from bpe_core.bpe.tokens import TokenInfo
from bpe_core.encoding.codec import Codec
from bpe_core.encoding.details import token_details
from bpe_core.errors import BpeError, keyword_options
from bpe_core.pretokenization.pretokenizer import replace_surrogates
from bpe_core.pretokenization.special_tokens import (
    SpecialTokens,
    check_disallowed,
    special_token_regex,
    split_on_special_tokens,
)

if TYPE_CHECKING:  # typing.Unpack from 3.11 on; only type checkers read it
    from typing_extensions import Unpack


class Draws(Protocol):
    """What the merge loop needs of a random generator: ``random()`` in [0, 1)."""

    def random(self) -> float: ...


def check_dropout(dropout: object) -> float:
    """``dropout`` as a float in [0, 1]; TypeError for a non-number, BpeError out of range.

    >>> check_dropout(0.1), check_dropout(1)
    (0.1, 1.0)
    """
    if not isinstance(dropout, (int, float)) or isinstance(dropout, bool):
        raise TypeError(f"dropout must be a number between 0 and 1, not {type(dropout).__name__}")
    if math.isnan(dropout) or not 0 <= dropout <= 1:
        raise BpeError(f"dropout must be between 0 and 1 (the probability of skipping a merge), got {dropout!r}")
    return float(dropout)


def merge_with_dropout(symbols: Sequence[int], pairs: PairRanks, *, dropout: float, rng: Draws) -> list[int]:
    """BPE on one piece's symbol ids with merges dropped with probability ``dropout``, by the
    procedure of the module docstring. ``pairs`` maps (left id, right id) to (rank, merged id);
    ``rng.random()`` gives the draws (none when ``dropout`` is 0 or 1).

    >>> pairs = {(1, 2): (0, 4), (2, 3): (1, 5), (4, 3): (2, 6)}  # a b -> ab, b c -> bc, ab c -> abc
    >>> merge_with_dropout([1, 2, 3], pairs, dropout=0, rng=random.Random(0))
    [6]
    >>> merge_with_dropout([1, 2, 3], pairs, dropout=1, rng=random.Random(0))
    [1, 2, 3]
    """
    ids = list(symbols)
    n = len(ids)
    if n < 2 or dropout >= 1:
        return ids
    links = linked(n)
    _prev, nxt, alive = links
    heap = []
    for i in range(n - 1):
        found = pairs.get((ids[i], ids[i + 1]))
        if found is not None:
            heap.append((found[0], i, found[1]))
    heapq.heapify(heap)
    draw = rng.random if dropout > 0 else None
    skipped: list[tuple[int, int, int]] = []
    while heap:
        top = heapq.heappop(heap)
        if draw is not None and draw() < dropout:
            skipped.append(top)
            continue
        for entry in skipped:  # an accepted pop brings back every candidate set aside, stale or not
            heapq.heappush(heap, entry)
        skipped.clear()
        _rank, i, new_id = top
        if not alive[i] or nxt[i] == -1:
            continue
        j = nxt[i]
        current = pairs.get((ids[i], ids[j]))
        if current is None or current[1] != new_id:
            continue
        p, k = join_right(ids, links, i, new_id)
        if p != -1:
            found = pairs.get((ids[p], new_id))
            if found is not None:
                heapq.heappush(heap, (found[0], p, found[1]))
        if k != -1:
            found = pairs.get((new_id, ids[k]))
            if found is not None:
                heapq.heappush(heap, (found[0], i, found[1]))
    return [ids[i] for i in range(n) if alive[i]]


def _codec_of(tokenizer: Any) -> Codec:
    """The ``Codec`` of a bpe_core ``Tokenizer`` (its ``codec``): the model whose merges dropout skips."""
    codec = getattr(tokenizer, "codec", None)
    if not isinstance(codec, Codec):
        raise TypeError(
            f"encode_with_dropout needs a bpe_core Tokenizer, not {type(tokenizer).__name__} "
            "(a tiktoken Encoding converts with bpe_core.Tokenizer.from_tiktoken)"
        )
    return codec


def _merge_parts(codec: Codec) -> tuple[PairRanks, list[int], Mapping[str, tuple[int, ...]]]:
    """The codec's own merge table (pair -> (rank, merged id); for ranks with late merges, tiktoken's
    pairs ranked by the id they make), the ids of the 256 single bytes, and its table of pieces encoded
    whole: what its encoder merges with, so that p = 0 is its encoder. A Picky BPE tokenizer has no
    merge table to drop merges from (it replays events): BpeError."""
    if codec.model.rule == "picky":
        raise BpeError(
            f"{codec.name!r} is a Picky BPE tokenizer: it replays merge and removal events, not ranked merges, "
            "so BPE-dropout (which skips ranked merges) does not apply to it; encode it without dropout"
        )
    pieces = cast("PieceEncoder", codec.model.piece_encoder)
    return pieces.ranks, pieces.byte_ids, codec.text_encoder.whole_pieces


class DropoutOptions(TypedDict, total=False):
    """The keyword options of ``encode_with_dropout`` and ``dropout_details`` besides ``dropout``
    (defaults: ``DROPOUT_DEFAULTS``).

    Attributes:
        seed: The same seed gives the same ids (draws from ``random.Random(seed)``, consumed in text
            order); None (the default) draws from fresh system entropy.
        allowed_special: Special tokens encoded as their id, as in ``tokenizer.encode`` (default none).
        disallowed_special: Special tokens whose text is an error, as in ``tokenizer.encode`` (default
            ``"all"``: every special token not allowed).
    """

    seed: int | None
    allowed_special: SpecialTokens
    disallowed_special: SpecialTokens


#: The defaults of ``DropoutOptions``: ``tokenizer.encode``'s.
DROPOUT_DEFAULTS: dict[str, Any] = {"seed": None, "allowed_special": frozenset(), "disallowed_special": "all"}


@keyword_options(DropoutOptions, DROPOUT_DEFAULTS)
def encode_with_dropout(tokenizer: Any, text: str, *, dropout: float, **options: Unpack[DropoutOptions]) -> list[int]:
    """``tokenizer.encode(text, allowed_special=..., disallowed_special=...)`` with BPE-dropout: each
    merge is skipped with probability ``dropout`` by the sampling procedure of Hugging Face
    tokenizers and YouTokenToMe (see the module docstring), and every pre-token is merged afresh.

    The other keywords are ``DropoutOptions``' (each one's meaning and default): ``seed`` (the same seed
    gives the same ids), ``allowed_special`` and ``disallowed_special``, each optional. ``dropout=0``
    gives exactly ``tokenizer.encode``'s ids and makes no draw; ``dropout=1`` gives the single bytes of
    every piece. Special tokens, pre-tokenization and lone surrogates (U+FFFD) are handled as
    ``tokenizer.encode`` handles them, so the ids decode to the same text as its ids. TypeError for a
    non-number ``dropout`` or a seed that is not an int; BpeError for a ``dropout`` outside [0, 1].

    >>> import bpe_core
    >>> gpt2 = bpe_core.load("gpt2")
    >>> encode_with_dropout(gpt2, "unrelated", dropout=0) == gpt2.encode("unrelated")
    True
    >>> [gpt2.decode([i]) for i in encode_with_dropout(gpt2, "unrelated", dropout=0.5, seed=1)]
    ['un', 'rel', 'ated']
    """
    codec, encode_piece, specials_found = _dropout_encoder(tokenizer, text, dropout, options)
    out: list[int] = []
    for segment, is_special in split_on_special_tokens(text, specials_found):
        if is_special:
            out.append(codec.special_tokens[segment])
            continue
        for piece in codec.pretokenizer.pieces(replace_surrogates(segment)):
            out.extend(encode_piece(piece))
    return out


def _dropout_encoder(
    tokenizer: Any, text: object, dropout: object, options: DropoutOptions
) -> tuple[Codec, Callable[[str], list[int]], re.Pattern[str] | None]:
    """The arguments checked (as ``encode_with_dropout`` says), and the function that encodes one piece
    with dropout (its draws from one ``random.Random(seed)``, in the order pieces are given), with
    the regex of the special tokens to find in the text."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    rate, seed = check_dropout(dropout), options["seed"]
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise TypeError(f"seed must be an int or None, not {type(seed).__name__}")
    codec = _codec_of(tokenizer)
    pairs, byte_ids, whole_pieces = _merge_parts(codec)
    allowed_set, disallowed_set = codec.allowed_and_disallowed(
        options["allowed_special"], options["disallowed_special"]
    )
    check_disallowed(text, disallowed_set)
    rng = random.Random(seed)

    def encode_piece(piece: str) -> list[int]:
        whole = whole_pieces.get(piece) if rate == 0 else None
        if whole is not None:
            return list(whole)
        return merge_with_dropout([byte_ids[b] for b in piece.encode("utf-8")], pairs, dropout=rate, rng=rng)

    return codec, encode_piece, special_token_regex(allowed_set)


@keyword_options(DropoutOptions, DROPOUT_DEFAULTS)
def dropout_details(tokenizer: Any, text: str, *, dropout: float, **options: Unpack[DropoutOptions]) -> list[TokenInfo]:
    """``encode_with_dropout``'s tokens (the same ids for the same arguments and seed) with their
    details, as ``Tokenizer.encode_with_details`` gives them: id, bytes, character span in ``text``,
    whether the token holds part of a character, whether it is special. Its keywords are
    ``encode_with_dropout``'s: ``dropout`` and ``DropoutOptions``'.

    >>> import bpe_core
    >>> gpt2 = bpe_core.load("gpt2")
    >>> [(i.bytes, i.start, i.end) for i in dropout_details(gpt2, "unrelated", dropout=0.5, seed=1)]
    [(b'un', 0, 2), (b'rel', 2, 5), (b'ated', 5, 9)]
    """
    codec, encode_piece, specials_found = _dropout_encoder(tokenizer, text, dropout, options)
    return token_details(
        split_on_special_tokens(replace_surrogates(text), specials_found),
        pretokenizer=codec.pretokenizer,
        special_tokens=codec.special_tokens,
        vocab=codec.vocab,
        encode_piece=lambda piece: tuple(encode_piece(piece)),
    )
