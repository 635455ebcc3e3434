"""Checking a tokenizer's parts: the vocabulary, the special tokens and the ranked merges.

Each function takes what a user or a file gave and returns it in the form the encoder uses, or raises
``ValueError``/``TypeError`` saying what is wrong and where. Nothing here encodes text.

The checks of a 200k vocabulary run first over whole columns with C-level builtins (``map``, ``set``,
``dict``), with no Python step per token; only when that finds a fault does the token-by-token loop
run, to name the first faulty entry. Both check the same things.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import repeat
from operator import itemgetter, lt
from typing import cast

from bpe_core.bpe.token_ids import MAX_TOKEN_ID
from bpe_core.errors import BpeError

_SINGLE_BYTES = [bytes([b]) for b in range(256)]


def _is_id(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKEN_ID


def check_vocab(vocab: Mapping[int, bytes]) -> dict[int, bytes]:
    """A copy of ``vocab`` (id -> bytes) with every id and token checked."""
    if not isinstance(vocab, Mapping):
        raise TypeError(f"vocab must be a mapping from id to bytes, not {type(vocab).__name__}")
    if not vocab:
        return {}
    if set(map(type, vocab)) == {int} and set(map(type, vocab.values())) == {bytes}:
        if 0 <= min(vocab) and max(vocab) <= MAX_TOKEN_ID:  # every id and token fine: one copy
            return dict(vocab)
    checked: dict[int, bytes] = {}
    for token_id, token in vocab.items():
        if not _is_id(token_id):
            raise BpeError(f"vocab ids must be integers from 0 to {MAX_TOKEN_ID:,}, got {token_id!r}")
        if not isinstance(token, (bytes, bytearray)):
            raise TypeError(f"vocab[{token_id}] must be bytes, not {type(token).__name__}")
        checked[token_id] = bytes(token)
    return checked


def special_token_bytes(token: object) -> bytes:
    """The UTF-8 bytes of one special token: the one check every way of giving special tokens goes
    through. ``BpeError`` for an empty string and for a lone surrogate (UTF-8 cannot hold it), naming
    the token; ``TypeError`` for anything but a string.

    >>> special_token_bytes("<|end|>")
    b'<|end|>'
    """
    if not isinstance(token, str):
        raise TypeError(f"special tokens must be strings, got {token!r} ({type(token).__name__})")
    if not token:
        raise BpeError("a special token cannot be the empty string")
    try:
        return token.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise BpeError(
            f"special token {token!r} holds a lone surrogate ({token[exc.start]!r} at position {exc.start}), which "
            "UTF-8 cannot encode: write the character itself (a pair of surrogate escapes is one character)"
        ) from None


def resolve_special_tokens(
    special_tokens: Mapping[str, int] | Sequence[str], vocab: dict[int, bytes]
) -> dict[str, int]:
    """Special token -> id. A mapping keeps its ids; a list reuses an id whose bytes are the token's
    or takes the next free ids. Adds each special token's UTF-8 bytes to ``vocab``."""
    if isinstance(special_tokens, str):
        raise TypeError(f"special_tokens must be a list or a mapping, not one string: [{special_tokens!r}]")
    if isinstance(special_tokens, Mapping):
        return _special_tokens_with_ids(special_tokens, vocab)
    result: dict[str, int] = {}
    by_bytes = {token: token_id for token_id, token in vocab.items()}
    next_id = max(vocab, default=-1) + 1
    for token in special_tokens:
        encoded = special_token_bytes(token)
        if token in result:
            raise BpeError(f"special token {token!r} is listed twice")
        if encoded in by_bytes and by_bytes[encoded] not in result.values():
            result[token] = by_bytes[encoded]
        else:
            result[token] = next_id
            vocab[next_id] = encoded
            next_id += 1
    return result


def _special_tokens_with_ids(special_tokens: Mapping[str, int], vocab: dict[int, bytes]) -> dict[str, int]:
    result: dict[str, int] = {}
    for token, token_id in special_tokens.items():
        encoded = special_token_bytes(token)
        if not _is_id(token_id):
            raise BpeError(f"special token {token!r} needs an integer id from 0 to {MAX_TOKEN_ID:,}, got {token_id!r}")
        if token_id in vocab and vocab[token_id] != encoded:
            raise BpeError(f"special token {token!r} has id {token_id}, but vocab[{token_id}] is {vocab[token_id]!r}")
        if token_id in result.values():
            raise BpeError(f"special token {token!r} reuses id {token_id}")
        vocab[token_id] = encoded
        result[token] = token_id
    return result


