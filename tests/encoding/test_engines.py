"""The encoding engines: tiktoken's compiled engine (whole texts, or each piece under bpe_core's
splitting) gives exactly the ids of bpe_core's own Python encoder, on every kind of text, for GPT-2,
cl100k, o200k, trained tokenizers, custom patterns, no pattern and Pipelines; ``engine="auto"`` uses it
only where that is proved (``tokenizer.engine``), builds it once and only when enough text came;
``engine="tiktoken"`` refuses, saying why, where it is not proved.

The rest of the suite runs on the Python encoder (tests/conftest.py sets BPE_CORE_ENGINE=python), so
these tests name the engine of every call.
"""

from __future__ import annotations

import pickle
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bpe_core
from bpe_core.corpora.samples import load_samples
from bpe_core.encoding import batch, tiktoken_engine
from bpe_core.pretokenization import unicode_classes
from bpe_core.pretokenization.pretokenizer import replace_surrogates
from bpe_core.pretokenization.stages import Pipeline, Split
from bpe_core.pretrained import catalogue, model_specials
from bpe_core.pretrained.package_files import cl100k_encoding, gpt2_encoding

ROOT = Path(__file__).resolve().parents[2]
# Letters, marks and digits added by Unicode 14 to 17 (tiktoken 0.14 knows 16, the `regex` module here 17).
RECENT = (
    "Kawi \U00011f04\U00011f05\U00011f34 Garay \U00010d50\U00010d51\U00010d70 Todhri \U000105c0\U000105c1 "
    "Latin \ua7cb\ua7cc\ua7cd\ua7dc \u1c89\u1c8a emoji \U0001fae9\U0001fa8f\U0001fadc digits \U0001ccf0\U0001ccf5 "
    "Unicode 17 \U00011db0\U00011db1 \U00016ea0 Cafe\u0301 nai\u0308ve \u212a it'\u017f IT'S We'LL they'RE"
)
WHITESPACE = "  \n\n\t x  1234567 \r\n \u3000\xa0\u2028  \t\t\n   \n" * 3 + "   "
SPECIAL = "<|endoftext|>"


def _disputed_text() -> str:
    """Code points where the installed `regex` module and tiktoken put a character in different
    classes, between letters, digits and spaces: where splitting differs unless pinned."""
    codes = sorted(
        {c for name in unicode_classes.NAMES for a, b in unicode_classes.disagreeing(name) for c in range(a, b + 1)}
    )
    picked = random.Random(0).sample(codes, min(1500, len(codes)))
    return "".join(f"x{chr(c)}y {chr(c)}{chr(c)} 1{chr(c)}\n" for c in picked)


def corpus() -> list[str]:
    texts = [s.text for s in load_samples("natural")] + [s.text for s in load_samples("code")]
    texts += [
        (ROOT / "bpe_core" / name).read_text(encoding="utf-8") for name in ("tokenizer.py", "encoding/encoder.py")
    ]
    texts += [
        RECENT,
        WHITESPACE,
        _disputed_text(),
        "a" * 5000,
        "1" * 3000,
        " " * 4000 + "x",
        "\U0001f600" * 500,
        "lone \ud800 surrogate \udfff",
        "",
        "x",
        "<|endoftext|> is plain text here",
    ]
    return texts


def _available(name: str):
    if not catalogue.is_installed(name):
        pytest.skip(catalogue.not_installed_message(name))
    return bpe_core.load(name)


@pytest.fixture(scope="module")
def trained():
    text = "\n".join(s.text for s in load_samples("natural")) + "\n".join(s.text for s in load_samples("code"))
    return bpe_core.train(text, 1500, min_frequency=2, special_tokens=[SPECIAL])


@pytest.fixture(scope="module")
def tokenizers(trained):
    found = {"gpt2": bpe_core.load("gpt2"), "cl100k": bpe_core.load("cl100k"), "trained": trained}
    if catalogue.is_installed("o200k"):
        found["o200k"] = bpe_core.load("o200k")
    for tok in found.values():
        tok.build_engine()
    return found


