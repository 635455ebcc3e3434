"""Count shards (bpe_core.training.count_shards): written, read back, added across folders exactly, checked,
and trained from with the same merges as training on the text itself."""

import json
import os
import re
import sys
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import bpe_core
from bpe_core.cli.main import main
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.training.count_shards import (
    MAX_COUNT,
    check_shards_settings,
    read_count_shards,
    shard_settings,
    train_from_shards,
    write_count_shards,
)
from bpe_core.training.counting import WordCounts, count_files
from bpe_core.training.tie_rules import TIE_BREAKS

TEXTS = [
    "the cat sat on the mat; the dog sat on the log. " * 3,
    "def add(a, b):\n    return a + b\n\nprint(add(1, 2))\n",
    "Le chat est sur le tapis. Η γάτα κάθεται. 猫が座っている。 🙂🙂 naïve café",
    "aaaa bbbb aaaa abab baba <|eot|> the end, the end, the end",
    "numbers 12345 678 90 1234567 and more text: the cat, the hat, the bat",
    "ties: xy xy yz yz zw zw wx wx",
]


@pytest.fixture()
def corpus(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    for i, text in enumerate(TEXTS):
        (folder / f"{i:02d}.txt").write_text(text, encoding="utf-8")
    return folder


def counts_of(paths, pattern="gpt2", specials=()):
    return count_files(paths, pretokenizer=PreTokenizer.build(pattern), special_tokens=specials)


def test_shards_read_back_to_the_same_counts_in_the_same_order(tmp_path, corpus):
    counted = counts_of([corpus])
    manifest = write_count_shards(counted, tmp_path / "shards", settings=shard_settings(), rows_per_shard=7)
    assert len(manifest["shards"]) == -(-len(counted.counts) // 7)
    back, settings = read_count_shards(tmp_path / "shards")
    assert list(back.counts.items()) == list(counted.counts.items())
    assert back.stats == counted.stats
    assert settings["pattern"] == "gpt2" and settings["normalization"] == "none"
    table = pq.read_table(tmp_path / "shards" / "counts-00000.parquet")
    assert table.schema.field("pretoken").type == pa.string() and table.schema.field("count").type == pa.int64()
    meta = json.loads(table.schema.metadata[b"bpe_core.count_shards"])
    assert meta["settings"] == settings and meta["shard"] == 0
    on_disk = json.loads((tmp_path / "shards" / "manifest.json").read_text(encoding="utf-8"))
    assert on_disk["total_count"] == sum(counted.counts.values())


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
@pytest.mark.parametrize(
    "pattern, specials", [("gpt2", ()), ("o200k", ("<|eot|>",)), (r"\w+|\s+|[^\w\s]+", ()), (None, ())]
)
def test_training_from_shards_is_training_on_the_text(tmp_path, corpus, tie_break, pattern, specials):
    files = sorted(corpus.iterdir())
    direct = bpe_core.train_files(
        files, 330, tie_break=tie_break, min_frequency=1, pattern=pattern, special_tokens=specials
    )
    settings = shard_settings(pattern=pattern, special_tokens=specials)
    # one folder
    write_count_shards(counts_of(files, pattern, specials), tmp_path / "all", settings=settings, rows_per_shard=5)
    # a split of the corpus into three folders, added in order
    parts = [files[:2], files[2:3], files[3:]]
    for n, part in enumerate(parts):
        write_count_shards(
            counts_of(part, pattern, specials), tmp_path / f"part{n}", settings=settings, rows_per_shard=4
        )
    for folders in ([tmp_path / "all"], [tmp_path / f"part{n}" for n in range(3)]):
        trained = train_from_shards(folders, 330, tie_break=tie_break, min_frequency=1)
        assert trained.merges == direct.merges
        assert trained.vocab == direct.vocab and trained.special_tokens == direct.special_tokens
        assert trained.pattern == direct.pattern
        assert trained.training["corpus"] == direct.training["corpus"]


def test_folders_add_counts_exactly(tmp_path):
    big = 2**40 + 3
    write_count_shards(WordCounts(counts=Counter({"a": big, "b": 1})), tmp_path / "x", settings=shard_settings())
    write_count_shards(WordCounts(counts=Counter({"c": 2, "a": big})), tmp_path / "y", settings=shard_settings())
    counts, _ = read_count_shards([tmp_path / "x", tmp_path / "y"])
    assert list(counts.counts.items()) == [("a", 2 * big), ("b", 1), ("c", 2)]
    assert counts.stats.pretokens == 2 * big + 3


def test_a_total_above_int64_is_refused(tmp_path):
    write_count_shards(WordCounts(counts=Counter({"a": MAX_COUNT})), tmp_path / "x", settings=shard_settings())
    write_count_shards(WordCounts(counts=Counter({"b": 1})), tmp_path / "y", settings=shard_settings())
    with pytest.raises(ValueError, match=r"more than 2\^63-1"):
        read_count_shards([tmp_path / "x", tmp_path / "y"])
    with pytest.raises(ValueError, match=r"between 1 and 2\^63-1"):
        write_count_shards(WordCounts(counts=Counter({"a": MAX_COUNT + 1})), tmp_path / "z", settings=shard_settings())


@pytest.mark.parametrize("key, a, b", [("pattern", "gpt2", "cl100k"), ("special_tokens", [], ["<s>"])])
def test_settings_must_agree(tmp_path, corpus, key, a, b):
    first = {"pattern": "gpt2", "special_tokens": []} | {key: a}
    second = {"pattern": "gpt2", "special_tokens": []} | {key: b}
    write_count_shards(counts_of([corpus]), tmp_path / "one", settings=shard_settings(**first))
    write_count_shards(counts_of([corpus]), tmp_path / "two", settings=shard_settings(**second))
    mismatch = rf"two was counted with {key} {re.escape(repr(b))} but .*one with {re.escape(repr(a))}"
    with pytest.raises(ValueError, match=mismatch):
        read_count_shards([tmp_path / "one", tmp_path / "two"])


def test_a_pattern_or_special_token_that_contradicts_the_shards_is_refused(tmp_path, corpus):
    write_count_shards(counts_of([corpus]), tmp_path / "s", settings=shard_settings(pattern="o200k"))
    _, settings = read_count_shards(tmp_path / "s")
    with pytest.raises(bpe_core.BpeError, match="counted with pattern 'o200k', not 'gpt2'"):
        check_shards_settings(settings, {"pattern": "gpt2"})
    with pytest.raises(bpe_core.BpeError, match="counted with special_tokens"):
        check_shards_settings(settings, {"special_tokens": ["<x>"]})
    same = PreTokenizer.build("o200k").source  # the preset's regex is the preset
    check_shards_settings(settings, {"pattern": same, "special_tokens": []})
    assert train_from_shards(tmp_path / "s", 300).pattern_name == "o200k"  # the shards' pattern


def test_output_folders_are_checked(tmp_path, corpus):
    counted = counts_of([corpus])
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(ValueError, match="holds other files"):
        write_count_shards(counted, tmp_path / "busy", settings=shard_settings())
    assert os.listdir(tmp_path / "busy") == ["notes.txt"]
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match="it is a file"):
        write_count_shards(counted, tmp_path / "file", settings=shard_settings())
    with pytest.raises(ValueError, match="does not exist"):
        write_count_shards(counted, tmp_path / "no" / "such", settings=shard_settings())
    # a shard folder is replaced: stale shards go
    write_count_shards(counted, tmp_path / "s", settings=shard_settings(), rows_per_shard=3)
    write_count_shards(counted, tmp_path / "s", settings=shard_settings(), rows_per_shard=1000)
    assert sorted(os.listdir(tmp_path / "s")) == ["counts-00000.parquet", "manifest.json"]


def test_damaged_and_foreign_shards_are_refused(tmp_path, corpus):
    counted = counts_of([corpus])
    write_count_shards(counted, tmp_path / "s", settings=shard_settings(), rows_per_shard=10)
    shard = tmp_path / "s" / "counts-00001.parquet"
    shard.write_bytes(b"PAR1 garbage")
    with pytest.raises(ValueError, match="counts-00001.parquet is not a readable Parquet file"):
        read_count_shards(tmp_path / "s")
    pq.write_table(pa.table({"token": ["a"], "count": [1]}), shard)
    with pytest.raises(ValueError, match="has no column 'pretoken'"):
        read_count_shards(tmp_path / "s")
    pq.write_table(pa.table({"pretoken": ["a"], "count": [1.5]}), shard)
    with pytest.raises(ValueError, match="column 'count' holds double"):
        read_count_shards(tmp_path / "s")
    shard.unlink()
    with pytest.raises(ValueError, match="counts-00001.parquet is missing"):
        read_count_shards(tmp_path / "s")
    (tmp_path / "s" / "manifest.json").unlink()
    with pytest.raises(ValueError, match="has no manifest.json"):
        read_count_shards(tmp_path / "s")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "manifest.json").write_text('{"name": "a web app"}', encoding="utf-8")
    with pytest.raises(ValueError, match="not a count-shard manifest"):
        read_count_shards(tmp_path / "other")
    with pytest.raises(ValueError, match="not a count-shard manifest"):  # and never overwritten
        write_count_shards(counted, tmp_path / "other", settings=shard_settings())


