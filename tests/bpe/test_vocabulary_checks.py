"""The checks of a tokenizer's parts (bpe.vocabulary) taken column by column agree with the checks
taken entry by entry: the same result for sound parts, and for faulty ones the column check defers
to the entry check, which names the first faulty entry."""

from __future__ import annotations

import gc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.bpe import vocabulary
from bpe_core.bpe.model import gc_paused
from bpe_core.errors import BpeError

BYTES = {bytes([b]): b for b in range(256)}
PARTS = [b"a", b"b", b"c", b"ab", b"bc", b"abc", b"ca", b"", b"zz"]


@st.composite
def merge_lists(draw):
    """Merge lists over a few tokens, often sound, sometimes with a repeat, an unknown part, a part made
    only later, an empty part, a non-pair or a str instead of bytes."""
    merges = [(draw(st.sampled_from(PARTS)), draw(st.sampled_from(PARTS))) for _ in range(draw(st.integers(0, 6)))]
    if merges and draw(st.booleans()):
        fault = draw(st.sampled_from(["str", "triple", "list"]))
        at = draw(st.integers(0, len(merges) - 1))
        left, right = merges[at]
        merges[at] = {"str": (left.decode(), right), "triple": (left, right, left), "list": [left, right]}[fault]
    return merges


def token_ids(merges) -> dict[bytes, int]:
    """Every single byte, and the result of each sound-looking merge (so that many lists pass)."""
    ids = dict(BYTES)
    for entry in merges:
        if isinstance(entry, (tuple, list)) and len(entry) == 2 and all(isinstance(p, bytes) for p in entry):
            ids.setdefault(entry[0] + entry[1], len(ids))
    return ids


@settings(max_examples=400, deadline=None)
@given(merge_lists())
def test_merges_checked_at_once_agree_with_one_by_one(merges):
    token_to_id = token_ids(merges)
    at_once = vocabulary._rank_merges_at_once(merges, token_to_id)
    try:
        one_by_one = vocabulary._rank_merges_one_by_one(merges, token_to_id)
    except (BpeError, TypeError):
        assert at_once is None, merges  # a faulty list is never passed by the column check
        with pytest.raises((BpeError, TypeError)):
            vocabulary.rank_merges(merges, token_to_id)
        return
    if at_once is not None:
        assert at_once == one_by_one
    assert vocabulary.rank_merges(merges, token_to_id) == one_by_one


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.integers(-2, 300), st.one_of(st.binary(max_size=3), st.text(max_size=1)), max_size=12),
    st.booleans(),
    st.sets(st.integers(0, 300), max_size=3),
)
def test_vocab_checks_agree_with_the_entry_by_entry_ones(extra, with_bytes, special_ids):
    vocab = ({b: bytes([b]) for b in range(256)} if with_bytes else {}) | extra
    try:
        checked = vocabulary.check_vocab(vocab)
    except (BpeError, TypeError):
        assert any(not isinstance(v, bytes) or not 0 <= k for k, v in vocab.items())
        return
    assert checked == vocab
    try:
        indexed = vocabulary.index_tokens(checked, special_ids)
    except BpeError:
        kept = [t for i, t in checked.items() if i not in special_ids]
        assert len(set(kept)) < len(kept) or b"" in kept or not all(bytes([b]) in kept for b in range(256))
        return
    assert indexed == {checked[i]: i for i in sorted(checked) if i not in special_ids}
    assert list(indexed.values()) == sorted(indexed.values())


def test_the_first_faulty_merge_is_named():
    ids = BYTES | {b"ab": 256, b"abc": 257}
    with pytest.raises(BpeError, match=r"merge 1 \(b'ab', b'c'\) repeats merge 0|merge 2"):
        vocabulary.rank_merges([(b"a", b"b"), (b"ab", b"c"), (b"ab", b"c")], ids)
    with pytest.raises(BpeError, match=r"merge 0 \(b'ab', b'c'\) uses b'ab'"):
        vocabulary.rank_merges([(b"ab", b"c"), (b"a", b"b")], ids)


def test_the_collector_pause_restores_its_state():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # off before: stays off
    finally:
        gc.enable()
