"""Every tokenizer loader and saver under safe_io's rules, through the library: FIFOs, device nodes,
folders and oversized files are refused with a message saying what the path is (never a hang or a
MemoryError); saves never replace a device node, never write through a symbolic link, and leave no partial
file on a full disk (GPT-2's two files: both or neither). Nodes, FIFOs and the full disk are private
(tests/support/private_files)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from private_files import char_device, fifo, is_char_device, small_disk, without_hanging

import bpe_core
from bpe_core.errors import BpeError
from bpe_core.formats import bpe_json, detect, gpt2_files, huggingface, tiktoken_file
from bpe_core.pretrained import external

TEXT = "low low lower newer newer wider widest " * 30


@pytest.fixture(scope="module")
def tokenizer():
    return bpe_core.train(TEXT, 300, min_frequency=1, special_tokens=["<|end|>"])


LOADERS = {
    "bpe_core.load": bpe_core.load,
    "load_external": bpe_core.load_external,
    "detect.load_any": detect.load_any,
    "load_huggingface": huggingface.load_huggingface,
    "load_tiktoken": tiktoken_file.load_tiktoken,
    "load_gpt2_files vocab": lambda path: gpt2_files.load_gpt2_files(path, path),
    "external.load_file": external.load_file,
}

SAVERS = {
    "Tokenizer.save": lambda tok, path: tok.save(path),
    "save_huggingface": huggingface.save_huggingface,
    "save_tiktoken": tiktoken_file.save_tiktoken,
}


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("name", LOADERS)
def test_loaders_refuse_a_fifo_without_hanging(tmp_path, name):
    path = fifo(tmp_path, "tokenizer.json")
    with pytest.raises(BpeError, match=r"named pipe \(FIFO\), not a regular file \(expected a tokenizer file\)"):
        without_hanging(lambda: LOADERS[name](path), unblock=path)


@pytest.mark.parametrize("name", LOADERS)
def test_loaders_refuse_device_nodes_and_folders(tmp_path, name):
    with pytest.raises(BpeError, match="it is a folder"):
        LOADERS[name](tmp_path)
    node = char_device(tmp_path, "tokenizer.json")
    with pytest.raises(BpeError, match="character device, not a regular file"):
        LOADERS[name](node)


@pytest.mark.parametrize("name", LOADERS)
def test_loaders_refuse_files_over_the_limit_naming_it(tmp_path, monkeypatch, name, tokenizer):
    path = tmp_path / "tokenizer.json"
    tokenizer.save(path)
    monkeypatch.setattr(bpe_json, "TOKENIZER_FILE_LIMIT", 1000)
    with pytest.raises(BpeError, match=r"too big .*at most 1,000 bytes"):
        LOADERS[name](path)


@pytest.mark.parametrize("name", SAVERS)
def test_saves_never_replace_a_device_node(tmp_path, tokenizer, name):
    node = char_device(tmp_path)
    with pytest.raises(BpeError, match="character device, not a regular file"):
        SAVERS[name](tokenizer, node)
    assert is_char_device(node) and _listing(tmp_path) == ["node"]


def test_gpt2_files_never_replace_a_device_node(tmp_path, tokenizer):
    node = char_device(tmp_path, "merges.txt")
    with pytest.raises(BpeError, match="merges.txt: it is a character device"):
        gpt2_files.save_gpt2_files(tokenizer, tmp_path)
    assert is_char_device(node) and _listing(tmp_path) == ["merges.txt"]  # no vocab.json either


@pytest.mark.parametrize("name", SAVERS)
def test_saves_never_write_through_a_symbolic_link(tmp_path, tokenizer, name):
    (tmp_path / "real").write_text("old", encoding="utf-8")
    (tmp_path / "link").symlink_to("real")
    with pytest.raises(BpeError, match="symbolic link"):
        SAVERS[name](tokenizer, tmp_path / "link")
    assert os.readlink(tmp_path / "link") == "real" and (tmp_path / "real").read_text(encoding="utf-8") == "old"
    assert _listing(tmp_path) == ["link", "real"]


@pytest.mark.parametrize("name", SAVERS)
def test_saves_leave_no_partial_file_on_a_full_disk(tmp_path, name):
    big = bpe_core.load("gpt2")  # every export of it is far larger than the 64 kB disk
    with small_disk(tmp_path / "disk") as disk:
        (disk / "t.json").write_text("old", encoding="utf-8")
        with pytest.raises(BpeError, match="No space left on device"):
            SAVERS[name](big, disk / "t.json")
        with pytest.raises(BpeError, match="No space left on device"):
            SAVERS[name](big, disk / "new.json")
        assert _listing(disk) == ["t.json"] and (disk / "t.json").read_text(encoding="utf-8") == "old"


def test_gpt2_files_are_written_both_or_neither_on_a_full_disk(tmp_path):
    big = bpe_core.load("gpt2")  # every export of it is far larger than the 64 kB disk
    with small_disk(tmp_path / "disk") as disk:
        with pytest.raises(BpeError, match="No space left on device"):
            gpt2_files.save_gpt2_files(big, disk / "gpt2")
        assert _listing(disk) == []  # the folder made for them is gone too
        (disk / "kept").mkdir()
        (disk / "kept" / "vocab.json").write_text("{}", encoding="utf-8")
        with pytest.raises(BpeError, match="No space left on device"):
            gpt2_files.save_gpt2_files(big, disk / "kept")
        assert _listing(disk / "kept") == ["vocab.json"] and (disk / "kept" / "vocab.json").read_text() == "{}"
