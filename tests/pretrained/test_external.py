"""Tokenizer files bpe_core does not run itself (WordPiece, Unigram, SentencePiece BPE with byte
fallback, SentencePiece .model files) are read as read-only ExternalTokenizers, through the library
that implements them; their ids are that library's."""

from __future__ import annotations

import io
import re
import subprocess
import sys

import pytest

import bpe_core
from bpe_core.analysis import metrics
from bpe_core.cli import main as cli
from bpe_core.formats.huggingface import save_huggingface
from bpe_core.pretrained import external
from bpe_core.pretrained.external import ExternalTokenizer

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import decoders, models, normalizers, pre_tokenizers  # noqa: E402 - only once importorskip passed

TEXTS = [
    "Hello worlds, hello again!",
    "Grüße aus Köln; ça va? naïve café",
    "日本語のテキストと 한국어 and emoji 🙂👍🏽",
    "def f(x):\n    return x ** 2  # tab\there",
    "",
    "   leading and trailing   ",
]


def wordpiece() -> tokenizers.Tokenizer:
    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hello": 3, "world": 4, "##s": 5, "again": 6, "!": 7, ",": 8}
    for i, ch in enumerate("abcdefghijklmnopqrstuvwxyz"):
        vocab.setdefault(ch, 9 + i)
        vocab.setdefault("##" + ch, 40 + i)
    tok = tokenizers.Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.add_special_tokens(["[CLS]", "[SEP]"])
    return tok


def unigram() -> tokenizers.Tokenizer:
    pieces = [("<unk>", 0.0), ("▁he", -1.0), ("llo", -1.5), ("▁", -2.0)]
    pieces += [(c, -3.0) for c in "abcdefghijklmnopqrstuvwxyzäöü"]
    tok = tokenizers.Tokenizer(models.Unigram(pieces, 0, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    return tok


def sentencepiece_style_bpe() -> tokenizers.Tokenizer:
    """A Llama 2 / Gemma style BPE: Metaspace, byte fallback tokens <0x00>..<0xFF>, no ByteLevel."""
    trainer_tok = tokenizers.Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True))
    trainer_tok.pre_tokenizer = pre_tokenizers.Metaspace()
    trainer_tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()])
    specials = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=400, special_tokens=specials, show_progress=False)
    trainer_tok.train_from_iterator([t for t in TEXTS if t] * 20, trainer=trainer)
    return trainer_tok


def as_external(hf: tokenizers.Tokenizer, name: str = "models/bert-base/tokenizer.json") -> ExternalTokenizer:
    tok = external.loads_file(hf.to_str().encode("utf-8"), source=name)
    assert isinstance(tok, ExternalTokenizer)
    return tok


@pytest.mark.parametrize(
    "build,kind", [(wordpiece, "WordPiece"), (unigram, "Unigram"), (sentencepiece_style_bpe, "BPE")]
)
def test_ids_equal_the_library_that_implements_it(build, kind):
    hf = build()
    tok = as_external(hf)
    assert tok.kind == f"{kind} (external, run by tokenizers)"
    assert tok.external and tok.merges == () and tok.merge_rank_of(3) is None
    assert "merge forest" in tok.why_no_merges
    for text in TEXTS:
        assert tok.encode_ordinary(text) == hf.encode(text, add_special_tokens=False).ids, text
        ids = tok.encode_ordinary(text)
        assert tok.decode(ids) == hf.decode(ids, skip_special_tokens=False)
        details = tok.encode_with_details(text)
        assert [d.id for d in details] == ids
        assert all(0 <= d.start <= d.end <= len(text) for d in details)


def test_name_kind_specials_and_tiktoken_rules():
    tok = as_external(wordpiece())
    assert tok.name == "bert-base"  # the folder of a tokenizer.json
    assert tok.special_tokens == {"[CLS]": 1, "[SEP]": 2} and tok.is_special_token(1) and not tok.is_special_token(3)
    assert "only BPE models can be imported" in tok.note
    with pytest.raises(ValueError, match="disallowed special token"):
        tok.encode("hello [CLS]")
    assert tok.encode("hello [CLS] worlds", allowed_special="all") == [3, 1, 4, 5]
    assert tok.encode("hello [CLS]", disallowed_special=()) == tok.encode_ordinary("hello [CLS]")
    assert 1 not in tok.encode_ordinary("hello [CLS]")  # ordinary text, never the special id
    special = tok.encode_with_details("a [SEP]", allowed_special={"[SEP]"})[-1]
    assert (special.id, special.special, special.start, special.end) == (2, True, 2, 7)
    with pytest.raises(ValueError, match="not special tokens"):
        tok.encode("x", allowed_special={"<nope>"})


