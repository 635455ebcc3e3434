"""What the merge engine's state is made of (``training.pairs``): id strings, pair counting, counting
only the most frequent pairs, the lazy max-heap, and the word update, whose one-count mode equals the
plain rules' specialised update (``pairs.merge_pair_in_words``) and whose several-count mode equals one
count at a time."""

from __future__ import annotations

import copy
from operator import add

from hypothesis import given
from hypothesis import strategies as st

from bpe_core.bpe.reference import pair_counts
from bpe_core.training.pairs import (
    PairHeap,
    Tokens,
    count_pairs,
    count_top_pairs,
    id_string,
    merge_pair_in_words,
    merge_pair_weighted,
    pretoken_id_strings,
)
from bpe_core.training.tie_rules import PairKeys

words_strategy = st.lists(st.text(alphabet="aabc", max_size=12), min_size=1, max_size=8)
freqs_strategy = st.lists(st.integers(1, 4), min_size=8, max_size=8)


def byte_table() -> dict[int, bytes]:
    return {i: bytes([i]) for i in range(256)}


def state(words, freqs):
    """Id strings, their one count and index, as the loops start them."""
    strings = pretoken_id_strings(words)
    counts: dict[str, int] = {}
    where = count_pairs(strings, [(index, counts, freq) for index, freq in enumerate(freqs[: len(strings)])])
    return strings, freqs[: len(strings)], counts, where


def test_pretokens_become_their_utf8_bytes_one_character_each():
    assert pretoken_id_strings(["hé", "\ud800"]) == [id_string(b"h\xc3\xa9"), id_string(b"\xef\xbf\xbd")]
    assert id_string([104, 256]) == "h\u0100"


@given(words=words_strategy, freqs=freqs_strategy)
def test_pair_counts_and_index_match_the_plain_count(words, freqs):
    strings, freqs, counts, where = state(words, freqs)
    expected = pair_counts(strings, freqs)
    assert counts == {a + b: count for (a, b), count in expected.items()}
    for pair, holders in where.items():
        assert holders == sorted({i for i, word in enumerate(strings) if pair in word})


def test_several_counts_per_word_add_up_in_each():
    english, french = {}, {}
    where = count_pairs(["ab", "abc"], [(0, english, 2), (0, french, 1), (1, french, 3)])
    assert english == {"ab": 2} and french == {"ab": 4, "bc": 3}
    assert where == {"ab": [0, 1], "bc": [1]}


def test_the_heap_pushes_stale_entries_back_and_skips_refused_pairs():
    tokens = Tokens({**byte_table(), 256: b"ab"})
    counts = {"xy": 5, id_string([256, 99]): 4, "ab": 6}
    heap = PairHeap(counts, 2, PairKeys("lexicographic", [], {}, tokens.token_bytes), tokens)
    counts["xy"] = 3  # fell since pushed: taken at its live count, after the pair now ahead of it
    assert heap.pop() == (id_string([256, 99]), 4)  # "ab" is refused: its bytes already are token 256
    assert tokens.refused == {"ab"}
    counts["xy"] = 1
    assert heap.pop() is None and heap.below
    assert heap.push_frequent(["xy", "zz"]) == ["xy", "zz"]


@given(words=words_strategy, freqs=freqs_strategy, pair=st.sampled_from(["ab", "aa", "ba", "ca", "bb"]))
def test_one_count_mode_equals_the_plain_rules_update(words, freqs, pair):
    strings, freqs, counts, where = state(words, freqs)
    holders = where.get(pair, [])
    plain = copy.deepcopy((strings, counts, where))
    replaced, created = merge_pair_in_words(pair, "Z", holders, plain[0], freqs, plain[1], plain[2])
    got = merge_pair_weighted(pair, "Z", holders, strings, where, None, freqs, counts)
    assert got == (replaced, [], created)
    assert (strings, counts, where) == plain


@given(
    words=words_strategy,
    freqs=freqs_strategy,
    shares=st.lists(st.integers(0, 3), min_size=8, max_size=8),
    pair=st.sampled_from(["ab", "aa", "ba"]),
)
def test_several_counts_mode_equals_one_count_at_a_time(words, freqs, shares, pair):
    strings, freqs, first, where = state(words, freqs)
    second: dict[str, int] = {}
    count_pairs(strings, [(index, second, share) for index, share in enumerate(shares[: len(strings)])])
    holders = where.get(pair, [])
    expected = []
    for counts, weights in ((first, freqs), (second, shares)):
        alone = copy.deepcopy((strings, counts, where))
        created = merge_pair_weighted(pair, "Z", holders, alone[0], alone[2], None, weights, alone[1])[2]
        expected.append((alone, created))
    weights = [((first, freq), (second, share)) for freq, share in zip(freqs, shares, strict=False)]
    _, changed, created = merge_pair_weighted(pair, "Z", holders, strings, where, None, weights)
    assert (strings, first, where) == expected[0][0] and second == expected[1][0][1]
    assert created == expected[0][1]
    assert changed == [
        (i, len(before) - len(after))
        for i, (before, after) in enumerate(zip(pretoken_id_strings(words), strings, strict=True))
        if before != after
    ]


@given(
    words_strategy,
    freqs_strategy,
    st.integers(1, 3),
    st.integers(1, 6),
    st.sets(st.sampled_from(["aa", "ab", "ba", "bc"])),
    st.one_of(st.none(), st.integers(4, 12)),
)
def test_count_top_pairs_keeps_every_pair_reaching_its_threshold(words, freqs, floor, top, refused, below):
    """The threshold is from ``floor`` to under ``below``, at least the ``top``-th count of the pairs not
    refused when that is in range, and every pair reaching it is counted exactly and indexed."""
    freqs = freqs[: len(words)]
    exact: dict[str, int] = {}
    holders: dict[str, list[int]] = {}
    for index, (word, freq) in enumerate(zip(words, freqs, strict=True)):
        for pair in map(add, word, word[1:]):
            exact[pair] = exact.get(pair, 0) + freq
            if index not in holders.setdefault(pair, []):
                holders[pair].append(index)
    threshold, counts, where = count_top_pairs(words, freqs, floor, top, refused=refused, below=below)
    assert floor <= threshold and (below is None or threshold < below)
    ranked = sorted((count for pair, count in exact.items() if pair not in refused), reverse=True)
    if len(ranked) >= top:
        wanted = ranked[top - 1] if below is None else min(ranked[top - 1], below - 1)
        assert threshold >= wanted
    assert counts == {pair: count for pair, count in exact.items() if count >= threshold}
    assert {pair: list(listed) for pair, listed in where.items()} == {pair: holders[pair] for pair in counts}
