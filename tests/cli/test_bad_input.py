"""The command line's promise on outputs it cannot write: one line ``error: ...``, exit status 2, no
traceback, no temporary file left behind, and no training done before a bad ``-o`` is reported."""

import subprocess
import sys
from pathlib import Path

import pytest

import bpe_core
from bpe_core.cli import corpus as cli_corpus
from bpe_core.cli import main as cli
from bpe_core.cli.common import check_output, write_output
from bpe_core.cli.main import main
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.training.counting import count_files

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def place(tmp_path):
    """A folder holding a small corpus, a trained tokenizer, an empty folder and a plain file."""
    (tmp_path / "corpus.txt").write_text("the cat sat on the mat. the dog sat on the log.\n" * 20, encoding="utf-8")
    (tmp_path / "folder").mkdir()
    (tmp_path / "plain").write_text("not a folder", encoding="utf-8")
    assert main(["train", str(tmp_path / "corpus.txt"), "--vocab-size", "270", "-o", str(tmp_path / "tok.json")]) == 0
    return tmp_path


def _listing(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    return lines[0]


BAD_OUTPUTS = [
    # (what, argv builder, words the message must hold)
    (
        "train into a missing folder",
        lambda p: ["train", str(p / "corpus.txt"), "--vocab-size", "270", "-o", str(p / "missing" / "t.json")],
        "does not exist",
    ),
    (
        "train onto a folder",
        lambda p: ["train", str(p / "corpus.txt"), "--vocab-size", "270", "-o", str(p / "folder")],
        "is a folder",
    ),
    (
        "export json onto a folder",
        lambda p: ["export", str(p / "tok.json"), "--format", "bpe_core", "-o", str(p / "folder")],
        "is a folder",
    ),
    (
        "export hf into a missing folder",
        lambda p: ["export", str(p / "tok.json"), "--format", "huggingface", "-o", str(p / "missing" / "t.json")],
        "does not exist",
    ),
    (
        "export tiktoken onto a folder",
        lambda p: ["export", str(p / "tok.json"), "--format", "tiktoken", "-o", str(p / "folder")],
        "is a folder",
    ),
    (
        "export gpt2 folder onto a file",
        lambda p: ["export", str(p / "tok.json"), "--format", "gpt2", "-o", str(p / "plain")],
        "is a file",
    ),
    (
        "export gpt2 folder into a missing folder",
        lambda p: ["export", str(p / "tok.json"), "--format", "gpt2", "-o", str(p / "missing" / "g")],
        "does not exist",
    ),
    ("export with an empty -o", lambda p: ["export", str(p / "tok.json"), "--format", "bpe_core", "-o", ""], "empty"),
]


@pytest.mark.parametrize("what, argv, words", BAD_OUTPUTS, ids=[case[0] for case in BAD_OUTPUTS])
def test_bad_outputs_are_one_line_errors_leaving_nothing_behind(place, capsys, what, argv, words):
    capsys.readouterr()
    before = _listing(place)
    assert main(argv(place)) == 2
    line = _one_line_error(capsys)
    assert words in line
    assert _listing(place) == before  # no <name>.tmp-PID, no half-written file, nothing created
    assert (place / "plain").read_text(encoding="utf-8") == "not a folder"


def test_a_bad_output_is_reported_before_training(place, capsys, monkeypatch):
    def no_training(*args, **kwargs):
        raise AssertionError("trained although the output cannot be written")

    monkeypatch.setattr(cli_corpus, "count_inputs", no_training)
    assert main(["train", str(place / "corpus.txt"), "--vocab-size", "270", "-o", str(place / "folder")]) == 2
    assert "is a folder" in _one_line_error(capsys)


def test_a_failed_write_removes_its_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")

    def failing_replace(source, destination):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli.os, "replace", failing_replace)
    with pytest.raises(ValueError, match="cannot write .*No space left on device"):
        write_output(str(target), "new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    assert target.read_text(encoding="utf-8") == "old"  # the old file is untouched


def test_outputs_that_can_be_written_are_written(place, capsys):
    for fmt, out in [("bpe_core", "a.json"), ("huggingface", "hf.json"), ("tiktoken", "t.tiktoken"), ("gpt2", "g")]:
        assert main(["export", str(place / "tok.json"), "--format", fmt, "-o", str(place / out)]) == 0
    assert (place / "g" / "vocab.json").is_file() and (place / "g" / "merges.txt").is_file()
    assert (place / "a.json").read_text(encoding="utf-8") == (place / "tok.json").read_text(encoding="utf-8")
    # overwriting a file is allowed, and again leaves no temporary file
    assert main(["export", str(place / "tok.json"), "--format", "bpe_core", "-o", str(place / "a.json")]) == 0
    assert not [p for p in place.iterdir() if ".tmp-" in p.name]
    assert check_output(str(place / "g"), folder=True) == place / "g"


def test_the_installed_command_prints_one_line_and_exits_2(place):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bpe_core",
            "train",
            str(place / "corpus.txt"),
            "--vocab-size",
            "270",
            "-o",
            str(place / "folder"),
        ],
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr
    assert not [p for p in place.iterdir() if ".tmp-" in p.name]


