"""Turning a bpe_core tokenizer's parts into a ``tiktoken.Encoding``, or saying why it cannot be.

tiktoken ranks a merge by the id of the token it makes, so the merges must make ids in increasing
order and every multi-byte token must come from a merge; and tiktoken takes a piece that is a token
whole, so every token must encode to itself (true of trained tokenizers, GPT-2 and cl100k). tiktoken
finds special tokens with an alternation in hash order, so where one special token starts another
(``<a>`` and ``<a><b>``) it may match either, while bpe_core always takes the longest: such
tokenizers are refused too. This module only converts; the reverse is ``Tokenizer.from_tiktoken``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence


def special_token_prefix(special_tokens: Iterable[str]) -> tuple[str, str] | None:
    """Two special tokens of which the first starts the second, or None.

    >>> special_token_prefix(["<a>", "<b>", "<a><b>"])
    ('<a>', '<a><b>')
    """
    ordered = sorted(special_tokens)
    # A token that starts others sorts right before them, with nothing between it and the first one.
    for short, long in zip(ordered, ordered[1:]):
        if long.startswith(short):
            return short, long
    return None


def to_encoding(
    *,
    name: str,
    pattern: str | None,
    ranks: Mapping[bytes, int],
    special_tokens: Mapping[str, int],
    merged_ids: Sequence[int],
    not_self_encoding: Sequence[int],
):
    """A ``tiktoken.Encoding``: ``ranks`` maps each ordinary token's bytes to its id, ``merged_ids``
    are the ids the merges make in rank order, ``not_self_encoding`` the ids of tokens whose bytes do
    not encode to themselves. ValueError naming the first obstacle."""
    import tiktoken

    problem = f"{name!r} cannot become a tiktoken encoding"
    overlap = special_token_prefix(special_tokens)
    if overlap:
        short, long = overlap
        raise ValueError(
            f"{problem}: special token {short!r} starts special token {long!r}; tiktoken may match "
            f"either one in {long!r} (it tries them in hash order), bpe_core always matches the "
            "longest, so the ids could differ: rename one of them"
        )
    if any(b <= a for a, b in zip(merged_ids, merged_ids[1:])):
        raise ValueError(
            f"{problem}: its merges do not make ids in increasing order (tiktoken uses the id as the "
            "merge priority)"
        )
    made = set(merged_ids)
    for token, token_id in ranks.items():
        if len(token) > 1 and token_id not in made:
            raise ValueError(f"{problem}: token {token_id} ({token!r}) is not made by any merge")
    if not_self_encoding:
        stray = not_self_encoding[0]
        token = next(token for token, token_id in ranks.items() if token_id == stray)
        raise ValueError(
            f"{problem}: token {stray} ({token!r}) does not encode to itself under the merges, and "
            "tiktoken emits any piece that is a whole token as that token"
        )
    try:
        return tiktoken.Encoding(
            name=name,
            pat_str=pattern if pattern is not None else r"[\s\S]+",
            mergeable_ranks=dict(ranks),
            special_tokens=dict(special_tokens),
        )
    except ValueError as exc:
        raise ValueError(
            f"tiktoken rejected the pre-tokenization regex of {name!r} ({exc}); "
            "tiktoken's regex engine lacks some Python 'regex' features"
        ) from None
