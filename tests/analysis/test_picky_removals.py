"""Picky BPE's removals read back from a tokenizer: each removal's triggering merge, its parts and its
IoS against the events the trainer recorded, a saved file giving the same, and nothing for other rules."""

from __future__ import annotations

import pytest

import bpe_core
from bpe_core.analysis.picky_removals import merge_steps, picky_removals, removed_tokens
from bpe_core.training.picky import train_picky

TEXT = ["the then there the then; other others mother"] * 3 + ["abcd abcd abcd cd, bcd bcd"] * 2


@pytest.fixture(scope="module")
def picky():
    return train_picky(TEXT, 300, threshold=0.6, min_frequency=1, pattern=None)


def test_each_removal_is_an_event_after_the_merge_that_checked_it(picky):
    removals = picky_removals(picky)
    events = picky.picky_events
    assert picky.rule == "picky" and removals
    merge_indexes = [i for i, (kind, _, _) in enumerate(events) if kind == "merge"]
    for removal in removals:
        kind, token, parts = events[removal.event]
        assert (kind, token, parts) == ("remove", removal.token, removal.parts)
        trigger = merge_indexes[removal.merge_step]
        assert trigger < removal.event and all(kind == "remove" for kind, _, _ in events[trigger + 1 : removal.event])
        assert removal.token in events[trigger][2]  # a parent of the merge whose check removed it
        assert removal.ios is not None and removal.ios > 0.6 and removal.frequency is not None
        assert b"".join(removal.parts) == removal.token


def test_restored_and_removed_tokens_follow_the_final_vocabulary(picky):
    vocabulary = set(picky.vocab.values())
    for removal in picky_removals(picky):
        assert removal.restored == (removal.token in vocabulary)
    gone = removed_tokens(picky)
    assert gone and not set(gone) & vocabulary
    steps = merge_steps(picky)
    assert set(steps) == {token for token in vocabulary if len(token) > 1}
    assert sorted(steps.values()) == sorted(set(steps.values()))  # one merge step per present token


def test_a_saved_tokenizer_gives_the_same_removals(picky, tmp_path):
    path = tmp_path / "picky.json"
    picky.save(path)
    assert picky_removals(bpe_core.load(str(path))) == picky_removals(picky)


def test_without_the_training_record_the_removals_have_no_ios(picky):
    bare = bpe_core.Tokenizer.from_json(picky.to_json())
    bare.training = {}
    removals = picky_removals(bare)
    assert [r.token for r in removals] == [r.token for r in picky_removals(picky)]
    assert all(r.ios is None and r.frequency is None for r in removals)


def test_other_tokenizers_have_no_removals():
    plain = bpe_core.train(TEXT, 280, min_frequency=1)
    no_removal = train_picky(TEXT, 280, threshold=1.0, min_frequency=1)  # 1 never removes: plain BPE
    for tokenizer in (plain, no_removal):
        assert picky_removals(tokenizer) == [] and removed_tokens(tokenizer) == {} and merge_steps(tokenizer) == {}