def _assert_same(tok, text, engine="tiktoken"):
    assert tok.encode_ordinary(text, engine=engine) == tok.encode_ordinary(text, engine="python"), (tok.name, text[:80])


# ------------------------------------------------------------------------------------------------
# every kind of text


@pytest.mark.parametrize("name", ["gpt2", "cl100k", "trained", "o200k"])
def test_tiktokens_engine_equals_the_python_encoder_on_the_corpus(tokenizers, name):
    if name not in tokenizers:
        pytest.skip(catalogue.not_installed_message(name))
    tok = tokenizers[name]
    assert tok.engine == "tiktoken" and tok._engine_obstacle is None
    for text in corpus():
        _assert_same(tok, text)
        _assert_same(tok, text, engine="tiktoken-bpe")
        assert tok.encode_ordinary(text, engine="auto") == tok.encode_ordinary(text, engine="python")


INTERESTING = st.sampled_from(list(" \t\n\r\x0b\x0c\x85\xa0\u3000\u2028'sStT0123456789aZé漢字ـ\u0301🙂") + list(RECENT))
ANY_TEXT = (
    st.text(max_size=300)  # any code point
    | st.tuples(st.text(max_size=100), st.characters(categories=["Cs"]), st.text(max_size=100)).map("".join)
    | st.text(INTERESTING, max_size=200)  # white space runs, contractions, digits, recent letters
)


@given(text=ANY_TEXT)
def test_tiktokens_engine_equals_the_python_encoder_on_any_text(tokenizers, text):
    for tok in tokenizers.values():
        _assert_same(tok, text)
        _assert_same(tok, text, engine="tiktoken-bpe")


@given(parts=st.lists(st.sampled_from(["a", " ", "<|endoftext|>", "<|endo", "\n", "é", "\ud800"]), max_size=30))
def test_special_tokens_are_handled_as_by_the_python_encoder(tokenizers, parts):
    text = "".join(parts)
    for tok in (tokenizers["gpt2"], tokenizers["trained"]):
        for kwargs in ({"allowed_special": "all"}, {"disallowed_special": ()}, {"allowed_special": {SPECIAL}}):
            assert tok.encode(text, **kwargs, engine="tiktoken") == tok.encode(text, **kwargs, engine="python")
        if SPECIAL in text:
            with pytest.raises(ValueError, match="disallowed special token"):
                tok.encode(text, engine="tiktoken")


def test_lone_surrogates_become_the_replacement_character_in_every_engine(tokenizers):
    tok = tokenizers["gpt2"]
    replaced = tok.encode_ordinary("a\ufffdb", engine="python")
    for engine in tiktoken_engine.ENGINES:
        assert tok.encode_ordinary("a\ud800b", engine=engine) == replaced
        assert tok.encode("a\udc00b", engine=engine) == replaced


def test_batches_are_equal_with_threads_and_with_worker_processes(tokenizers):
    tok = tokenizers["trained"]
    texts = corpus() * 40  # several tasks of about 1 MB: threads run
    expected = [tok.encode(text, disallowed_special=(), engine="python") for text in texts]
    assert tok.encode_batch(texts, disallowed_special=(), engine="tiktoken", num_threads=2) == expected
    assert tok.encode_ordinary_batch(texts, engine="tiktoken", num_threads=1) == expected
    assert tok.encode_ordinary_batch(texts, engine="tiktoken", workers=2) == expected  # worker processes


class _ThreadSpy:
    """Counts the texts ``batch.encode_in_threads`` shared out to threads."""

    def __init__(self, monkeypatch, cpus: int = 2):
        self.shared = 0
        real = batch.encode_in_threads
        monkeypatch.setattr(batch, "available_cpus", lambda: cpus)

        def spy(text, **kwargs):
            found = real(text, **kwargs)
            self.shared += found is not None
            return found

        monkeypatch.setattr(batch, "encode_in_threads", spy)


