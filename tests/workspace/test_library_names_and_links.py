"""The library folder under hostile names and files (bpe_core/workspace/library_folder.py, names by
bpe_core/workspace/names.py): two names never share a file, a save never writes through a link, names
that look alike or hide characters are refused with a message, Windows device names are refused (and
made safe for imports), and files put in the folder by hand are listed under a name that loads, renames
and deletes them. Each test here failed before the rule."""

from __future__ import annotations

import os
import re

import pytest

import bpe_core
from bpe_core.errors import BpeError
from bpe_core.workspace.library_folder import LibraryFolder

TEXT = "low low low low low lower newer newer newer newer wider " * 20


@pytest.fixture(scope="module")
def tokenizers():
    return [bpe_core.train(TEXT, size, min_frequency=1) for size in (262, 266)]


@pytest.fixture
def ws(tmp_path):
    return LibraryFolder(tmp_path / "ws")


def merges_of(ws: LibraryFolder, name: str) -> int:
    return len(ws.load(name).merges)


def test_two_long_names_sharing_their_start_keep_two_tokenizers(ws, tokenizers):
    first, second = "a" * 80 + "X", "a" * 80 + "Y"
    ws.save(tokenizers[0], first, overwrite=True)
    ws.save(tokenizers[1], second, overwrite=True)
    assert (merges_of(ws, first), merges_of(ws, second)) == (6, 10)  # the first one is still there
    assert len(ws.names()) == 2 and all(len(name) <= 80 for name in ws.names())


