"""``train --superbpe-transition``, ``train --picky-threshold``, ``inspect`` of a Picky BPE tokenizer and
``lab``: each gives the library's tokenizers, refuses options that cannot go together in one line,
and writes what it says."""

from __future__ import annotations

import csv
import io

import pytest

import bpe_core
from bpe_core.cli.main import main
from bpe_core.training.counting import count_files
from bpe_core.training.picky import picky_training
from bpe_core.training.superbpe import train_superbpe_files
from bpe_core.training.trainer import TrainingSettings


@pytest.fixture()
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text(
        "By the way, I am a fan of the Milky Way.\nOf the people, by the people.\n" * 30 + "key: value 1234567\n" * 5,
        encoding="utf-8",
    )
    return path


def test_train_superbpe_is_the_librarys(tmp_path, corpus, capsys):
    out = tmp_path / "super.json"
    assert (
        main(
            [
                "train",
                str(corpus),
                "--vocab-size",
                "400",
                "--superbpe-transition",
                "0.8",
                "--min-frequency",
                "1",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    assert "SuperBPE: " in capsys.readouterr().out
    expected = train_superbpe_files([str(corpus)], 400, transition=0.8, min_frequency=1, name="trained")
    saved = bpe_core.load(out)
    assert saved.merges == expected.merges and saved.pattern == expected.pattern
    assert saved.training["settings"]["tie_break"] == "huggingface"
    assert (
        main(
            [
                "train",
                str(corpus),
                "--vocab-size",
                "400",
                "--superbpe-transition",
                "30",
                "--superbpe-recipe",
                "2025-11",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    assert bpe_core.load(out).training["superbpe"]["inherited_merges"] == 30


def test_train_picky_is_the_librarys(tmp_path, corpus, capsys):
    out = tmp_path / "picky.json"
    assert (
        main(
            [
                "train",
                str(corpus),
                "--vocab-size",
                "330",
                "--picky-threshold",
                "0.5",
                "--min-frequency",
                "1",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    assert "Picky BPE: " in capsys.readouterr().out
    settings = TrainingSettings(330, 1, name="trained")
    counts = count_files([str(corpus)], pretokenizer=settings.pretokenizer())
    expected = picky_training(counts, settings, threshold=0.5).tokenizer()
    saved = bpe_core.load(out)
    assert saved.rule == expected.rule == "picky" and saved.picky_events == expected.picky_events
    assert main(["inspect", str(out), "--merges", "4"]) == 0
    printed = capsys.readouterr().out
    assert "Picky BPE: " in printed and "removals" in printed and "  3: " in printed


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--superbpe-transition", "0.8", "--picky-threshold", "0.9"], "give one"),
        (["--superbpe-transition", "0.8", "--pattern", "gpt2"], "drop --pattern"),
        (["--superbpe-transition", "1.5"], "share"),
        (["--picky-threshold", "0"], "threshold"),
    ],
)
def test_train_refuses_options_that_do_not_fit(tmp_path, corpus, capsys, extra, message):
    assert main(["train", str(corpus), "--vocab-size", "400", "-o", str(tmp_path / "t.json"), *extra]) == 2
    assert message in capsys.readouterr().err


def test_lab_prints_and_writes_the_comparison(tmp_path, capsys):
    table, latex, folder = tmp_path / "lab.csv", tmp_path / "lab.tex", tmp_path / "tokenizers"
    folder.mkdir()
    assert (
        main(
            [
                "lab",
                "--vocab-size",
                "600",
                "--variants",
                "bpe,superbpe:0.8,picky:0.6",
                "--csv",
                str(table),
                "--latex",
                str(latex),
                "--save-dir",
                str(folder),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "3 variants at vocab size 600" in printed and "superwords of SuperBPE t=0.8" in printed
    assert "tokens removed by Picky T=0.6" in printed
    rows = list(csv.DictReader(io.StringIO(table.read_text(encoding="utf-8"))))
    assert len(rows) == 3 * 62 and {row["kind"] for row in rows} == {"natural", "code", "data"}
    assert {row["saved_vs_bpe"] for row in rows if row["variant"] == "BPE"} == {"0.0"}
    tex = latex.read_text(encoding="utf-8")
    assert tex.startswith("\\begin{tabular}") and "SuperBPE t=0.8 & all" in tex
    assert sorted(path.name for path in folder.iterdir()) == ["BPE.json", "Picky_T_0.6.json", "SuperBPE_t_0.8.json"]


def test_lab_on_files_holds_a_tenth_out(tmp_path, corpus, capsys):
    assert (
        main(["lab", str(corpus), "--vocab-size", "350", "--variants", "bpe,superbpe:0.5", "--min-frequency", "1"]) == 0
    )
    printed = capsys.readouterr().out
    assert "held-out" in printed and "2 variants" in printed
    assert main(["lab", str(corpus), "--variants", "bpe,parity"]) == 2
    assert "parallel text" in capsys.readouterr().err
    assert main(["lab", "--variants", "bpe"]) == 2
    assert "2 to 6" in capsys.readouterr().err
