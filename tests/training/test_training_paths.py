"""The one merge loop (words as id strings, local pair updates) against a naive loop that recounts
every pair at every step, against the naive trainer, and its stop reasons."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from naive_bpe import naive_learn_merges, naive_train

import bpe_core
from bpe_core.training import engine
from bpe_core.training.engine import STOP_MIN_FREQUENCY, STOP_NO_PAIRS
from bpe_core.training.pairs import id_string

word_lists = st.lists(st.text(alphabet="aabbc", min_size=0, max_size=14), min_size=1, max_size=12)


@pytest.mark.parametrize("tie_break", ["first", "lexicographic"])
@given(
    words=word_lists,
    freqs=st.lists(st.integers(1, 4), min_size=12, max_size=12),
    num_merges=st.integers(0, 30),
    min_frequency=st.integers(0, 5),
)
def test_merge_loop_equals_the_naive_loop(words, freqs, num_merges, min_frequency, tie_break):
    freqs = freqs[: len(words)]
    id_lists = [list(w.encode()) for w in words]
    settings = dict(next_id=256, num_merges=num_merges, min_frequency=min_frequency, tie_break=tie_break)
    expected = naive_learn_merges(id_lists, freqs, {i: bytes([i]) for i in range(256)}, **settings)
    strings = [id_string(ids) for ids in id_lists]
    byte_tokens = {i: bytes([i]) for i in range(256)}
    merges, reason = engine.learn_merges(strings, freqs, token_bytes=byte_tokens, **settings)
    got = [(m.left, m.right, m.id, m.count, m.tokens_after) for m in merges]
    assert (got, reason, strings) == (expected[0], expected[1], [id_string(w) for w in expected[2]])


@pytest.mark.parametrize("tie_break", ["first", "lexicographic"])
@given(
    corpus=st.lists(st.text(alphabet="ab ab\n\t.x", max_size=25), min_size=1, max_size=6),
    merges=st.integers(0, 40),
    min_frequency=st.integers(1, 4),
)
def test_runs_and_overlaps_match_the_naive_trainer(corpus, merges, min_frequency, tie_break):
    expected = naive_train(corpus, merges, tie_break=tie_break, min_frequency=min_frequency)
    tok = bpe_core.train(corpus, 256 + merges, min_frequency=min_frequency, tie_break=tie_break)
    assert tok.merges == expected


def test_stop_reasons():
    # Only count-1 pairs: the threshold keeps them out of the heap, yet the reason is min_frequency.
    tok = bpe_core.train("abcdefg", 300, min_frequency=2)
    assert tok.merges == [] and tok.training["stop_reason"] == STOP_MIN_FREQUENCY
    tok = bpe_core.train("ab ab", 300, min_frequency=2)
    assert tok.training["stop_reason"] == STOP_MIN_FREQUENCY
    tok = bpe_core.train("ab ab", 300, min_frequency=1)
    assert tok.training["stop_reason"] == STOP_NO_PAIRS
    tok = bpe_core.train("a", 300, min_frequency=2)
    assert tok.training["stop_reason"] == STOP_NO_PAIRS


def test_vocab_sizes_beyond_the_character_range_are_refused():
    with pytest.raises(ValueError, match="too large"):
        bpe_core.train("ab", engine.MAX_VOCAB_SIZE + 1)


def test_learn_merges_writes_the_merged_words_back():
    token_bytes = {i: bytes([i]) for i in range(256)}
    words = [id_string(b"aaaa"), id_string(b"aab")]
    engine.learn_merges(
        words, [3, 1], token_bytes=token_bytes, next_id=256, num_merges=1, min_frequency=1, tie_break="lexicographic"
    )
    assert words == [id_string([256, 256]), id_string([256, 98])]
