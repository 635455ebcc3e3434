"""bpe_core.analysis.metrics: formulas on hand-computed examples, compare, compression by vocabulary size,
summary sentences."""

import math
import subprocess
import sys
from collections import Counter

import pytest

import bpe_core
from bpe_core.analysis import fairness, intrinsic, metrics
from bpe_core.analysis.metrics import compare, measure, summary_sentence
from bpe_core.analysis.vocab_sweep import compression_by_vocab_size
from bpe_core.analysis.words import word_spans
from bpe_core.corpora.samples import get_sample, load_samples
from bpe_core.errors import BpeError
from bpe_core.pretrained.package_files import gpt2_encoding
from bpe_core.training.picky import train_picky


class Stub:
    """A tokenizer whose output is fixed: ``encode_ordinary`` returns ``ids`` for any text."""

    def __init__(self, vocab, ids, vocab_size=8):
        self.vocab = vocab
        self.ids = ids
        self.vocab_size = vocab_size

    def encode_ordinary(self, text):
        return list(self.ids)

    def decode_single_token_bytes(self, token_id):
        return self.vocab[token_id]


class CountingStub:
    """One token per character: tokens = len(text); ids are code points."""

    vocab_size = 0x110000

    def encode_ordinary(self, text):
        return [ord(ch) for ch in text]


AB = Stub({0: b"ab", 1: b" ", 2: b"c"}, [0, 1, 0, 2])  # "ab abc" -> ab | " " | ab | c


# --------------------------------------------------------------------------------------------------
# measure


def test_measure_hand_computed():
    m = measure(AB, "ab abc")
    assert (m.characters, m.bytes, m.tokens, m.unique_tokens, m.words) == (6, 6, 4, 3, 2)
    assert m.chars_per_token == 1.5
    assert m.bytes_per_token == 1.5
    assert m.bytes_per_char == 1.0
    assert m.fertility == 2.0  # 4 tokens / 2 words
    assert m.split_share == 0.5  # "ab" is one token, "abc" is two
    # p = (1/2, 1/4, 1/4): H_2.5 = ln(0.5^2.5 + 2 * 0.25^2.5) / (1 - 2.5) = ln(0.239277) / -1.5 = 0.953423 nats; |V| = 8
    assert m.renyi_efficiency == pytest.approx(0.953423 / math.log(8), abs=1e-6)
    assert m.renyi_efficiency == pytest.approx(0.458500, abs=1e-6)
    assert m.vocab_size == 8


def test_measure_counts_bytes_and_partial_tokens():
    # "né": 2 characters, 3 UTF-8 bytes, split into three byte tokens (é is split in two)
    stub = Stub({0: b"n", 1: b"\xc3", 2: b"\xa9"}, [0, 1, 2], vocab_size=256)
    m = measure(stub, "né")
    assert (m.characters, m.bytes, m.tokens) == (2, 3, 3)
    assert m.chars_per_token == pytest.approx(2 / 3)
    assert m.bytes_per_token == 1.0
    assert m.bytes_per_char == 1.5
    assert m.split_share == 1.0
    # uniform over 3 ids: H_alpha = ln 3 for every alpha
    assert m.renyi_efficiency == pytest.approx(math.log(3) / math.log(256))


def test_unspaced_languages_have_no_word_metrics():
    m = measure(AB, "ab abc", spaced=False)
    assert m.words is None and m.fertility is None and m.split_share is None
    assert m.tokens == 4 and m.chars_per_token == 1.5


def test_empty_text():
    m = measure(Stub({}, []), "")
    assert (m.tokens, m.characters, m.words) == (0, 0, 0)
    assert m.chars_per_token is None and m.bytes_per_char is None and m.fertility is None
    assert m.renyi_efficiency is None


def test_split_share_needs_token_bytes_that_tile_the_text():
    # tokens whose bytes are not the text's: no split share, but fertility still counts tokens
    m = measure(AB, "xy xyz")
    assert m.split_share is None and m.fertility == 2.0

    class NoBytes:
        vocab_size = 4

        def encode_ordinary(self, text):
            return [0, 1]

    m = measure(NoBytes(), "one two")
    assert m.split_share is None and m.words == 2 and m.fertility == 1.0