def test_shards_from_another_count_are_refused(tmp_path, corpus):
    write_count_shards(counts_of([corpus]), tmp_path / "a", settings=shard_settings(), rows_per_shard=10)
    write_count_shards(counts_of([corpus]), tmp_path / "b", settings=shard_settings(), rows_per_shard=10)
    os.replace(tmp_path / "b" / "counts-00000.parquet", tmp_path / "a" / "counts-00000.parquet")
    with pytest.raises(ValueError, match="belongs to another count"):
        read_count_shards(tmp_path / "a")


def write_foreign(folder, rows, *, manifest_extra=None):
    """Shards as another engine writes them: plain Parquet files and a minimal manifest."""
    folder.mkdir()
    for n, part in enumerate(rows):
        table = pa.table({"pretoken": [p for p, _ in part], "count": pa.array([c for _, c in part], pa.int64())})
        pq.write_table(table, folder / f"part-{n:05d}.parquet")
    manifest = {
        "format": "bpe_core count shards",
        "format_version": 1,
        "settings": {"pattern": "gpt2", "special_tokens": [], "normalization": "none"},
    }
    manifest |= manifest_extra or {}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def test_shards_written_by_another_engine_are_read(tmp_path):
    write_foreign(tmp_path / "spark", [[("the", 3), (" cat", 2)], [("the", 1), (" mat", 5)]])
    counts, settings = read_count_shards(tmp_path / "spark")
    assert list(counts.counts.items()) == [("the", 4), (" cat", 2), (" mat", 5)]
    assert counts.stats.pretokens == 11 and settings["pattern"] == "gpt2"


