"""The cache of recovered rank structures (catalogue.cached_structure): it gives the structure
rank_structure gives, is checked on read, and is never needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_core.bpe.ranks import STRUCTURE_FORMAT, rank_structure, structure_from_bytes, structure_to_bytes
from bpe_core.pretrained import catalogue
from bpe_core.tokenizer import Tokenizer

BYTES = {bytes([b]): b for b in range(256)}
# A merge, a late merge ("ab" ranked after "abc") and a whole-word token ("abca" with "ab" "c" "a" stuck).
RANKS = BYTES | {b"abc": 256, b"ab": 257, b"ca": 258, b"abca": 259, b"xyz": 260, b"xy": 261}
DATA = b"the file the ranks came from"


def test_round_trip_keeps_merges_late_merges_and_whole_tokens():
    structure = rank_structure(RANKS)
    assert structure.late_merges and structure.merges
    assert structure_from_bytes(structure_to_bytes(structure, RANKS), RANKS) == structure


def test_a_byte_the_ranks_lack_round_trips():
    ranks = {bytes([b]): b for b in range(1, 256)} | {b"\x00a": 256}
    structure = rank_structure(ranks)
    assert structure_from_bytes(structure_to_bytes(structure, ranks), ranks) == structure


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"another format\n" + data[len(STRUCTURE_FORMAT) :],
        lambda data: data[:-3],
        lambda data: data[:-8],  # one whole-word token fewer: not every token covered
        lambda data: (
            data[: len(STRUCTURE_FORMAT) + 24] + (10_000).to_bytes(8, "little") + data[len(STRUCTURE_FORMAT) + 32 :]
        ),
        lambda data: STRUCTURE_FORMAT,
    ],
)
def test_damaged_bytes_are_refused(damage):
    data = structure_to_bytes(rank_structure(RANKS), RANKS)
    with pytest.raises(ValueError):
        structure_from_bytes(damage(data), RANKS)


def test_other_ranks_are_refused():
    data = structure_to_bytes(rank_structure(RANKS), RANKS)
    swapped = dict(RANKS) | {b"abc": 257, b"ab": 256}
    with pytest.raises(ValueError):
        structure_from_bytes(data, swapped)


def test_the_cache_is_written_once_then_read(tmp_path, monkeypatch):
    monkeypatch.setenv(catalogue.CACHE_ENV_VAR, str(tmp_path))
    first = catalogue.cached_structure(RANKS, DATA)
    (written,) = (tmp_path / "rank-structures").iterdir()
    assert written.read_bytes().startswith(STRUCTURE_FORMAT)
    monkeypatch.setattr(catalogue, "rank_structure", lambda ranks: pytest.fail("recovered although cached"))
    assert catalogue.cached_structure(RANKS, DATA) == first == rank_structure(RANKS)


def test_a_damaged_cache_is_recovered_and_rewritten(tmp_path, monkeypatch):
    monkeypatch.setenv(catalogue.CACHE_ENV_VAR, str(tmp_path))
    catalogue.cached_structure(RANKS, DATA)
    (written,) = (tmp_path / "rank-structures").iterdir()
    written.write_bytes(b"garbage")
    assert catalogue.cached_structure(RANKS, DATA) == rank_structure(RANKS)
    assert written.read_bytes().startswith(STRUCTURE_FORMAT)


def test_off_and_unwritable_folders_only_cost_the_recovery(tmp_path, monkeypatch):
    monkeypatch.setenv(catalogue.CACHE_ENV_VAR, "off")
    assert catalogue.cache_folder() is None
    assert catalogue.cached_structure(RANKS, DATA) == rank_structure(RANKS)
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(catalogue.CACHE_ENV_VAR, str(blocker))
    assert catalogue.cached_structure(RANKS, DATA) == rank_structure(RANKS)


def test_the_cache_folder_is_per_user_and_none_without_a_home(tmp_path, monkeypatch):
    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv(catalogue.CACHE_ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert catalogue.cache_folder() == tmp_path / "cache" / "bpe-workbench" / "rank-structures"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert catalogue.cache_folder() == tmp_path / "home" / ".cache" / "bpe-workbench" / "rank-structures"
    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    assert catalogue.cache_folder() is None
    assert catalogue.cached_structure(RANKS, DATA) == rank_structure(RANKS)


def test_a_tokenizer_from_a_cached_structure_encodes_as_without(tmp_path, monkeypatch):
    monkeypatch.setenv(catalogue.CACHE_ENV_VAR, str(tmp_path))
    catalogue.cached_structure(RANKS, DATA)
    cached = Tokenizer.from_ranks(RANKS, pattern=None, structure=catalogue.cached_structure(RANKS, DATA))
    plain = Tokenizer.from_ranks(RANKS, pattern=None)
    for text in ["abca", "abcab", "xyzxy", "cabc", "abcabca"]:
        assert cached.encode(text) == plain.encode(text), text
    with pytest.raises(TypeError, match="rank_structure"):
        Tokenizer.from_ranks(RANKS, pattern=None, structure=[])
