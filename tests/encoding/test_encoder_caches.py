"""The fast encoding paths (segment cache in two generations, piece cache, packed-pair merge loop)
give the same ids as tiktoken and as the general paths."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bpe_core
from bpe_core import Tokenizer
from bpe_core.encoding import encoder as encoder_module
from bpe_core.pretrained.package_files import gpt2_encoding

TEXTS = [
    "def f(x):\n    return x**2  # it's\n\n\n\tif x != None:\n        pass\n" * 5,
    "Ünïcödé wörds, 東京タワー, emoji 🚀🔥👩‍👩‍👧‍👦 and numbers 1234567890 Русский текст العربية हिन्दी",
    " " * 300 + "x" + "\u00a0" * 5 + "\u3000y  \n",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa b",
]


@pytest.fixture(scope="module")
def reference():
    return gpt2_encoding()


@pytest.fixture(scope="module")
def gpt2_merges():
    tok = bpe_core.load("gpt2")
    return tok.vocab, tok.merges, tok.special_tokens


@pytest.mark.parametrize("limit", [1, 3, 50])
def test_tiny_caches_rotate_and_stay_exact(monkeypatch, reference, gpt2_merges, limit):
    monkeypatch.setattr(encoder_module, "CACHE_LIMIT", limit)
    vocab, merges, specials = gpt2_merges
    tok = Tokenizer(vocab, merges, special_tokens=specials)
    encoder = tok._text_encoder
    for _ in range(3):  # later rounds meet the old generation and the promoted entries
        for text in TEXTS:
            assert tok.encode_ordinary(text) == reference.encode_ordinary(text)
            # A generation holds at most the limit, or one call's distinct segments.
            most = max([limit] + [len(set(encoder._segment_pattern.findall(t))) for t in TEXTS])
            assert len(encoder._segment_cache) <= most and len(encoder._segment_old) <= most
    assert len(encoder._piece_ids(["never seen before", "nor this"])) == 2
    assert len(encoder._cache) <= limit


@given(text=st.text(max_size=200))
def test_segment_path_equals_piece_path(gpt2_merges, text):
    if not _encodable(text):
        return  # lone surrogates: encode_ordinary replaces them first (tested in test_core_tokenizer)
    tok = _gpt2_tokenizer(gpt2_merges)
    encoder = tok._text_encoder
    by_segments = encoder._encode_segments(encoder._segment_pattern.findall(text))
    assert by_segments == encoder._encode_pieces(tok.pretokenizer.pieces(text))


def _encodable(text):
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_cached = {}


def _gpt2_tokenizer(gpt2_merges):
    if "tok" not in _cached:
        vocab, merges, specials = gpt2_merges
        _cached["tok"] = Tokenizer(vocab, merges, special_tokens=specials)
    return _cached["tok"]


def _shifted(tok, offset):
    """The same tokenizer with every id moved up by ``offset`` (and byte ids no longer < 256)."""
    vocab = {i + offset: b for i, b in tok.vocab.items()}
    return Tokenizer(vocab, tok.merges, pattern=tok.pattern)


@pytest.mark.parametrize("offset", [300, 1 << 20])
def test_unusual_id_layouts_use_the_general_paths_and_agree(offset):
    corpus = "the quick brown fox jumps over the lazy dog, again and again; aaaa bbbb " * 20
    base = bpe_core.train(corpus, 400, min_frequency=1)
    moved = _shifted(base, offset)
    if offset >= 1 << 20:
        assert moved._model.piece_encoder._pair_keys is None
    assert moved._model.piece_encoder._byte_table is None
    for text in [corpus, "unseen wörds 🚀", "a" * 200]:
        assert moved.encode_ordinary(text) == [i + offset for i in base.encode_ordinary(text)]
