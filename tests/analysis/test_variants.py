"""Comparing BPE variants: the variant names, each variant trained as its own trainer trains it, the
rows and pooled summaries against hand-computed values, savings against BPE, superword and removed-token
examples, and the CSV and LaTeX outputs."""

from __future__ import annotations

import csv
import io
import math
from collections import Counter

import pytest

import bpe_core
from bpe_core.analysis import intrinsic
from bpe_core.analysis.variants import (
    DEFAULT_PATTERN,
    ROW_FIELDS,
    HeldOutSample,
    VariantSpec,
    builtin_heldout,
    compare_variants,
    parse_variants,
    superword_ids,
    train_variants,
)
from bpe_core.errors import BpeError
from bpe_core.training.parity import train_parity
from bpe_core.training.picky import train_picky
from bpe_core.training.superbpe import train_superbpe


class CharTokenizer:
    """One token per character, or per pair of characters: counts easy to work out by hand."""

    def __init__(self, width: int) -> None:
        self.width, self.vocab_size = width, 1000
        self.ids: dict[str, int] = {}  # a new id per new piece: distinct pieces never share one

    def encode_ordinary(self, text: str) -> list[int]:
        pieces = [text[i : i + self.width] for i in range(0, len(text), self.width)]
        return [self.ids.setdefault(piece, len(self.ids)) for piece in pieces]


SAMPLES = [HeldOutSample("a", "A", "natural", "abab abab"), HeldOutSample("py", "Python", "code", "x = 1\n")]


def test_variant_names():
    assert [(v.kind, v.value) for v in parse_variants("bpe,superbpe:0.8,superbpe:20000,picky,parity")] == [
        ("bpe", None),
        ("superbpe", 0.8),
        ("superbpe", 20000),
        ("picky", 0.9),
        ("parity", None),
    ]
    for bad in ("bpe", "bpe,bpe", "bpe,greedy", "bpe,picky:x", "bpe,parity:2", ",".join(["bpe"] + ["picky:0.1"] * 6)):
        with pytest.raises(BpeError):
            parse_variants(bad)
    assert VariantSpec("parity").label == "parity-aware BPE"


def test_rows_and_summaries_by_hand():
    result = compare_variants({"BPE": CharTokenizer(1), "pairs": CharTokenizer(2)}, SAMPLES)
    assert [row["tokens"] for row in result.rows] == [9, 6, 5, 3]
    first = result.rows[0]
    assert first["tokens_per_byte"] == 1.0 and first["unique_tokens"] == 3 and first["fertility"] == 9 / 2
    counts = Counter(CharTokenizer(1).encode_ordinary("abab abab"))
    assert first["renyi_efficiency"] == intrinsic.renyi_efficiency(counts, 1000)
    assert first["avg_token_rank"] == intrinsic.average_token_rank(counts)
    pairs_all = next(row for row in result.summary if row["variant"] == "pairs" and row["sample"] == "all")
    assert pairs_all["tokens"] == 8 and pairs_all["bytes"] == 15 and math.isclose(pairs_all["saved_vs_bpe"], 1 - 8 / 15)
    assert {row["sample"] for row in result.summary} == {"natural", "code", "all"}
    assert result.baseline == "BPE" and compare_variants({"x": CharTokenizer(1)}, SAMPLES).baseline is None


def test_outputs():
    result = compare_variants({"BPE": CharTokenizer(1), "50%_&": CharTokenizer(2)}, SAMPLES)
    rows = list(csv.DictReader(io.StringIO(result.to_csv())))
    assert list(rows[0]) == list(ROW_FIELDS) and len(rows) == 4
    assert len(list(csv.DictReader(io.StringIO(result.to_csv(summary=True))))) == 6
    latex = result.to_latex(groups=("all",))
    assert "50\\%\\_\\& & all & 0.533 & +46.7\\%" in latex and latex.count("\\\\") == 3
    assert latex.strip().endswith("\\end{tabular}")


