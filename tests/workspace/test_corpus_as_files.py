"""A corpus written as files to train on (``bpe_core.workspace.documents``): training through the files
equals ``bpe_core.train`` on the documents (BOMs, lone surrogates, empty and long documents included,
for preset, no and custom patterns, progress counted in bytes), and written documents read back
unchanged."""

from __future__ import annotations

import tempfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bpe_core
from bpe_core.corpora.documents import DocumentReader
from bpe_core.workspace import documents as corpus_files


@pytest.mark.parametrize("pattern", ["gpt2", None, r"\w+|\W"])
def test_training_through_files_equals_train(pattern, monkeypatch):
    monkeypatch.setattr(corpus_files, "TEXT_FILE_CHARS", 50)  # long documents become text files here
    monkeypatch.setattr(corpus_files, "JSONL_FILE_CHARS", 120)
    documents = [
        "",
        "\ufeffstarts with a mark " * 4,
        "lone \ud800 surrogate",
        "x" * 60,
        "short",
        "line\r\nbreaks " * 9,
        "\ufeff",
        "tail " * 30,
    ] * 2
    calls = []
    with tempfile.TemporaryDirectory() as folder:
        paths = corpus_files.write_documents(folder, documents)
        assert any(p.endswith(".txt") for p in paths) and any(p.endswith(".jsonl") for p in paths)
        through = bpe_core.train_files(
            paths, 300, pattern=pattern, tie_break="first", progress=lambda *a: calls.append(a)
        )
    direct = bpe_core.train(documents, 300, pattern=pattern, tie_break="first")
    assert through.merges == direct.merges
    assert through.training["corpus"] == direct.training["corpus"]
    assert [c for c in calls if c[0] == "count"][-1][1] > 0


@given(st.lists(st.text(max_size=80), max_size=12))
def test_written_documents_read_back_unchanged(documents):

    with tempfile.TemporaryDirectory() as folder:
        paths = corpus_files.write_documents(folder, documents)
        read = ["".join(d) for d in DocumentReader(paths).documents()] if paths else []
    assert read == documents
