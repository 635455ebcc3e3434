"""The merge engine: learn_merges pauses the cyclic garbage collector while it runs and always leaves
it as it found it (enabled or disabled, after a normal return and after an error raised from inside the
loop); a run cancelled goes on to the same merges; a start from a tokenizer's merges continues training
exactly; refused pairs are skipped as a naive trainer skips them; only the engine keeps a heap."""

import gc
from array import array
from pathlib import Path
from unittest import mock

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_core
from bpe_core.bpe.reference import merge
from bpe_core.errors import BpeError
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.training.counting import count_words
from bpe_core.training.engine import STOP_CANCELLED, STOP_VOCAB_SIZE, MergeRun, learn_merges
from bpe_core.training.pairs import id_string, merge_pair_in_words
from bpe_core.training.picky import train_picky
from bpe_core.training.start import Start


def _learn(progress=None):
    words = [id_string(b"abab"), id_string(b"abc"), id_string(b"bcd")]
    return learn_merges(
        words,
        [3, 2, 1],
        token_bytes={i: bytes([i]) for i in range(256)},
        next_id=256,
        num_merges=3,
        min_frequency=1,
        tie_break="lexicographic",
        progress=progress,
    )


@pytest.fixture
def restore_gc():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_paused_during_the_loop_and_enabled_after(restore_gc):
    gc.enable()
    seen = []
    merges, _ = _learn(lambda phase, done, total: seen.append(gc.isenabled()))
    assert len(merges) == 3 and seen and not any(seen)
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled(restore_gc):
    gc.disable()
    _learn()
    assert not gc.isenabled()


