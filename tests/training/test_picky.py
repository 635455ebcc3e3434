"""Picky BPE: the fast trainer against a naive one written from the paper, threshold >= 1 against
``bpe_core.train``, hand-made removals and restores, and encoding by replaying the events."""

from __future__ import annotations

import json
import math
from collections import Counter
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bpe_core
from bpe_core.bpe.picky_replay import PickyPieceEncoder, PickyReplay, encode_picky_piece
from bpe_core.bpe.reference import merge
from bpe_core.errors import BpeError
from bpe_core.formats import bpe_json
from bpe_core.training import picky
from bpe_core.training.counting import count_words
from bpe_core.training.picky import picky_training, train_picky
from bpe_core.training.trainer import TrainingSettings

# ---------------------------------------------------------------------------------------------------
# the naive references


def naive_picky(counts: dict[bytes, int], vocab_size: int, threshold: float, min_frequency: int, tie_break: str):
    """Picky BPE as the paper describes it, recounting everything at every step. Returns the events as
    (kind, token, parts, count, merged, ios) and why it stopped."""
    words = {word: [bytes([b]) for b in word] for word in counts}
    present = {bytes([b]) for b in range(256)}
    first_parents: dict[bytes, tuple[bytes, bytes]] = {}
    creation = {bytes([b]): b for b in range(256)}  # ids by creation, for the "rustbpe" rule
    events: list[tuple] = []

    def frequency(token: bytes) -> int:
        return sum(counts[word] * symbols.count(token) for word, symbols in words.items())

    def walk(token: bytes) -> list[bytes]:  # a removed token's parts: its first parents, absent ones split further
        if len(token) == 1 or token in present:
            return [token]
        left, right = first_parents[token]
        return walk(left) + walk(right)

    while len(present) < vocab_size:
        pairs: Counter = Counter()
        for word, symbols in words.items():
            for pair in pairwise(symbols):
                pairs[pair] += counts[word]
        candidates = [(c, p) for p, c in pairs.items() if c >= max(min_frequency, 1) and p[0] + p[1] not in present]
        if not candidates:
            below = [p for p, c in pairs.items() if 0 < c and p[0] + p[1] not in present]
            return events, "best pair count below min_frequency" if below else "no pair left to merge"
        if tie_break == "lexicographic":  # the greatest (left bytes, right bytes)
            count, (left, right) = max(candidates)
        else:  # rustbpe: the smallest pair of creation ids
            count, (left, right) = max(candidates, key=lambda cp: (cp[0], -creation[cp[1][0]], -creation[cp[1][1]]))
        token = left + right
        first_parents.setdefault(token, (left, right))
        creation.setdefault(token, len(creation))
        before = {word: len(symbols) for word, symbols in words.items()}
        words = {word: merge(symbols, (left, right), token) for word, symbols in words.items()}
        merged = sum((before[word] - len(symbols)) * counts[word] for word, symbols in words.items())
        present.add(token)
        at = len(events)
        events.append(None)
        ios: list[float | None] = []
        for parent in [left] if left == right else [left, right]:
            if len(parent) == 1:
                ios.append(None)
                continue
            # IoS(x) = f_p(x1, x2) / f_t(x): the occurrences merged over x's frequency before they were
            # taken (x's frequency now plus them; for x == y the authors' m / (f_before - m)).
            value = merged / (frequency(parent) + merged)
            ios.append(value)
            if value > threshold:
                present.discard(parent)
                parts = walk(parent)
                events.append(("remove", parent, tuple(parts), frequency(parent), merged, (value,)))
                words = {
                    word: [q for s in symbols for q in (parts if s == parent else [s])]
                    for word, symbols in words.items()
                }
        events[at] = ("merge", token, (left, right), count, merged, tuple(ios + [None] * (2 - len(ios))))
    return events, "reached vocab_size"


def naive_replay(piece: bytes, events) -> list[bytes]:
    """Encoding by replaying every event in order: a merge joins all occurrences, a removal splits them."""
    symbols = [bytes([b]) for b in piece]
    for kind, token, parts in events:
        if kind == "merge":
            symbols = merge(symbols, parts, token)
        else:
            symbols = [q for s in symbols for q in (parts if s == token else [s])]
    return symbols


def fast_picky(counts: dict[bytes, int], vocab_size: int, threshold: float, min_frequency: int, tie_break: str):
    documents = [word.decode("latin-1") for word, count in counts.items() for _ in range(count)]
    settings = TrainingSettings(vocab_size, min_frequency, None, (), tie_break)  # type: ignore[arg-type]
    return picky_training(count_words(documents, pretokenizer=settings.pretokenizer()), settings, threshold=threshold)


def as_tuples(result) -> list[tuple]:
    return [(e.kind, e.token, e.parts, e.count, e.merged, e.ios) for e in result.events]


