"""Hostile names and files in the app's tokenizer library folder (bpe_core/workspace/library_folder.py): a name
is cut to what file systems take, by bytes; a file that cannot be read is listed with its error, never
a traceback; files saved before stay readable; names in every script keep their combining marks."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import bpe_core
from bpe_core.cli import main as cli
from bpe_core.formats import detect
from bpe_core.workspace.library_folder import MAX_NAME_BYTES, LibraryFolder, sanitize_name
from bpe_core.workspace.names import SUFFIX

TEXT = "low low low low low lower newer newer newer newer wider " * 20
FOUR_BYTES = "\U00020000"  # a CJK letter (a word character) that takes four bytes in UTF-8


@pytest.fixture(scope="module")
def tokenizer():
    return bpe_core.train(TEXT, 270, min_frequency=1, special_tokens=["<|end|>"])


@pytest.fixture
def ws(tmp_path):
    return LibraryFolder(tmp_path / "ws")


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("count", [30, 63, 64, 80, 200])
def test_long_names_of_four_byte_characters_fit_by_bytes_and_end_in_a_hash(ws, tokenizer, count):
    name = FOUR_BYTES * count
    clean = sanitize_name(name)
    assert len(clean.encode("utf-8")) <= MAX_NAME_BYTES
    if count * 4 <= MAX_NAME_BYTES:
        assert clean == name
    else:  # whole characters, then "~" and ten hex digits of the whole name's SHA-256
        assert re.fullmatch(f"{FOUR_BYTES}+~[0-9a-f]{{10}}", clean) and clean != sanitize_name(name + "x")
    assert ws.save(tokenizer, name).name == clean
    assert ws.load(name).name == clean  # the long name finds its file
    assert ws.rename(clean, "x" + name).name == sanitize_name("x" + name)
    assert ws.save_as_new(tokenizer, name).name == clean
    again = ws.save_as_new(tokenizer, name).name  # the number fits in the limit too
    assert again.endswith(" 2") and len(again.encode("utf-8")) <= MAX_NAME_BYTES
    assert sorted(ws.names()) == sorted([sanitize_name("x" + name), clean, again])
    assert all(entry.ok for entry, _ in ws.scan())


def test_long_names_keep_whole_characters_before_their_hash():
    assert re.fullmatch("é{54}~[0-9a-f]{10}", sanitize_name("é" * 100))  # 108 + 11 bytes
    assert re.fullmatch("a中{36}~[0-9a-f]{10}", sanitize_name("a" + "中" * 100))  # 109 + 11 bytes
    assert re.fullmatch("x{69}~[0-9a-f]{10}", sanitize_name("x" * 500))  # ASCII: limited by characters


def test_names_too_long_for_the_file_system_are_missing_not_oserrors(ws, tokenizer):
    ws.save(tokenizer, "real")
    absurd = "\U0001d400" * 300  # mathematical bold A: a letter, four bytes, 1,200 bytes in all
    assert not ws.exists(absurd)
    for call in (lambda: ws.load(absurd), lambda: ws.delete(absurd), lambda: ws.rename(absurd, "y")):
        with pytest.raises(ValueError, match="no tokenizer named"):
            call()
    assert ws.names() == ["real"]


def test_files_saved_under_longer_names_before_the_byte_limit_still_work(ws, tokenizer):
    """Earlier versions limited names to 80 characters only: 80 three-byte characters (240 bytes)
    fit on most file systems, and such files must stay usable by their exact name."""
    legacy = "中" * 80
    ws.folder.mkdir(parents=True)
    tokenizer.save(ws.folder / f"{legacy}.json")
    assert ws.names() == [legacy]
    assert ws.exists(legacy)
    assert ws.load(legacy).name == legacy
    renamed = ws.rename(legacy, legacy)  # to the new limit
    assert renamed.name == sanitize_name(legacy) != legacy and renamed.name.startswith("中" * 36 + "~")
    ws.save(tokenizer, "another")
    tokenizer.save(ws.folder / f"{legacy}.json")
    ws.delete(legacy)
    assert sorted(ws.names()) == sorted(["another", sanitize_name(legacy)])


def test_a_deeply_nested_tokenizer_file_is_listed_with_its_error(ws, tokenizer, tmp_path, capsys):
    ws.save(tokenizer, "good")
    text = '{"format": "bpe_core.tokenizer", "version": 1, "training": ' + _nested(5_000) + "}"
    (ws.folder / "deep.json").write_text(text, encoding="utf-8")
    scanned = {entry.name: (entry, tok) for entry, tok in ws.scan()}
    assert scanned["good"][1] is not None
    assert scanned["deep"][1] is None and "nested too deeply" in scanned["deep"][0].error
    with pytest.raises(ValueError, match="nested too deeply"):
        ws.load("deep")
    for load in (bpe_core.load, detect.load_any):
        with pytest.raises(ValueError, match="nested too deeply"):
            load(ws.folder / "deep.json")
    assert ws.rename("deep", "still deep").name == "still deep"  # kept as it is, like any corrupt file
    assert (ws.folder / "still deep.json").read_text(encoding="utf-8") == text
    capsys.readouterr()
    assert cli.main(["inspect", "-t", str(ws.folder / "still deep.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "nested too deeply" in err and "Traceback" not in err


def test_a_saved_library_file_round_trips_with_its_metadata(ws, tokenizer, capsys):
    entry = ws.save(tokenizer, "kept")
    loaded = ws.load("kept")
    assert loaded.training == tokenizer.training
    assert loaded.special_tokens == tokenizer.special_tokens
    capsys.readouterr()
    assert cli.main(["inspect", str(entry.path)]) == 0
    out = capsys.readouterr().out
    assert "trained with: vocab_size=270" in out and "stopped:" in out


def test_a_name_holding_a_lone_surrogate_is_sanitized(tokenizer, tmp_path):
    odd = tokenizer.truncated(2)
    assert LibraryFolder(tmp_path / "ws").save(odd, "bad \ud800 name").name == "bad _ name"


# ------------------------------------------------------------------------------------------------
# names in every script: combining marks are kept, only separators, controls and forbidden characters go

MARKED_NAMES = ["हिन्दी-bpe", "cafe\u0301", "عَرَبِيّ", "ภาษาไทย", "한국어 v2", "Ελληνικά (ά)", "tiếng Việt"]


@pytest.mark.parametrize("name", MARKED_NAMES)
def test_names_keep_their_combining_marks(ws, tokenizer, name):
    expected = unicodedata.normalize("NFC", name)
    assert sanitize_name(name) == expected
    assert ws.save(tokenizer, name).name == expected
    assert ws.load(name).name == expected and ws.names() == [expected]


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=60))
@example("0.JSON")
def test_sanitized_names_are_safe_and_keep_what_is_safe(name):
    try:
        clean = sanitize_name(name)
    except ValueError:
        return
    assert clean == unicodedata.normalize("NFC", clean) and len(clean.encode("utf-8")) <= MAX_NAME_BYTES
    assert not any(c in '/\\:*?"<>|' or unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in clean)
    assert not any(unicodedata.category(c) == "Cf" and c not in "\u200c\u200d" for c in clean)  # nothing hidden
    assert not clean.startswith(".") and clean == clean.strip(" ") and not clean.endswith(".")
    kept = [c for c in unicodedata.normalize("NFC", name) if unicodedata.category(c).startswith(("L", "M", "N"))]
    if len(name.encode("utf-8")) < 60:  # not cut: every letter, mark and digit is still there, in order
        letters = [c for c in clean if unicodedata.category(c).startswith(("L", "M", "N"))]
        if letters != kept:  # but the file suffix typed with the name ("0.JSON" is "0"), and nothing else
            assert letters == kept[: len(letters)] and "".join(kept[len(letters) :]).lower() == SUFFIX[1:]
            assert unicodedata.normalize("NFC", name).lower().rstrip().endswith(SUFFIX)
