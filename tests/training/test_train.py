"""Training: the incremental trainer against the naive reference, settings, files, progress."""

import inspect
import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from naive_bpe import naive_train

import bpe_core
from bpe_core.corpora import text_files as corpus_module
from bpe_core.training import engine
from bpe_core.training.counting import count_words
from bpe_core.training.engine import STOP_NO_PAIRS
from bpe_core.training.pairs import id_string

# Small alphabets make ties and runs like "aaaa" common.
words = st.text(alphabet="aab b\n", min_size=0, max_size=12)
corpora = st.lists(words, min_size=1, max_size=6)


@pytest.mark.parametrize("tie_break", ["first", "lexicographic"])
@given(corpus=corpora, merges=st.integers(0, 25), min_frequency=st.integers(1, 3))
def test_matches_naive_trainer_gpt2_pattern(corpus, merges, min_frequency, tie_break):
    expected = naive_train(corpus, merges, tie_break=tie_break, min_frequency=min_frequency)
    tok = bpe_core.train(corpus, 256 + merges, min_frequency=min_frequency, tie_break=tie_break)
    assert tok.merges == expected


@pytest.mark.parametrize("tie_break", ["first", "lexicographic"])
@given(corpus=st.lists(st.text(alphabet="abc", max_size=30), min_size=1, max_size=3), merges=st.integers(0, 30))
def test_matches_naive_trainer_without_pretokenization(corpus, merges, tie_break):
    expected = naive_train(corpus, merges, pattern=None, tie_break=tie_break)
    tok = bpe_core.train(corpus, 256 + merges, pattern=None, min_frequency=1, tie_break=tie_break)
    assert tok.merges == expected


@pytest.mark.parametrize("tie_break", ["first", "lexicographic"])
@given(corpus=st.lists(st.text(alphabet="ab<>|x é", max_size=20), min_size=1, max_size=4), merges=st.integers(0, 20))
def test_matches_naive_trainer_custom_pattern_and_specials(corpus, merges, tie_break):
    specials = ["<|x|>", "<>"]
    pattern = r"[ab]+|é+"  # leaves spaces, <, >, |, x unmatched: they become one-character pieces
    expected = naive_train(corpus, merges, pattern=pattern, tie_break=tie_break, specials=specials)
    tok = bpe_core.train(
        corpus, 258 + merges, pattern=pattern, min_frequency=1, tie_break=tie_break, special_tokens=specials
    )
    assert tok.merges == expected


@given(corpus=corpora)
def test_merges_are_unique_tokens_and_ids_are_dense(corpus):
    tok = bpe_core.train(corpus, 300, min_frequency=1)
    values = list(tok.vocab.values())
    assert len(values) == len(set(values))
    assert sorted(tok.vocab) == list(range(tok.vocab_size))
    for record in tok.merge_records:
        assert record.id == 256 + record.rank
        assert tok.vocab[record.id] == tok.vocab[record.left] + tok.vocab[record.right]


def test_pair_whose_bytes_already_exist_is_skipped_not_duplicated():
    # Hand-built state: "abc" exists via (ab, c); a later best pair (a, bc) would make "abc" again.
    # learn_merges must skip it (never two ids with the same bytes) and take the next pair.
    token_bytes = {i: bytes([i]) for i in range(256)}
    token_bytes[256] = b"ab"
    token_bytes[257] = b"bc"
    token_bytes[258] = b"abc"
    words = [id_string(w) for w in ([97, 257], [97, 257], [97, 257], [120, 121])]
    freqs = [1, 1, 1, 1]
    merges, reason = engine.learn_merges(
        words, freqs, token_bytes=token_bytes, next_id=259, num_merges=5, min_frequency=1, tie_break="lexicographic"
    )
    assert [(m.left, m.right) for m in merges] == [(120, 121)]
    assert token_bytes[259] == b"xy"
    assert reason == STOP_NO_PAIRS
    assert words[0] == id_string([97, 257])  # the skipped pair was not merged


