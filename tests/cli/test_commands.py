"""The python -m bpe_core command line."""

import json
import subprocess
import sys

import pytest

import bpe_core
from bpe_core.cli.common import ProgressBar
from bpe_core.cli.main import main


@pytest.fixture()
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("the cat sat on the mat. the dog sat on the log.\n" * 40, encoding="utf-8")
    return path


def test_train_inspect_encode_decode_export(tmp_path, corpus, capsys):
    out = tmp_path / "tok.json"
    assert main(["train", str(corpus), "--vocab-size", "300", "-o", str(out), "--special-token", "<|eot|>"]) == 0
    printed = capsys.readouterr().out
    assert "merges:" in printed and "saved to" in printed
    tok = bpe_core.load(out)
    assert tok.special_tokens == {"<|eot|>": 256}

    assert tok.name == f"corpus-{tok.vocab_size}"  # no --name: its corpus and the vocabulary it reached

    assert main(["inspect", "-t", str(out), "--merges", "3"]) == 0
    printed = capsys.readouterr().out
    assert "first 3 merges" in printed and "tie_break=lexicographic" in printed

    assert main(["encode", "-t", str(out), "--text", "the cat<|eot|>", "--allowed-special", "all"]) == 0
    ids = [int(x) for x in capsys.readouterr().out.split()]
    assert ids == tok.encode("the cat<|eot|>", allowed_special="all")

    assert main(["decode", "-t", str(out), *map(str, ids)]) == 0
    assert capsys.readouterr().out == "the cat<|eot|>\n"

    hf = tmp_path / "tokenizer.json"
    assert main(["export", "-t", str(out), "--format", "huggingface", "-o", str(hf)]) == 0
    assert json.loads(hf.read_text(encoding="utf-8"))["model"]["type"] == "BPE"


@pytest.mark.parametrize("command", [["inspect", "--merges", "1"], ["export", "--format", "bpe_core"]])
def test_every_subcommand_takes_the_tokenizer_as_t_and_still_the_positional_form(tmp_path, capsys, command):
    extra = ["-o", str(tmp_path / "out.json")] if command[0] == "export" else []
    assert main([*command, "-t", "gpt2", *extra]) == 0
    assert "note:" not in capsys.readouterr().err
    assert main([command[0], "gpt2", *command[1:], *extra]) == 0  # the older form keeps working...
    assert f"note: give the tokenizer with -t ({command[0]} -t gpt2)" in capsys.readouterr().err  # ...with a note
    assert main([*command, *extra]) == 2
    assert "name the tokenizer with -t" in capsys.readouterr().err
    assert main([command[0], "gpt2", *command[1:], "-t", "cl100k", *extra]) == 2
    assert "two tokenizers named" in capsys.readouterr().err


def test_a_trained_tokenizer_is_named_after_its_corpus_and_vocabulary(tmp_path, corpus, capsys):
    out = tmp_path / "named.json"
    assert main(["train", str(corpus), str(corpus), "--vocab-size", "290", "-o", str(out)]) == 0
    tokenizer = bpe_core.load(out)
    assert tokenizer.name == f"corpus-and-1-more-{tokenizer.vocab_size}" and tokenizer.name != "trained"
    assert main(["train", str(corpus), "--vocab-size", "290", "--name", "mine", "-o", str(out)]) == 0
    assert bpe_core.load(out).name == "mine"


def test_encode_tokens_format_and_vocab_dump(capsys):
    assert main(["encode", "-t", "gpt2", "--text", "Hello world", "--format", "tokens"]) == 0
    assert capsys.readouterr().out.splitlines() == ["15496\tHello", "995\t␣world"]  # token_display: ␣ for a space


def test_errors_are_one_line_messages_not_tracebacks(tmp_path, capsys):
    assert main(["decode", "-t", "gpt2", "99999999"]) == 2
    assert "unknown token id 99999999" in capsys.readouterr().err
    assert main(["decode", "-t", "gpt2", "abc"]) == 2
    assert "not a token id" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{broken", encoding="utf-8")
    assert main(["inspect", str(bad)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"ok\xff\xfe")
    assert main(["train", str(binary), "--vocab-size", "300", "-o", str(tmp_path / "x.json")]) == 2
    assert "not valid UTF-8 at byte offset 2" in capsys.readouterr().err
    assert main(["train", str(binary), "--vocab-size", "10", "-o", str(tmp_path / "x.json")]) == 2
    assert "at least 256" in capsys.readouterr().err


def test_progress_bar_draws_phases_and_eta():
    import io

    stream = io.StringIO()
    bar = ProgressBar(stream, force=True)
    bar("count", 0, 10)
    bar("count", 10, 10)
    bar("merge", 50, 100)
    bar("merge", 100, 100)
    bar.close()
    text = stream.getvalue()
    assert "counting" in text and "merging" in text and "100.0%" in text


def test_module_entry_point_runs():
    result = subprocess.run(
        [sys.executable, "-m", "bpe_core", "encode", "--text", "Hello world"],
        capture_output=True,
        text=True,
        cwd=str(__import__("pathlib").Path(__file__).parents[2]),
    )
    assert result.returncode == 0
    assert result.stdout.split() == ["15496", "995"]


def test_compare_table_matches_the_library(capsys):
    from bpe_core.analysis import metrics
    from bpe_core.cli.main import format_compare_table
    from bpe_core.corpora.samples import load_samples

    assert main(["compare", "-t", "gpt2"]) == 0
    out = capsys.readouterr().out
    rows = metrics.compare({"gpt2": bpe_core.load("gpt2")}, load_samples(), reference="eng")
    assert out.startswith(format_compare_table(rows))
    hindi = next(r for r in rows if r["sample"] == "hin")
    assert f"{hindi['premium']:.2f}x" in out
    assert metrics.summary_sentence(rows, "gpt2") in out


def test_compare_files_with_reference_and_csv(tmp_path, capsys):
    import csv
    import io

    english = tmp_path / "en.txt"
    english.write_text("hello world, how are you today?", encoding="utf-8")
    russian = tmp_path / "ru.txt"
    russian.write_text("привет мир, как у тебя дела сегодня?", encoding="utf-8")
    assert main(["compare", str(russian), "--reference", str(english), "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    by_sample = {r["sample"]: r for r in rows}
    gpt2 = bpe_core.load("gpt2")
    tokens = {path: len(gpt2.encode(path.read_text(encoding="utf-8"))) for path in (russian, english)}
    expected = tokens[russian] / tokens[english]
    assert float(by_sample["ru.txt"]["premium"]) == pytest.approx(expected)
    assert float(by_sample["en.txt"]["premium"]) == 1.0
    assert main(["compare", str(russian)]) == 0
    assert "-" in capsys.readouterr().out  # no premium without a reference for your own files
