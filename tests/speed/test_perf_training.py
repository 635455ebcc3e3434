"""The fast merge loop (words as strings, local pair updates) against the general list-based loop,
the naive trainer, and the stop reasons."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bpe_core
from bpe_core import training as training_module
from naive_bpe import naive_train

word_lists = st.lists(st.text(alphabet="aabbc", min_size=0, max_size=14), min_size=1, max_size=12)


def _both(words, freqs, num_merges, min_frequency, tie_break):
    results = []
    for learn in (training_module._learn_merges_lists, training_module.learn_merges):
        token_bytes = {i: bytes([i]) for i in range(256)}
        lists = [list(w.encode()) for w in words]
        merges, reason = learn(
            lists, list(freqs), token_bytes=token_bytes, next_id=256, num_merges=num_merges,
            min_frequency=min_frequency, tie_break=tie_break,
        )
        results.append(([(m.left, m.right, m.id, m.count, m.tokens_after) for m in merges], reason, lists))
    return results


@pytest.mark.parametrize("tie_break", ["first", "lexicographic"])
@given(
    words=word_lists,
    freqs=st.lists(st.integers(1, 4), min_size=12, max_size=12),
    num_merges=st.integers(0, 30),
    min_frequency=st.integers(0, 5),
)
def test_string_loop_equals_list_loop(words, freqs, num_merges, min_frequency, tie_break):
    fast, general = _both(words, freqs[: len(words)], num_merges, min_frequency, tie_break)
    assert fast == general  # merges, counts, token totals, stop reason and the merged words


@pytest.mark.parametrize("tie_break", ["first", "lexicographic"])
@given(corpus=st.lists(st.text(alphabet="ab ab\n\t.x", max_size=25), min_size=1, max_size=6),
       merges=st.integers(0, 40), min_frequency=st.integers(1, 4))
def test_runs_and_overlaps_match_the_naive_trainer(corpus, merges, min_frequency, tie_break):
    expected = naive_train(corpus, merges, tie_break=tie_break, min_frequency=min_frequency)
    tok = bpe_core.train(corpus, 256 + merges, min_frequency=min_frequency, tie_break=tie_break)
    assert tok.merges == expected


def test_stop_reasons():
    # Only count-1 pairs: the threshold keeps them out of the heap, yet the reason is min_frequency.
    tok = bpe_core.train("abcdefg", 300, min_frequency=2)
    assert tok.merges == [] and tok.training["stop_reason"] == training_module.STOP_MIN_FREQUENCY
    tok = bpe_core.train("ab ab", 300, min_frequency=2)
    assert tok.training["stop_reason"] == training_module.STOP_MIN_FREQUENCY
    tok = bpe_core.train("ab ab", 300, min_frequency=1)
    assert tok.training["stop_reason"] == training_module.STOP_NO_PAIRS
    tok = bpe_core.train("a", 300, min_frequency=2)
    assert tok.training["stop_reason"] == training_module.STOP_NO_PAIRS


def test_ids_beyond_the_character_range_use_the_list_loop():
    big = 0x110000
    token_bytes = {i: bytes([i]) for i in range(256)}
    token_bytes[big] = b"zz"
    words = [[97, big, 97, big], [97, big]]
    merges, reason = training_module.learn_merges(
        words, [1, 1], token_bytes=token_bytes, next_id=big + 1, num_merges=3, min_frequency=1,
        tie_break="lexicographic",
    )
    assert [(m.left, m.right) for m in merges][0] == (97, big)
    assert token_bytes[big + 1] == b"azz"
    assert words[1] == [big + 1]


def test_learn_merges_writes_the_merged_words_back():
    token_bytes = {i: bytes([i]) for i in range(256)}
    words = [list(b"aaaa"), list(b"aab")]
    training_module.learn_merges(
        words, [3, 1], token_bytes=token_bytes, next_id=256, num_merges=1, min_frequency=1,
        tie_break="lexicographic",
    )
    assert words == [[256, 256], [256, 98]]
