"""Corpora as people keep them (bpe_core.corpora.documents): folders and globs, text, JSONL, JSON arrays,
Parquet, gzip and zstd; documents in file and row order; bad rows; progress in bytes; streaming."""

import gzip
import itertools
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import bpe_core
from bpe_core.cli.main import main
from bpe_core.corpora.documents import BAD_ROW_EXAMPLES, DocumentReader, FileFormat, expand_inputs, file_format
from bpe_core.corpora.streams import ByteStream, json_array_elements, jsonl_rows
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.training.counting import count_files, count_words

GPT2 = PreTokenizer.build("gpt2")
DOCS = [f"Document {i}: the cat sat on the mat, ünïcödé {i * 7} 🙂 naïve café." for i in range(60)]


def zstd_write(path, data: bytes) -> None:
    with open(path, "wb") as raw:
        stream = pa.CompressedOutputStream(raw, "zstd")
        stream.write(data)
        stream.close()


def jsonl_bytes(rows) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


def write_every_format(folder, docs):
    """The same documents spread over every format, in name order; returns the documents in that order."""
    folder.mkdir(parents=True, exist_ok=True)
    parts = [docs[i::8] for i in range(8)]
    (folder / "a.jsonl").write_bytes(jsonl_bytes({"text": d, "id": i} for i, d in enumerate(parts[0])))
    (folder / "b.jsonl.gz").write_bytes(gzip.compress(jsonl_bytes({"text": d} for d in parts[1])))
    zstd_write(folder / "c.ndjson.zst", jsonl_bytes({"text": d} for d in parts[2]))
    (folder / "d.json").write_text(json.dumps([{"text": d} for d in parts[3]], ensure_ascii=False), encoding="utf-8")
    (folder / "e.json.gz").write_bytes(gzip.compress(json.dumps(parts[4]).encode()))  # an array of strings
    zstd_write(folder / "f.json.zst", json.dumps([{"text": d} for d in parts[5]]).encode())
    pq.write_table(pa.table({"text": parts[6]}), folder / "g.parquet", row_group_size=2)
    (folder / "h.txt.gz").write_bytes(gzip.compress("\n".join(parts[7]).encode()))
    return [*itertools.chain(*parts[:7]), "\n".join(parts[7])]


# ------------------------------------------------------------------------------------------------
# inputs


def test_expand_inputs_files_folders_globs_in_order_once(tmp_path):
    (tmp_path / "d" / "sub").mkdir(parents=True)
    for name in ["d/b.txt", "d/a.txt", "d/sub/c.jsonl", "d/.hidden.txt", "top.md"]:
        (tmp_path / name).write_text("x", encoding="utf-8")
    (tmp_path / "d" / ".git").mkdir()
    (tmp_path / "d" / ".git" / "config").write_text("x", encoding="utf-8")
    d = tmp_path / "d"
    assert expand_inputs([d]) == [str(d / "a.txt"), str(d / "b.txt"), str(d / "sub" / "c.jsonl")]
    assert expand_inputs(str(tmp_path / "**" / "*.jsonl")) == [str(d / "sub" / "c.jsonl")]
    # the order given, each file once however often it is named
    got = expand_inputs([tmp_path / "top.md", str(d / "*.txt"), d, tmp_path / "top.md"])
    assert got == [str(tmp_path / "top.md"), str(d / "a.txt"), str(d / "b.txt"), str(d / "sub" / "c.jsonl")]