def test_vocab_size_counts_bytes_specials_and_merges():
    tok = bpe_core.train("the quick brown fox jumps over the lazy dog " * 50, 270, special_tokens=["<s>", "</s>"])
    assert tok.vocab_size == 270
    assert len(tok.merges) == 270 - 258
    assert tok.training["settings"]["vocab_size"] == 270


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"vocab_size": 255}, "at least 256"),
        ({"vocab_size": 257, "special_tokens": ["<a>", "<b>"]}, "at least 258"),
        ({"vocab_size": 300, "min_frequency": -1}, "min_frequency"),
        ({"vocab_size": 300, "tie_break": "random"}, "tie_break"),
        ({"vocab_size": 300, "pattern": "(unclosed"}, "invalid pre-tokenization regex"),
        ({"vocab_size": 300, "pattern": r"\w*"}, "matches the empty string"),
        ({"vocab_size": 300, "pattern": ""}, "pattern is empty"),
        ({"vocab_size": 300, "special_tokens": ["<a>", "<a>"]}, "listed twice"),
        ({"vocab_size": 300, "special_tokens": [""]}, "empty string"),
    ],
)
def test_bad_settings_are_clear_value_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        bpe_core.train("some text", **kwargs)


@pytest.mark.parametrize(
    "kwargs", [{"vocab_size": 300.5}, {"vocab_size": "300"}, {"vocab_size": 300, "special_tokens": "<s>"}]
)
def test_bad_types_are_type_errors(kwargs):
    with pytest.raises(TypeError):
        bpe_core.train("some text", **kwargs)


def test_bytes_input_is_a_type_error_that_says_decode():
    with pytest.raises(TypeError, match="decode"):
        bpe_core.train(b"raw bytes", 300)


def test_pathological_regex_times_out_with_a_clear_error(monkeypatch):
    monkeypatch.setattr("bpe_core.pretokenization.pretokenizer.REGEX_TIMEOUT_SECONDS", 0.2)
    with pytest.raises(ValueError, match="catastrophic backtracking"):
        bpe_core.train("a" * 40 + "!", 300, pattern=r"(a|a)+b|(a+)+$!")


def test_text_the_pattern_does_not_match_still_roundtrips():
    tok = bpe_core.train("abc def!! abc", 270, pattern=r"[a-z]+", min_frequency=1)
    text = "abc, def!!\n\tghi 東京"
    assert tok.decode(tok.encode(text)) == text


def test_special_tokens_are_cut_out_and_never_merged_across():
    corpus = "ab<|sep|>ab<|sep|>ab<|sep|>"
    tok = bpe_core.train(corpus, 300, special_tokens=["<|sep|>"], pattern=None, min_frequency=1)
    merged = [a + b for a, b in tok.merges]
    assert all(b"<" not in token and b"|" not in token for token in merged)
    assert tok.training["corpus"]["special_tokens_cut"] == 3


def test_training_is_deterministic():
    corpus = ["the cat sat on the mat", "a dog sat on a log", "tie tie tie"] * 3
    a = bpe_core.train(corpus, 320, min_frequency=1)
    b = bpe_core.train(iter(corpus), 320, min_frequency=1)
    assert a.merges == b.merges
    assert a.vocab == b.vocab


def test_word_counts_from_chunks_add_up():
    pre = bpe_core.pretokenization.pretokenizer.PreTokenizer.build("gpt2")
    texts = ["one two three", "two three", "three"]
    whole = count_words(texts, pretokenizer=pre)
    part = count_words(texts[:1], pretokenizer=pre)
    part.update(count_words(texts[1:], pretokenizer=pre))
    assert whole.counts == part.counts
    assert whole.stats == part.stats
    merged = bpe_core.train_from_counts(part, 270, min_frequency=1)
    assert merged.merges == bpe_core.train(texts, 270, min_frequency=1).merges


def test_progress_reports_counting_and_every_percent_of_merges():
    calls = []
    tok = bpe_core.train(
        ["word " * 20 + "other words here"] * 30,
        256 + 200,
        min_frequency=1,
        progress=lambda phase, done, total: calls.append((phase, done, total)),
    )
    phases = [c[0] for c in calls]
    assert "count" in phases and "merge" in phases
    merge_calls = [c for c in calls if c[0] == "merge"]
    done = [c[1] for c in merge_calls]
    assert done == sorted(done)
    assert merge_calls[0][2] == 200
    learned = len(tok.merges)
    # at least every 1% (2 merges here) until training stopped
    assert all(b - a <= 2 for a, b in zip(done, done[1:], strict=False))
    assert done[-1] >= learned - 2


