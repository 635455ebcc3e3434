"""``python -m bpe_core parity``: standard against parity-aware BPE on parallel files from the shell,
its table, its saved tokenizers, and its one-line errors."""

from __future__ import annotations

import pytest

import bpe_core
from bpe_core.analysis.parity_report import compare_training
from bpe_core.cli.main import main
from bpe_core.cli.parity import split_sentences
from bpe_core.corpora.samples import parallel_text


@pytest.fixture
def files(tmp_path):
    lines = parallel_text(split="all", languages=["eng", "hin", "deu"])
    paths = []
    for language, sentences in lines.items():
        path = tmp_path / f"{language}.txt"
        path.write_text("\n".join(sentences) + "\n", encoding="utf-8")
        paths.append(str(path))
    return paths, lines


def test_parity_prints_the_sentence_and_table_and_saves_both(files, tmp_path, capsys):
    paths, lines = files
    standard, parity = tmp_path / "standard.json", tmp_path / "parity.json"
    code = main(
        [
            "parity",
            *paths,
            "--vocab-size",
            "500",
            "--global-share",
            "0.5",
            "--save-standard",
            str(standard),
            "--save-parity",
            str(parity),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    train, heldout = split_sentences(lines)
    assert len(heldout["eng"]) == 30 and len(train["eng"]) == 90
    options = {"variant": "window", "global_merges": 122, "window": 100, "alpha": 3.0}
    want = compare_training(train, heldout, 500, parity_options=options, pattern="o200k")
    assert out.splitlines()[0] == want.sentence
    hindi = want.fairness["parity-aware BPE"].premiums["hin"]
    assert any(
        line.startswith("Hindi") and f"{hindi.premium:.2f}x ({hindi.low:.2f}-{hindi.high:.2f})" in line
        for line in out.splitlines()
    )
    assert bpe_core.load(parity).merges == want.parity.merges
    assert bpe_core.load(standard).merges == want.standard.merges


def test_parity_errors_are_one_line(files, tmp_path, capsys):
    paths, _ = files
    short = tmp_path / "fra.txt"
    short.write_text("Bonjour.\n", encoding="utf-8")
    assert main(["parity", *paths, str(short)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: parallel files must have the same number of lines") and "fra.txt: 1 lines" in err
    assert main(["parity", *paths, "--global-share", "1.5"]) == 2
    assert "between 0 and 1" in capsys.readouterr().err
    assert main(["parity", *paths, "--save-parity", str(tmp_path / "missing" / "p.json"), "--vocab-size", "300"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_split_sentences_holds_out_the_last_quarter():
    assert split_sentences({"a": list("abcdefgh")}) == ({"a": list("abcdef")}, {"a": ["g", "h"]})
    with pytest.raises(ValueError, match="at least 2 sentences"):
        split_sentences({"a": ["only"]})


def test_pattern_none_means_no_pretokenization_in_parity_as_in_train_and_count(files, tmp_path, capsys):
    # one reading of --pattern (cli_common.pattern_option): "none" is pattern=None, not the regex "none"
    paths, lines = files
    standard, parity = tmp_path / "standard.json", tmp_path / "parity.json"
    assert (
        main(
            [
                "parity",
                *paths,
                "--vocab-size",
                "300",
                "--pattern",
                "none",
                "--save-standard",
                str(standard),
                "--save-parity",
                str(parity),
            ]
        )
        == 0
    )
    train, heldout = split_sentences(lines)
    options = {"variant": "window", "global_merges": 35, "window": 100, "alpha": 3.0}
    want = compare_training(train, heldout, 300, parity_options=options, pattern=None)
    assert capsys.readouterr().out.splitlines()[0] == want.sentence
    for path, tokenizer in ((standard, want.standard), (parity, want.parity)):
        saved = bpe_core.load(path)
        assert saved.pattern is None and saved.merges == tokenizer.merges
    trained, counts = tmp_path / "trained.json", tmp_path / "counts"
    assert main(["train", paths[0], "--vocab-size", "300", "--pattern", "none", "-o", str(trained)]) == 0
    assert bpe_core.load(trained).pattern is None
    assert main(["count", paths[0], "--pattern", "none", "-o", str(counts)]) == 0
    assert main(["train", "--counts", str(counts), "--pattern", "none", "--vocab-size", "300", "-o", str(trained)]) == 0
    assert bpe_core.load(trained).pattern is None


def test_parity_with_target_rates_trains_without_a_development_text(files, tmp_path, capsys):
    paths, lines = files
    parity = tmp_path / "parity.json"
    code = main(
        [
            "parity",
            *paths,
            "--vocab-size",
            "500",
            "--ratio",
            "eng=1, hin=2.6, deu=1.1",
            "--tie-break",
            "huggingface",
            "--save-parity",
            str(parity),
        ]
    )
    assert code == 0
    train, _ = split_sentences(lines)
    rates = {"eng": 1.0, "hin": 2.6, "deu": 1.1}
    want = bpe_core.train_parity(
        train,
        None,
        500,
        ratio=rates,
        variant="window",
        global_merges=round(244 * 0.8),
        alpha=3.0,
        pattern="o200k",
        tie_break="huggingface",
    )
    saved = bpe_core.load(parity)
    assert saved.merges == want.merges
    assert saved.training["settings"]["ratio"] == [1.0, 2.6, 1.1]
    assert "train_tokens_after" in saved.training["parity"]
    capsys.readouterr()
    assert main(["parity", *paths, "--vocab-size", "300", "--ratio", "bytes"]) == 0
    assert main(["parity", *paths, "--ratio", "eng=1, hin=2"]) == 2
    assert "give a target rate for every language and no other (none for deu)" in capsys.readouterr().err
    assert main(["parity", *paths, "--ratio", "eng=1, hin=0, deu=1"]) == 2
    assert "ratio for hin must be a positive number" in capsys.readouterr().err
