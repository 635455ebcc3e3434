"""The built-ins' model tables on disk (pretrained.model_cache): a tokenizer rebuilt from them is the
tokenizer built with every check (ids, merges, late merges, whole-word tokens, its file, pickling);
damaged, foreign or older tables are refused and written again; a cache that cannot be used only
costs the checked build."""

from __future__ import annotations

import functools
import pickle
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_core
from bpe_core.errors import BpeError
from bpe_core.pretrained import catalogue, model_cache
from bpe_core.pretrained import package_files as pretrained
from bpe_core.tokenizer import Tokenizer
from bpe_core.training.picky import train_picky

BYTES = {bytes([b]): b for b in range(256)}
# Merges, late merges ("ab" ranked after "abc") and a whole-word token ("pqrp" with "pq" "r" "p" stuck).
RANKS = BYTES | {b"abc": 256, b"ab": 257, b"ca": 258, b"abca": 259, b"xyz": 260, b"xy": 261, b"pq": 262, b"pqrp": 263}
SPECIALS = {"<|end|>": 264}
DATA = b"the pinned file the ranks came from"
HEAD = len(model_cache.TABLES_FORMAT)
TEXTS = st.text(alphabet="abcxyzpqr <|end>\u00e9", max_size=40)


def checked_ranks() -> Tokenizer:
    return Tokenizer.from_ranks(RANKS, special_tokens=SPECIALS, pattern=None, name="ranks")


def checked_trained() -> Tokenizer:
    return bpe_core.train(["low lower lowest newer wider " * 20, "café naïve 你好 " * 10], 320, name="trained")


def cached(folder, build, specials=SPECIALS, pattern=None, name="ranks") -> Tokenizer:
    return model_cache.cached_tokenizer(folder, DATA, build, special_tokens=lambda _: specials, pattern=pattern,
                                        name=name)  # fmt: skip


def from_tables(tmp_path, build, **options) -> Tokenizer:
    """``build()``'s tokenizer written to the tables on a first call, then read back from them."""
    cached(tmp_path, build, **options)
    return cached(tmp_path, lambda: pytest.fail("built again although its tables are cached"), **options)


def same_tokenizer(ours: Tokenizer, reference: Tokenizer) -> None:
    """Equal in all but the training record (merge counts, settings): built-ins have none to keep."""
    assert (dict(ours.vocab), ours.special_tokens, ours.pattern) == (dict(reference.vocab), reference.special_tokens,
                                                                      reference.pattern)  # fmt: skip
    assert ours.merges == reference.merges
    assert ours._late_merges == reference._late_merges
    assert ours.whole_word_tokens == reference.whole_word_tokens
    assert ours.tokens_encode_to_themselves == reference.tokens_encode_to_themselves
    assert [ours.merge_rank_of(i) for i in ours.vocab] == [reference.merge_rank_of(i) for i in reference.vocab]


def test_a_tokenizer_with_late_merges_and_whole_words_round_trips(tmp_path):
    ours, reference = from_tables(tmp_path, checked_ranks), checked_ranks()
    assert reference._late_merges and reference.whole_word_tokens
    same_tokenizer(ours, reference)
    assert ours.to_json() == reference.to_json()
    same_tokenizer(pickle.loads(pickle.dumps(ours)), reference)


def test_a_trained_tokenizer_round_trips_under_bpe_rule(tmp_path):
    reference = checked_trained()
    ours = from_tables(tmp_path, checked_trained, specials={}, pattern="gpt2", name="trained")
    same_tokenizer(ours, reference)
    assert ours.truncated(20).encode("lower newer") == reference.truncated(20).encode("lower newer")


@functools.cache
def ranks_pair() -> tuple[Tokenizer, Tokenizer]:
    """(from its tables, checked) for RANKS, the tables in a folder of their own."""
    return from_tables(Path(tempfile.mkdtemp(prefix="bpe-tables-")), checked_ranks), checked_ranks()


@settings(max_examples=150, deadline=None)
@given(TEXTS)
def test_tables_encode_as_the_checked_tokenizer(text):
    ours, reference = ranks_pair()
    assert ours.encode(text, allowed_special="all") == reference.encode(text, allowed_special="all")
    assert ours.encode_ordinary(text * 5) == reference.encode_ordinary(text * 5)  # long pieces: the heap


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"another format\n" + data[len(model_cache.TABLES_FORMAT):],
        lambda data: data[:-3],
        lambda data: data[:-1] + bytes([data[-1] ^ 1]),  # one bit of a token's bytes
        lambda data: data[: HEAD + 40] + b"\x00" + data[HEAD + 41 :],  # the digest
        lambda data: model_cache.TABLES_FORMAT,
    ],
)
def test_damaged_tables_are_refused(damage):
    data = model_cache.tables_to_bytes(checked_ranks()._model.tables(), b"s" * 32)
    assert model_cache.tables_from_bytes(data, b"s" * 32).token_to_id == checked_ranks()._model.tables().token_to_id
    with pytest.raises(ValueError):
        model_cache.tables_from_bytes(damage(data), b"s" * 32)