def test_train_files_equals_train_on_the_same_text(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus_module, "FILE_BLOCK_BYTES", 7)  # tiny blocks: many boundaries
    texts = ["Hello wörld!\n\n   spaces   and\ttabs\n1234567 東京 🚀🚀", "second <|eot|> file\n  \n"]
    paths = []
    for i, text in enumerate(texts):
        path = tmp_path / f"doc{i}.txt"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    from_files = bpe_core.train_files(paths, 300, min_frequency=1, special_tokens=["<|eot|>"])
    from_texts = bpe_core.train(texts, 300, min_frequency=1, special_tokens=["<|eot|>"])
    assert from_files.merges == from_texts.merges
    assert from_files.training["corpus"] == from_texts.training["corpus"]


def test_train_files_names_the_file_and_offset_of_invalid_utf8(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("caf\u00e9 ok\n".encode("utf-8") + b"na\xefve\n")
    with pytest.raises(ValueError, match=r"latin1.txt is not valid UTF-8 at byte offset 11"):
        bpe_core.train_files([path], 300)


def test_train_files_missing_file_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="not a readable file"):
        bpe_core.train_files([tmp_path / "nope.txt"], 300)


def test_train_files_streams_a_file_larger_than_one_block(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus_module, "FILE_BLOCK_BYTES", 1000)
    path = tmp_path / "big.txt"
    line = "the quick brown fox jumps over the lazy dog\n"
    path.write_text(line * 500, encoding="utf-8")
    tok = bpe_core.train_files(path, 300)
    assert tok.training["corpus"]["characters"] == len(line) * 500
    assert tok.encode(" quick")[0] >= 256


def test_importing_bpe_core_loads_no_ui_libraries():
    code = (
        "import sys, bpe_core, bpe_core.cli.main, bpe_core.training._educational, bpe_core.formats, "
        "bpe_core.pretrained.package_files, bpe_core.analysis.metrics;"
        "bad = [m for m in ('streamlit', 'plotly', 'pandas') if m in sys.modules];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    result = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_lone_surrogates_train_as_the_replacement_character_encoding_uses():
    tok = bpe_core.train(["x\ud800y x\ud800y x\ud800y"], 300, pattern=None, min_frequency=1)
    replacement = "\ufffd".encode("utf-8")
    merged = {a + b for a, b in tok.merges}
    assert any(replacement in token for token in merged)
    assert len(tok.encode("x\ud800y x\ud800y x\ud800y")) == 1


def test_every_way_of_training_spells_out_trains_keywords_with_the_same_defaults():
    """help() shows each keyword and its default: no **options anywhere."""
    from bpe_core.training.count_shards import train_from_shards
    from bpe_core.training.distributed import train_on_dask

    def keywords(function):
        parameters = inspect.signature(function).parameters.values()
        assert all(p.kind is not inspect.Parameter.VAR_KEYWORD for p in parameters), function.__name__
        return {p.name: p.default for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY}

    trains = keywords(bpe_core.train)
    assert set(trains) == {"min_frequency", "pattern", "special_tokens", "tie_break", "progress", "name", "workers"}
    for function, left_out in [
        (bpe_core.train_files, set()),
        (bpe_core.train_from_counts, {"workers"}),
        (train_on_dask, set()),
        (train_from_shards, {"workers", "pattern", "special_tokens"}),
    ]:
        theirs = keywords(function)
        assert {name: theirs[name] for name in set(trains) - left_out} == {
            name: trains[name] for name in set(trains) - left_out
        }, function.__name__


def test_train_files_and_train_from_counts_name_a_wrong_keyword(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("ab ab ab", encoding="utf-8")
    with pytest.raises(TypeError, match="unexpected keyword argument 'min_freq'"):
        bpe_core.train_files(path, 300, min_freq=1)
    counts = count_words(["ab ab ab"], pretokenizer=bpe_core.pretokenization.pretokenizer.PreTokenizer.build("gpt2"))
    with pytest.raises(TypeError, match="unexpected keyword argument 'workers'"):
        bpe_core.train_from_counts(counts, 300, workers=2)
    from_file = bpe_core.train_files(path, 300, min_frequency=1)
    assert from_file.merges == bpe_core.train("ab ab ab", 300, min_frequency=1).merges
