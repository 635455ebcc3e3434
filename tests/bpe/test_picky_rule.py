"""The Tokenizer's Picky BPE rule (``rule="picky"``): it encodes exactly as replaying the training
events piece by piece, emits only present tokens, round-trips, keeps to bpe_core's own engine, and
refuses the views of ranked merges and parts that do not fit together."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bpe_core import Tokenizer
from bpe_core.bpe.picky_replay import PickyReplay
from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.training.picky import train_picky

HUG = " hug" * 20 + " chug" + " ug" * 3

corpora = st.lists(st.text("abc h\n", min_size=1, max_size=24), min_size=1, max_size=6)
held_out = st.text("abcdh \n", max_size=40)


@pytest.fixture(scope="module")
def hug() -> Tokenizer:
    return train_picky([HUG], 270, threshold=0.9, min_frequency=1)


def replayed(tokenizer: Tokenizer, text: str) -> list[bytes]:
    """The definition: each pre-token's bytes with every event replayed in order."""
    events = tokenizer.picky_events or [("merge", a + b, (a, b)) for a, b in tokenizer.merges]  # no removal: BPE
    replay = PickyReplay(events)
    pieces = PreTokenizer.build(tokenizer.pattern).pieces(text)
    return [token for piece in pieces for token in replay.encode(piece.encode())]


def test_the_worked_example_encodes_by_replay(hug):
    assert hug.rule == "picky" and hug.training["picky"]["removals"] == 4
    cases = {
        " hugug": [b" hug", b"u", b"g"],
        " chug": [b" chug"],
        " hhug": [b" ", b"h", b"h", b"u", b"g"],
        " ugh": [b" ug", b"h"],
    }
    for text, tokens in cases.items():
        assert [hug.vocab[i] for i in hug.encode(text)] == tokens == replayed(hug, text)


@given(corpora, st.integers(1, 14), st.sampled_from([0.3, 0.6, 0.9]), st.lists(held_out, max_size=4))
@example(["caacb caaabab caaabab"], 12, 0.6, ["caab abac"])  # 8 removals
def test_encoding_equals_the_replay_of_the_events(texts, merges, threshold, samples):
    tokenizer = train_picky(texts, 256 + merges, threshold=threshold, min_frequency=1)
    present = {tokenizer.vocab[i] for i in tokenizer.vocab}
    for text in [*samples, *texts]:
        ids = tokenizer.encode_ordinary(text)
        tokens = [tokenizer.vocab[i] for i in ids]
        assert tokens == replayed(tokenizer, text)
        assert set(tokens) <= present  # only present tokens come out
        assert tokenizer.decode(ids) == text


def test_batches_and_worker_copies_encode_alike(hug):
    texts = [HUG, " hugug chug ugh", ""] * 50
    expected = [hug.encode_ordinary(t) for t in texts]
    assert hug.encode_ordinary_batch(texts) == expected == hug.encode_ordinary_batch(texts, workers=2)
    assert pickle.loads(pickle.dumps(hug)).encode_ordinary(" hugug") == hug.encode_ordinary(" hugug")


def test_only_bpe_cores_engine_encodes(hug):
    assert hug.engine == "python" and hug.build_engine() == "python"
    for engine in ("tiktoken", "tiktoken-bpe"):
        with pytest.raises(BpeError, match="replaying"):
            hug.encode_ordinary(" hug", engine=engine)
    assert hug.encode_ordinary(" hug", engine="python") == hug.encode_ordinary(" hug", engine="auto")
    with pytest.raises(BpeError, match="replaying"):
        hug.to_tiktoken()


def test_the_views_of_ranked_merges_are_refused(hug):
    assert len(hug.merges) == sum(kind == "merge" for kind, _, _ in hug.picky_events) == 7
    for view in (
        lambda: hug.merge_records,
        lambda: hug.merge_rank_of(256),
        lambda: hug.truncated(2),
        lambda: hug._applied_merge_ranks(b" hug"),
    ):
        with pytest.raises(BpeError, match="events, not ranked merges"):
            view()
    assert "[␣][chug] -> [␣chug]" in hug.vocab_dump()


def test_without_removals_the_tokenizer_is_plain_bpe():
    plain = train_picky([HUG], 260, threshold=1.0, min_frequency=1)
    assert plain.rule == "bpe" and plain.picky_events == []


def test_parts_that_do_not_fit_are_refused(hug):
    vocab, events = dict(hug.vocab), hug.picky_events
    removed_hug = {**vocab, max(vocab) + 1: b"hug"}
    with pytest.raises(BpeError, match="leave removed or never make"):
        Tokenizer(removed_hug, [], rule="picky", events=events)
    without_ug = {i: t for i, t in vocab.items() if t != b" ug"}
    with pytest.raises(BpeError, match="the vocab lacks"):
        Tokenizer(without_ug, [], rule="picky", events=events)
    with pytest.raises(BpeError, match="rule='picky'"):
        Tokenizer(vocab, [], events=events)
    with pytest.raises(BpeError, match="rule='picky'"):
        Tokenizer(vocab, [], rule="picky")
    with pytest.raises(BpeError, match="merges=\\[\\]"):
        Tokenizer(vocab, [(b" ", b"hug")], rule="picky", events=events)
    with pytest.raises(BpeError, match="merge_counts"):
        Tokenizer(vocab, [], rule="picky", events=events, merge_counts=[])
    with pytest.raises(BpeError, match="rule must be"):
        Tokenizer({b: bytes([b]) for b in range(256)}, [], rule="greedy")