def test_tables_of_other_files_are_refused():
    data = model_cache.tables_to_bytes(checked_ranks()._model.tables(), b"s" * 32)
    with pytest.raises(ValueError, match="other files"):
        model_cache.tables_from_bytes(data, b"t" * 32)


def test_damaged_tables_are_built_again_and_rewritten(tmp_path):
    cached(tmp_path, checked_ranks)
    (written,) = tmp_path.iterdir()
    written.write_bytes(written.read_bytes()[:-5])
    built = []
    ours = cached(tmp_path, lambda: built.append(1) or checked_ranks())
    assert built == [1]
    same_tokenizer(ours, checked_ranks())
    same_tokenizer(cached(tmp_path, lambda: pytest.fail("rewritten tables not used")), checked_ranks())


def test_a_special_token_on_an_ordinary_id_falls_back_to_the_checked_build(tmp_path):
    cached(tmp_path, checked_ranks)
    with pytest.raises(ValueError, match="has id 256"):  # the checked build's own message
        cached(tmp_path, lambda: Tokenizer.from_ranks(RANKS, special_tokens={"<x>": 256}, pattern=None),
               specials={"<x>": 256})  # fmt: skip


def test_no_folder_and_an_unwritable_one_only_cost_the_checked_build(tmp_path):
    same_tokenizer(cached(None, checked_ranks), checked_ranks())
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    same_tokenizer(cached(blocker / "tables", checked_ranks), checked_ranks())


@pytest.mark.parametrize("name", ["cl100k", "o200k", "llama3", "qwen3.5"])
def test_a_built_in_from_its_tables_is_the_checked_one(tmp_path, monkeypatch, name):
    """Each rank file's built-in, cold (every check; its tables written once its merges are first asked
    for) then warm (its merges from the tables). GPT-2 keeps no tables (tests/pretrained/test_deferred_builtins.py)."""
    if not catalogue.is_installed(name):
        pytest.skip(f"{name}'s package is not installed")
    monkeypatch.setenv(catalogue.CACHE_ENV_VAR, str(tmp_path))
    builtin = catalogue.BUILTINS[name]
    path = pretrained.package_file(builtin.module, *builtin.path, install_hint=builtin.install_hint)
    data = pretrained.read_checked(path, builtin.sha256)
    cold = builtin.build(data)
    assert cold.merges  # proved on first use (a rank file's built-in), the tables written
    assert any(p.suffix == ".tables" for p in (tmp_path / "rank-structures").iterdir())
    warm = builtin.build(data)
    text = "Hello world, việc 1234567 <|endoftext|>   spaces\n\n" + "x" * 90 + " naïve 你好世界 🙂"
    assert warm.encode(text, allowed_special="all") == cold.encode(text, allowed_special="all")
    assert warm.special_tokens == cold.special_tokens and warm.pattern == cold.pattern
    assert warm.merges == cold.merges and warm._late_merges == cold._late_merges
    assert warm.whole_word_tokens == cold.whole_word_tokens
    assert dict(warm.vocab) == dict(cold.vocab)


def test_a_picky_tokenizer_is_never_written_to_tables(tmp_path):
    """Picky BPE's events are no ranked merges: its model has no tables, so the cache keeps nothing and
    gives the checked build itself (a later call builds it again)."""
    def picky() -> Tokenizer:
        return train_picky([" hug" * 20 + " chug" + " ug" * 3], 270, threshold=0.9, min_frequency=1)

    reference = picky()
    assert reference.rule == "picky" and reference.picky_events
    with pytest.raises(BpeError, match="ranked merges"):
        reference._model.tables()
    ours = cached(tmp_path, picky, specials={}, pattern="gpt2", name=reference.name)
    assert ours.rule == "picky" and not list(tmp_path.iterdir())
    assert ours.encode(" hug chug ug") == reference.encode(" hug chug ug")
    built = []
    cached(tmp_path, lambda: built.append(1) or picky(), specials={}, pattern="gpt2", name=reference.name)
    assert built == [1]