def test_token_bytes_and_bad_ids():
    tok = as_external(wordpiece())
    assert tok.decode_single_token_bytes(5) == b"##s" and tok.token_text(5) == "##s"
    assert tok.decode_tokens_bytes([3, 5]) == [b"hello", b"##s"]
    assert tok.vocab_size == len(wordpiece().get_vocab()) and tok.n_vocab == max(wordpiece().get_vocab().values()) + 1
    with pytest.raises(ValueError, match="unknown token id 9999 at position 1"):
        tok.decode([3, 9999])
    with pytest.raises(TypeError):
        tok.decode([True])


def test_byte_fallback_tokens_are_their_bytes_and_partial():
    tok = as_external(sentencepiece_style_bpe())
    details = tok.encode_with_details("x ☃")  # not in the training text: bytes
    fallback = [d for d in details if d.partial]
    assert fallback and b"".join(d.bytes for d in fallback) == "☃".encode()
    assert all((d.start, d.end) == (2, 3) for d in fallback)


def test_byte_level_bpe_files_still_become_bpe_core_tokenizers(tmp_path):
    trained = bpe_core.train(["ab ab abc abc"] * 5, 262, min_frequency=1)
    path = tmp_path / "tokenizer.json"
    save_huggingface(trained, path)
    loaded = bpe_core.load(str(path))
    assert isinstance(loaded, bpe_core.Tokenizer) and loaded.merges == trained.merges


def test_load_external_and_the_cli_read_the_same_way(tmp_path, capsys):
    path = tmp_path / "bert.json"
    path.write_text(wordpiece().to_str(), encoding="utf-8")
    tok = bpe_core.load_external(path)
    assert isinstance(tok, ExternalTokenizer) and tok.name == "bert"
    assert bpe_core.load_external(str(path)).encode("hello worlds") == [3, 4, 5]
    with pytest.raises(bpe_core.BpeError, match=r"WordPiece .*bpe_core\.load_external\("):
        bpe_core.load(path)  # load gives a Tokenizer, or says which function runs the file
    assert cli.main(["encode", "-t", str(path), "--text", "hello worlds"]) == 0
    assert capsys.readouterr().out.split() == ["3", "4", "5"]
    assert cli.main(["inspect", str(path)]) == 0
    assert "WordPiece (external, run by tokenizers)" in capsys.readouterr().out
    assert cli.main(["export", str(path), "--format", "tiktoken", "-o", str(tmp_path / "x.tiktoken")]) == 2
    assert "only byte-level BPE tokenizers can be exported" in capsys.readouterr().err
    assert not (tmp_path / "x.tiktoken").exists()


