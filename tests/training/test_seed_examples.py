"""Golden examples from the seed documents (see ../shared/seeds/README.md; hard-coded here so the
tests do not need ../shared)."""

import pytest

import bpe_core
from bpe_core import Tokenizer
from bpe_core.training._educational import trace_training, train_textbook

SEED_000_CORPUS = ["ab ab ab ab", "abc abc"]


@pytest.mark.parametrize("tie_break", ["first", "lexicographic"])
def test_seed000_worked_example_merges(tie_break):
    tok = bpe_core.train(SEED_000_CORPUS, 259, min_frequency=1, tie_break=tie_break)
    assert tok.merges == [(b"a", b"b"), (b" ", b"ab"), (b"ab", b"c")]
    # Ids follow the seed: ab=256, " ab"=257, abc=258.
    assert tok.encode("abc") == [258]
    assert tok.encode(" ab") == [257]
    # The seed's frequency table has slips; the real counts of its corpus are these.
    assert [r.count for r in tok.merge_records] == [6, 4, 1]


def test_seed000_worked_example_trace_shows_counts_and_sequences():
    result = trace_training(SEED_000_CORPUS, 3)
    first = result.steps[0]
    assert first.pair == (b"a", b"b")
    assert dict(first.top_pairs)[(b" ", b"a")] == 4
    words_after_2 = {w.symbols: w.freq for w in result.steps[1].words}
    assert words_after_2[(b" ab", b"c")] == 1
    assert words_after_2[(b" ab",)] == 3


def test_seed000_priority_example_aab():
    vocab = {i: bytes([i]) for i in range(256)}
    vocab[256] = b"ab"
    vocab[257] = b"aa"
    tok = Tokenizer(vocab, [(b"a", b"b"), (b"a", b"a")], pattern=None)
    assert tok.encode("aab") == [ord("a"), 256]  # [a, ab], not [aa, b]


def test_seed000_vocab_256_is_bytes_only():
    tok = bpe_core.train("hello hello hello", 256)
    assert tok.merges == []
    assert tok.encode("hello") == list(b"hello")


def test_seed000_aaaa_corpus():
    tok = bpe_core.train("aaaa " * 100, 258)
    assert tok.merges == [(b"a", b"a"), (b"aa", b"aa")]


def test_seed000_larger_vocab_never_longer():
    corpus = "the quick brown fox jumps over the lazy dog. " * 20 + "pack my box with five dozen liquor jugs. " * 10
    text = "the lazy fox packs five boxes of liquor"
    lengths = [len(bpe_core.train(corpus, size).encode(text)) for size in (256, 270, 300, 350, 500)]
    assert lengths == sorted(lengths, reverse=True)
    assert lengths[-1] < lengths[0]


def test_seed000_high_min_frequency_fewer_merges():
    corpus = "the cat sat on the mat with the hat " * 5 + "zebra quagga"
    low = bpe_core.train(corpus, 400, min_frequency=1)
    high = bpe_core.train(corpus, 400, min_frequency=6)
    assert len(high.merges) < len(low.merges)
    assert min(r.count for r in high.merge_records) >= 6
    assert high.training["stop_reason"] == "best pair count below min_frequency"


def test_seed000_unseen_chinese_roundtrips_as_bytes():
    tok = bpe_core.train("plain english text only " * 10, 300)
    text = "\u4f60\u597d\u4e16\u754c"
    ids = tok.encode(text)
    assert tok.decode(ids) == text
    assert len(ids) == len(text.encode("utf-8"))  # byte fallback, no merges apply


def test_seed000_special_token_is_one_id():
    specials = ["<|endoftext|>", "<|pad|>"]
    tok = bpe_core.train("hello world <|endoftext|> more text", 300, special_tokens=specials, min_frequency=1)
    for special in specials:
        assert tok.encode(special, allowed_special="all") == [tok.special_tokens[special]]
    assert tok.special_tokens == {"<|endoftext|>": 256, "<|pad|>": 257}


SEED_001_TEXT = (
    "Unicode! \U0001f170\U0001f173\U0001f172\U0001f176\U0001f174 \U0001f17d\U0001f17e\U0001f173"
    " Everyone in the world should know about Unicode, the standard for text: letters, symbols and "
    "emoji. It is a large and complex standard, and the encodings UTF-8, UTF-16 and UTF-32 each map "
    "code points to bytes in a different way. UTF-8 is the one the web uses. " * 4
)


def test_seed001_decode_128_gives_replacement_character():
    tok = bpe_core.train("abc", 256)
    assert tok.decode([128]) == "\ufffd"
    with pytest.raises(UnicodeDecodeError):
        tok.decode([128], errors="strict")


