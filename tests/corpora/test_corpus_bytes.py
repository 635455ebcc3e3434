"""A corpus file's bytes read into documents (``bpe_core.corpora.corpus_bytes``): the rows ``train_files``
reads from the same file, the fields that hold text (the most text first), rows called what the reader
calls them, and messages that name the file by its given name, never the temporary copy."""

from __future__ import annotations

import doctest
import gzip
import json

import pytest

from bpe_core.corpora import corpus_bytes
from bpe_core.corpora.corpus_bytes import read_corpus_bytes, text_fields
from bpe_core.errors import BpeError
from bpe_core.training.trainer import train, train_files


def test_the_examples_in_the_docstrings_hold():
    assert doctest.testmod(corpus_bytes).failed == 0


def test_rows_are_read_as_train_files_reads_them_and_named_as_the_reader_names_them(tmp_path):
    jsonl = b'{"text": "a"}\n{"text": null}\nnot json\n'
    read = read_corpus_bytes("c.jsonl", jsonl)
    assert (read.documents, read.bad_rows, read.row_unit) == (["a"], 2, "line")
    assert read.warnings[0].startswith("c.jsonl line 2:") and (read.fields, read.text_field) == (("text",), "text")
    read = read_corpus_bytes("c.json", b'["a", 3, {"text": "b"}]')
    assert (read.documents, read.bad_rows, read.row_unit) == (["a", "b"], 1, "row")
    assert read.warnings[0].startswith("c.json row 2:")
    assert read_corpus_bytes("c.txt", b"plain").documents == ["plain"]
    assert read_corpus_bytes("e.txt", b"").warnings == ["e.txt is empty"]
    rows = [{"body": f"document {i} " * 5, "id": str(i)} for i in range(30)]
    data = gzip.compress("\n".join(json.dumps(row) for row in rows).encode())
    read = read_corpus_bytes("rows.jsonl.gz", data, text_field=corpus_bytes.chosen_field)
    assert (read.fields, read.text_field) == (("body", "id"), "body")
    (tmp_path / "rows.jsonl.gz").write_bytes(data)
    from_file = train_files([tmp_path / "rows.jsonl.gz"], vocab_size=300, text_field="body")
    assert train(read.documents, 300).merges == from_file.merges and len(read.documents) == 30


def test_the_fields_that_hold_text_come_most_text_first(tmp_path):
    path = tmp_path / "f.jsonl"
    path.write_text(json.dumps({"short": "ab", "long": "abcdef", "n": 3}) + "\n", encoding="utf-8")
    assert text_fields(str(path)) == ("long", "short")
    path.write_text('"a string row"\n', encoding="utf-8")
    assert text_fields(str(path)) == ()


def test_messages_name_the_file_by_its_given_name():
    with pytest.raises(BpeError, match=r"^c\.jsonl has no text in 'body': its fields that hold text are 'text'$"):
        read_corpus_bytes("c.jsonl", b'{"text": "a"}\n', text_field="body")
    with pytest.raises(ValueError) as caught:
        read_corpus_bytes("broken.jsonl.gz", b"not gzip at all")
    assert "broken.jsonl.gz" in str(caught.value) and "bpe-upload" not in str(caught.value)


def test_a_parquet_file_without_text_says_which_columns_it_has():
    pyarrow = pytest.importorskip("pyarrow")
    import io

    from pyarrow import parquet

    buffer = io.BytesIO()
    parquet.write_table(pyarrow.table({"id": [1, 2, 3]}), buffer)
    with pytest.raises(BpeError, match=r"^numbers\.parquet holds no text: none of its columns \(id\) holds strings$"):
        read_corpus_bytes("numbers.parquet", buffer.getvalue())