@pytest.mark.parametrize("count, message", [(-1, "counts must be at least 1"), (0, "counts must be at least 1")])
def test_counts_below_one_are_refused(tmp_path, count, message):
    write_foreign(tmp_path / "s", [[("a", 2), ("b", count)]])
    with pytest.raises(ValueError, match=rf"part-00000.parquet row 2: count {count} for 'b'; {message}"):
        read_count_shards(tmp_path / "s")


@pytest.mark.parametrize(
    "extra, message",
    [
        ({"corpus": {"documents": -3}}, r"corpus.documents is -3; counts are whole numbers from 0"),
        ({"corpus": {"characters": 1.5}}, r"corpus.characters is 1.5"),
        ({"corpus": {"bad_rows": True}}, r"corpus.bad_rows is True"),
        ({"shards": [{"file": "part-00000.parquet", "rows": -1}]}, r"\"rows\": -1; a row count is a whole number"),
        ({"shards": [{"file": "part-00000.parquet", "rows": "1"}]}, r"\"rows\": '1'"),
    ],
)
def test_negative_or_broken_counts_in_a_manifest_are_refused(tmp_path, extra, message):
    """They were read as 0 (corpus counts) or crashed formatting a message (rows), silently or not."""
    write_foreign(tmp_path / "s", [[("a", 2)]], manifest_extra=extra)
    with pytest.raises(ValueError, match=message):
        read_count_shards(tmp_path / "s")


def test_null_rows_and_unknown_normalization_are_refused(tmp_path):
    write_foreign(tmp_path / "n", [[("a", 1)]])
    pq.write_table(pa.table({"pretoken": ["a", None], "count": [1, 2]}), tmp_path / "n" / "part-00000.parquet")
    with pytest.raises(ValueError, match="no pretoken or no count"):
        read_count_shards(tmp_path / "n")
    write_foreign(
        tmp_path / "m",
        [[("a", 1)]],
        manifest_extra={"settings": {"pattern": "gpt2", "special_tokens": [], "normalization": "nfkc"}},
    )
    with pytest.raises(ValueError, match="normalization 'nfkc'"):
        read_count_shards(tmp_path / "m")
    write_foreign(tmp_path / "v", [[("a", 1)]], manifest_extra={"format_version": 2})
    with pytest.raises(ValueError, match="format_version 2"):
        read_count_shards(tmp_path / "v")


