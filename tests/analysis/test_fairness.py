"""Fairness metrics (bpe_core.analysis.fairness, re-exported by bpe_core.analysis.metrics) against simple references
written here, premium against vocabulary size, and the parity comparison's report."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bpe_core
from bpe_core.analysis import fairness
from bpe_core.analysis.parity_report import Fairness, compare_training, measure_fairness, summary
from bpe_core.analysis.vocab_sweep import compression_by_vocab_size, premium_by_vocab_size, stops_improving
from bpe_core.corpora.samples import get_sample, load_samples
from bpe_core.pretrained.package_files import gpt2_encoding

# --------------------------------------------------------------------------------------------------
# Gini


def gini_by_definition(values):
    """The mean absolute difference over all ordered pairs / (2 * mean), O(n^2)."""
    n = len(values)
    mean = sum(values) / n
    if mean == 0:
        return 0.0
    return sum(abs(a - b) for a in values for b in values) / (n * n) / (2 * mean)


@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=40))
def test_gini_equals_the_mean_absolute_difference_formula(values):
    assert fairness.gini(values) == pytest.approx(gini_by_definition(values), abs=1e-12)


@given(st.lists(st.floats(0, 1e6), min_size=1, max_size=20), st.floats(0.001, 1000))
def test_gini_ignores_order_and_scale(values, scale):
    shuffled = list(values)
    random.Random(0).shuffle(shuffled)
    assert fairness.gini(shuffled) == pytest.approx(fairness.gini(values), abs=1e-9)
    assert fairness.gini([v * scale for v in values]) == pytest.approx(fairness.gini(values), abs=1e-9)


def test_gini_by_hand():
    assert fairness.gini([5, 5, 5, 5]) == 0.0
    assert fairness.gini([0, 0, 0, 8]) == 0.75  # (n - 1) / n: one language needs every token
    assert fairness.gini([1, 3]) == 0.25  # |1 - 3| * 2 / (2 * 2^2 * 2)
    with pytest.raises(ValueError, match="at least one value"):
        fairness.gini([])
    with pytest.raises(ValueError, match="non-negative"):
        fairness.gini([3, -1])


# --------------------------------------------------------------------------------------------------
# vocabulary utilisation, partial characters


class CharTokenizer:
    """One token per character, ids = code points, a vocabulary of 1,000 ids."""

    vocab_size = 1000

    def encode_ordinary(self, text):
        return [ord(ch) for ch in text]


def test_vocabulary_utilisation_by_hand():
    u = fairness.vocabulary_utilisation(CharTokenizer(), {"x": "abba", "y": "abc"})
    assert u.by_text == {"x": 2 / 1000, "y": 3 / 1000}
    assert (u.overall, u.distinct, u.vocab_size) == (3 / 1000, 3, 1000)
    with pytest.raises(TypeError, match="vocabulary size"):
        fairness.vocabulary_utilisation(object(), {"x": "a"})


@given(st.text(max_size=60))
def test_partial_token_share_agrees_with_the_token_details(text):
    tok = bpe_core.load("gpt2")
    details = tok.encode_with_details(text)
    expected = sum(d.partial for d in details) / len(details) if details else None
    assert fairness.partial_token_share(tok, text) == expected


def test_partial_token_share_sees_byte_split_scripts():
    gpt2 = bpe_core.load("gpt2")
    assert fairness.partial_token_share(gpt2, get_sample("eng").text) == 0.0
    assert fairness.partial_token_share(gpt2, get_sample("mya").text) > 0.5
    assert fairness.partial_token_share(gpt2_encoding(), get_sample("mya").text) == fairness.partial_token_share(
        gpt2, get_sample("mya").text
    )
    assert fairness.partial_token_share(CharTokenizer(), "abc") is None  # no token bytes to look at


# --------------------------------------------------------------------------------------------------
# bootstrap intervals


def test_premium_interval_collapses_when_every_sentence_agrees():
    counts = {"eng": [2, 4, 6], "deu": [3, 6, 9]}
    result = fairness.premium_intervals(counts, "eng", resamples=200)
    assert result["deu"] == fairness.PremiumInterval(1.5, 1.5, 1.5, 3)
    assert result["eng"] == fairness.PremiumInterval(1.0, 1.0, 1.0, 3)


@given(
    pairs=st.lists(st.tuples(st.integers(1, 50), st.integers(0, 80)), min_size=1, max_size=25), seed=st.integers(0, 5)
)
def test_premium_interval_lies_between_the_sentence_ratios(pairs, seed):
    # A resampled premium is a weighted mean of the sentences' own ratios, so it lies between them.
    counts = {"ref": [a for a, _ in pairs], "other": [b for _, b in pairs]}
    result = fairness.premium_intervals(counts, "ref", resamples=50, seed=seed)["other"]
    ratios = [b / a for a, b in pairs]
    assert min(ratios) - 1e-12 <= result.low <= result.high <= max(ratios) + 1e-12
    assert result.premium == sum(counts["other"]) / sum(counts["ref"])
    assert fairness.premium_intervals(counts, "ref", resamples=50, seed=seed)["other"] == result  # deterministic


def test_premium_interval_is_percentile_bootstrap_with_a_shared_draw():
    # A reference written out: draw sentence indices with random.Random(seed).choices, the same
    # draw for every language, and take the 2.5th and 97.5th percentiles of the resampled premiums.
    counts = {"eng": [3, 5, 4, 10, 2, 7], "tha": [9, 11, 8, 31, 5, 20], "hin": [6, 16, 9, 25, 3, 14]}
    got = fairness.premium_intervals(counts, "eng", resamples=400, seed=7)
    rng = random.Random(7)
    drawn = {label: [] for label in counts}
    for _ in range(400):
        picks = rng.choices(range(6), k=6)
        for label in counts:
            drawn[label].append(sum(counts[label][i] for i in picks) / sum(counts["eng"][i] for i in picks))
    for label, values in drawn.items():
        values.sort()
        low = values[int(0.025 * 399)] + (values[int(0.025 * 399) + 1] - values[int(0.025 * 399)]) * (0.025 * 399 % 1)
        assert got[label].low == pytest.approx(low)
        assert got[label].low <= got[label].premium <= got[label].high or label == "eng"


def test_eight_sentences_give_wide_intervals_and_more_give_narrower_ones():
    from bpe_core.corpora.samples import parallel_text

    gpt2 = bpe_core.load("gpt2")
    short = {s.id: s.text.split("\n") for s in load_samples("natural") if s.id in ("eng", "rus")}
    long = parallel_text(split="all", languages=["eng", "rus"])
    narrow = fairness.tokenizer_premium_intervals(gpt2, long, "eng")["rus"]
    wide = fairness.tokenizer_premium_intervals(gpt2, short, "eng")["rus"]
    assert wide.sentences == 8 and narrow.sentences == 120
    assert (wide.high - wide.low) > (narrow.high - narrow.low)


@pytest.mark.parametrize(
    "counts, kwargs, message",
    [
        ({"eng": [1, 2], "deu": [1]}, {}, "same number of sentences.*eng has 2, deu 1"),
        ({"deu": [1]}, {}, "reference 'eng' is not among"),
        ({"eng": [], "deu": []}, {}, "no sentences"),
        ({"eng": [0, 0], "deu": [1, 1]}, {}, "has no tokens"),
        ({"eng": [1], "deu": [1]}, {"resamples": 0}, "resamples must be a positive integer"),
        ({"eng": [1], "deu": [1]}, {"confidence": 1.5}, "confidence must be between 0 and 1"),
    ],
)
def test_premium_interval_bad_input(counts, kwargs, message):
    with pytest.raises(ValueError, match=message):
        fairness.premium_intervals(counts, "eng", **kwargs)


def test_sentences_must_be_a_list():
    with pytest.raises(TypeError, match="split it into lines"):
        fairness.sentence_tokens(bpe_core.load("gpt2"), "one\ntwo")


# --------------------------------------------------------------------------------------------------
# premium against vocabulary size


def test_premium_by_vocab_size_equals_truncated_tokenizers():
    texts = {s.id: s.text for s in load_samples("natural") if s.id in ("eng", "deu", "hin")}
    tok = bpe_core.train(list(texts.values()), 256 + 120, min_frequency=1)
    rows = premium_by_vocab_size(tok, texts, "eng", merges=[0, 7, 60, 120])
    for row in rows:
        truncated = tok.truncated(row["merges"])
        expected = len(truncated.encode_ordinary(texts[row["text"]])) / len(truncated.encode_ordinary(texts["eng"]))
        assert row["premium"] == pytest.approx(expected)
    assert {r["premium"] for r in rows if r["text"] == "eng"} == {1.0}
    with pytest.raises(ValueError, match="reference 'fra' is not among"):
        premium_by_vocab_size(tok, texts, "fra")


def test_stops_improving_by_hand_and_on_a_tokenizer():
    rows = [{"text": "a", "vocab_size": v, "tokens": t} for v, t in [(256, 90), (300, 40), (350, 30), (400, 30)]]
    rows += [{"text": "b", "vocab_size": v, "tokens": t} for v, t in [(256, 90), (300, 80), (350, 70), (400, 60)]]
    assert stops_improving(rows) == {"a": 350, "b": 400}
    assert stops_improving(rows, tolerance=0.4) == {"a": 300, "b": 300}  # within 42 and 84 tokens
    tok = bpe_core.train(get_sample("eng").text, 400, min_frequency=1)
    texts = {"eng": get_sample("eng").text, "tha": get_sample("tha").text}
    curve = compression_by_vocab_size(tok, texts, merges=list(range(145)))
    where = stops_improving(curve)
    assert where["tha"] < where["eng"]  # merges learnt on English stop helping Thai early
    with pytest.raises(ValueError, match="tolerance"):
        stops_improving(rows, tolerance=1)


# --------------------------------------------------------------------------------------------------
# the comparison


def test_summary_sentence_wording():
    names = {"eng": "English", "mya": "Burmese", "amh": "Amharic"}
    before, after = Fairness({}, {}, "mya", 4.1, 0.3), Fairness({}, {}, "amh", 2.3, 0.1)
    assert summary(before, after, 0.02, names, "eng") == (
        "Parity-aware training cut the worst premium from 4.1x (Burmese) to 2.3x (Amharic); English costs 2% more."
    )
    assert summary(after, before, -0.013, names, "eng").endswith("to 4.1x (Burmese); English costs 1% less.")
    assert summary(before, before, 0.004, names, "eng") == (
        "Parity-aware training kept the worst premium at 4.1x; English costs about the same."
    )
    small_before, small_after = Fairness({}, {}, "ell", 1.358, 0.06), Fairness({}, {}, "tam", 1.251, 0.03)
    assert summary(small_before, small_after, 0.028, {"ell": "Greek", "tam": "Tamil"}, "eng") == (
        "Parity-aware training cut the worst premium from 1.36x (Greek) to 1.25x (Tamil); eng costs 3% more."
    )


def test_compare_training_on_built_in_parallel_text():
    from bpe_core.corpora.samples import parallel_text

    languages = ["eng", "deu", "rus", "ell"]
    calls = []
    result = compare_training(
        parallel_text(split="train", languages=languages),
        parallel_text(split="heldout", languages=languages),
        600,
        others={"GPT-2": bpe_core.load("gpt2")},
        resamples=100,
        progress=lambda *a: calls.append(a[0]),
    )
    assert list(result.fairness) == ["standard BPE", "parity-aware BPE", "GPT-2"]
    assert result.standard.vocab_size == result.parity.vocab_size == 600
    standard, parity = result.fairness["standard BPE"], result.fairness["parity-aware BPE"]
    assert parity.max_premium < standard.max_premium
    assert parity.gini < standard.gini
    assert result.reference_cost == parity.tokens["eng"] / standard.tokens["eng"] - 1
    assert result.sentence.startswith("Parity-aware training cut the worst premium from")
    assert "English costs" in result.sentence
    rows = result.rows()
    assert len(rows) == 3 * 4 and all(r["low"] <= r["high"] for r in rows)
    assert {r["name"] for r in rows} == {"English", "German", "Russian", "Greek"}
    assert {"standard: merge", "parity: merge", "measure"} <= set(calls)
    curves = result.premium_curves(steps=5)
    assert {r["tokenizer"] for r in curves} == {"standard BPE", "parity-aware BPE"}
    # measure_fairness of the held-out sentences matches the rows
    again = measure_fairness(result.parity, result.heldout, "eng", resamples=100)
    assert again.tokens == parity.tokens


def test_compare_training_bad_input():
    with pytest.raises(ValueError, match="reference language 'eng' has no held-out"):
        compare_training({"deu": "a"}, {"deu": ["a"]}, 300)
    with pytest.raises(TypeError, match="dicts"):
        compare_training(["a"], {"eng": ["a"]}, 300)