def test_words_strip_punctuation():
    text = "Hello, world! — (ok) 'x' don't"
    assert [text[s:e] for s, e in word_spans(text)] == ["Hello", "world", "ok", "x", "don't"]
    assert word_spans("  ... !! ") == []


def test_renyi_entropy_and_efficiency():
    # uniform over the whole vocabulary: efficiency 1 for any alpha
    assert intrinsic.renyi_efficiency(Counter(range(16)), 16) == pytest.approx(1.0)
    assert intrinsic.renyi_efficiency(Counter(range(16)), 16, alpha=1) == pytest.approx(1.0)
    # one id only: entropy 0
    assert intrinsic.renyi_efficiency(Counter([5, 5, 5]), 16) == 0.0
    # alpha = 1 is Shannon entropy; alpha = 2 is -ln(sum p^2)
    counts = [3, 1]
    assert intrinsic.renyi_entropy(counts, 1) == pytest.approx(-(0.75 * math.log(0.75) + 0.25 * math.log(0.25)))
    assert intrinsic.renyi_entropy(counts, 2) == pytest.approx(-math.log(0.75**2 + 0.25**2))
    # Rényi entropy does not increase with alpha
    renyi = intrinsic.renyi_entropy
    assert renyi(counts, 2.5) < renyi(counts, 2) < renyi(counts, 1)
    assert intrinsic.renyi_efficiency(Counter(), 16) is None
    with pytest.raises(ValueError):
        intrinsic.renyi_entropy([], 2.5)


def test_vocab_size_of_tiktoken_and_tokenizer():
    assert fairness.vocab_size_of(bpe_core.load("gpt2")) == 50257
    assert fairness.vocab_size_of(gpt2_encoding()) == 50257
    assert fairness.vocab_size_of(object()) is None
    assert measure(CountingStub(), "abc", vocab_size=27).vocab_size == 27


def test_measure_real_tokenizer_matches_its_encoding():
    tokenizer = bpe_core.load("gpt2")
    text = "The library opens at nine. Die Bibliothek öffnet um neun."
    m = measure(tokenizer, text)
    ids = tokenizer.encode_ordinary(text)
    assert m.tokens == len(ids)
    assert m.chars_per_token == len(text) / len(ids)
    assert m.words == 10
    assert m.fertility == len(ids) / 10
    # split words, counted from the tokens themselves
    pieces = [tokenizer.decode([i]) for i in ids]
    assert "Bibliothek" not in [p.strip() for p in pieces]
    assert 0 < m.split_share < 1
    assert measure(gpt2_encoding(), text) == m


# --------------------------------------------------------------------------------------------------
# compare


def test_compare_premium_with_tuples():
    samples = [("English", "abcd"), ("Other", "abcdefgh"), ("Thai-like", "abcdef", False)]
    rows = compare({"chars": CountingStub()}, samples, reference="English")
    assert [r["sample"] for r in rows] == ["English", "Other", "Thai-like"]
    premium = {r["sample"]: r["premium"] for r in rows}
    assert premium == {"English": 1.0, "Other": 2.0, "Thai-like": 1.5}
    assert rows[2]["fertility"] is None and rows[1]["fertility"] == 8.0
    assert all(r["reference"] == "English" and r["tokenizer"] == "chars" for r in rows)
    for key in metrics.METRIC_NAMES + ("sample", "label", "kind", "script", "spaced", "characters", "bytes"):
        assert key in rows[0]


def test_compare_rows_per_tokenizer_and_sample():
    samples = [get_sample(i) for i in ("eng", "hin", "python")]
    rows = compare({"gpt2": bpe_core.load("gpt2"), "chars": CountingStub()}, samples)
    assert [(r["tokenizer"], r["sample"]) for r in rows] == [
        (t, s) for t in ("gpt2", "chars") for s in ("eng", "hin", "python")
    ]
    by = {(r["tokenizer"], r["sample"]): r for r in rows}
    assert by["gpt2", "eng"]["premium"] == 1.0
    assert by["gpt2", "hin"]["premium"] == by["gpt2", "hin"]["tokens"] / by["gpt2", "eng"]["tokens"]
    assert by["gpt2", "python"]["premium"] is None  # code is not parallel text
    # one token per character: the premium is the ratio of lengths
    assert by["chars", "hin"]["premium"] == len(samples[1].text) / len(samples[0].text)


