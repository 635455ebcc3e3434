"""The tokenizer library folder (bpe_core/workspace/library_folder.py): pure file operations, no UI."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import bpe_core
from bpe_core.workspace.library_folder import ENV_VAR, LibraryFolder, default_root, describe_age, sanitize_name

TEXT = "low low low low low lower newer newer newer newer wider " * 20


@pytest.fixture(scope="module")
def tokenizer():
    return bpe_core.train(TEXT, 280, min_frequency=1, name="trained-here")


@pytest.fixture
def ws(tmp_path):
    return LibraryFolder(tmp_path / "ws")


def test_default_root_follows_env_var(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "mine"))
    assert default_root() == tmp_path / "mine"
    assert LibraryFolder().root == tmp_path / "mine"


def test_default_root_without_env_var_is_per_user(monkeypatch, tmp_path):
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_root() == tmp_path / "data" / "bpe-workbench"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_root() == tmp_path / "home" / ".local" / "share" / "bpe-workbench"


def test_no_home_folder_is_a_message_naming_the_variable(monkeypatch):
    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    with pytest.raises(bpe_core.BpeError, match=f"no home folder .* set {ENV_VAR}"):
        LibraryFolder()
    monkeypatch.setenv(ENV_VAR, "~nobody-has-this-name/library")
    with pytest.raises(bpe_core.BpeError, match=f"set {ENV_VAR} to a full path"):
        default_root()


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("my-bpe", "my-bpe"),
        ("  spaced   out  ", "spaced out"),
        ("../../etc/passwd", "_.._etc_passwd"),
        (".hidden", "hidden"),
        ("a/b\\c:d*e?f", "a_b_c_d_e_f"),
        ("model.json", "model"),
        ("naïve 你好", "naïve 你好"),
    ],
)
def test_sanitize_name(raw, clean):
    assert sanitize_name(raw) == clean
    assert "/" not in sanitize_name(raw) and "\\" not in sanitize_name(raw)


@pytest.mark.parametrize("bad", ["", "   ", "...", "///", "*?"])
def test_sanitize_rejects_names_with_nothing_usable(bad):
    with pytest.raises(ValueError, match="not a usable tokenizer name"):
        sanitize_name(bad)


@pytest.mark.parametrize("device", ["con", "CON.txt", "nul.tar.gz", "COM\u00b9", "lpt3", "CONIN$", "aux .json"])
def test_sanitize_refuses_windows_device_names(device):
    with pytest.raises(ValueError, match="cannot be a file name on Windows: .* is a device name there"):
        sanitize_name(device)


def test_sanitize_limits_length():
    assert len(sanitize_name("x" * 500)) == 80


def test_empty_library(ws):
    assert ws.entries() == []
    assert ws.scan() == []
    assert not ws.folder.exists()  # listing never creates folders


def test_save_load_round_trip(ws, tokenizer):
    entry = ws.save(tokenizer, "first one")
    assert entry.name == "first one" and entry.path.is_file()
    assert tokenizer.name == "trained-here"  # the object keeps its own name
    loaded = ws.load("first one")
    assert loaded.name == "first one"
    assert loaded.merges == tokenizer.merges
    assert loaded.encode("lowest newer") == tokenizer.encode("lowest newer")
    assert loaded.training["merges_learned"] == tokenizer.training["merges_learned"]
    assert ws.names() == ["first one"]


def test_save_refuses_to_overwrite_unless_asked(ws, tokenizer):
    ws.save(tokenizer, "same")
    with pytest.raises(ValueError, match="already exists"):
        ws.save(tokenizer, "same")
    smaller = tokenizer.truncated(3)
    ws.save(smaller, "same", overwrite=True)
    assert len(ws.load("same").merges) == 3


def test_entries_sorted_and_other_files_ignored(ws, tokenizer):
    for name in ("beta", "Alpha", "gamma"):
        ws.save(tokenizer, name)
    (ws.folder / "notes.txt").write_text("not a tokenizer")
    (ws.folder / ".partial.json").write_text("{")
    (ws.folder / "sub.json").mkdir()
    assert ws.names() == ["Alpha", "beta", "gamma"]


def test_corrupt_files_are_listed_with_an_error(ws, tokenizer):
    ws.save(tokenizer, "good")
    (ws.folder / "broken.json").write_text('{"format": "bpe_core.tokenizer", "version": 1', encoding="utf-8")
    (ws.folder / "binary.json").write_bytes(b"\xff\xfe\x00garbage")
    (ws.folder / "other.json").write_text('{"hello": "world"}', encoding="utf-8")
    scanned = {entry.name: (entry, tok) for entry, tok in ws.scan()}
    assert set(scanned) == {"good", "broken", "binary", "other"}
    assert scanned["good"][1] is not None and scanned["good"][0].ok
    assert scanned["good"][0].vocab_size == tokenizer.vocab_size
    for name in ("broken", "binary", "other"):
        entry, tok = scanned[name]
        assert tok is None and not entry.ok and entry.error
    with pytest.raises(ValueError):
        ws.load("broken")


def test_rename(ws, tokenizer):
    ws.save(tokenizer, "old")
    entry = ws.rename("old", "new name")
    assert entry.name == "new name"
    assert ws.names() == ["new name"]
    assert ws.load("new name").name == "new name"
    raw = (ws.folder / "new name.json").read_text(encoding="utf-8")
    assert '"name": "new name"' in raw


def test_rename_conflicts_and_missing(ws, tokenizer):
    ws.save(tokenizer, "a")
    ws.save(tokenizer, "b")
    with pytest.raises(ValueError, match="already exists"):
        ws.rename("a", "b")
    with pytest.raises(ValueError, match="no tokenizer named"):
        ws.rename("zzz", "c")
    with pytest.raises(ValueError, match="not a usable"):
        ws.rename("a", "///")
    assert ws.rename("a", "a").name == "a"


def test_rename_corrupt_file_keeps_its_bytes(ws):
    ws.folder.mkdir(parents=True)
    (ws.folder / "bad.json").write_text("{oops", encoding="utf-8")
    ws.rename("bad", "still bad")
    assert (ws.folder / "still bad.json").read_text(encoding="utf-8") == "{oops"


def test_delete(ws, tokenizer):
    ws.save(tokenizer, "doomed")
    ws.delete("doomed")
    assert ws.names() == []
    with pytest.raises(ValueError, match="no tokenizer named"):
        ws.delete("doomed")


def test_unique_name(ws, tokenizer):
    assert ws.unique_name("x") == "x"
    ws.save(tokenizer, "x")
    assert ws.unique_name("x") == "x 2"
    ws.save(tokenizer, "x 2")
    assert ws.unique_name("x") == "x 3"


def test_save_rejects_non_tokenizers(ws):
    with pytest.raises(TypeError):
        ws.save("not a tokenizer", "x")


def test_describe_age():
    assert describe_age(1000.0, now=1010.0) == "just now"
    assert describe_age(1000.0, now=1000.0 + 300) == "5 min ago"
    assert describe_age(1000.0, now=1000.0 + 7200) == "2 h ago"
    assert len(describe_age(0.0, now=10 * 86400.0)) == 10
