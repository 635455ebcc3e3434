"""BPE on one piece: the fast variants (packed-pair loop, heap loop, ``PieceEncoder``) equal the
readable ``encode_reference`` on random merge lists, and ``merge`` replaces left to right."""

import doctest
import importlib
import pkgutil
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bpe_core
from bpe_core.bpe.fast import LONG_PIECE, PieceEncoder, encode_heap, encode_short
from bpe_core.bpe.reference import encode_reference, merge, pair_counts


def random_ranks(seed: int, num_merges: int, alphabet: bytes) -> dict[tuple[int, int], tuple[int, int]]:
    """A valid merge list over single-byte ids (id = byte) with merged ids from 256, as pair ranks."""
    rng = random.Random(seed)
    tokens = list(alphabet)
    ranks: dict[tuple[int, int], tuple[int, int]] = {}
    for _ in range(num_merges):
        pair = (rng.choice(tokens), rng.choice(tokens))
        if pair in ranks:
            continue
        new_id = 256 + len(ranks)
        ranks[pair] = (len(ranks), new_id)
        tokens.append(new_id)
    return ranks


def packed(ranks):
    return {(left << 20) | right: (rank << 20) | new for (left, right), (rank, new) in ranks.items()}


pieces = st.binary(min_size=0, max_size=3 * LONG_PIECE).map(lambda b: bytes(x % 4 + 97 for x in b))


@given(seed=st.integers(0, 10_000), num_merges=st.integers(0, 40), piece=pieces)
def test_fast_variants_equal_the_readable_encoder(seed, num_merges, piece):
    ranks = random_ranks(seed, num_merges, b"abcd")
    expected = encode_reference(list(piece), ranks)
    assert encode_short(list(piece), packed(ranks)) == expected
    if piece:
        assert encode_heap(list(piece), ranks) == expected
    assert list(PieceEncoder(ranks, range(256)).encode(piece)) == expected


@given(seed=st.integers(0, 10_000), num_merges=st.integers(0, 40), piece=pieces)
def test_applied_ranks_count_the_merges_of_every_prefix_of_the_list(seed, num_merges, piece):
    ranks = random_ranks(seed, num_merges, b"abcd")
    applied = PieceEncoder(ranks, range(256)).applied_ranks(piece)
    assert applied == sorted(applied)  # merges apply in non-decreasing rank
    for k in range(num_merges + 1):
        first_k = {pair: value for pair, value in ranks.items() if value[0] < k}
        assert len(encode_reference(list(piece), first_k)) == len(piece) - sum(r < k for r in applied)


def test_byte_ids_other_than_the_bytes_themselves():
    # Byte b has id 1000 + b; the merged token gets id 5000.
    ranks = {(1000 + ord("a"), 1000 + ord("b")): (0, 5000)}
    encoder = PieceEncoder(ranks, [1000 + b for b in range(256)])
    assert encoder.encode(b"abcab") == (5000, 1000 + ord("c"), 5000)


@given(symbols=st.lists(st.sampled_from("ab"), max_size=12))
def test_merge_replaces_left_to_right_without_overlap(symbols):
    merged = merge(symbols, ("a", "a"), "X")
    assert "".join(merged) == "".join(symbols).replace("aa", "X")


def test_pair_counts_weigh_words_by_frequency_and_count_overlaps():
    assert pair_counts([[1, 1, 1], [1, 2]], [2, 5]) == {(1, 1): 4, (1, 2): 5}


def _modules():
    names = [info.name for info in pkgutil.walk_packages(bpe_core.__path__, "bpe_core.")]
    return [name for name in names if name != "bpe_core.__main__"]


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_hold(name):
    failed, _attempted = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert failed == 0