small_corpora = st.dictionaries(
    st.text("abc", min_size=1, max_size=9).map(str.encode), st.integers(1, 7), min_size=1, max_size=8
)
thresholds = st.sampled_from([0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0])


# ---------------------------------------------------------------------------------------------------
# the fast trainer against the naive one


@given(small_corpora, st.integers(1, 16), thresholds, st.integers(1, 2), st.sampled_from(["lexicographic", "rustbpe"]))
def test_events_equal_the_naive_trainers(counts, merges, threshold, min_frequency, tie_break):
    result = fast_picky(counts, 256 + merges, threshold, min_frequency, tie_break)
    expected, stop_reason = naive_picky(counts, 256 + merges, threshold, min_frequency, tie_break)
    assert as_tuples(result) == expected
    assert result.training["stop_reason"] == stop_reason
    assert set(result.vocab.values()) == {bytes([b]) for b in range(256)} | {
        e.token for e in result.events if e.kind == "merge" and e.token in PickyReplay(result.replay_events()).present
    }


def test_the_generated_corpora_do_remove_and_restore():
    """The property above covers removals and restores: a corpus of its kind has both."""
    counts = {b"caacb": 1, b"caaabab": 2}
    result = fast_picky(counts, 256 + 12, 0.6, 1, "lexicographic")
    made = [e.token for e in result.events if e.kind == "merge"]
    assert Counter(e.kind for e in result.events)["remove"] >= 2 and len(made) > len(set(made))
    assert as_tuples(result) == naive_picky(counts, 256 + 12, 0.6, 1, "lexicographic")[0]


@pytest.mark.parametrize(
    "counts, merges, threshold, min_frequency",
    [
        # a pair whose bytes are a present token is skipped, and is a candidate again once that
        # token is removed
        (
            {b"bab": 3, b"bb": 7, b"bbaab": 2, b"aabaabaa": 6, b"abbaaaabab": 3, b"a": 1, b"aaaabba": 4, b"abb": 2},
            8,
            0.3,
            3,
        ),
        # a restored token's pairs may have been counted before its removal: they are pushed again
        ({b"adaaaacb": 7, b"ddcba": 3, b"dacb": 4, b"a": 5, b"dbaabcc": 9, b"bacbdcbaad": 6, b"aaada": 5}, 11, 0.5, 1),
    ],
)
def test_corpora_found_by_search(counts, merges, threshold, min_frequency):
    """Corpora on which a trainer missing one of these rules gives other events than the naive one."""
    expected = naive_picky(counts, 256 + merges, threshold, min_frequency, "lexicographic")[0]
    assert as_tuples(fast_picky(counts, 256 + merges, threshold, min_frequency, "lexicographic")) == expected


texts_strategy = st.lists(st.text("ab c\n", max_size=20), min_size=1, max_size=6)


@given(
    texts_strategy,
    st.integers(0, 20),
    st.sampled_from([1.0, 1.5]),
    st.integers(0, 2),
    st.sampled_from(["lexicographic", "huggingface", "rustbpe"]),
    st.sampled_from([(), ("<|x|>",)]),
)
def test_threshold_of_one_or_more_is_bpe_core_train(texts, merges, threshold, min_frequency, tie_break, specials):
    vocab_size = 256 + len(specials) + merges
    options = {"min_frequency": min_frequency, "tie_break": tie_break, "special_tokens": specials, "name": "t"}
    expected = bpe_core.train(texts, vocab_size, **options)
    got = train_picky(texts, vocab_size, threshold=threshold, **options)
    assert dict(got.vocab) == dict(expected.vocab)
    assert got.merge_records == expected.merge_records  # ids and counts
    assert got.special_tokens == expected.special_tokens
    for key in ("stop_reason", "merges_learned", "tokens_after_merge", "corpus"):
        assert got.training[key] == expected.training[key]
    assert got.training["picky"]["removals"] == 0


# ---------------------------------------------------------------------------------------------------
# hand-made examples

HUG = " hug" * 20 + " chug" + " ug" * 3  # pre-tokens " hug" x20, " chug" x1, " ug" x3