def test_a_long_text_is_encoded_by_threads_with_tiktokens_ids(tokenizers, monkeypatch):
    spy = _ThreadSpy(monkeypatch)
    joined = "\n".join(corpus())
    text = joined * (batch.THREADED_TEXT_MIN_CHARS // len(joined) + 1)
    assert len(text) >= batch.THREADED_TEXT_MIN_CHARS  # the real threshold, not a lowered one
    for name in ("gpt2", "cl100k"):
        tok = tokenizers[name]
        reference = (gpt2_encoding() if name == "gpt2" else cl100k_encoding()).encode_ordinary
        assert tok.encode_ordinary(text, engine="tiktoken") == reference(replace_surrogates(text))
        assert tok.encode(text, disallowed_special=(), engine="auto") == reference(replace_surrogates(text))
    assert spy.shared == 4  # every call above shared its text out


def test_one_cpu_one_thread_or_a_python_engine_encodes_a_long_text_in_one_call(tokenizers, monkeypatch):
    text = "\n".join(corpus()) * 3
    tok = tokenizers["gpt2"]
    expected = tok.encode_ordinary(text, engine="python")
    spy = _ThreadSpy(monkeypatch, cpus=2)
    assert tok.encode_ordinary(text, engine="tiktoken", num_threads=1) == expected
    assert tok.encode(text, disallowed_special=(), engine="tiktoken", num_threads=1) == expected
    assert tok.encode_ordinary(text, engine="tiktoken-bpe") == expected
    assert spy.shared == 0
    monkeypatch.setattr(batch, "available_cpus", lambda: 1)
    assert tok.encode_ordinary(text, engine="tiktoken") == expected
    assert spy.shared == 0
    with pytest.raises(ValueError, match="num_threads must be greater than 0"):
        tok.encode_ordinary(text, num_threads=0)
    with pytest.raises(TypeError, match="num_threads must be a number"):
        tok.encode("x", num_threads="2")


@given(pieces=st.lists(ANY_TEXT, min_size=2, max_size=6), size=st.integers(1, 40))
def test_texts_shared_out_to_threads_at_any_cut_keep_their_ids(tokenizers, pieces, size):
    text = " ".join(pieces)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(batch, "THREADED_TEXT_MIN_CHARS", size)
        for tok in (tokenizers["cl100k"], tokenizers["trained"]):
            spy = _ThreadSpy(patch, cpus=2)
            part_size = max(1, size // batch.PARTS_PER_THREAD, len(text) // (2 * batch.PARTS_PER_THREAD))
            cut_regex = bpe_core.pretokenization.pretokenizer.safe_cut_regex(tok.pattern)
            cuts = batch.cut_at_safe_cuts(text, cut_regex, part_size)
            expected = tok.encode_ordinary(text, engine="python")
            assert tok.encode_ordinary(text, engine="tiktoken") == expected
            assert spy.shared == (len(text) >= size and len(cuts) > 1)  # threads ran whenever they could
            assert tok.encode(text, allowed_special="all", engine="tiktoken") == tok.encode(
                text, allowed_special="all", engine="python"
            )


def test_encode_in_threads_declines_what_threads_cannot_help():
    cut = bpe_core.pretokenization.pretokenizer.safe_cut_regex(bpe_core.pretokenization.pretokenizer.GPT2_PATTERN)
    long_text = "word " * batch.THREADED_TEXT_MIN_CHARS
    assert batch.encode_in_threads(long_text, encode_ordinary=list, cut_regex=cut, threads=1) is None
    assert batch.encode_in_threads(long_text, encode_ordinary=list, cut_regex=None, threads=2) is None
    short_text = "x" * batch.THREADED_TEXT_MIN_CHARS
    assert batch.encode_in_threads(short_text, encode_ordinary=list, cut_regex=cut, threads=2) is None
    assert batch.encode_in_threads(long_text, encode_ordinary=list, cut_regex=cut, threads=2) == list(long_text)


def test_token_details_are_the_same_with_tiktokens_bpe(tokenizers):
    tok = tokenizers["cl100k"]
    text = "".join(corpus()[:8]) + RECENT
    python = tok.encode_with_details(text)
    native = tok._engines._native_pieces()  # built by the fixture
    assert [tok._engines._native_pieces().encode_piece(p) for p in ("hello", " wörld")] == [
        tok._text_encoder.encode_piece(p) for p in ("hello", " wörld")
    ]
    assert native is tok._engines._native_pieces()
    assert python == tok.encode_with_details(text)
    assert [info.id for info in python] == tok.encode_ordinary(text, engine="tiktoken")


# ------------------------------------------------------------------------------------------------
# where the engine is used, and where not


def _custom_pattern_tokenizer():
    text = "\n".join(s.text for s in load_samples("natural"))
    return bpe_core.train(text, 600, min_frequency=1, pattern=r"\w+|\s+|[^\w\s]+")


def test_a_custom_pattern_is_split_by_bpe_core_and_merged_by_tiktoken():
    tok = _custom_pattern_tokenizer()
    assert tok.engine == "tiktoken-bpe"
    assert "custom regex" in tok._engine_obstacle
    with pytest.raises(ValueError, match="engine='tiktoken' cannot encode .* custom regex.*engine='auto'"):
        tok.encode_ordinary("abc", engine="tiktoken")
    for text in corpus():
        _assert_same(tok, text, engine="tiktoken-bpe")
        assert tok.encode_ordinary(text, engine="auto") == tok.encode_ordinary(text, engine="python")


def test_a_pipeline_is_split_by_bpe_core_and_merged_by_tiktoken(trained):
    pipeline = Pipeline([Split(r"\p{N}{1,3}"), Split(r" ?\p{L}+|\s+|[^\s\p{L}]+")], normalizers=["NFC"])
    tok = bpe_core.Tokenizer(trained.vocab, trained.merges, special_tokens=trained.special_tokens, pattern=pipeline)
    assert tok.engine == "tiktoken-bpe"
    with pytest.raises(ValueError, match="pre-tokenizes in stages"):
        tok.encode("abc", engine="tiktoken")
    for text in corpus():
        _assert_same(tok, text, engine="tiktoken-bpe")
    assert [i.id for i in tok.encode_with_details(RECENT)] == tok.encode_ordinary(RECENT, engine="tiktoken-bpe")


def test_no_pattern_is_one_piece_for_both(trained):
    tok = bpe_core.Tokenizer(trained.vocab, trained.merges, special_tokens=trained.special_tokens, pattern=None)
    assert tok.engine == "tiktoken", tok._engine_obstacle
    for text in corpus():
        _assert_same(tok, text)


def test_ranks_tiktoken_cannot_merge_alike_stay_on_python():
    vocab = {i: bytes([i]) for i in range(256)}
    vocab.update({256: b"ab", 257: b"bc", 258: b"abc"})
    # "abc" comes from (a, bc), but BPE on its bytes merges (a, b) first: it does not encode to itself.
    tok = bpe_core.Tokenizer(vocab, [(b"a", b"b"), (b"b", b"c"), (b"a", b"bc")], pattern="gpt2")
    assert tok.engine == "python"
    assert "does not encode to itself" in tok._engine_obstacle
    for engine in ("tiktoken", "tiktoken-bpe"):
        with pytest.raises(ValueError, match=f"engine='{engine}' cannot .*token 258 \\(b'abc'\\) does not encode"):
            tok.encode_ordinary("abc", engine=engine)
    assert tok.encode_ordinary("abc" * 100_000, engine="auto") == tok.encode_ordinary("abc" * 100_000, engine="python")
    assert tok.build_engine() == "python"


def test_merges_making_ids_out_of_order_stay_on_python():
    vocab = {i: bytes([i]) for i in range(256)}
    vocab.update({256: b"ab", 257: b"cd"})
    tok = bpe_core.Tokenizer(vocab, [(b"c", b"d"), (b"a", b"b")], pattern="gpt2")
    assert tok.engine == "python" and "increasing order" in tok._engine_obstacle


def test_bad_engine_names_say_which_exist(tokenizers, monkeypatch):
    tok = tokenizers["trained"]
    with pytest.raises(ValueError, match="engine must be one of 'auto', 'python', 'tiktoken', 'tiktoken-bpe'"):
        tok.encode("a", engine="rust")
    with pytest.raises(ValueError, match="engine must be one of"):
        tok.encode_ordinary_batch(["a"], engine="fast")
    monkeypatch.setenv("BPE_CORE_ENGINE", "turbo")
    with pytest.raises(ValueError, match="BPE_CORE_ENGINE='turbo' must be one of auto, python"):
        tok.encode("a")


def test_a_tiktoken_with_other_unicode_classes_is_not_used_for_splitting(monkeypatch, trained):
    import tiktoken

    monkeypatch.setattr(tiktoken, "__version__", "9.9.9")
    monkeypatch.setattr(unicode_classes, "tiktoken_unicode_version", lambda: "99.0")
    tiktoken_engine.tiktoken_obstacle.cache_clear()
    try:
        tok = bpe_core.Tokenizer(trained.vocab, trained.merges, special_tokens=trained.special_tokens)
        assert tok.engine == "tiktoken-bpe"
        assert "follows Unicode 99.0" in tok._engine_obstacle and "--write" in tok._engine_obstacle
    finally:
        tiktoken_engine.tiktoken_obstacle.cache_clear()


# ------------------------------------------------------------------------------------------------
# auto: built once, only when enough text came


def test_auto_builds_the_engine_once_enough_text_came(trained, monkeypatch):
    monkeypatch.setenv("BPE_CORE_ENGINE", "auto")
    tok = bpe_core.Tokenizer(trained.vocab, trained.merges, special_tokens=trained.special_tokens)
    small = "a short text "
    needed = tiktoken_engine.BUILD_CHARS_PER_TOKEN * (tok.vocab_size - 1)
    assert tok.encode(small) == tok.encode(small, engine="python")
    assert not tok._engines.native.built
    big = small * (needed // len(small) + 1)
    assert tok.encode(big) == tok.encode(big, engine="python")
    assert tok._engines.native.built
    first = tok._engines.native.encode_text
    tok.encode_ordinary(big)
    tok.build_engine()
    assert tok._engines.native.encode_text is first  # built once
    again = pickle.loads(pickle.dumps(tok))  # tiktoken's engine is not pickled: rebuilt when needed
    assert not again._engines.native.built and again.encode(big) == tok.encode(big)


def test_build_engine_builds_it_now(trained):
    tok = bpe_core.Tokenizer(trained.vocab, trained.merges, special_tokens=trained.special_tokens)
    assert not tok._engines.native.built
    assert tok.build_engine() == "tiktoken" and tok._engines.native.built


def test_the_known_tiktoken_patterns_are_the_catalogues():
    assert model_specials.LLAMA3_PATTERN in tiktoken_engine.TIKTOKEN_PATTERNS
    if catalogue.is_installed("mistral"):
        assert bpe_core.load("mistral").pattern in tiktoken_engine.TIKTOKEN_PATTERNS


@pytest.mark.parametrize("name", ["llama3", "mistral", "qwen", "deepseek"])
def test_modern_tokenizers_get_the_engine_their_splitting_allows(name):
    tok = _available(name)
    pinned = not any(unicode_classes.disagreeing(n) for n in unicode_classes.NAMES)
    if name in ("qwen", "deepseek"):  # Pipelines
        assert tok.engine == "tiktoken-bpe" and "stages" in tok._engine_obstacle
    elif not pinned:  # the `regex` module's Unicode differs from tiktoken's
        assert tok.engine == "tiktoken-bpe" and "Unicode classes" in tok._engine_obstacle
    else:
        assert tok.engine == "tiktoken"
    texts = [s.text for s in load_samples("natural")] + [RECENT, WHITESPACE, _disputed_text()[:3000]]
    for text in texts:
        assert tok.encode_ordinary(text, engine="auto") == tok.encode_ordinary(text, engine="python")
        _assert_same(tok, text, engine="tiktoken-bpe")
