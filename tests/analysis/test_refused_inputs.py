"""Inputs that were accepted and then did something else are refused with a BpeError naming what is
allowed: ``parity --ratio ''`` (ran with no ratio), the variant ``picky:0`` (labelled "Picky T=0" and
trained at 0.9), a variant given as text to ``train_variants``, and counts that are not ``WordCounts``
given to ``superwords_from_counts`` (an AttributeError)."""

from __future__ import annotations

import pytest

import bpe_core
from bpe_core.analysis.variants import VariantSpec, parse_variants, train_variants
from bpe_core.cli.main import main
from bpe_core.errors import BpeError
from bpe_core.training.superbpe import superwords_from_counts

TEXTS = {"eng": ["the cat sat on the mat. " * 20], "fra": ["le chat est sur le tapis. " * 20]}


@pytest.mark.parametrize("ratio", ["", "   "])
def test_parity_refuses_an_empty_ratio_naming_what_it_takes(tmp_path, capsys, ratio):
    paths = []
    for language, line in (("eng", "The cat sat on the mat."), ("fra", "Le chat est sur le tapis.")):
        path = tmp_path / f"{language}.txt"
        path.write_text("".join(f"{line} {i}\n" for i in range(40)), encoding="utf-8")
        paths.append(str(path))
    assert main(["parity", *paths, "--vocab-size", "300", "--ratio", ratio]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --ratio is empty") and "bytes" in err and "equal" in err and "LANG=RATE" in err


@pytest.mark.parametrize("spec", ["picky:0", "picky:0.0", "picky:-1", "picky:nan"])
def test_a_picky_threshold_of_zero_or_less_is_refused_naming_the_range(spec):
    with pytest.raises(BpeError, match=r"Picky BPE's threshold must be above 0 .*picky:0\.9"):
        parse_variants(f"bpe,{spec}")
    with pytest.raises(BpeError, match="threshold must be above 0"):
        VariantSpec("picky", 0)


def test_the_cli_lab_refuses_picky_zero(capsys):
    assert main(["lab", "--variants", "bpe,picky:0", "--vocab-size", "300"]) == 2
    assert "threshold must be above 0" in capsys.readouterr().err


def test_train_variants_takes_variants_as_text_and_refuses_picky_zero():
    with pytest.raises(BpeError, match="threshold must be above 0"):
        train_variants(TEXTS, 280, ["bpe", "picky:0"])
    trained = train_variants(TEXTS, 280, ["bpe", "picky:0.5"], min_frequency=1)
    assert list(trained) == ["BPE", "Picky T=0.5"]
    assert trained["Picky T=0.5"].training["picky"]["threshold"] == 0.5  # trained at the threshold it names
    with pytest.raises(BpeError, match="a variant is a VariantSpec or its text"):
        train_variants(TEXTS, 280, [("picky", 0.5)])


def test_superwords_from_counts_names_the_counts_it_takes():
    base = bpe_core.train("the cat sat on the mat " * 10, 270, min_frequency=1)
    with pytest.raises(BpeError, match="WordCounts .*count_words.*not dict"):
        superwords_from_counts(base, {"the cat": 5}, 300)