@pytest.fixture(scope="module")
def trained():
    texts = {
        "eng": ["the cat sat on the mat. the dog sat on the log."] * 8 + ["of the people, by the people."] * 8,
        "deu": ["die Katze sitzt auf der Matte. der Hund sitzt auf dem Baum."] * 8,
    }
    variants = parse_variants("bpe,superbpe:0.7,picky:0.5,parity")
    return texts, train_variants(texts, 330, variants, min_frequency=1)


def test_each_variant_is_its_trainers(trained):
    texts, tokenizers = trained
    documents = [d for docs in texts.values() for d in docs]
    options = {"min_frequency": 1, "tie_break": "huggingface"}
    assert tokenizers["BPE"].merges == bpe_core.train(documents, 330, pattern=DEFAULT_PATTERN, **options).merges
    assert tokenizers["SuperBPE t=0.7"].merges == train_superbpe(documents, 330, transition=0.7, **options).merges
    picky = train_picky(documents, 330, threshold=0.5, pattern=DEFAULT_PATTERN, **options)
    assert tokenizers["Picky T=0.5"].picky_events == picky.picky_events and picky.rule == "picky"
    parity = train_parity(texts, texts, 330, variant="window", pattern=DEFAULT_PATTERN, **options)
    assert tokenizers["parity-aware BPE"].merges == parity.merges


def test_examples_of_superwords_and_removed_tokens(trained):
    _, tokenizers = trained
    sample = HeldOutSample("eng", "English", "natural", "the cat sat on the mat, of the people")
    result = compare_variants(tokenizers, [sample])
    words = dict(result.superwords["SuperBPE t=0.7"])
    assert words and all("␣" in text.strip("␣") for text in words) and all(count > 0 for count in words.values())
    assert result.removed["Picky T=0.5"] and set(result.superwords) == {"SuperBPE t=0.7"}
    share = next(r for r in result.summary if r["variant"] == "SuperBPE t=0.7")["superword_share"]
    assert 0 < share <= 1 and next(r for r in result.summary if r["variant"] == "BPE")["superword_share"] is None


def test_builtin_heldout_is_not_in_the_builtin_training_text():
    samples = builtin_heldout()
    assert len(samples) == 62 and {s.kind for s in samples} == {"natural", "code", "data"}
    training = {line for lines in bpe_core.corpora.samples.parallel_text(split="train").values() for line in lines}
    assert not any(line in training for s in samples if s.kind == "natural" for line in s.text.split("\n"))


def test_bad_input():
    with pytest.raises(BpeError):
        compare_variants({}, SAMPLES)
    with pytest.raises(BpeError):
        train_variants({}, 300, parse_variants("bpe,picky"))


def test_the_renyi_order_is_a_choice():
    counts = Counter(CharTokenizer(1).encode_ordinary("abab abab"))
    for alpha in (1, 2.5, 4):
        result = compare_variants({"BPE": CharTokenizer(1)}, SAMPLES, alpha=alpha)
        assert result.rows[0]["renyi_efficiency"] == intrinsic.renyi_efficiency(counts, 1000, alpha=alpha)
        assert result.alpha == alpha and f"($\\alpha$={alpha:g})" in result.to_latex()
    with pytest.raises(BpeError):
        compare_variants({"BPE": CharTokenizer(1)}, SAMPLES, alpha=-1)


def test_superwords_are_the_superbpe_tokens_across_a_space(trained):
    _, tokenizers = trained
    found = superword_ids(tokenizers["SuperBPE t=0.7"])
    assert found and all(b" " in token.strip(b" ") for token in found.values())
    assert all(tokenizers["SuperBPE t=0.7"].decode_single_token_bytes(i) == token for i, token in found.items())
    assert superword_ids(tokenizers["BPE"]) == {} and superword_ids(CharTokenizer(1)) == {}