def test_a_removal_and_a_restore_by_hand():
    """ug is made from u+g (24), hug from h+ug (21): ug's IoS is 21/24 = 0.875, kept. " hug" (20)
    takes 20 of hug's 21: 20/21 > 0.9, so hug is removed and " chug" becomes " c h ug". Then " ug"
    (3), and at count 1 the greatest pair h+ug restores hug, which takes ug's last occurrence
    (IoS 1/1): ug is removed, and so on until no pair is left."""
    settings = TrainingSettings(270, 1, "gpt2")
    result = picky_training(count_words([HUG], pretokenizer=settings.pretokenizer()), settings, threshold=0.9)
    assert as_tuples(result) == [
        ("merge", b"ug", (b"u", b"g"), 24, 24, (None, None)),
        ("merge", b"hug", (b"h", b"ug"), 21, 21, (None, 21 / 24)),
        ("merge", b" hug", (b" ", b"hug"), 20, 20, (None, 20 / 21)),
        ("remove", b"hug", (b"h", b"ug"), 1, 20, (20 / 21,)),
        ("merge", b" ug", (b" ", b"ug"), 3, 3, (None, 3 / 4)),
        ("merge", b"hug", (b"h", b"ug"), 1, 1, (None, 1.0)),  # restored
        ("remove", b"ug", (b"u", b"g"), 0, 1, (1.0,)),
        ("merge", b"chug", (b"c", b"hug"), 1, 1, (None, 1.0)),
        ("remove", b"hug", (b"h", b"u", b"g"), 0, 1, (1.0,)),  # ug is gone: split down to bytes
        ("merge", b" chug", (b" ", b"chug"), 1, 1, (None, 1.0)),
        ("remove", b"chug", (b"c", b"h", b"u", b"g"), 0, 1, (1.0,)),
    ]
    assert result.training["stop_reason"] == "no pair left to merge"
    assert sorted(token for token in result.vocab.values() if len(token) > 1) == [b" chug", b" hug", b" ug"]
    assert result.training["picky"]["removals"] == 4 and result.training["picky"]["restores"] == 1
    replay = PickyReplay(result.replay_events())
    assert replay.encode(b" hugug") == [b" hug", b"u", b"g"]  # rank-order BPE would emit the removed ug
    assert replay.encode(b" hhug") == [b" ", b"h", b"h", b"u", b"g"]
    assert replay.encode(b" ugh") == [b" ug", b"h"]
    assert replay.encode(b" chug") == [b" chug"]


def test_an_intermediate_token_used_almost_only_inside_its_merge_is_removed():
    """ng is removed as soon as i+ng takes all its occurrences (IoS 30/30). ing is in " going" 29 times
    and alone once: o+ing takes 29 of its 30 (IoS 29/30 > 0.9), so ing is removed and its last
    occurrence split into i n g (ng is gone). The test is strict: a threshold of 29/30 keeps it."""
    text = " going" * 29 + " ing"
    settings = TrainingSettings(256 + 6, 1, "gpt2")
    counts = count_words([text], pretokenizer=settings.pretokenizer())
    events = picky_training(counts, settings, threshold=0.9).events
    assert [(e.kind, e.token) for e in events[:5]] == [
        ("merge", b"ng"),
        ("merge", b"ing"),
        ("remove", b"ng"),
        ("merge", b"oing"),
        ("remove", b"ing"),
    ]
    assert (events[4].parts, events[4].count, events[4].ios) == ((b"i", b"n", b"g"), 1, (29 / 30,))
    kept = picky_training(counts, settings, threshold=29 / 30).events
    assert events[3].ios == kept[3].ios == (None, 29 / 30) and kept[4].kind == "merge"


def test_the_vocabulary_counts_present_tokens():
    settings = TrainingSettings(256 + 3, 1, "gpt2")
    result = picky_training(count_words([HUG], pretokenizer=settings.pretokenizer()), settings, threshold=0.9)
    assert len(result.vocab) == 256 + 3 and result.training["stop_reason"] == "reached vocab_size"
    assert [e.kind for e in result.events] == ["merge", "merge", "merge", "remove", "merge"]
    assert sorted(result.vocab) == list(range(259))  # ids without gaps


def test_cycling_restores_stop_training(monkeypatch):
    monkeypatch.setattr(picky, "MAX_RESTORES", 0)
    settings = TrainingSettings(270, 1, "gpt2")
    result = picky_training(count_words([HUG], pretokenizer=settings.pretokenizer()), settings, threshold=0.9)
    assert result.training["stop_reason"] == picky.STOP_CYCLE
    assert [e.kind for e in result.events][-1] == "merge" and len(result.events) == 5  # stopped before the restore


# ---------------------------------------------------------------------------------------------------
# metadata and the Tokenizer


def test_the_events_are_in_the_metadata_with_ids():
    settings = TrainingSettings(270, 1, "gpt2")
    result = picky_training(count_words([HUG], pretokenizer=settings.pretokenizer()), settings, threshold=0.9)
    summary, rows = result.training["picky"], result.training["picky_events"]
    ids = {**result.vocab, **{entry["id"]: entry["text"].encode() for entry in summary["removed_tokens"]}}
    assert sorted(ids) == list(range(len(ids)))  # removed tokens numbered after the vocab
    by_ids = [(kind, ids[token], tuple(ids[p] for p in parts)) for _, kind, token, parts, *_ in rows]
    assert by_ids == result.replay_events()
    assert [row[0] for row in rows] == list(range(len(rows)))
    json.loads(json.dumps(result.training))
    assert bpe_json._read_training(result.training) == result.training  # a bpe_core file can hold it


