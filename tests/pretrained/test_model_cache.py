"""The model tables of a rank file's built-in on disk (pretrained.model_cache): written when its merges
are first needed, read back by the next tokenizer of the same file, which then equals the tokenizer
built with every check (merges, late merges, whole-word tokens, ids, its first-k views, its file,
pickling); a table file of another format, of another file or cut to its header is refused, proved
again and rewritten; tables on disk skip none of the load-time checks; the tables' bytes hold either
rule and refuse any damage; a Picky BPE model has none. Loading before the merges are known, damaged
copies and folders that cannot be used: tests/pretrained/test_deferred_builtins.py."""

from __future__ import annotations

import hashlib
import pickle
from unittest import mock

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
DIGEST = hashlib.sha256(DATA).digest()
HEAD = len(model_cache.TABLES_FORMAT)
TEXTS = st.text(alphabet="abcxyzpqr <|end>\u00e9", max_size=40)


def checked_ranks() -> Tokenizer:
    return Tokenizer.from_ranks(RANKS, special_tokens=SPECIALS, pattern=None, name="ranks")


def deferred(folder, specials=SPECIALS) -> Tokenizer:
    return model_cache.ranks_tokenizer(folder, DATA, dict(RANKS), special_tokens=specials, pattern=None, name="ranks")


def read_back(folder) -> Tokenizer:
    """RANKS' tokenizer whose merges come from the tables a first one wrote to ``folder``, proving nothing."""
    assert deferred(folder).merges
    ours = deferred(folder)
    with mock.patch.object(model_cache, "rank_structure", side_effect=AssertionError("proved despite its tables")):
        assert ours.merges
    return ours


def same_tokenizer(ours: Tokenizer, reference: Tokenizer) -> None:
    """Equal in all but the training record (merge counts, settings): built-ins have none to keep."""
    assert (dict(ours.vocab), ours.special_tokens, ours.pattern) == (
        dict(reference.vocab),
        reference.special_tokens,
        reference.pattern,
    )
    assert ours.merges == reference.merges
    assert ours._late_merges == reference._late_merges
    assert ours.whole_word_tokens == reference.whole_word_tokens
    assert ours.tokens_encode_to_themselves == reference.tokens_encode_to_themselves
    assert [ours.merge_rank_of(i) for i in ours.vocab] == [reference.merge_rank_of(i) for i in reference.vocab]


def test_tables_are_written_on_first_use_of_merges_and_read_back(tmp_path):
    folder = tmp_path / "not made" / "yet"
    first = deferred(folder)
    assert first.encode("abca pqrp", allowed_special="all") and not folder.exists()  # encoding needs no merges
    assert first.merges
    assert [p.name for p in folder.iterdir()] == [f"{DIGEST.hex()}.tables"]
    ours, reference = read_back(folder), checked_ranks()
    assert reference._late_merges and reference.whole_word_tokens
    same_tokenizer(ours, reference)
    assert ours._model.tables() == reference._model.tables()
    assert ours.to_json() == reference.to_json()
    same_tokenizer(pickle.loads(pickle.dumps(ours)), reference)


@pytest.fixture(scope="module")
def read_back_pair(tmp_path_factory) -> tuple[Tokenizer, Tokenizer]:
    """(merges read from its tables, checked) for RANKS, the tables in a folder of their own."""
    return read_back(tmp_path_factory.mktemp("tables")), checked_ranks()


@settings(max_examples=150, deadline=None)
@given(text=TEXTS, k=st.integers(0, 8))
def test_tables_read_back_encode_as_the_checked_tokenizer(read_back_pair, text, k):
    ours, reference = read_back_pair
    assert ours.encode(text, allowed_special="all") == reference.encode(text, allowed_special="all")
    assert ours.encode_ordinary(text * 5) == reference.encode_ordinary(text * 5)  # long pieces
    assert ours.truncated(k).encode_ordinary(text) == reference.truncated(k).encode_ordinary(text)  # the merges


@pytest.mark.parametrize(
    "replace",
    [
        lambda good, other: b"another format\n" + good[HEAD:],
        lambda good, other: other,  # another file's tables under this file's name
        lambda good, other: model_cache.TABLES_FORMAT,
        lambda good, other: b"",
    ],
)
def test_tables_of_another_format_or_file_are_proved_again_and_rewritten(tmp_path, monkeypatch, replace):
    assert deferred(tmp_path).merges
    (written,) = tmp_path.iterdir()
    good = written.read_bytes()
    other = model_cache.tables_to_bytes(checked_ranks()._model.tables(), hashlib.sha256(b"another file").digest())
    written.write_bytes(replace(good, other))
    proved = []
    real = model_cache.rank_structure
    monkeypatch.setattr(model_cache, "rank_structure", lambda ranks: proved.append(1) or real(ranks))
    same_tokenizer(deferred(tmp_path), checked_ranks())
    assert proved == [1]
    assert written.read_bytes() == good


def test_tables_on_disk_skip_none_of_the_load_time_checks(tmp_path):
    assert deferred(tmp_path).merges
    with pytest.raises(BpeError, match="has id 256"):
        deferred(tmp_path, specials={"<x>": 256})


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"another format\n" + data[HEAD:],
        lambda data: data[:-3],
        lambda data: data[:-1] + bytes([data[-1] ^ 1]),  # one bit of a token's bytes
        lambda data: data[: HEAD + 40] + b"\x00" + data[HEAD + 41 :],  # the digest
        lambda data: model_cache.TABLES_FORMAT,
    ],
)
def test_damaged_tables_are_refused(damage):
    tables = checked_ranks()._model.tables()
    data = model_cache.tables_to_bytes(tables, b"s" * 32)
    assert model_cache.tables_from_bytes(data, b"s" * 32) == tables
    with pytest.raises(ValueError):
        model_cache.tables_from_bytes(damage(data), b"s" * 32)


def test_tables_of_other_files_are_refused():
    data = model_cache.tables_to_bytes(checked_ranks()._model.tables(), b"s" * 32)
    with pytest.raises(ValueError, match="other files"):
        model_cache.tables_from_bytes(data, b"t" * 32)


def test_tables_of_the_bpe_rule_round_trip_through_their_bytes():
    trained = bpe_core.train(["low lower lowest newer wider " * 20, "café naïve 你好 " * 10], 320, name="trained")
    tables = trained._model.tables()
    assert tables.rule == "bpe" and len(tables.merges[0])
    assert model_cache.tables_from_bytes(model_cache.tables_to_bytes(tables, b"s" * 32), b"s" * 32) == tables


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


def test_a_picky_model_has_no_tables():
    """Picky BPE's events are no ranked merges: its model has no tables to keep (and no built-in is one)."""
    picky = train_picky([" hug" * 20 + " chug" + " ug" * 3], 270, threshold=0.9, min_frequency=1)
    assert picky.rule == "picky" and picky.picky_events
    with pytest.raises(BpeError, match="ranked merges"):
        picky._model.tables()