def test_cli_count_then_train_from_counts_equals_train(tmp_path, corpus, capsys):
    files = sorted(corpus.iterdir())
    out = tmp_path / "counts"
    assert (
        main(
            [
                "count",
                str(corpus / "0[0-2].txt"),
                "-o",
                str(tmp_path / "c1"),
                "--special-token",
                "<|eot|>",
                "--rows-per-shard",
                "3",
            ]
        )
        == 0
    )
    assert main(["count", *map(str, files[3:]), "-o", str(out), "--special-token", "<|eot|>"]) == 0
    assert "train --counts" in capsys.readouterr().out
    args = ["--vocab-size", "320", "--tie-break", "first", "--min-frequency", "1"]
    assert main(["train", "--counts", str(tmp_path / "c1"), str(out), "-o", str(tmp_path / "a.json"), *args]) == 0
    assert main(["train", str(corpus), "--special-token", "<|eot|>", "-o", str(tmp_path / "b.json"), *args]) == 0
    a, b = (bpe_core.load(tmp_path / n) for n in ("a.json", "b.json"))
    assert a.merges == b.merges and a.special_tokens == b.special_tokens


def test_cli_count_and_train_refuse_bad_requests_before_working(tmp_path, corpus, capsys):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x.txt").write_text("x", encoding="utf-8")
    assert main(["count", str(corpus), "-o", str(tmp_path / "busy")]) == 2
    assert "holds other files" in capsys.readouterr().err
    assert main(["train", "--vocab-size", "300", "-o", str(tmp_path / "t.json")]) == 2
    assert "give INPUTS" in capsys.readouterr().err
    assert main(["count", str(corpus), "-o", str(tmp_path / "s")]) == 0
    capsys.readouterr()
    assert (
        main(
            [
                "train",
                str(corpus),
                "--counts",
                str(tmp_path / "s"),
                "--vocab-size",
                "300",
                "-o",
                str(tmp_path / "t.json"),
            ]
        )
        == 2
    )
    assert "not both" in capsys.readouterr().err
    assert (
        main(
            [
                "train",
                "--counts",
                str(tmp_path / "s"),
                "--pattern",
                "cl100k",
                "--vocab-size",
                "300",
                "-o",
                str(tmp_path / "t.json"),
            ]
        )
        == 2
    )
    assert "counted with pattern 'gpt2', not 'cl100k'" in capsys.readouterr().err


def test_a_folder_named_twice_is_read_once(tmp_path, corpus):
    """As a file named twice is read once: `--counts ca ca` (or two spellings of one folder) never double counts."""
    write_count_shards(counts_of([corpus]), tmp_path / "ca", settings=shard_settings())
    once, _ = read_count_shards([tmp_path / "ca"])
    again, _ = read_count_shards([tmp_path / "ca", tmp_path / "." / "ca", str(tmp_path / "ca") + "/"])
    assert list(again.counts.items()) == list(once.counts.items())
    assert again.stats.pretokens == once.stats.pretokens and again.stats.documents == once.stats.documents


def test_train_from_shards_records_the_reading_in_its_seconds(tmp_path, corpus, monkeypatch):
    """training["seconds"] runs from the call's start (reading the shards included), as train_files' does."""
    import time

    from bpe_core.training import count_shards

    write_count_shards(counts_of([corpus]), tmp_path / "ca", settings=shard_settings())
    read = count_shards.read_count_shards

    def slow_read(directories):
        time.sleep(0.5)
        return read(directories)

    monkeypatch.setattr(count_shards, "read_count_shards", slow_read)
    assert train_from_shards(tmp_path / "ca", 300).training["seconds"] >= 0.5


def test_an_unwritable_folder_is_a_value_error_naming_it(tmp_path, monkeypatch):
    """An OSError while writing (read-only, full, /proc) is a ValueError naming the folder, never a bare errno."""

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "makedirs", refuse)
    with pytest.raises(ValueError, match=r"cannot write the count shards to the folder .*out \(Permission denied\)"):
        write_count_shards(WordCounts(counts=Counter({"a": 1})), tmp_path / "out", settings=shard_settings())


def test_cli_train_from_counts_refuses_reading_options_and_warns_on_no_text(tmp_path, corpus, capsys):
    assert main(["count", str(corpus), "-o", str(tmp_path / "s")]) == 0
    capsys.readouterr()
    out = ["--vocab-size", "300", "-o", str(tmp_path / "t.json")]
    for option in (["--text-field", "body"], ["--bad-rows", "stop"], ["--workers", "2"]):
        assert main(["train", "--counts", str(tmp_path / "s"), *option, *out]) == 2
        err = capsys.readouterr().err
        assert f"{option[0]} applies to reading a corpus" in err and "drop" in err, err
    assert main(["train", "--counts", str(tmp_path / "s"), str(tmp_path / "s"), *out]) == 0
    assert main(["train", str(corpus), *out[:2], "-o", str(tmp_path / "u.json")]) == 0
    twice, once = (bpe_core.load(tmp_path / n) for n in ("t.json", "u.json"))
    assert twice.merge_records == once.merge_records  # the same counts: the folder was read once
    (tmp_path / "empty.json").write_text("[]", encoding="utf-8")
    capsys.readouterr()
    assert main(["train", str(tmp_path / "empty.json"), *out]) == 0
    assert "warning: the corpus has no text" in capsys.readouterr().err
    assert main(["count", str(corpus), "-o", str(corpus / "00.txt")]) == 2
    assert "-o here names a folder (count writes its shards" in capsys.readouterr().err