def test_a_closed_pipe_is_not_a_traceback(place):
    big = place / "big.txt"
    big.write_text("word " * 200_000, encoding="utf-8")
    code = (
        "import subprocess, sys\n"
        f"p = subprocess.Popen([sys.executable, '-m', 'bpe_core', 'encode', '-t', {str(place / 'tok.json')!r},"
        f" '--format', 'tokens', {str(big)!r}], stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
        "p.stdout.read(10); p.stdout.close()\n"
        "err = p.stderr.read().decode(); p.wait()\n"
        "print(p.returncode); print(err)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(ROOT), timeout=120)
    returncode, _, err = result.stdout.partition("\n")
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert returncode.strip() in ("0", "1")


def test_error_messages_are_folded_into_one_line(capsys):
    assert cli._error("first line\n  second line\n") == 2
    assert capsys.readouterr().err == "error: first line second line\n"


@pytest.mark.parametrize("extra", [[], ["--dask"]])
def test_train_settings_are_checked_before_counting(place, capsys, monkeypatch, extra):
    def no_counting(*args, **kwargs):
        raise AssertionError("counted although the settings are wrong")

    monkeypatch.setattr(cli_corpus, "count_inputs", no_counting)
    argv = ["train", str(place / "corpus.txt"), "--vocab-size", "100", "-o", str(place / "t.json"), *extra]
    assert main(argv) == 2
    assert "vocab_size=100 is too small" in _one_line_error(capsys)


def test_train_counts_through_count_inputs_the_one_dask_or_local_choice(place, capsys, monkeypatch):
    """cmd_train counts with count_inputs (which picks Dask for --dask): its counts are what is trained on."""
    chosen = []

    def fake_count_on_dask(inputs, **kwargs):
        chosen.append(kwargs)
        return count_files(inputs, pretokenizer=PreTokenizer.build(kwargs["pattern"]), workers=1)

    monkeypatch.setattr(cli_corpus, "count_on_dask", fake_count_on_dask)
    corpus = str(place / "corpus.txt")
    for extra in (["--dask"], ["--dask", "tcp://127.0.0.1:1", "--pattern", "none"]):
        assert main(["train", corpus, "--vocab-size", "270", "-o", str(place / "t.json"), *extra]) == 0
        pattern = None if "none" in extra else "gpt2"
        expected = bpe_core.train_files(corpus, 270, pattern=pattern)
        assert bpe_core.load(place / "t.json").merges == expected.merges
    assert [c["scheduler"] for c in chosen] == [None, "tcp://127.0.0.1:1"] and chosen[1]["pattern"] is None
    capsys.readouterr()


def test_an_empty_pattern_is_the_same_one_line_error_in_every_command(place, capsys, monkeypatch):
    """--pattern "" is a mistake, not the default: train (files or --counts), count and parity all say
    what to give, before counting or training and without writing anything."""
    assert main(["count", str(place / "corpus.txt"), "-o", str(place / "counts")]) == 0
    capsys.readouterr()
    monkeypatch.setattr(cli_corpus, "count_inputs", lambda *a, **k: pytest.fail("counted with an empty pattern"))
    before = _listing(place)
    corpus, out = str(place / "corpus.txt"), str(place / "t.json")
    for argv, default in (
        (["train", corpus, "--vocab-size", "270", "-o", out], "gpt2"),
        (["train", "--counts", str(place / "counts"), "--vocab-size", "270", "-o", out], "gpt2"),
        (["count", corpus, "-o", str(place / "counts2")], "gpt2"),
        (["parity", "--vocab-size", "300"], "o200k"),
    ):
        assert main([*argv, "--pattern", ""]) == 2, argv
        assert _one_line_error(capsys) == (
            "error: --pattern is empty: give a preset (gpt2, cl100k, o200k), none for no pre-tokenization, "
            f"or a regex; or leave --pattern out for the default ({default})"
        )
    assert _listing(place) == before
