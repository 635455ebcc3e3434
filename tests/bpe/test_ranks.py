"""Recovering merges from tiktoken ranks (``ranks.rank_structure``): the same merges as the plain
restricted-BPE recovery on GPT-2, cl100k and generated rank tables; late merges and whole-word tokens
sorted out, and tokenizers built from such ranks encoding exactly as tiktoken does."""

from __future__ import annotations

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import Tokenizer
from bpe_core.bpe.fast import merges_from_ranks
from bpe_core.bpe.ranks import rank_structure
from bpe_core.pretrained import catalogue
from bpe_core.pretrained.package_files import cl100k_encoding, gpt2_encoding

PATTERN = r" ?[a-d]+| +|[^a-d ]+"


def restricted_bpe_split(ranks: dict[bytes, int], token: bytes) -> list[bytes]:
    """The readable recovery (the one bpe_core used before): BPE on the token's bytes with only
    lower-ranked tokens, the pair whose concatenation has the lowest rank first."""
    rank = ranks[token]
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 2:
        found = [(ranks.get(a + b, rank), i) for i, (a, b) in enumerate(zip(parts, parts[1:], strict=False))]
        best, i = min(found)
        if best >= rank:
            break
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return parts


def reference_merges(ranks: dict[bytes, int]) -> tuple[list[tuple[bytes, bytes]], set[bytes]]:
    """The merges the readable recovery finds, in rank order, and the tokens it cannot split in two."""
    merges, odd = [], set()
    for token in sorted((t for t in ranks if len(t) > 1), key=ranks.__getitem__):
        parts = restricted_bpe_split(ranks, token)
        if len(parts) == 2:
            merges.append((parts[0], parts[1]))
        else:
            odd.add(token)
    return merges, odd


def check_against_reference(ranks: dict[bytes, int]) -> None:
    structure = rank_structure(ranks)
    merges, odd = reference_merges(ranks)
    late = {left + right for left, right in structure.late_merges}
    assert structure.merges == [m for m in merges if m[0] + m[1] not in late]
    # The readable recovery splits the few late tokens whose parts were all ranked lower in two as well.
    assert odd == (late | set(structure.whole_tokens)) - {a + b for a, b in merges}
    assert set(structure.whole_tokens) <= odd
    if late or structure.whole_tokens:
        with pytest.raises(ValueError, match="cannot be built from two lower-ranked tokens"):
            merges_from_ranks(ranks)
    else:
        assert merges_from_ranks(ranks) == merges


def test_gpt2_and_cl100k_merges_equal_the_readable_recovery():
    check_against_reference(dict(gpt2_encoding()._mergeable_ranks))
    if catalogue.is_installed("cl100k"):
        check_against_reference(dict(cl100k_encoding()._mergeable_ranks))


@st.composite
def rank_tables(draw) -> dict[bytes, int]:
    """All 256 bytes (ranks maybe shuffled) and up to 40 tokens over a small alphabet, ranked in
    any order: many of these are no merge list at all."""
    alphabet = draw(st.sampled_from([b"a", b"ab", b"abc", b"abcd"]))
    in_alphabet = st.binary(min_size=2, max_size=9).map(lambda w: bytes(alphabet[b % len(alphabet)] for b in w))
    words = draw(st.lists(in_alphabet, max_size=40))
    tokens = list(dict.fromkeys([bytes([b]) for b in range(256)] + words))
    order = draw(st.permutations(range(len(tokens)))) if draw(st.booleans()) else range(len(tokens))
    return dict(zip(tokens, order, strict=True))


@settings(max_examples=300, deadline=None)
@given(rank_tables())
def test_generated_rank_tables_agree_with_the_readable_recovery(ranks):
    check_against_reference(ranks)


@settings(max_examples=200, deadline=None)
@given(rank_tables(), st.lists(st.text("abcd x", max_size=30), min_size=1, max_size=5))
def test_tokenizers_from_any_ranks_encode_as_tiktoken(ranks, texts):
    ours = Tokenizer.from_ranks(ranks, pattern=PATTERN)
    theirs = tiktoken.Encoding("t", pat_str=PATTERN, mergeable_ranks=ranks, special_tokens={})
    # Every token as a piece of its own, glued to its neighbours, and random text.
    tokens = [t.decode("latin-1") for t in ranks if len(t) > 1]
    for text in texts + [" ".join(tokens), "".join(tokens), "x".join(tokens)]:
        assert ours.encode_ordinary(text) == theirs.encode_ordinary(text)


