"""Tokenizer files made into named tokenizers (``bpe_core.workspace.tokenizer_files``): one name whatever
the format, a built-in's ranks named after it (the first in the caller's order when two share ranks), a
rank file's tokenizer with the pattern its caller names or the built-in's own."""

from __future__ import annotations

import doctest
import json
from types import SimpleNamespace

import pytest

import bpe_core
from bpe_core.errors import BpeError
from bpe_core.formats.huggingface import save_huggingface
from bpe_core.formats.tiktoken_file import save_tiktoken
from bpe_core.pretrained import catalogue
from bpe_core.pretrained.external import ExternalTokenizer
from bpe_core.workspace import shared_builtins, tokenizer_files

CORPUS = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog"] * 20


@pytest.fixture(scope="module")
def trained():
    return bpe_core.train(CORPUS, 280, name="my-bpe")


def test_the_examples_in_the_docstrings_hold():
    assert doctest.testmod(tokenizer_files).failed == 0


def test_a_file_keeps_the_name_it_records_else_takes_the_files(trained, tmp_path, monkeypatch):
    monkeypatch.setattr(tokenizer_files, "builtin_of_ranks", lambda *a, **k: None)
    save_huggingface(trained, tmp_path / "tokenizer.json")
    hf = tokenizer_files.from_file("tokenizer.json", (tmp_path / "tokenizer.json").read_bytes())
    assert isinstance(hf, bpe_core.Tokenizer) and hf.name == "tokenizer"  # generic: the file's name
    ours = tokenizer_files.from_file("saved.json", trained.to_json().encode())
    assert ours.name == "my-bpe" and ours.encode("the cat") == trained.encode("the cat")


def test_ranks_equal_to_a_builtins_name_the_tokenizer_after_the_first_in_order(trained, tmp_path, monkeypatch):
    about = SimpleNamespace(vocab_size=trained.vocab_size + 1)  # one special token more
    statuses = {name: SimpleNamespace(about=about) for name in ("twin-a", "twin-b", "other")}
    monkeypatch.setattr(
        shared_builtins, "installed_builtins", lambda order=(): {n: statuses[n] for n in (*order, "other")}
    )
    same = SimpleNamespace(_token_to_id=dict(trained._token_to_id))
    monkeypatch.setattr(
        shared_builtins,
        "builtin_tokenizer",
        lambda name: same if name.startswith("twin") else SimpleNamespace(_token_to_id={}),
    )
    save_tiktoken(trained, tmp_path / "r.tiktoken")
    data = (tmp_path / "r.tiktoken").read_bytes()
    assert tokenizer_files.read_rank_file("r.tiktoken", data, order=("twin-b", "twin-a")).model == "twin-b"
    assert tokenizer_files.read_rank_file("r.tiktoken", data, order=("twin-a", "twin-b")).model == "twin-a"
    assert tokenizer_files.from_file("x.json", trained.to_json().encode(), order=("twin-a",)).name == "twin-a"
    assert tokenizer_files.read_rank_file("r.tiktoken", data, order=()).model is None


def test_a_rank_file_takes_the_pattern_its_caller_names(trained, tmp_path, monkeypatch):
    monkeypatch.setattr(catalogue, "cache_folder", lambda: None)  # nothing kept on disk by the test
    save_tiktoken(trained, tmp_path / "mine.tiktoken")
    data = (tmp_path / "mine.tiktoken").read_bytes()
    assert tokenizer_files.is_rank_file("mine.tiktoken", data) and tokenizer_files.is_rank_file("mine.txt", data)
    rank_file = tokenizer_files.read_rank_file("mine.tiktoken", data)
    assert rank_file.model is None and len(rank_file.ranks) == trained.vocab_size
    made = tokenizer_files.from_rank_file(rank_file, pattern="gpt2")
    assert made.name == "mine" and made.merges == trained.merges
    assert made.encode("the cat sat on the mat") == trained.encode("the cat sat on the mat")
    with pytest.raises(BpeError, match="name the pattern"):
        tokenizer_files.from_rank_file(rank_file)  # no built-in's ranks: no pattern of its own


def test_a_rank_file_of_a_builtin_takes_its_pattern_and_special_tokens(tmp_path):
    if not catalogue.is_installed("gpt2"):
        pytest.skip("gpt2's built-in is not installed")
    gpt2 = bpe_core.load("gpt2")
    save_tiktoken(gpt2, tmp_path / "ranks.tiktoken")
    data = (tmp_path / "ranks.tiktoken").read_bytes()
    rank_file = tokenizer_files.read_rank_file("ranks.tiktoken", data, order=("gpt2",))
    assert rank_file.model == "gpt2"
    made = tokenizer_files.from_rank_file(rank_file)
    assert made.name == "gpt2" and made.special_tokens == gpt2.special_tokens
    text = "Hello world's   <|endoftext|>"
    assert made.encode(text, allowed_special="all") == gpt2.encode(text, allowed_special="all")


def test_a_file_that_is_no_tokenizer_raises_for_the_caller_to_word(tmp_path):
    assert not tokenizer_files.is_rank_file("data.json", json.dumps({"rows": [1, 2]}).encode())
    with pytest.raises(ValueError):
        tokenizer_files.from_file("data.json", json.dumps({"rows": [1, 2]}).encode())
    with pytest.raises(BpeError, match="line 2"):
        tokenizer_files.read_rank_file("bad.tiktoken", b"IQ== 0\nnot a rank line\n")


def test_an_external_file_is_named_by_its_record_or_file(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    word_piece = tokenizers.Tokenizer(tokenizers.models.WordPiece({"[UNK]": 0, "a": 1}, unk_token="[UNK]"))
    data = word_piece.to_str().encode()
    external = tokenizer_files.from_file("bert-ish.json", data)
    assert isinstance(external, ExternalTokenizer) and external.name == "bert-ish"
