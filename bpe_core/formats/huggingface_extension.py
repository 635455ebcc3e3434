"""Hugging Face ``tokenizer.json`` for tiktoken's rule and for extended tokenizers.

- ``hf_merges`` and ``takes_whole_pieces``: what ``huggingface.to_huggingface_dict`` writes for a
  tokenizer on tiktoken's rule whose ranks hold late merges and whole-word tokens (Llama 3, Qwen 3.5,
  an extension of them): its merges and late merges in rank order, and ``ignore_merges`` (HF looks a
  piece up whole first, as tiktoken does). HF ``tokenizers`` then gives tiktoken's ids
  (``tests/formats/test_huggingface_extension.py``).
- ``imported_bpe``: the tokenizer a file's BPE model makes, such a file (``ignore_merges``, late
  merges) read back on tiktoken's rule.
- ``extended_tokenizer_json``: a base's own ``tokenizer.json`` with an extension's new tokens added to
  its ``model.vocab`` and new merges after its ``model.merges``, everything else (normalizer,
  pre-tokenizer, post-processor, decoder, added tokens, options) left as the file had it, so that a
  model's tokenizer files stay its own.

This module reads and writes no file (``huggingface`` does).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, cast

from bpe_core.errors import BpeError
from bpe_core.formats.bytelevel import bytes_to_printable
from bpe_core.pretokenization.stages import Pipeline
from bpe_core.tokenizer import Tokenizer


def takes_whole_pieces(tokenizer: Tokenizer) -> bool:
    """Whether a piece that is a token must be taken whole (HF's ``ignore_merges``): tiktoken's rule
    with tokens its merges alone do not make."""
    return tokenizer.rule == "tiktoken" and bool(tokenizer.whole_word_tokens or tokenizer._late_merges)


def hf_merges(tokenizer: Tokenizer) -> list[tuple[bytes, bytes]]:
    """The merges HF applies by rank: the tokenizer's merges, and under tiktoken's rule its late merges
    too, each at the rank (id) of the token it makes."""
    if tokenizer.rule != "tiktoken" or not tokenizer._late_merges:
        return tokenizer.merges
    rank = tokenizer._token_to_id
    return sorted(tokenizer.merges + tokenizer._late_merges, key=lambda pair: rank[pair[0] + pair[1]])


def imported_bpe(
    vocab: dict[int, bytes],
    merges: list[tuple[bytes, bytes]],
    specials: dict[str, int],
    pattern: str | Pipeline | None,
    name: str,
    *,
    ignore_merges: bool,
) -> Tokenizer:
    """The tokenizer a ``tokenizer.json``'s BPE model makes: BPE with its merges; with
    ``ignore_merges=true`` (a piece that is a token is taken whole) every token must encode to itself
    by them, or the file must be tiktoken's rule written out (``hf_merges`` of the ranks its ids make
    gives ``merges`` back, late merges included: Llama 3's, an extension of it), read on that rule.
    Anything else is a ``BpeError``: its ids could differ from HF's."""
    try:
        tokenizer: Tokenizer | None = Tokenizer(vocab, merges, special_tokens=specials, pattern=pattern, name=name)
    except BpeError:
        if not ignore_merges:
            raise
        tokenizer = None  # merges out of rank order: maybe tiktoken's late merges
    if not ignore_merges or (tokenizer is not None and tokenizer.tokens_encode_to_themselves):
        return cast(Tokenizer, tokenizer)
    ranks = {token: i for i, token in vocab.items() if i not in set(specials.values())}
    try:
        ranked = Tokenizer.from_ranks(ranks, special_tokens=specials, pattern=pattern, name=name)
    except ValueError:
        ranked = None
    if ranked is None or hf_merges(ranked) != merges:
        raise BpeError(
            "the BPE model has ignore_merges=true (a piece that is a token is taken whole) and some tokens do "
            "not encode to themselves under the merges, so bpe_core's ids could differ; it is not imported, "
            "since the ids would differ from HF tokenizers'"
        )
    return ranked


def extended_tokenizer_json(original: Mapping[str, Any], base: Tokenizer, extended: Tokenizer) -> dict[str, Any]:
    """``original`` (the parsed ``tokenizer.json`` ``base`` was read from) with ``extended``'s new tokens
    and merges added to its BPE model, nothing else changed. A ``BpeError`` when ``extended`` does not
    keep ``base``'s ids and merges first, encodes by tiktoken's rule (write it with
    ``huggingface.to_huggingface_dict``), or when ``original`` is not ``base``'s file.
    """
    if extended.rule != "bpe":
        raise BpeError(
            f"{extended.name!r} encodes by tiktoken's rule, which a tokenizer.json read as plain BPE cannot hold: "
            "write it with bpe_core.formats.huggingface.save_huggingface instead"
        )
    model = original.get("model") if isinstance(original, Mapping) else None
    if not isinstance(model, Mapping) or not isinstance(model.get("vocab"), Mapping):
        raise BpeError("the original is not a tokenizer.json with a BPE model: its 'model' has no 'vocab'")
    merges = model.get("merges")
    if not isinstance(merges, list) or len(merges) != len(base.merges):
        raise BpeError(
            f"the original tokenizer.json has {len(merges) if isinstance(merges, list) else 'no'} merges and "
            f"{base.name!r} {len(base.merges):,}: give the file {base.name!r} was read from"
        )
    new_ids = sorted(set(extended.vocab) - set(base.vocab))
    if any(base.vocab.get(i) != extended.vocab.get(i) for i in base.vocab) or extended.merges[: len(merges)] != (
        base.merges
    ):
        raise BpeError(f"{extended.name!r} does not keep {base.name!r}'s ids and merges first: not an extension of it")
    data = copy.deepcopy(dict(original))
    vocab: dict[str, int] = data["model"]["vocab"]
    taken = set(vocab.values())
    for token_id in new_ids:
        text = bytes_to_printable(extended.vocab[token_id])
        if text in vocab or token_id in taken:
            raise BpeError(
                f"new token {token_id} ({text!r}) is already in the original tokenizer.json's vocab: give the "
                f"file {base.name!r} was read from"
            )
        vocab[text] = token_id
    as_lists = bool(merges) and isinstance(merges[0], list)
    for left, right in extended.merges[len(merges) :]:
        pair = [bytes_to_printable(left), bytes_to_printable(right)]
        data["model"]["merges"].append(pair if as_lists else " ".join(pair))
    return data
