"""The library folder's external tokenizers (``bpe_core.workspace.external_files``): kept unchanged under
a name of their own, never over another file; listed, loaded under the file's name, deleted by name,
and a path is never a name."""

from __future__ import annotations

import pytest

from bpe_core.errors import BpeError
from bpe_core.pretrained.external import ExternalTokenizer, loads_file
from bpe_core.workspace import external_files
from bpe_core.workspace.library_folder import LibraryFolder

tokenizers = pytest.importorskip("tokenizers")


def word_piece(name: str = "") -> ExternalTokenizer:
    model = tokenizers.Tokenizer(tokenizers.models.WordPiece({"[UNK]": 0, "hello": 1, "##s": 2}, unk_token="[UNK]"))
    tokenizer = loads_file(model.to_str().encode(), source="bert.json", name=name or None)
    assert isinstance(tokenizer, ExternalTokenizer)
    tokenizer.name = name
    return tokenizer


def test_kept_files_are_the_originals_under_names_of_their_own(tmp_path):
    library = LibraryFolder(tmp_path / "lib")
    assert external_files.paths(library) == []  # no folder yet: none
    first, second = word_piece("bert/../x"), word_piece("bert/../x")
    assert external_files.keep(library, first) == "bert_.._x" != "bert/../x"  # made safe, never refused
    assert external_files.keep(library, second) == "bert_.._x 2"  # not over the first
    assert external_files.keep(library, word_piece("")) == "external"
    kept = external_files.paths(library)
    assert [p.name for p in kept] == ["bert_.._x 2.json", "bert_.._x.json", "external.json"]
    assert all(p.parent == external_files.folder(library) for p in kept)
    assert kept[1].read_bytes() == first.source_bytes
    loaded = external_files.load(kept[0])
    assert isinstance(loaded, ExternalTokenizer) and loaded.name == "bert_.._x 2"
    assert loaded.encode("hellos") == [1, 2]


def test_delete_takes_a_listed_name_never_a_path(tmp_path):
    library = LibraryFolder(tmp_path / "lib")
    name = external_files.keep(library, word_piece("mine"))
    (tmp_path / "lib" / "outside.json").write_text("{}", encoding="utf-8")
    for bad in ("../outside", "..", "", "a/b", "a\\b", "missing"):
        with pytest.raises(BpeError, match="no external tokenizer named"):
            external_files.delete(library, bad)
    external_files.delete(library, name)
    assert external_files.paths(library) == [] and (tmp_path / "lib" / "outside.json").exists()