def test_saving_over_a_link_to_a_file_outside_is_refused_and_the_file_kept(ws, tokenizers, tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text("precious", encoding="utf-8")
    ws.folder.mkdir(parents=True)
    (ws.folder / "mytok.json").symlink_to(outside)
    with pytest.raises(BpeError, match="symbolic link .* never writes through a link"):
        ws.save(tokenizers[0], "mytok", overwrite=True)
    assert outside.read_text(encoding="utf-8") == "precious" and os.path.islink(ws.folder / "mytok.json")
    ws.delete("mytok")  # the link goes, never what it points to
    assert outside.read_text(encoding="utf-8") == "precious" and ws.names() == []


INVISIBLE = ["\u200b", "\u200e", "\u200f", "\u061c", "\ufeff", "\u2060", "\u00ad", "\u180e", "\u2062", "\U000e0041"]


@pytest.mark.parametrize("hidden", INVISIBLE, ids=lambda c: f"U+{ord(c):04X}")
def test_a_name_with_an_invisible_character_is_refused_naming_it(ws, tokenizers, hidden):
    ws.save(tokenizers[0], "mytok")
    code = re.escape(f"U+{ord(hidden):04X}")
    with pytest.raises(BpeError, match=f"holds {code} .*(invisible character|bidirectional control).*: remove it"):
        ws.save(tokenizers[1], f"my{hidden}tok")
    with pytest.raises(BpeError, match=code):
        ws.rename("mytok", f"{hidden}mytok")
    assert ws.names() == ["mytok"] and merges_of(ws, "mytok") == 6


@pytest.mark.parametrize("control", ["\u202e", "\u202a", "\u2066", "\u2069"])
def test_bidirectional_controls_are_refused(ws, tokenizers, control):
    with pytest.raises(BpeError, match="bidirectional control"):
        ws.save(tokenizers[0], f"legacy{control}")
    assert ws.names() == []


@pytest.mark.parametrize(
    "existing, lookalike", [("file", "\ufb01le"), ("model", "ｍodel"), ("v2", "v\u00b2"), ("می‌خواهم", "میخواهم")]
)
def test_a_name_that_looks_like_an_existing_one_is_refused(ws, tokenizers, existing, lookalike):
    ws.save(tokenizers[0], existing)
    with pytest.raises(BpeError, match="looks the same as"):
        ws.save(tokenizers[1], lookalike)
    with pytest.raises(BpeError, match="looks the same as"):
        ws.save(tokenizers[1], lookalike, overwrite=True)
    ws.save(tokenizers[1], "other")
    with pytest.raises(BpeError, match="looks the same as"):
        ws.rename("other", lookalike)
    assert ws.save_as_new(tokenizers[1], lookalike).name == f"{lookalike} 2"  # an import gets a free name
    assert merges_of(ws, existing) == 6 and ws.load(existing).name == existing
    assert ws.rename(existing, lookalike).name == lookalike  # renaming the one that looks alike is fine


@pytest.mark.parametrize("name", ["CON.txt", "nul.tar.gz", "COM\u00b9", "CONIN$", "conout$", "Lpt9", "aux "])
def test_windows_device_names_are_refused_and_made_safe_for_imports(ws, tokenizers, name):
    with pytest.raises(BpeError, match="cannot be a file name on Windows"):
        ws.save(tokenizers[0], name)
    imported = ws.save_as_new(tokenizers[0], name).name
    stem = imported.split(".")[0].rstrip()
    assert stem.endswith("_") and ws.load(imported).merges == tokenizers[0].merges


SCRIPT_NAMES = [
    "می‌خواهم",  # Persian: a zero-width non-joiner between joining letters
    "क्‍ष-bpe",  # Devanagari: a zero-width joiner after a virama
    "👩‍💻 coder",  # an emoji sequence joined by a zero-width joiner
    "❤️ hearts",  # an emoji with its presentation selector
    "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f scots",  # the flag of Scotland
]


@pytest.mark.parametrize("name", SCRIPT_NAMES)
def test_invisible_characters_that_scripts_and_emoji_need_are_kept(ws, tokenizers, name):
    assert ws.save(tokenizers[0], name).name == name
    assert ws.load(name).name == name and ws.names() == [name]


@pytest.mark.parametrize(
    "file_name, listed",
    [
        ("legacy\u202e.json", "legacy<U+202E>"),
        ("CON.json", "CON"),
        ("zero\u200bwidth.json", "zero<U+200B>width"),
        ("tab\there.json", "tab<U+0009>here"),
        ("cafe\u0301.json", "cafe\u0301"),
    ],
)
def test_a_file_put_in_the_folder_by_hand_loads_renames_and_deletes_by_its_listed_name(
    ws, tokenizers, file_name, listed
):
    ws.folder.mkdir(parents=True)
    tokenizers[0].save(ws.folder / file_name)
    ws.save(tokenizers[1], "mine")
    assert sorted(ws.names()) == sorted([listed, "mine"])
    assert ws.exists(listed) and ws.load(listed).merges == tokenizers[0].merges
    assert ws.load(listed).name == listed
    renamed = ws.rename(listed, "renamed")
    assert renamed.name == "renamed" and sorted(ws.names()) == ["mine", "renamed"]
    tokenizers[0].save(ws.folder / file_name)
    ws.delete(listed)
    assert sorted(ws.names()) == ["mine", "renamed"] and not (ws.folder / file_name).exists()


def test_a_taken_name_is_numbered_one_way_for_the_library_and_its_external_files(ws, tokenizers, tmp_path):
    import doctest
    import itertools

    from bpe_core.pretrained.external import loads_file
    from bpe_core.workspace import external_files, names

    assert doctest.testmod(names).failed == 0
    long = "मॉडल " + "x" * 120  # past the limits: each numbered name is cut to fit with its number
    expected = list(itertools.islice(names.numbered(names.safe_stem(long)), 3))
    assert [ws.save_as_new(tokenizers[0], long).name for _ in range(3)] == expected
    assert all(len(n) <= names.MAX_NAME_LENGTH and len(n.encode()) <= names.MAX_NAME_BYTES for n in expected)
    assert expected[1].endswith(" 2") and expected[2].endswith(" 3") and names.file_stem(expected[2]) == expected[2]
    tokenizers_lib = pytest.importorskip("tokenizers")
    model = tokenizers_lib.Tokenizer(tokenizers_lib.models.WordPiece({"[UNK]": 0, "a": 1}, unk_token="[UNK]"))
    external = loads_file(model.to_str().encode(), source="bert.json")
    external.name = long
    assert [external_files.keep(ws, external) for _ in range(3)] == expected