def _bytes_ranks(*extra: bytes) -> dict[bytes, int]:
    ranks = {bytes([b]): b for b in range(256)}
    for token in extra:
        ranks[token] = len(ranks)
    return ranks


def test_a_whole_word_token_is_produced_only_for_a_whole_piece():
    ranks = _bytes_ranks(b"ab", b"abca")  # a b c a -> ab c a: stuck, so no merge builds "abca"
    tok = Tokenizer.from_ranks(ranks, pattern=PATTERN)
    assert rank_structure(ranks).whole_tokens == [b"abca"]
    assert tok._model.rule == "tiktoken" and tok.whole_word_tokens == [257]
    assert tok.merge_rank_of(257) is None
    assert tok.encode("abca") == [257]
    assert tok.encode("abcab") == [256, ord("c"), 256]  # inside a longer piece it is never made
    assert tok.decode(tok.encode("abca abcab")) == "abca abcab"


def test_a_late_merge_is_made_inside_longer_pieces_as_tiktoken_does():
    ranks = _bytes_ranks(b"abc", b"ab")  # "abc" is ranked before "ab", its only way in
    tok = Tokenizer.from_ranks(ranks, pattern=None)
    assert rank_structure(ranks).late_merges == [(b"ab", b"c")]
    assert tok._late_merges == [(b"ab", b"c")]
    enc = tiktoken.Encoding("t", pat_str=r"[\s\S]+", mergeable_ranks=ranks, special_tokens={})
    for text in ["abc", "abcab", "xabcx", "ababcabc", "cabcab"]:
        assert tok.encode_ordinary(text) == enc.encode_ordinary(text)
    assert tok.encode_ordinary("xabcx") == [ord("x"), 256, ord("x")]


def test_to_tiktoken_keeps_whole_word_tokens():
    ranks = _bytes_ranks(b"ab", b"abca", b"bc")
    tok = Tokenizer.from_ranks(ranks, pattern=PATTERN)
    enc = tok.to_tiktoken()
    for text in ["abca", "abcab bcabca", "a b c"]:
        assert enc.encode_ordinary(text) == tok.encode_ordinary(text)


def test_truncated_rule_tokenizers_are_plain_bpe_with_the_first_merges():
    tok = Tokenizer.from_ranks(_bytes_ranks(b"ab", b"abca", b"bc"), pattern=PATTERN)
    first = tok.truncated(1)
    assert first._model.rule == "bpe" and first.merges == [(b"a", b"b")]
    assert first.encode("abca") == [256, ord("c"), ord("a")]


def test_truncated_rule_tokenizers_keep_the_tokens_a_fresh_proof_finds():
    # "abca" is a whole-word token: tiktoken looks it up whole, plain BPE never builds it.
    tok = Tokenizer.from_ranks(_bytes_ranks(b"ab", b"abca", b"bc", b"abc", b"ca"), pattern=PATTERN)
    for k in range(len(tok.merges) + 1):
        fast = tok.truncated(k)
        parts = fast._parts()
        parts["self_encoding"] = None  # proved from scratch
        proved = Tokenizer._rebuilt(parts)
        assert fast._model.self_encoding == proved._model.self_encoding, k
        assert fast.tokens_encode_to_themselves == proved.tokens_encode_to_themselves
        assert fast.encode("abca bcab abc") == proved.encode("abca bcab abc")


@pytest.mark.parametrize("length", [150])
def test_runs_of_one_byte_are_recovered_like_the_readable_recovery(length):
    # Long tokens made the old recovery cubic; here every run of "a" and of spaces is a token.
    runs = [b"a" * k for k in range(2, length)] + [b" " * k for k in range(2, length)]
    check_against_reference(_bytes_ranks(*runs))


def test_ranks_that_share_a_rank_are_refused():
    with pytest.raises(ValueError, match="share a rank"):
        Tokenizer.from_ranks({**_bytes_ranks(), b"ab": 5})


def test_tiktokens_rule_survives_bpe_cores_json_file():
    tok = Tokenizer.from_ranks(_bytes_ranks(b"ab", b"abca"), pattern=PATTERN)
    back = Tokenizer.from_json(tok.to_json())
    assert back._model.rule == "tiktoken" and back.whole_word_tokens == [257]
    assert back.encode("abca abcab") == tok.encode("abca abcab")
    assert '"version": 2' in tok.to_json()  # older readers refuse it rather than encode differently