def test_a_tokenizer_with_removals_encodes_like_the_replay():
    tokenizer = train_picky([HUG], 270, threshold=0.9, min_frequency=1)
    replay = PickyReplay(tokenizer.picky_events)
    settings = TrainingSettings(270, 1)
    counts = count_words([HUG], pretokenizer=settings.pretokenizer())
    assert tokenizer.rule == "picky"
    assert tokenizer.picky_events == picky_training(counts, settings, threshold=0.9).replay_events()
    for piece in (b" hugug", b" chug", b" hhug", b" ugh", b" ug"):
        assert [tokenizer.vocab[i] for i in tokenizer.encode(piece.decode())] == replay.encode(piece)


def test_bad_settings():
    with pytest.raises(TypeError):
        train_picky("ab", 300, threshold="0.9")  # type: ignore[arg-type]
    for threshold in (0, -1, math.nan):
        with pytest.raises(BpeError, match="threshold"):
            train_picky("ab", 300, threshold=threshold)
    with pytest.raises(BpeError, match="first"):
        train_picky("ab", 300, tie_break="first")
    with pytest.raises(BpeError, match="vocab_size"):
        train_picky("ab", 10)


def test_progress_reports_counting_and_merging():
    calls = []
    train_picky("ab ab ab", 258, threshold=1.0, min_frequency=1, progress=lambda *a: calls.append(a))
    assert calls[0][0] == "count" and calls[-1] == ("merge", 2, 2)


# ---------------------------------------------------------------------------------------------------
# encoding by replay


@given(small_corpora, st.integers(1, 16), thresholds, st.lists(st.text("abc", max_size=12).map(str.encode), max_size=5))
def test_replay_equals_the_naive_replay(counts, merges, threshold, pieces):
    result = fast_picky(counts, 256 + merges, threshold, 1, "lexicographic")
    events = result.replay_events()
    replay = PickyReplay(events)
    encoder = PickyPieceEncoder(replay, {token: i for i, token in result.vocab.items()})
    for piece in [*pieces, *counts]:
        tokens = encode_picky_piece(piece, replay)
        assert tokens == naive_replay(piece, events)
        assert set(tokens) <= replay.present == set(result.vocab.values())  # only present tokens come out
        assert [result.vocab[i] for i in encoder.encode(piece)] == tokens


def test_without_removals_replay_is_rank_order_bpe():
    tokenizer = train_picky([HUG, " hugs chugged ugh"], 262, threshold=1.0, min_frequency=1)
    events = [("merge", left + right, (left, right)) for left, right in tokenizer.merges]
    for piece in (b" hugug", b" chugs", b"ughug"):
        assert [tokenizer.vocab[i] for i in tokenizer.encode(piece.decode())] == encode_picky_piece(piece, events)


def test_a_present_token_may_not_encode_to_itself():
    """Replay is the definition, and a piece equal to a present token may still be split: bbaa is made
    at event 16 from b + baa in words that hold baa then, but the piece bbaa alone is b b aa at that
    point (its baa was removed at event 9 and is restored only at event 18), so it ends as b + baa.
    Only the tokens that replay to themselves may be looked up whole (the reference's encoder looks
    every present token up whole)."""
    counts = {b"aaa": 2, b"aa": 4, b"baa": 7, b"abbab": 3, b"baabba": 7, b"abbbbbaa": 5}
    result = fast_picky(counts, 261, 0.3, 1, "lexicographic")
    replay = PickyReplay(result.replay_events())
    assert b"bbaa" in replay.present and replay.encode(b"bbaa") == [b"b", b"baa"]
    encoder = PickyPieceEncoder(replay, {t: i for i, t in result.vocab.items()})
    assert set(encoder.self_encoding()) == set(result.vocab.values()) - {b"bbaa"}


@pytest.mark.parametrize(
    "events, message",
    [
        ([("merge", b"ab", (b"a", b"b")), ("merge", b"ab", (b"a", b"b"))], "present already"),
        ([("remove", b"ab", (b"a", b"b"))], "no merged token present"),
        ([("merge", b"abc", (b"ab", b"c"))], "not present"),
        ([("merge", b"ab", (b"a", b"c"))], "do not make"),
        ([("split", b"ab", (b"a", b"b"))], "kind"),
        ([("merge", "ab", ("a", "b"))], "non-empty bytes"),
        ([("merge", b"ab")], "must be"),
    ],
)
def test_bad_events_are_refused(events, message):
    with pytest.raises(BpeError, match=message):
        PickyReplay(events)