def test_compare_reference_not_among_samples():
    rows = compare({"gpt2": bpe_core.load("gpt2")}, [get_sample("hin")], reference="eng")
    english = len(bpe_core.load("gpt2").encode_ordinary(get_sample("eng").text))
    assert rows[0]["premium"] == rows[0]["tokens"] / english
    assert rows[0]["reference"] == "English"
    assert compare({"gpt2": bpe_core.load("gpt2")}, [get_sample("hin")], reference=None)[0]["premium"] is None
    with pytest.raises(ValueError, match="reference 'xyz'"):
        compare({"s": CountingStub()}, [("a", "text")], reference="xyz")
    with pytest.raises(ValueError, match="share the id"):
        compare({"s": CountingStub()}, [("a", "x"), ("a", "y")], reference="a")
    with pytest.raises(TypeError):
        compare({"s": CountingStub()}, ["just a string"], reference=None)


def test_compare_tokenizer_and_tiktoken_agree():
    samples = load_samples("natural")[:6]
    ours = compare({"gpt2": bpe_core.load("gpt2")}, samples)
    theirs = compare({"gpt2": gpt2_encoding()}, samples)
    assert ours == theirs


# --------------------------------------------------------------------------------------------------
# compression by vocabulary size

TOY = (
    "the cat sat on the mat. the rat sat on the hat. that cat and that rat! "
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa "
    * 3
    + "                                                                          end"
)


@pytest.fixture(scope="module")
def toy():
    return bpe_core.train(TOY, 256 + 1 + 40, min_frequency=1, special_tokens=["<|end|>"])


def test_compression_matches_truncated_tokenizers(toy):
    total = len(toy.merges)
    assert total >= 20
    texts = {"toy": TOY, "new": "the hat and the mat sat; " + "a" * 70}
    rows = compression_by_vocab_size(toy, texts, merges=list(range(total + 1)))
    assert len(rows) == 2 * (total + 1)
    for row in rows:
        truncated = toy.truncated(row["merges"])
        assert row["tokens"] == len(truncated.encode_ordinary(texts[row["text"]]))
        assert row["vocab_size"] == truncated.vocab_size == 256 + 1 + row["merges"]
        assert row["chars_per_token"] == row["characters"] / row["tokens"]
    for label in texts:
        counts = [r["tokens"] for r in rows if r["text"] == label]
        assert counts[0] == len(texts[label].encode("utf-8"))  # bytes only
        assert all(a >= b for a, b in zip(counts, counts[1:], strict=False))  # more merges never add tokens
        assert counts[-1] < counts[0]


def test_compression_default_steps(toy):
    rows = compression_by_vocab_size(toy, {"toy": TOY}, steps=5)
    total = len(toy.merges)
    assert [r["merges"] for r in rows] == [round(i * total / 4) for i in range(5)]
    assert rows[-1]["tokens"] == len(toy.encode_ordinary(TOY))
    log_rows = compression_by_vocab_size(toy, {"toy": TOY}, steps=6, spacing="log")
    points = [r["merges"] for r in log_rows]
    assert points[0] == 0 and points[1] == 1 and points[-1] == total and points == sorted(set(points))
    with pytest.raises(ValueError):
        compression_by_vocab_size(toy, {"toy": TOY}, steps=1)
    with pytest.raises(ValueError):
        compression_by_vocab_size(toy, {"toy": TOY}, merges=[total + 1])
    with pytest.raises(TypeError):
        compression_by_vocab_size(CountingStub(), {"toy": TOY})
    picky = train_picky(TOY, 300, threshold=0.5, min_frequency=1)
    assert picky.rule == "picky"
    with pytest.raises(BpeError, match="Picky BPE tokenizer: a prefix of its events is no smaller tokenizer"):
        compression_by_vocab_size(picky, {"toy": TOY})