@pytest.mark.parametrize(
    "column, accepted",
    [
        (pa.array(["ab"], pa.string()), True),
        (pa.array(["ab"], pa.large_string()), True),
        (pa.array([b"ab"], pa.binary()), False),
        (pa.array([None], pa.null()), False),
        (pa.array([1], pa.int64()), False),
    ],
)
def test_the_pretoken_column_must_hold_strings(tmp_path, column, accepted):
    """The shared text-type test (row_streams.is_text_type) without binary: strings in any layout only."""
    table = pa.table({"pretoken": column, "count": pa.array([2], pa.int64())})
    pq.write_table(table, tmp_path / "counts-00000.parquet")
    manifest = {"format": "bpe_core count shards", "format_version": 1, "settings": shard_settings()}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    if accepted:
        assert dict(read_count_shards(tmp_path)[0].counts) == {"ab": 2}
    else:
        with pytest.raises(ValueError, match=f"column 'pretoken' holds {column.type}, not a string"):
            read_count_shards(tmp_path)


def test_without_pyarrow_each_parquet_user_says_what_needs_it(tmp_path, monkeypatch):
    """One pyarrow import (row_streams.import_pyarrow), each caller's own reason, and the install command."""
    (tmp_path / "a.txt.zst").write_bytes(b"whatever")
    (tmp_path / "b.parquet").write_bytes(b"whatever")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(ValueError, match=r"count shards are Parquet files, which need pyarrow: pip install pyarrow"):
        write_count_shards(WordCounts(), tmp_path / "s", settings=shard_settings())
    with pytest.raises(ValueError, match=r"a\.txt\.zst \(zstd\) needs pyarrow: pip install pyarrow"):
        count_files([tmp_path / "a.txt.zst"], pretokenizer=PreTokenizer.build("gpt2"))
    with pytest.raises(ValueError, match=r"b\.parquet \(Parquet\) needs pyarrow: pip install pyarrow"):
        count_files([tmp_path / "b.parquet"], pretokenizer=PreTokenizer.build("gpt2"))


@pytest.mark.parametrize(
    "files", [{"a.txt": "", "b.md": ""}, {"a.json": "[]"}, {"a.jsonl": "\n\n"}, {"a.jsonl": '{"text": ""}\n'}]
)
def test_cli_count_and_train_on_a_corpus_without_text_warn_on_stderr(tmp_path, capsys, files):
    """No document, or only empty ones: the shard folder (or 256-byte tokenizer) is written, exit 0, and
    stderr says the corpus has no text."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name, content in files.items():
        (folder / name).write_text(content, encoding="utf-8")
    assert main(["count", str(folder), "-o", str(tmp_path / "s")]) == 0
    captured = capsys.readouterr()
    assert "warning: the corpus has no text" in captured.err
    assert "count-shard folder holds no pre-tokens" in captured.err
    assert "counted " in captured.out
    assert json.loads((tmp_path / "s" / "manifest.json").read_text())["unique_pretokens"] == 0
    assert main(["train", str(folder), "--vocab-size", "300", "-o", str(tmp_path / "t.json")]) == 0
    assert "warning: the corpus has no text" in capsys.readouterr().err
    assert bpe_core.load(tmp_path / "t.json").vocab_size == 256


def test_cli_count_on_a_corpus_with_text_does_not_warn(tmp_path, corpus, capsys):
    assert main(["count", str(corpus), "-o", str(tmp_path / "s")]) == 0
    assert "warning" not in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="symbolic links as on POSIX")
def test_a_link_in_place_of_a_shard_is_replaced_never_written_through(tmp_path, corpus):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me", encoding="utf-8")
    shards = tmp_path / "shards"
    shards.mkdir()
    (shards / "counts-00000.parquet").symlink_to(outside)
    counted = counts_of([corpus])
    write_count_shards(counted, shards, settings=shard_settings(), rows_per_shard=1_000)
    assert outside.read_text(encoding="utf-8") == "keep me"
    assert not (shards / "counts-00000.parquet").is_symlink()
    assert read_count_shards(shards)[0].counts == counted.counts
    assert sorted(p.name for p in shards.iterdir()) == ["counts-00000.parquet", "manifest.json"]