def test_an_error_inside_the_loop_still_restores_the_collector(restore_gc):
    gc.enable()

    def stop(phase, done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _learn(stop)
    assert gc.isenabled()


def test_merging_a_pair_skips_words_that_lost_it():
    words = ["abab", "xy", "cab"]
    counts = {"ab": 3, "ba": 1, "xy": 1, "ca": 1}
    where = {"ab": [0, 2], "ba": [0], "xy": [1], "ca": [2]}
    replaced, created = merge_pair_in_words("ab", "Z", [0, 1, 2], words, [1, 1, 1], counts, where)
    assert words == ["ZZ", "xy", "cZ"]
    assert replaced == 3 and created == ["ZZ", "cZ"]
    assert counts == {"ab": 3, "ba": 0, "xy": 1, "ca": 0, "ZZ": 1, "cZ": 1}
    assert where["ZZ"] == [0] and where["cZ"] == [2]


# ---------------------------------------------------------------------------------------------------
# the engine's entry points: cancelling and going on, a start from a tokenizer, refusing pairs


@pytest.fixture(scope="module")
def corpus_counts():
    texts = [
        "the cat sat on the mat. " * 6,
        "a rat, a cat and a hat: that is all that.\n" * 4,
        "thé ça 12345 that, Привет мир, привет всем; the other mats are flat.\n" * 3,
    ]
    return texts, count_words(texts, pretokenizer=PreTokenizer.build("gpt2"))


def test_a_cancelled_run_stops_consistent_and_goes_on_to_the_same_merges(corpus_counts):
    _, counts = corpus_counts
    whole = MergeRun(Start.from_counts(counts.counts), min_frequency=1)
    assert whole.run(60) == STOP_VOCAB_SIZE
    asked = []
    run = MergeRun(Start.from_counts(counts.counts), min_frequency=1)
    assert run.run(60, cancel=lambda: asked.append(1) or len(run.merges) == 25) == STOP_CANCELLED
    assert len(run.merges) == 25 and len(asked) == 26  # checked before each merge
    assert run.merges == whole.merges[:25]
    assert run.run(60) == STOP_VOCAB_SIZE
    assert run.merges == whole.merges and run.words == whole.words and run.total_tokens == whole.total_tokens


@pytest.mark.parametrize("tie_break", ["lexicographic", "first", "huggingface", "rustbpe"])
@given(first=st.integers(0, 30), more=st.integers(0, 30))
@settings(max_examples=25, deadline=None)
def test_continuing_from_a_tokenizers_merges_equals_training_on(corpus_counts, tie_break, first, more):
    """BPE from the first merges of a tokenizer trained on the same pre-tokens goes on as training
    would have: the same merges after them, under every tie rule."""
    texts, counts = corpus_counts
    whole = bpe_core.train(texts, 256 + first + more, min_frequency=1, tie_break=tie_break)
    base = whole.truncated(min(first, len(whole.merges)))
    start = Start.from_tokenizer(base, counts.counts)
    run = MergeRun(start, tie_break=tie_break, min_frequency=1)
    run.run(len(whole.merges) - len(base.merges))
    vocab, merges = start.extended([(m.left, m.right, m.id) for m in run.merges])
    assert merges == whole.merges
    assert vocab == {**base.vocab, **{i: whole.vocab[i] for i in whole.vocab if i not in base.vocab}}


def latin_only(token: bytes) -> bool:
    """The refusal "only tokens of the Latin script": a token whose letters are not all Latin."""
    text = token.decode("utf-8", "ignore")
    return any(char.isalpha() and not regex.match(r"\p{Script=Latin}", char) for char in text)


def naive_refusing(words: dict[tuple[bytes, ...], int], num: int, refuse) -> list[tuple[bytes, bytes]]:
    """BPE recounted at every step, ties to the greatest pair of bytes; a pair whose token exists or is
    refused is skipped for good."""
    vocab = {bytes([b]) for b in range(256)}
    skipped, merges = set(), []
    while len(merges) < num:
        counts: dict = {}
        for word, freq in words.items():
            for pair in zip(word, word[1:], strict=False):
                if pair not in skipped:
                    counts[pair] = counts.get(pair, 0) + freq
        ranked = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
        best = None
        for pair, _ in ranked:
            if pair[0] + pair[1] in vocab or refuse(pair[0] + pair[1]):
                skipped.add(pair)
            else:
                best = pair
                break
        if best is None:
            return merges
        vocab.add(best[0] + best[1])
        merges.append(best)
        words = {tuple(merge(list(word), best, best[0] + best[1])): freq for word, freq in words.items()}
    return merges


@given(st.lists(st.text("abcαβγ фы ", min_size=1, max_size=12), min_size=1, max_size=6), st.integers(0, 20))
@settings(max_examples=60, deadline=None)
def test_refused_pairs_are_skipped_for_good_as_a_naive_trainer_does(texts, num):
    counts = count_words(texts, pretokenizer=PreTokenizer.build(None))
    run = MergeRun(Start.from_counts(counts.counts), min_frequency=1, refuse=latin_only)
    run.run(num)
    made = [(run.tokens.token_bytes[m.left], run.tokens.token_bytes[m.right]) for m in run.merges]
    words = {tuple(bytes([b]) for b in word.encode()): freq for word, freq in counts.counts.items()}
    assert made == naive_refusing(words, num, latin_only)
    assert not any(latin_only(left + right) for left, right in made)


def test_extending_gpt2_with_latin_tokens_only_keeps_every_id():
    """The start and the refusal a feature extending a tokenizer builds on, as its docs show them."""
    base = bpe_core.load("gpt2")
    texts = ["Привет, мирозданье! The zorbly flumptastic snozzwangles quibbertonked the glorpish mat.\n" * 20]
    counts = count_words(texts, pretokenizer=base.pretokenizer, special_tokens=list(base.special_tokens))
    start = Start.from_tokenizer(base, counts.counts)  # every piece as its tokens under base's merges
    run = MergeRun(start, tie_break="huggingface", min_frequency=2, refuse=latin_only)
    assert run.run(12) == STOP_VOCAB_SIZE
    vocab, merges = start.extended([(m.left, m.right, m.id) for m in run.merges])  # new ids after 50256
    extended = bpe_core.Tokenizer(vocab, merges, special_tokens=base.special_tokens, pattern=base.pattern)
    assert all(extended.vocab[i] == token for i, token in base.vocab.items())
    assert extended.merges[: len(base.merges)] == base.merges and extended.special_tokens == base.special_tokens
    assert sorted(set(extended.vocab) - set(base.vocab)) == list(range(50257, 50257 + 12))
    assert not any(latin_only(extended.vocab[i]) for i in range(50257, 50257 + 12))
    text = "The zorbly flumptastic snozzwangles."
    assert len(extended.encode_ordinary(text)) < len(base.encode_ordinary(text))
    assert extended.decode(extended.encode_ordinary(texts[0])) == texts[0]
    with pytest.raises(BpeError, match="uses already"):
        start.extended([(m.left, m.right, m.id) for m in run.merges], first_id=50256)


def test_a_start_from_a_tokenizer_that_does_not_encode_by_its_merges_is_refused():
    picky = train_picky([" hug" * 20 + " chug" + " ug" * 3], 270, threshold=0.9, min_frequency=1)
    with pytest.raises(BpeError, match="merges alone"):
        Start.from_tokenizer(picky, {"a": 1})
    with pytest.raises(TypeError, match="bpe_core Tokenizer"):
        Start.from_tokenizer("gpt2", {"a": 1})  # type: ignore[arg-type]


def test_only_the_engine_keeps_a_heap_of_pairs():
    """Every way of training runs on the engine's heap (``pairs.PairHeap``): no other module of
    training imports heapq."""
    training = Path(bpe_core.__file__).parent / "training"
    sources = {path.name: path.read_text(encoding="utf-8") for path in training.glob("*.py")}
    assert sorted(name for name, source in sources.items() if "import heapq" in source) == ["pairs.py"]


def test_an_unknown_tie_rule_is_refused_by_name():
    with pytest.raises(BpeError, match="tie_break must be one of"):
        MergeRun(Start.from_counts({"ab": 1}), tie_break="smallest")


def _merges_and_stop(counts, tie_break, min_frequency, refuse, tracked_pairs, num):
    run = MergeRun(
        Start.from_counts(counts),
        tie_break=tie_break,
        min_frequency=min_frequency,
        refuse=refuse,
        tracked_pairs=tracked_pairs,
    )
    raised = run._drop_below > max(min_frequency, 1)
    stop = run.run(num)
    return run.merges, stop, raised


@given(
    st.lists(st.text("abcab αβ ab,", min_size=1, max_size=14), min_size=1, max_size=8),
    st.integers(0, 30),
    st.integers(1, 3),
    st.integers(1, 4),
    st.sampled_from(["huggingface", "lexicographic", "rustbpe", "first"]),
    st.booleans(),
)
@settings(max_examples=150, deadline=None)
def test_tracking_only_the_most_frequent_pairs_gives_the_same_merges(
    texts, num, min_frequency, tracked, rule, refusing
):
    """Tracking the ``tracked_pairs`` most frequent pairs and recounting from the words when they run out
    makes every merge (pair, count, tokens after) and the stop reason of a run that tracks every pair."""
    counts = count_words(texts, pretokenizer=PreTokenizer.build(None)).counts
    refuse = latin_only if refusing else None
    every = _merges_and_stop(counts, rule, min_frequency, refuse, None, num)
    top = _merges_and_stop(counts, rule, min_frequency, refuse, tracked, num)
    assert top[:2] == every[:2]


@given(
    st.lists(st.text("abcab αβ ab,", min_size=1, max_size=14), min_size=1, max_size=8),
    st.integers(0, 30),
    st.sampled_from([None, 1, 3]),
    st.sampled_from(["huggingface", "lexicographic", "rustbpe"]),
)
@settings(max_examples=100, deadline=None)
def test_a_merge_done_a_few_words_at_a_time_gives_the_same_run(texts, num, tracked, rule):
    """The words holding a pair updated in parts of one or two (``HOLDERS_AT_ONCE``) give the merges,
    the words, the pair counts and the index of updating them all at once; tracking few pairs, the
    index holds arrays only."""
    counts = count_words(texts, pretokenizer=PreTokenizer.build(None)).counts

    def finished_run():
        run = MergeRun(Start.from_counts(counts), tie_break=rule, min_frequency=1, tracked_pairs=tracked)
        stop = run.run(num)
        return run, (run.merges, stop, run.words, run.counts, {pair: list(held) for pair, held in run.where.items()})

    _, whole = finished_run()
    for part in (1, 2):
        with mock.patch("bpe_core.training.engine.HOLDERS_AT_ONCE", part):
            run, in_parts = finished_run()
        assert in_parts == whole
        if tracked is not None:
            assert all(isinstance(held, array) for held in run.where.values())


def test_a_raised_threshold_recounts_and_goes_on_to_the_same_merges():
    counts = {"ab ab ab ab cd cd cd ef ef gh": 3, "abcdefgh": 1, "xyxyxy": 2}
    every, stop, raised = _merges_and_stop(counts, "huggingface", 1, None, None, 40)
    assert not raised
    top, top_stop, top_raised = _merges_and_stop(counts, "huggingface", 1, None, 1, 40)
    assert top_raised and (top, top_stop) == (every, stop) and stop == "no pair left to merge"
    assert len(top) > 10 and len({m.count for m in top}) > 3  # several thresholds passed, so several recounts


def test_a_start_that_releases_the_counts_gives_the_same_words(monkeypatch):
    monkeypatch.setattr("bpe_core.training.start.BATCH_PIECES", 2)  # several batches
    base = bpe_core.train(["the cat sat on the mat, the cat sat. " * 5], 300, min_frequency=1)
    texts = ["the cat sat on the mat\ud800, the dog sat. " * 3, "é the mat"]
    counts = count_words(texts, pretokenizer=PreTokenizer.build(None)).counts
    kept = Start.from_tokenizer(base, dict(counts))
    released_counts = dict(counts)
    released = Start.from_tokenizer(base, released_counts, release=True)
    assert (released.words, released.freqs, released.corpus_bytes) == (kept.words, kept.freqs, kept.corpus_bytes)
    assert released_counts == {} and kept.corpus_bytes == sum(
        len(t.replace("\ud800", "\ufffd").encode()) for t in texts
    )