def test_compression_gpt2_matches_truncated_and_grows():
    gpt2 = bpe_core.load("gpt2")
    text = get_sample("eng").text[:300] + " " + get_sample("hin").text[:100]
    rows = compression_by_vocab_size(gpt2, {"mixed": text}, merges=[0, 1000, 50000])
    assert [r["vocab_size"] for r in rows] == [257, 1257, 50257]
    assert rows[0]["tokens"] == len(text.encode("utf-8"))
    assert rows[1]["tokens"] == len(gpt2.truncated(1000).encode_ordinary(text))
    assert rows[2]["tokens"] == len(gpt2.encode_ordinary(text))
    assert rows[0]["chars_per_token"] < rows[1]["chars_per_token"] < rows[2]["chars_per_token"]


# --------------------------------------------------------------------------------------------------
# summary sentences

ROWS = [
    {
        "tokenizer": "GPT-2",
        "sample": "eng",
        "label": "English",
        "reference": "English",
        "premium": 1.0,
        "chars_per_token": 4.67,
        "fertility": 1.17,
        "split_share": 0.01,
        "renyi_efficiency": 0.35,
        "tokens": 203,
    },
    {
        "tokenizer": "GPT-2",
        "sample": "hin",
        "label": "Hindi",
        "reference": "English",
        "premium": 7.5,
        "chars_per_token": 0.64,
        "fertility": 8.03,
        "split_share": 1.0,
        "renyi_efficiency": 0.2,
        "tokens": 1462,
    },
    {
        "tokenizer": "GPT-2",
        "sample": "deu",
        "label": "German",
        "reference": "English",
        "premium": 2.1,
        "chars_per_token": 2.55,
        "fertility": 2.43,
        "split_share": 0.73,
        "renyi_efficiency": 0.41,
        "tokens": 430,
    },
    {"tokenizer": "fair", "sample": "eng", "label": "English", "reference": "English", "premium": 1.0},
    {"tokenizer": "fair", "sample": "hin", "label": "Hindi", "reference": "English", "premium": 1.02},
]


def test_summary_sentences():
    assert summary_sentence(ROWS, "GPT-2") == "GPT-2 needs 7.5x more tokens for Hindi than for English."
    assert summary_sentence(ROWS, "fair") == "fair needs about as many tokens for every language as for English."
    assert summary_sentence(ROWS, "GPT-2", "chars_per_token") == (
        "GPT-2 fits the most characters into a token for English (4.7) and the fewest for Hindi (0.6)."
    )
    assert summary_sentence(ROWS, "GPT-2", "split_share") == (
        "GPT-2 splits 100% of Hindi words into several tokens but only 1% of English words."
    )
    assert "German (Rényi efficiency 0.41)" in summary_sentence(ROWS, "GPT-2", "renyi_efficiency")
    with pytest.raises(ValueError, match="no rows"):
        summary_sentence(ROWS, "nobody")
    with pytest.raises(ValueError, match="unknown metric"):
        summary_sentence(ROWS, "GPT-2", "speed")


def test_summary_sentence_from_compare():
    rows = compare({"GPT-2": bpe_core.load("gpt2")}, [get_sample("eng"), get_sample("hin"), get_sample("fra")])
    premium = next(r["premium"] for r in rows if r["sample"] == "hin")
    assert summary_sentence(rows, "GPT-2") == f"GPT-2 needs {premium:.1f}x more tokens for Hindi than for English."


def test_metrics_imports_no_ui_libraries():
    code = (
        "import sys, bpe_core.analysis.metrics, bpe_core.corpora.samples; "
        "print(sorted(m for m in ('streamlit', 'plotly', 'pandas', 'numpy') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=str(__import__("pathlib").Path(__file__).parents[2]),
    )
    assert out.stdout.strip() == "[]"


def test_a_tokenizer_giving_token_bytes_as_a_generator_is_measured_the_same():
    """``measure`` takes anything with ``encode_ordinary``; other tools may yield the token bytes."""
    gpt2 = bpe_core.load("gpt2")

    class Yielding:
        n_vocab = gpt2.n_vocab

        def encode_ordinary(self, text):
            return gpt2.encode_ordinary(text)

        def decode_tokens_bytes(self, ids):
            yield from gpt2.decode_tokens_bytes(ids)

    text = "Ünïcödé wörds, 東京 and it's 2024!"
    assert measure(Yielding(), text) == measure(gpt2, text)
    assert measure(Yielding(), text).split_share is not None