def test_expand_inputs_errors_say_what_to_do(tmp_path):
    with pytest.raises(ValueError, match="matches no file.*quote it"):
        expand_inputs([str(tmp_path / "*.parquet")])
    with pytest.raises(ValueError, match="does not exist"):
        expand_inputs([tmp_path / "missing.txt"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="holds no files"):
        expand_inputs([tmp_path / "empty"])
    with pytest.raises(ValueError, match="no input files"):
        expand_inputs([])


@pytest.mark.parametrize(
    "name, kind, compression",
    [
        ("a.txt", "text", None),
        ("code.py", "text", None),
        ("README", "text", None),
        ("A.JSONL", "jsonl", None),
        ("a.ndjson.gz", "jsonl", "gzip"),
        ("a.json.zst", "json", "zstd"),
        ("a.md.gz", "text", "gzip"),
        ("a.parquet", "parquet", None),
        ("x.tar.gz", "text", "gzip"),
    ],
)
def test_file_format_by_extension(name, kind, compression):
    assert file_format(name) == FileFormat(kind, compression)


def test_compressed_parquet_is_refused_with_the_reason():
    with pytest.raises(ValueError, match="compresses its own pages"):
        file_format("a.parquet.gz")


# ------------------------------------------------------------------------------------------------
# every format gives the same documents, in file and row order


def test_every_format_counts_like_the_documents_themselves(tmp_path):
    expected_docs = write_every_format(tmp_path / "corpus", DOCS)
    got = count_files([tmp_path / "corpus"], pretokenizer=GPT2)
    expected = count_words(expected_docs, pretokenizer=GPT2)
    assert list(got.counts.items()) == list(expected.counts.items())  # counts and order of first appearance
    assert (got.stats.documents, got.stats.characters, got.stats.pretokens) == (
        expected.stats.documents,
        expected.stats.characters,
        expected.stats.pretokens,
    )
    assert got.stats.bad_rows == 0


@pytest.mark.parametrize("tie_break", ["first", "lexicographic"])
def test_train_files_on_a_folder_equals_train_on_its_documents(tmp_path, tie_break):
    docs = write_every_format(tmp_path / "corpus", DOCS)
    from_files = bpe_core.train_files(tmp_path / "corpus", 320, tie_break=tie_break, min_frequency=1)
    from_texts = bpe_core.train(docs, 320, tie_break=tie_break, min_frequency=1)
    assert from_files.merges == from_texts.merges
    assert from_files.training["corpus"] == from_texts.training["corpus"]


@pytest.mark.parametrize("pattern", [None, r"\w+|\W"])
def test_rows_are_documents_without_a_preset_pattern_too(tmp_path, pattern):
    (tmp_path / "a.jsonl").write_bytes(jsonl_bytes({"text": d} for d in DOCS[:10]))
    got = count_files([tmp_path / "a.jsonl"], pretokenizer=PreTokenizer.build(pattern))
    expected = count_words(DOCS[:10], pretokenizer=PreTokenizer.build(pattern))
    assert list(got.counts.items()) == list(expected.counts.items())
    assert got.stats.documents == 10


def test_text_field_names_another_field_or_column(tmp_path):
    (tmp_path / "a.jsonl").write_bytes(jsonl_bytes({"body": d} for d in DOCS[:5]))
    pq.write_table(pa.table({"id": [1, 2], "body": DOCS[5:7]}), tmp_path / "b.parquet")
    got = count_files([tmp_path], pretokenizer=GPT2, text_field="body")
    assert got.counts == count_words(DOCS[:7], pretokenizer=GPT2).counts


# ------------------------------------------------------------------------------------------------
# bad rows


def bad_corpus(tmp_path):
    lines = [
        b'{"text": "good one"}',
        b"not json",
        b'{"text": null}',
        b'{"txt": "x"}',
        b'{"text": 5}',
        b'{"text": "bad \xff utf8"}',
        b'["a list"]',
        b'{"text": "good two"}',
    ]
    (tmp_path / "a.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    (tmp_path / "b.json").write_bytes(b'[{"text": "good three"}, {"text": [1]}, "good four", {"text": "\xc3("}]')
    binary = pa.array([b"good five", None, b"bad \xff", b"good six"], pa.binary())
    pq.write_table(pa.table({"text": binary}), tmp_path / "c.parquet")
    return ["good one", "good two", "good three", "good four", "good five", "good six"]


def test_bad_rows_are_skipped_and_reported_with_file_and_row(tmp_path):
    good = bad_corpus(tmp_path)
    got = count_files([tmp_path], pretokenizer=GPT2)
    assert got.counts == count_words(good, pretokenizer=GPT2).counts
    assert got.stats.bad_rows == 10
    where = [(os.path.basename(e["file"]), e["row"]) for e in got.stats.bad_row_examples]
    assert where == [
        ("a.jsonl", 2),
        ("a.jsonl", 3),
        ("a.jsonl", 4),
        ("a.jsonl", 5),
        ("a.jsonl", 6),
        ("a.jsonl", 7),
        ("b.json", 2),
        ("b.json", 4),
        ("c.parquet", 2),
        ("c.parquet", 3),
    ]
    reasons = " | ".join(e["reason"] for e in got.stats.bad_row_examples)
    for expected in [
        "not valid JSON",
        "'text' is null",
        "no field 'text'",
        "is a JSON int",
        "invalid UTF-8",
        "a JSON list",
        "is a JSON list",
        "'text' is null",
    ]:
        assert expected in reasons


def test_the_training_record_holds_the_bad_rows(tmp_path):
    bad_corpus(tmp_path)
    tokenizer = bpe_core.train_files([tmp_path], 260)
    assert tokenizer.training["corpus"]["bad_rows"] == 10 and len(tokenizer.training["bad_row_examples"]) == 10
    assert tokenizer.training["bad_row_examples"][0]["row"] == 2
    again = bpe_core.Tokenizer.from_json(tokenizer.to_json())  # the record saves and loads
    assert again.training["bad_row_examples"] == tokenizer.training["bad_row_examples"]


def test_on_bad_row_stop_names_the_file_row_and_fix(tmp_path):
    bad_corpus(tmp_path)
    with pytest.raises(ValueError, match=r"a\.jsonl row 2: not valid JSON.*on_bad_row='skip'"):
        bpe_core.train_files([tmp_path], 260, on_bad_row="stop")
    with pytest.raises(ValueError, match=r"c\.parquet row 2: column 'text' is null"):
        count_files([tmp_path / "c.parquet"], pretokenizer=GPT2, on_bad_row="stop")


def test_bad_row_examples_are_capped_but_all_counted(tmp_path):
    rows = [{"text": "ok"}] + [{"text": None}] * 50
    (tmp_path / "a.jsonl").write_bytes(jsonl_bytes(rows))
    stats = count_files([tmp_path / "a.jsonl"], pretokenizer=GPT2).stats
    assert stats.bad_rows == 50 and len(stats.bad_row_examples) == BAD_ROW_EXAMPLES


def test_a_file_with_no_good_row_points_at_text_field(tmp_path):
    (tmp_path / "a.jsonl").write_bytes(jsonl_bytes({"content": d} for d in DOCS[:3]))
    with pytest.raises(ValueError, match=r"no row with text in 'text'.*fields: 'content'.*--text-field"):
        count_files([tmp_path / "a.jsonl"], pretokenizer=GPT2)


@pytest.mark.parametrize("choice, field", [("ignore", "text"), ("skip", ""), ("skip", None)])
def test_bad_options_are_value_errors(tmp_path, choice, field):
    (tmp_path / "a.txt").write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match="on_bad_row|text_field"):
        bpe_core.train_files([tmp_path / "a.txt"], 260, on_bad_row=choice, text_field=field)
    with pytest.raises(TypeError, match="unexpected keyword argument 'txt_field'"):
        bpe_core.train_files([tmp_path / "a.txt"], 260, txt_field="x")


# ------------------------------------------------------------------------------------------------
# files that cannot be read


def test_unreadable_files_are_value_errors_naming_them(tmp_path):
    (tmp_path / "a.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(ValueError, match=r"a\.parquet is not a readable Parquet file"):
        count_files([tmp_path / "a.parquet"], pretokenizer=GPT2)
    pq.write_table(pa.table({"n": [1, 2]}), tmp_path / "n.parquet")
    with pytest.raises(ValueError, match=r"no column 'text' \(its columns: n\)"):
        count_files([tmp_path / "n.parquet"], pretokenizer=GPT2)
    with pytest.raises(ValueError, match="holds int64, not text"):
        count_files([tmp_path / "n.parquet"], pretokenizer=GPT2, text_field="n")
    (tmp_path / "b.jsonl.gz").write_bytes(gzip.compress(b'{"text": "x"}\n' * 1000)[:60])
    with pytest.raises(ValueError, match=r"b\.jsonl\.gz cannot be decompressed"):
        count_files([tmp_path / "b.jsonl.gz"], pretokenizer=GPT2)
    (tmp_path / "c.json").write_text('{"text": "an object, not an array"}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"c\.json is not a JSON array.*use \.jsonl"):
        count_files([tmp_path / "c.json"], pretokenizer=GPT2)
    (tmp_path / "d.json").write_text('["a"] ["b"]', encoding="utf-8")
    with pytest.raises(ValueError, match="more after the array"):
        count_files([tmp_path / "d.json"], pretokenizer=GPT2)
    (tmp_path / "e.txt.zst").write_bytes(b"not zstd at all")
    with pytest.raises(ValueError, match=r"e\.txt\.zst cannot be decompressed"):
        count_files([tmp_path / "e.txt.zst"], pretokenizer=GPT2)


def test_parquet_columns_are_checked_before_anything_is_counted(tmp_path):
    (tmp_path / "a.txt").write_text("x", encoding="utf-8")
    pq.write_table(pa.table({"n": [1]}), tmp_path / "b.parquet")
    seen = []
    with pytest.raises(ValueError, match="no column 'text'"):
        count_files([tmp_path], pretokenizer=GPT2, progress=lambda *a: seen.append(a))
    assert seen == []  # refused before reading the text file


@pytest.mark.parametrize(
    "content", ['[{"text": "one"}, {"text": "tw', '[{"text": "a b"}, {"text": "c d"}', "[", '["a",']
)
def test_a_truncated_json_array_is_an_error_not_a_short_corpus(tmp_path, content):
    """A whole file that cannot be read is an error, like a truncated .gz (even when every element is whole)."""
    (tmp_path / "a.json").write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=r"a\.json ends before the JSON array's closing \]"):
        count_files([tmp_path / "a.json"], pretokenizer=GPT2)


# ------------------------------------------------------------------------------------------------
# streaming and progress


def test_json_arrays_stream_element_by_element():
    """The first elements of an endless array come out after a few blocks: the array is never read whole."""
    read = []

    def endless():
        yield b"["
        for i in itertools.count():
            read.append(i)
            if i > 50:
                raise AssertionError("read far beyond the elements asked for")
            yield json.dumps({"text": "x" * 10, "n": i}).encode()[:7]  # elements cut across blocks
            yield json.dumps({"text": "x" * 10, "n": i}).encode()[7:] + b","

    first = list(itertools.islice(json_array_elements(endless(), source="x.json"), 3))
    assert [json.loads(element)["n"] for _, element in first] == [0, 1, 2]
    assert len(read) <= 5


@pytest.mark.parametrize("block", [1, 2, 3, 7, 64, 1 << 20])
def test_tiny_blocks_give_the_same_rows(tmp_path, block):
    docs = write_every_format(tmp_path / "c", DOCS[:24])
    reader = DocumentReader(expand_inputs([tmp_path / "c"]), block_bytes=block)
    assert ["".join(document) for document in reader.documents()] == docs


def test_jsonl_lines_end_at_newlines_only():
    data = '{"text": "a\u2028b"}\r\n\n{"text": "c"}'.encode()
    assert list(jsonl_rows([data[:5], data[5:]])) == [(1, '{"text": "a\u2028b"}\r'.encode()), (3, b'{"text": "c"}')]


def test_progress_is_bytes_read_and_moves_within_one_large_file(tmp_path):
    path = tmp_path / "big.jsonl.gz"
    rows = ({"text": f"row {i} " + "words and more words " * 20} for i in range(20_000))
    path.write_bytes(gzip.compress(jsonl_bytes(rows)))
    size = path.stat().st_size
    calls = []
    count_files([path], pretokenizer=GPT2, progress=lambda *a: calls.append(a), block_bytes=1 << 16)
    assert {phase for phase, _, _ in calls} == {"count"} and {total for _, _, total in calls} == {size}
    done = [d for _, d, _ in calls]
    assert done == sorted(done) and done[0] == 0 and done[-1] == size
    assert len({d for d in done if 0 < d < size}) >= 10  # it moves, not 0 then 1


def test_a_text_file_read_late_reports_its_own_bytes(tmp_path):
    """A text file's document read only after the next file was handed out still counts its own
    size, not the next file's."""
    (tmp_path / "a.txt").write_text("a" * 5000, encoding="utf-8")
    (tmp_path / "b.txt").write_text("b" * 10, encoding="utf-8")
    calls = []
    reader = DocumentReader(
        [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")],
        block_bytes=1000,
        progress=lambda done, total: calls.append(done),
    )
    documents = list(reader.documents())  # both handed out before either is read
    calls.clear()
    assert "".join(documents[0]) == "a" * 5000
    assert max(calls) == 5000


def test_parquet_progress_moves_row_group_by_row_group(tmp_path):
    pq.write_table(pa.table({"text": DOCS}), tmp_path / "a.parquet", row_group_size=6)
    calls = []
    count_files([tmp_path / "a.parquet"], pretokenizer=GPT2, progress=lambda *a: calls.append(a[1]))
    assert len({d for d in calls if 0 < d < (tmp_path / "a.parquet").stat().st_size}) >= 5


# ------------------------------------------------------------------------------------------------
# command line


def test_cli_train_on_a_glob_with_a_text_field_and_a_bad_row_summary(tmp_path, capsys):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.jsonl").write_bytes(jsonl_bytes([{"body": d} for d in DOCS] + [{"body": None}]))
    out = tmp_path / "tok.json"
    pattern = str(tmp_path / "data" / "*.jsonl")
    assert main(["train", pattern, "--text-field", "body", "--vocab-size", "300", "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert "1 bad row(s) skipped (first:" in captured.err and "row 61" in captured.err
    assert len([line for line in captured.err.splitlines() if "bad row" in line]) == 1
    assert bpe_core.load(out).merges == bpe_core.train(DOCS, 300).merges
    assert (
        main(["train", pattern, "--text-field", "body", "--bad-rows", "stop", "--vocab-size", "300", "-o", str(out)])
        == 2
    )
    assert "a.jsonl row 61: field 'body' is null" in capsys.readouterr().err


def test_cli_progress_bar_counts_bytes(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("hello world " * 5000, encoding="utf-8")
    assert (
        main(["train", str(tmp_path / "a.txt"), "--vocab-size", "260", "-o", str(tmp_path / "t.json"), "--progress"])
        == 0
    )
    assert "60.0 kB of 60.0 kB" in capsys.readouterr().err


def test_a_byte_order_mark_is_not_text(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"\xef\xbb\xbfhello world")
    (tmp_path / "b.jsonl").write_bytes(b'\xef\xbb\xbf{"text": "hi there"}\n')
    (tmp_path / "c.json").write_bytes(b'\xef\xbb\xbf["again"]')
    got = count_files([tmp_path], pretokenizer=GPT2)
    assert got.counts == count_words(["hello world", "hi there", "again"], pretokenizer=GPT2).counts
    assert got.stats.bad_rows == 0


@pytest.mark.parametrize("block", [1, 2, 3, 1 << 20])
def test_a_byte_order_mark_before_a_blank_first_line_is_not_a_bad_row(tmp_path, block):
    rows = jsonl_bytes([{"text": "hi there"}, {"text": "again"}])
    (tmp_path / "a.jsonl").write_bytes(b"\xef\xbb\xbf\n" + rows)
    (tmp_path / "b.jsonl.gz").write_bytes(gzip.compress(b"\xef\xbb\xbf\r\n\n" + rows))
    for name in ("a.jsonl", "b.jsonl.gz"):
        reader = DocumentReader([str(tmp_path / name)], block_bytes=block, on_bad_row="stop")
        assert ["".join(d) for d in reader.documents()] == ["hi there", "again"]
        assert reader.bad_rows.count == 0


@pytest.mark.parametrize("block", [1, 2, 1 << 20])
def test_a_byte_order_mark_is_dropped_only_at_the_start_of_a_file(tmp_path, block):
    """A second mark, or one in the middle, is text (a U+FEFF character), in every format read as bytes."""
    mark = "\ufeff"
    (tmp_path / "a.txt").write_bytes(b"\xef\xbb\xbf" + f"{mark}twice, and {mark} inside".encode())
    (tmp_path / "b.txt.zst").write_bytes(b"")
    zstd_write(tmp_path / "b.txt.zst", f"no mark first {mark}".encode())
    (tmp_path / "c.json").write_bytes(b"\xef\xbb\xbf" + json.dumps([f"{mark}x", "y"]).encode())
    (tmp_path / "d.jsonl").write_bytes(b'\xef\xbb\xbf{"text": "one"}\n\xef\xbb\xbf{"text": "two"}\n')
    reader = DocumentReader(expand_inputs([tmp_path]), block_bytes=block)
    documents = ["".join(d) for d in reader.documents()]
    assert documents == [f"{mark}twice, and {mark} inside", f"no mark first {mark}", f"{mark}x", "y", "one"]
    assert reader.bad_rows.count == 1 and reader.bad_rows.examples[0]["row"] == 2  # the mark on line 2 is text
    with pytest.raises(ValueError, match="is not a JSON array"):  # a second mark before the array is not blank
        list(DocumentReader([_write_bytes(tmp_path / "e.json", b"\xef\xbb\xbf\xef\xbb\xbf[]")]).documents())


def test_offsets_in_a_file_with_a_byte_order_mark_count_the_mark(tmp_path):
    path = _write_bytes(tmp_path / "a.txt", b"\xef\xbb\xbfok \xff")
    with pytest.raises(ValueError, match="at byte offset 6 "):
        count_files([path], pretokenizer=GPT2)


def test_byte_stream_hands_out_the_bytes_after_a_mark_and_ranges(tmp_path):
    path = _write_bytes(tmp_path / "a.bin", b"\xef\xbb\xbfabcdef")
    with ByteStream(path, None) as stream:
        assert stream.first_offset == 3 and list(stream.blocks(2)) == [b"ab", b"cd", b"ef"]
    with ByteStream(path, None, start=4) as stream:
        assert stream.first_offset == 4 and b"".join(stream.blocks(1, end=7)) == b"bcd"
    short = _write_bytes(tmp_path / "b.bin", b"\xef\xbb")  # half a mark is not a mark
    with ByteStream(short, None) as stream:
        assert stream.first_offset == 0 and list(stream.blocks(1)) == [b"\xef", b"\xbb"]
    no_mark = _write_bytes(tmp_path / "c.bin", b"abcdef")
    with ByteStream(no_mark, None) as stream:
        assert b"".join(stream.blocks(2, end=5)) == b"abcde"
    with pytest.raises(ValueError, match="gzip-compressed; read it from the start"):
        ByteStream(no_mark, "gzip", start=2)


def _write_bytes(path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize("inputs", [123, b"data.txt", [123], [None]])
def test_inputs_that_are_not_paths_are_a_type_error_saying_what_to_pass(inputs):
    with pytest.raises(TypeError, match=r"give a file, folder or glob pattern \(str or pathlib\.Path\), or a list"):
        bpe_core.train_files(inputs, 300)


@pytest.mark.parametrize(
    "kind", [pa.string(), pa.large_string(), pa.binary(), pa.large_binary(), pa.dictionary(pa.int32(), pa.string())]
)
def test_a_text_column_may_be_any_string_or_binary_layout_or_dictionary_encoded(tmp_path, kind):
    values = ["one", "two", "one"]
    column = pa.array(values).cast(kind) if not pa.types.is_dictionary(kind) else pa.array(values).dictionary_encode()
    pq.write_table(pa.table({"text": column}), tmp_path / "a.parquet")
    assert ["".join(d) for d in DocumentReader([str(tmp_path / "a.parquet")]).documents()] == values
