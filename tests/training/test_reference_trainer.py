"""The readable trainer (``training._educational``) gives exactly ``bpe_core.train``'s merges under every
tie rule, on random small corpora (GPT-2's pattern, none, a custom one; long raw streams for the
first-seen rule's kept labels); its choice of pair skips pairs whose bytes already are a token; the
step-by-step trace is its steps."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bpe_core
from bpe_core.training._educational import choose_pair, rank_pairs, symbols_of, trace_training, train_reference
from bpe_core.training.engine import STOP_MIN_FREQUENCY, STOP_NO_PAIRS
from bpe_core.training.tie_rules import LONG_WORD, TIE_BREAKS

BYTES = {bytes([byte]): byte for byte in range(256)}
# Small alphabets make ties, runs ("aaaa") and repeated words common; "é" is two bytes.
corpora = st.lists(st.text(alphabet="aab b\n\té!x", max_size=20), min_size=1, max_size=6)


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
@given(
    corpus=corpora,
    merges=st.integers(0, 30),
    min_frequency=st.integers(0, 3),
    pattern=st.sampled_from(["gpt2", None, r"[ab]+|é+"]),
)
def test_the_readable_trainer_gives_the_fast_trainers_merges(tie_break, corpus, merges, min_frequency, pattern):
    settings = {"pattern": pattern, "min_frequency": min_frequency, "tie_break": tie_break}
    expected = bpe_core.train(corpus, 256 + merges, **settings).merges
    assert train_reference(corpus, 256 + merges, **settings) == expected


@pytest.mark.parametrize("tie_break", ["first", "lexicographic"])
@given(
    documents=st.lists(st.text(alphabet="aabcde", min_size=LONG_WORD, max_size=3 * LONG_WORD), min_size=1, max_size=3),
    merges=st.integers(0, 80),
)
def test_long_raw_streams_give_the_fast_trainers_merges(tie_break, documents, merges):
    # Words of LONG_WORD symbols and more keep first-seen labels across merges in the fast loop.
    expected = bpe_core.train(documents, 256 + merges, pattern=None, min_frequency=1, tie_break=tie_break).merges
    assert train_reference(documents, 256 + merges, pattern=None, min_frequency=1, tie_break=tie_break) == expected


@pytest.mark.parametrize("tie_break", ["first", "lexicographic"])
def test_the_seed_worked_example(tie_break):
    merges = train_reference(["ab ab ab ab", "abc abc"], 259, min_frequency=1, tie_break=tie_break)
    assert merges == [(b"a", b"b"), (b" ", b"ab"), (b"ab", b"c")]


def test_one_string_is_one_document_and_min_frequency_stops_training():
    assert train_reference("aaaa " * 100, 258) == [(b"a", b"a"), (b"aa", b"aa")]
    assert train_reference("ab cd ab", 300, min_frequency=2) == [(b"a", b"b")]


def test_unknown_tie_rule_is_refused():
    with pytest.raises(bpe_core.BpeError, match="rustbpe"):
        train_reference(["ab"], 300, tie_break="smallest")


def test_a_pair_whose_bytes_are_a_token_is_skipped_for_good():
    vocab = {**BYTES, b"ab": 256}
    vocab[b"abc"] = 257  # made earlier as (ab, c)
    skipped: set = set()
    choice = choose_pair({(b"a", b"bc"): 5, (b"x", b"y"): 2}, "first", vocab, skipped, 1)
    assert (choice.pair, choice.count, skipped) == ((b"x", b"y"), 2, {(b"a", b"bc")})
    assert choice.ranked == [((b"x", b"y"), 2)]
    # Skipped pairs stay out of later rankings; below min_frequency, training stops.
    again = choose_pair({(b"a", b"bc"): 5, (b"x", b"y"): 2}, "first", vocab, skipped, 3)
    assert (again.pair, again.stop_reason, again.ranked) == (None, STOP_MIN_FREQUENCY, [((b"x", b"y"), 2)])
    assert choose_pair({(b"a", b"bc"): 5}, "first", vocab, skipped, 1).stop_reason == STOP_NO_PAIRS


def test_each_rule_ranks_its_own_pair_first():
    counts = {(b"x", b"y"): 1, (b"y", b" "): 1, (b" ", b"!"): 1, (b"!", b"a"): 1}
    best = {rule: rank_pairs(counts, rule, BYTES)[0][0] for rule in TIE_BREAKS}
    assert best == {
        "first": (b"x", b"y"),
        "lexicographic": (b"y", b" "),
        "rustbpe": (b" ", b"!"),
        "huggingface": (b"!", b"a"),
    }
    # A merged token ranks by its id (by creation) under the id rules.
    made = {**BYTES, b"zz": 256}
    assert rank_pairs({(b"zz", b"a"): 1, (b"b", b"a"): 1}, "rustbpe", made)[0][0] == (b"b", b"a")


def test_lone_surrogates_become_the_replacement_character():
    assert symbols_of("a\ud800") == (b"a", b"\xef", b"\xbf", b"\xbd")


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
@given(corpus=corpora, merges=st.integers(0, 20), min_frequency=st.integers(1, 3))
def test_the_trace_makes_the_readable_trainers_merges(tie_break, corpus, merges, min_frequency):
    traced = trace_training(corpus, merges, tie_break=tie_break, min_frequency=min_frequency)
    assert traced.merges == train_reference(corpus, 256 + merges, min_frequency=min_frequency, tie_break=tie_break)
    if len(traced.steps) < merges:
        assert traced.stop_reason in (STOP_NO_PAIRS, STOP_MIN_FREQUENCY)
