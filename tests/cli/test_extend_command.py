"""``python -m bpe_core extend``: the file it writes is what ``bpe_core.extend`` makes and ``load`` reads
it; ``--format`` writes a tokenizer.json (the base's own file kept) or .tiktoken with the same ids; the
held-out curve is printed; bad input is one line and exit status 2, before any work."""

from __future__ import annotations

import json

import pytest
from tokenizers import Tokenizer as HFTokenizer

import bpe_core
from bpe_core.cli.main import main
from bpe_core.corpora.samples import parallel_text
from bpe_core.formats.tiktoken_file import load_tiktoken
from bpe_core.pretrained.catalogue import builtin_file

HINDI = parallel_text(split="train", languages=["hin"])["hin"]
HELDOUT = parallel_text(split="heldout", languages=["hin", "eng"])


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "hi.txt").write_text("\n".join(HINDI), encoding="utf-8")
    (tmp_path / "heldout.txt").write_text("\n".join(HELDOUT["hin"]), encoding="utf-8")
    (tmp_path / "english.txt").write_text("\n".join(HELDOUT["eng"]), encoding="utf-8")
    return tmp_path


def test_extend_writes_what_the_library_makes_and_load_reads_it(files, capsys):
    out = files / "gpt2-hindi.json"
    argv = ["extend", "-t", "gpt2", str(files / "hi.txt"), "--add", "120", "--scripts", "Devanagari", "-o", str(out)]
    assert main([*argv, "--heldout", str(files / "heldout.txt"), "--reference", str(files / "english.txt")]) == 0
    printed = capsys.readouterr().out
    ours = bpe_core.load(out)
    theirs = bpe_core.extend(bpe_core.load("gpt2"), ["\n".join(HINDI)], add=120, scripts="Devanagari")
    assert dict(ours.vocab) == dict(theirs.vocab) and ours.merges == theirs.merges
    assert ours.training["settings"]["scripts"] == ["Devanagari"] and ours.name == "gpt2+120"
    assert "extended 'gpt2' (50,257 ids) by 120 tokens: ids 50,257-50,376 (reached vocab_size)" in printed
    assert "0 of 23,883 pre-tokens changed" in printed and "premium" in printed and "saved to" in printed
    assert "the model's embedding gains 120 rows" in printed


def test_a_built_in_read_from_a_tokenizer_json_is_written_into_its_own_file(files, capsys):
    out = files / "tokenizer.json"
    argv = ["extend", "-t", "deepseek", str(files / "hi.txt"), "--add", "50", "--format", "huggingface", "-o", str(out)]
    assert main(argv) == 0
    assert "the base's own tokenizer.json" in capsys.readouterr().out
    data = json.loads(out.read_text(encoding="utf-8"))
    original = json.loads(builtin_file("deepseek"))
    assert data["post_processor"] == original["post_processor"] and data["added_tokens"] == original["added_tokens"]
    hf = HFTokenizer.from_str(out.read_text(encoding="utf-8"))
    extended = bpe_core.load(out)
    for text in HELDOUT["hin"][:10]:
        assert hf.encode(text, add_special_tokens=False).ids == extended.encode_ordinary(text)


def test_llama3_as_tiktoken_ranks_and_its_first_id(files, capsys):
    out = files / "llama3-hindi.tiktoken"
    argv = ["extend", "-t", "llama3", str(files / "hi.txt"), "--add", "10", "--min-frequency", "1"]
    assert main([*argv, "--first-id", "130000", "--format", "tiktoken", "-o", str(out)]) == 0
    assert "ids 130,000-130,009" in capsys.readouterr().out
    llama3 = bpe_core.load("llama3")
    ranks = load_tiktoken(out, pattern=llama3.pattern, special_tokens=llama3.special_tokens)
    assert all(ranks.vocab[i] == t for i, t in llama3.vocab.items())
    assert sorted(set(ranks.vocab) - set(llama3.vocab)) == list(range(130000, 130010))


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--add", "0"], "at least 1"),
        (["--add", "5", "--scripts", "Devangari"], "unknown script"),
        (["--add", "5", "--scripts", ","], "--scripts is empty"),
        (["--add", "5", "--first-id", "5"], "first_id >= 50,256"),
        (["--add", "5", "--scripts", "Latin", "--superwords"], "cannot go together"),
        (["--add", "5", "--reference", "x.txt"], "give --heldout"),
    ],
)
def test_bad_input_is_one_line_before_any_work(files, capsys, extra, words):
    out = files / "never.json"
    assert main(["extend", "-t", "gpt2", str(files / "hi.txt"), *extra, "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and words in err[0]
    assert not out.exists()


def test_a_tokenizer_bpe_core_only_runs_read_only_is_refused(files, capsys, tmp_path):
    from tokenizers import models, pre_tokenizers

    word_level = HFTokenizer(models.WordLevel({"a": 0, "b": 1, "[UNK]": 2}, unk_token="[UNK]"))
    word_level.pre_tokenizer = pre_tokenizers.Whitespace()
    word_level.save(str(tmp_path / "words.json"))
    out = tmp_path / "x.json"
    assert (
        main(["extend", "-t", str(tmp_path / "words.json"), str(files / "hi.txt"), "--add", "5", "-o", str(out)]) == 2
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "runs read-only; extend a byte-level BPE tokenizer" in err[0] and not out.exists()
    assert main(["extend", "-t", str(files / "missing.json"), str(files / "hi.txt"), "--add", "5", "-o", "x.json"]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert (
        main(["extend", "-t", "gpt2", str(files / "hi.txt"), "--add", "5", "-o", str(tmp_path / "no" / "x.json")]) == 2
    )
    assert "does not exist" in capsys.readouterr().err
