"""Batch encoding: the same ids as one text at a time, whether in this process or in worker
processes, with long texts cut at safe cuts, special tokens, and workers that die."""

import pytest

import bpe_core
from bpe_core import parallel
from bpe_core.encoding import batch

TEXTS = [
    "def f(x):\n    return x + 1  # it's <|endoftext|> here\n" * 40,
    "Ünïcödé wörds, 東京タワー, emoji 🚀 and numbers 1234567890 " * 30,
    "",
    "<|endoftext|>",
    "   spaces   \n\n\t tabs " * 25,
]


@pytest.fixture(scope="module")
def gpt2():
    return bpe_core.load("gpt2")


@pytest.fixture
def small_tasks(monkeypatch):
    # Tasks of ~300 characters: every long text is cut and spread over several tasks.
    monkeypatch.setattr(batch, "BATCH_TASK_CHARS", 300)


@pytest.fixture
def worker_runs(monkeypatch):
    """How many times ordered_map ran (it starts the workers)."""
    calls = []
    real = batch.ordered_map

    def counting(*args, **kwargs):
        calls.append(kwargs["workers"])
        return real(*args, **kwargs)

    monkeypatch.setattr(batch, "ordered_map", counting)
    return calls


def test_ordinary_batch_in_workers_equals_one_at_a_time(gpt2, small_tasks, worker_runs):
    expected = [gpt2.encode_ordinary(text) for text in TEXTS]
    assert gpt2.encode_ordinary_batch(TEXTS, workers=2) == expected
    assert worker_runs == [2]
    assert gpt2.encode_ordinary_batch(TEXTS, workers=1) == expected
    assert gpt2.encode_ordinary_batch(TEXTS) == expected  # small batch: this process
    assert worker_runs == [2]


def test_batch_with_special_tokens_in_workers(gpt2, small_tasks, worker_runs):
    expected = [gpt2.encode(text, allowed_special="all") for text in TEXTS]
    assert gpt2.encode_batch(TEXTS, allowed_special="all", workers=2) == expected
    assert worker_runs == [2]
    assert expected[3] == [50256]
    ordinary = gpt2.encode_batch(TEXTS, disallowed_special=(), workers=2)
    assert ordinary == [gpt2.encode_ordinary(text) for text in TEXTS]


def test_disallowed_special_tokens_raise_before_any_work(gpt2, worker_runs):
    with pytest.raises(ValueError, match="disallowed special token '<\\|endoftext\\|>'"):
        gpt2.encode_batch(TEXTS, workers=2)
    assert worker_runs == []


def test_trained_and_custom_pattern_tokenizers_in_workers(small_tasks):
    corpus = "the quick brown fox jumps over the lazy dog; again and again " * 30
    for pattern in ("gpt2", r"\w+|\s+|[^\w\s]+"):
        tok = bpe_core.train(corpus, 320, pattern=pattern, special_tokens=["<|endoftext|>"], min_frequency=1)
        texts = [corpus, "unseen wörds 🚀 <|endoftext|>" * 20]
        assert tok.encode_batch(texts, allowed_special="all", workers=2) == [
            tok.encode(text, allowed_special="all") for text in texts
        ]


def test_dead_workers_fall_back_to_this_process(gpt2, small_tasks, monkeypatch):
    monkeypatch.setattr(parallel, "_WORKER_CODE", "import sys; sys.exit(3)")
    expected = [gpt2.encode_ordinary(text) for text in TEXTS]
    assert gpt2.encode_ordinary_batch(TEXTS, workers=2) == expected


def test_long_texts_are_cut_only_at_safe_cuts():
    from bpe_core.pretokenization.pretokenizer import cut_at_safe_cuts, safe_cut_regex

    text = "word, word!  more\n\n  words" * 50
    parts = cut_at_safe_cuts(text, safe_cut_regex(bpe_core.load("gpt2").pretokenizer.source), 40)
    assert "".join(parts) == text and len(parts) > 5
    assert all(len(part) >= 40 for part in parts[:-1])
    assert all(part[0].isspace() for part in parts[1:]) and all(not part[-1].isspace() for part in parts[:-1])
    assert cut_at_safe_cuts(text, None, 40) == [text]


@pytest.mark.parametrize("workers", [0, -2, 1.5, True, "2"])
def test_bad_workers_is_a_value_error(gpt2, workers):
    with pytest.raises(ValueError, match="workers"):
        gpt2.encode_ordinary_batch(["text"], workers=workers)


def test_non_str_texts_are_type_errors(gpt2):
    with pytest.raises(TypeError, match="texts must be str"):
        gpt2.encode_ordinary_batch(["ok", b"bytes"])
    with pytest.raises(TypeError, match="use encode\\(\\) for a single text"):
        gpt2.encode_batch("one text, not a list")