def test_seed001_twenty_merges_compress_the_raw_stream():
    tok = bpe_core.train(SEED_001_TEXT, 276, pattern=None, min_frequency=1, tie_break="first")
    assert len(tok.merges) == 20
    raw = len(SEED_001_TEXT.encode("utf-8"))
    ids = tok.encode(SEED_001_TEXT)
    assert len(ids) < raw
    assert tok.decode(ids) == SEED_001_TEXT
    unseen = "Completely different words, Grüße aus Köln, 東京 and 🙂 emoji."
    assert tok.decode(tok.encode(unseen)) == unseen


def test_seed001_raw_stream_matches_get_stats_merge_loop():
    # minbpe's loop on one byte stream: get_stats counts every adjacent pair, max picks the first met.
    ids = list(SEED_001_TEXT.encode("utf-8"))
    expected = []
    vocab = {i: bytes([i]) for i in range(256)}
    for new_id in range(256, 276):
        stats = {}
        for pair in zip(ids, ids[1:], strict=False):
            stats[pair] = stats.get(pair, 0) + 1
        pair = max(stats, key=stats.get)
        vocab[new_id] = vocab[pair[0]] + vocab[pair[1]]
        expected.append((vocab[pair[0]], vocab[pair[1]]))
        out, i = [], 0
        while i < len(ids):
            if i < len(ids) - 1 and (ids[i], ids[i + 1]) == pair:
                out.append(new_id)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
    tok = bpe_core.train(SEED_001_TEXT, 276, pattern=None, min_frequency=1, tie_break="first")
    assert tok.merges == expected
    assert tok.encode(SEED_001_TEXT) == ids


SEED_002_CORPUS = "low low low low low lower newer newer newer newer wider"
SEED_002_MERGES = [
    ("l", "o"),
    ("lo", "w"),
    ("e", "r"),
    ("er", "</w>"),
    ("low", "</w>"),
    ("n", "e"),
    ("ne", "w"),
    ("new", "er</w>"),
    ("low", "er</w>"),
    ("w", "i"),
]


def test_seed002_ten_merge_trace():
    result = train_textbook(SEED_002_CORPUS, 10)
    assert result.merges == SEED_002_MERGES
    assert [s.count for s in result.steps] == [6, 6, 6, 6, 5, 4, 4, 4, 1, 1]
    assert result.initial[0] == (("l", "o", "w", "</w>"), 5)
    final = dict(result.steps[-1].words)
    assert final[("wi", "d", "er</w>")] == 1
    assert final[("low</w>",)] == 5


def test_seed002_encodings():
    result = train_textbook(SEED_002_CORPUS, 10)
    assert result.encode_word("slow") == ["s", "low</w>"]
    assert result.encode_word("slower") == ["s", "lower</w>"]
    assert result.encode_word("lowest") == ["low", "e", "s", "t", "</w>"]
    assert result.encode_word("xyz") == ["x", "y", "z", "</w>"]


def test_seed002_twelve_merges_finish_wider():
    result = train_textbook(SEED_002_CORPUS, 12)
    assert result.merges[10:] == [("wi", "d"), ("wid", "er</w>")]


SEED_004_CORPUS = ["low lower newest", "widest wider low", "newest lowest wider"]


def test_seed004_ten_merges_and_encodings():
    result = train_textbook(SEED_004_CORPUS, 10)
    assert result.merges == [
        ("l", "o"),
        ("lo", "w"),
        ("e", "s"),
        ("es", "t"),
        ("est", "</w>"),
        ("e", "r"),
        ("er", "</w>"),
        ("w", "i"),
        ("wi", "d"),
        ("low", "</w>"),
    ]
    assert [s.count for s in result.steps] == [4, 4, 4, 4, 4, 3, 3, 3, 3, 2]
    assert result.encode_word("lowest") == ["low", "est</w>"]
    assert result.encode_word("wider") == ["wid", "er</w>"]
    assert result.encode_word("newest") == ["n", "e", "w", "est</w>"]
    assert len(result.vocabulary) == 21


def test_seed003_tie_rule_takes_lexicographically_greatest_pair():
    # "ab" and "cd" each occur twice: a tie. The greatest (left, right) pair is (c, d).
    lexicographic = bpe_core.train(["ab cd", "ab cd"], 257, pattern=r"\S+|\s+", min_frequency=1)
    first = bpe_core.train(["ab cd", "ab cd"], 257, pattern=r"\S+|\s+", min_frequency=1, tie_break="first")
    assert lexicographic.merges == [(b"c", b"d")]
    assert first.merges == [(b"a", b"b")]


def test_seed003_tie_rule_compares_bytes_not_ids():
    # After (a, a) -> "aa" (id 256), (aa, x) and (b, x) tie at 2. By bytes b"b" > b"aa", so (b, x)
    # wins, although id 256 > id 98 would pick (aa, x).
    tok = bpe_core.train("aaaa aax aax bx bx", 258, pattern=r"\S+", min_frequency=1)
    assert tok.merges == [(b"a", b"a"), (b"b", b"x")]