def test_the_cli_lists_built_ins_and_missing_packages(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert out.split()[0] == "gpt2" and "SentencePiece .model" in out
    for status in bpe_core.available():
        assert status.name in out
        if not status.installed:
            assert f"not installed: {status.install_hint}" in out


@pytest.mark.parametrize(
    "raw,message",
    [
        (b'{"model": {"type": "Mystery"}}', "Hugging Face tokenizers cannot read it either"),
        (b"\x00\x01garbage\xff\xfe", "not a SentencePiece model"),
        (b"not a tokenizer at all", "neither a bpe_core/Hugging Face JSON file nor a .tiktoken file"),
        (b'{"format": "bpe_core", "version": 99}', "bpe_core"),
    ],
)
def test_bad_files_say_what_is_wrong(raw, message):
    if raw.startswith(b"\x00"):
        pytest.importorskip("sentencepiece")
    with pytest.raises(ValueError, match=message) as caught:
        external.loads_file(raw, source="upload.bin")
    assert not re.search(r"\.(cc|cpp|h)\(\d+\)|INTERNAL", str(caught.value))  # no native source position


def test_a_native_librarys_source_position_is_left_out_of_the_cli_s_message(tmp_path, capsys):
    pytest.importorskip("sentencepiece")
    (tmp_path / "broken.model").write_bytes(b"\x00\x01garbage\xff\xfe")
    assert cli.main(["inspect", "-t", str(tmp_path / "broken.model")]) != 0
    said = capsys.readouterr().err
    assert said.startswith("error: ") and "broken.model is not a SentencePiece model" in said
    assert ".cc(" not in said and "INTERNAL" not in said


def test_a_missing_library_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    with pytest.raises(ValueError, match="pip install tokenizers"):
        external.loads_file(wordpiece().to_str().encode(), source="bert.json")
    monkeypatch.setitem(sys.modules, "sentencepiece", None)
    with pytest.raises(ValueError, match="pip install sentencepiece"):
        external.loads_file(b"\x0a\xff binary", source="spiece.model")


def test_bpe_core_imports_without_the_external_libraries():
    code = (
        "import sys; sys.modules['tokenizers'] = None; sys.modules['sentencepiece'] = None; "
        "import bpe_core, bpe_core.pretrained.external; print(bpe_core.load('gpt2').encode('hi'))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[5303]"


def test_metrics_accept_an_external_tokenizer():
    tok = as_external(wordpiece())
    measured = metrics.measure(tok, "hello worlds, hello again!")
    assert measured.tokens == len(tok.encode_ordinary("hello worlds, hello again!"))
    assert measured.vocab_size == tok.vocab_size
    assert measured.split_share is None  # WordPiece's "##" pieces are not the text's bytes


def test_sentencepiece_model_files():
    spm = pytest.importorskip("sentencepiece")
    model = io.BytesIO()
    corpus = ["Hello world. The quick brown fox.", "Grüße aus Köln, ça va? 日本語のテキスト"] * 50
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus),
        model_writer=model,
        vocab_size=300,
        byte_fallback=True,
        model_type="bpe",
        minloglevel=2,
    )
    reference = spm.SentencePieceProcessor(model_proto=model.getvalue())
    tok = bpe_core.pretrained.external.loads_file(model.getvalue(), source="models/t5-small/spiece.model")
    assert tok.name == "t5-small" and tok.kind.endswith("(external, run by sentencepiece)")
    assert tok.vocab_size == reference.get_piece_size()
    for text in TEXTS:
        assert tok.encode_ordinary(text) == reference.encode(text), text
        assert [d.id for d in tok.encode_with_details(text)] == reference.encode(text)
        assert tok.decode(reference.encode(text)) == reference.decode(reference.encode(text))
    emoji = [d for d in tok.encode_with_details("a 🙂") if d.partial]
    assert b"".join(d.bytes for d in emoji) == "🙂".encode()


# ------------------------------------------------------------------------------------------------
# Llama 4 (a built-in: tiktoken ranks from llama-models, checked against its own encoder)


def test_llama4_ids_and_specials_equal_llama_models():
    from bpe_core.pretrained import catalogue

    if not catalogue.is_installed("llama4"):
        pytest.skip("llama-models is not installed (pip install llama-models)")
    from llama_models.llama4.tokenizer import Tokenizer as Llama4

    reference = Llama4.get_instance()
    tok = catalogue.load("llama4")
    assert tok.special_tokens == reference.special_tokens
    corpus = TEXTS + ["http://a.b/c/d  \n\n x", "Hello việc yılında 世界 DON'T Don't", "x/y//z 12345"]
    corpus += [sample.text for sample in bpe_core.corpora.samples.load_samples()][:12]
    for text in corpus:
        assert tok.encode_ordinary(text) == reference.model.encode_ordinary(text), text[:40]
    assert tok.encode("<|begin_of_text|>hi", allowed_special="all")[0] == reference.special_tokens["<|begin_of_text|>"]


def test_show_draws_the_library_s_own_tokens():
    tok = as_external(wordpiece())
    view = tok.show("hello worlds")
    assert str(view).splitlines() == [
        "bert-base: 3 tokens · 12 characters · 4.00 characters per token",
        "[hello][world][##s]",  # the library's own token texts; WordPiece drops the space
    ]
    assert 'title="id 5' in view._repr_html_()