def index_tokens(vocab: Mapping[int, bytes], special_ids: set[int]) -> dict[bytes, int]:
    """Bytes -> id for the ordinary tokens (in id order), checking that each holds bytes, none repeats,
    and all 256 single bytes are there."""
    ids = [token_id for token_id in sorted(vocab) if token_id not in special_ids] if special_ids else sorted(vocab)
    indexed = dict(zip(map(vocab.__getitem__, ids), ids, strict=True))
    if len(indexed) == len(ids) and b"" not in indexed and all(map(indexed.__contains__, _SINGLE_BYTES)):
        return indexed
    token_to_id: dict[bytes, int] = {}
    for token_id in sorted(vocab):
        if token_id in special_ids:
            continue
        token = vocab[token_id]
        if not token:
            raise BpeError(f"vocab[{token_id}] is empty: every token must hold at least one byte")
        if token in token_to_id:
            raise BpeError(
                f"ids {token_to_id[token]} and {token_id} both have the bytes {token!r}: "
                "each token's bytes must be unique"
            )
        token_to_id[token] = token_id
    missing = [b for b in range(256) if bytes([b]) not in token_to_id]
    if missing:
        raise BpeError(
            f"the vocab lacks {len(missing)} single-byte tokens (first: {bytes([missing[0]])!r}); "
            "a byte-level BPE vocab must contain all 256 bytes"
        )
    return token_to_id


def rank_merges(
    merges: Sequence[tuple[bytes, bytes]], token_to_id: Mapping[bytes, int]
) -> tuple[dict[tuple[int, int], tuple[int, int]], list[tuple[bytes, bytes]]]:
    """``(left id, right id) -> (rank, merged id)`` and the merges as bytes pairs, checking that each
    merge joins tokens that exist by then into a token of the vocab, and none repeats."""
    ranked = _rank_merges_at_once(merges, token_to_id)
    return ranked if ranked is not None else _rank_merges_one_by_one(merges, token_to_id)


def _rank_merges_one_by_one(
    merges: Sequence[tuple[bytes, bytes]], token_to_id: Mapping[bytes, int]
) -> tuple[dict[tuple[int, int], tuple[int, int]], list[tuple[bytes, bytes]]]:
    """``rank_merges`` merge by merge, raising at the first merge that fails a check."""
    pair_rank: dict[tuple[int, int], tuple[int, int]] = {}
    merge_list: list[tuple[bytes, bytes]] = []
    # Tokens usable by the next merge (single bytes and earlier merges' results) -> their ids.
    known = {bytes([b]): token_to_id[bytes([b])] for b in range(256)}
    for rank, entry in enumerate(merges):
        if not (isinstance(entry, (tuple, list)) and len(entry) == 2):
            raise BpeError(f"merge {rank} must be a pair (left bytes, right bytes), got {entry!r}")
        left, right = entry
        if type(left) is not bytes or type(right) is not bytes:
            left, right = bytes(left), bytes(right)
        left_id = known.get(left)
        right_id = known.get(right)
        if left_id is None or right_id is None:
            part = left if left_id is None else right
            raise BpeError(
                f"merge {rank} ({left!r}, {right!r}) uses {part!r}, which is neither a single "
                "byte nor the result of an earlier merge: merges must be listed in rank order"
            )
        merged = left + right
        merged_id = token_to_id.get(merged)
        if merged_id is None:
            raise BpeError(f"merge {rank} makes {merged!r}, which is not in the vocab")
        pair = (left_id, right_id)
        if pair in pair_rank:
            raise BpeError(f"merge {rank} ({left!r}, {right!r}) repeats merge {pair_rank[pair][0]}")
        pair_rank[pair] = (rank, merged_id)
        known[merged] = merged_id
        merge_list.append((left, right))
    return pair_rank, merge_list


def _rank_merges_at_once(
    merges: Sequence[tuple[bytes, bytes]], token_to_id: Mapping[bytes, int]
) -> tuple[dict[tuple[int, int], tuple[int, int]], list[tuple[bytes, bytes]]] | None:
    """``rank_merges``' result when every merge passes its checks, checked column by column; None when
    one fails (``rank_merges`` then finds the first faulty merge and says what is wrong with it)."""
    count = len(merges)
    kinds = set(map(type, merges))
    if not kinds <= {tuple, list} or not set(map(len, merges)) <= {2}:
        return None
    lefts = list(map(itemgetter(0), merges))
    rights = list(map(itemgetter(1), merges))
    if not set(map(type, lefts)) <= {bytes} or not set(map(type, rights)) <= {bytes}:
        return None
    found = list(map(token_to_id.get, map(bytes.__add__, lefts, rights)))
    if None in found:
        return None
    made_ids = cast("list[int]", found)
    try:
        left_ids = list(map(token_to_id.__getitem__, lefts))
        right_ids = list(map(token_to_id.__getitem__, rights))
    except KeyError:  # a part that is no token
        return None
    # A part is usable by merge k if it is a single byte (known from the start, -1) or made by a merge
    # before k: the first merge making each token, in a dict built from the last merge to the first.
    known_at = dict.fromkeys(map(token_to_id.__getitem__, _SINGLE_BYTES), -1)
    known_at |= dict(zip(reversed(made_ids), range(count - 1, -1, -1), strict=True))
    for ids in (left_ids, right_ids):
        if not all(map(lt, map(known_at.get, ids, repeat(count)), range(count))):
            return None
    pairs = zip(left_ids, right_ids, strict=True)
    pair_rank = dict(zip(pairs, zip(range(count), made_ids, strict=True), strict=True))
    if len(pair_rank) != count:  # a merge repeats an earlier one
        return None
    return pair_rank, list(merges) if kinds <= {tuple} else list(zip(lefts, rights, strict=True))
