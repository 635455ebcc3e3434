"""``extension_report``: every point of the curve equals encoding with the tokenizer truncated at that
many new tokens (BPE's rule and tiktoken's), the premium is over the parallel reference, and the costs
(embedding rows, unused tokens) are counted."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_core
from bpe_core import BpeError, Tokenizer
from bpe_core.analysis.extension import extension_report, new_token_ids, tiktoken_joins
from bpe_core.corpora.samples import parallel_text

HINDI = parallel_text(split="train", languages=["hin"])["hin"]
HELDOUT = parallel_text(split="heldout", languages=["hin", "eng"])


@functools.cache
def extended(name: str, scripts: str | None = "Devanagari") -> tuple[Tokenizer, Tokenizer]:
    base = bpe_core.load(name)
    return base, bpe_core.extend(base, HINDI, add=300, scripts=scripts, min_frequency=1)


def truncated(base: Tokenizer, ext: Tokenizer, k: int) -> Tokenizer:
    """The extension with only its first ``k`` new tokens, built from scratch."""
    if ext.rule == "tiktoken":
        new = sorted(set(ext.vocab) - set(base.vocab))[:k]
        specials = set(ext.special_tokens.values())
        ranks = {t: i for i, t in ext.vocab.items() if i not in specials and (i in base.vocab or i in new)}
        return Tokenizer.from_ranks(ranks, special_tokens=ext.special_tokens, pattern=ext._pattern_argument)
    return ext.truncated(len(base.merges) + k)


@pytest.mark.parametrize("name", ["gpt2", "llama3", "qwen"])
def test_each_point_of_the_curve_is_the_truncated_tokenizer(name):
    base, ext = extended(name)
    report = extension_report(base, ext, HELDOUT["hin"], reference=HELDOUT["eng"], points=5)
    added = len(set(ext.vocab) - set(base.vocab))
    assert [p.added for p in report.curve] == sorted({round(i * added / 4) for i in range(5)})
    for point in report.curve:
        tok = truncated(base, ext, point.added)
        assert point.tokens == sum(map(len, tok.encode_ordinary_batch(HELDOUT["hin"]))), point.added
        assert point.reference_tokens == sum(map(len, tok.encode_ordinary_batch(HELDOUT["eng"])))
        assert point.premium == point.tokens / point.reference_tokens
    assert report.before.tokens == sum(map(len, base.encode_ordinary_batch(HELDOUT["hin"])))
    assert report.after.tokens == sum(map(len, ext.encode_ordinary_batch(HELDOUT["hin"])))
    assert report.before.reference_tokens == report.after.reference_tokens  # English untouched
    assert report.characters == sum(map(len, HELDOUT["hin"]))
    assert report.after.tokens_per_character == report.after.tokens / report.characters


def test_the_costs_rows_and_unused_tokens():
    base, ext = extended("gpt2")
    report = extension_report(base, ext, HELDOUT["hin"], points=[0, 10, 300])
    assert report.new_ids == list(range(50257, 50257 + 300)) and report.embedding_rows == 300
    used = {i for ids in ext.encode_ordinary_batch(HELDOUT["hin"]) for i in ids}
    assert report.unused == [i for i in report.new_ids if i not in used] and report.unused
    assert report.before.premium is None and report.saving == 1 - report.after.tokens / report.before.tokens
    assert 0 < report.flattens_at() <= 300
    assert [row["ids"] for row in report.rows()] == [50257, 50267, 50557]
    gapped = bpe_core.extend(base, HINDI, add=5, first_id=60000, min_frequency=1)
    assert extension_report(base, gapped, HELDOUT["hin"]).embedding_rows == 60005 - 50257


@given(texts=st.lists(st.text("abc d", min_size=1, max_size=12), min_size=1, max_size=4))
@settings(max_examples=60, deadline=None)
def test_curves_under_tiktokens_rule_with_late_merges(texts):
    ranks = {bytes([b]): b for b in range(256)}
    for token in (b"abc", b"ab", b"ca", b"abca", b" d"):  # "ab" after "abc": a late merge; "abca": whole-word
        ranks[token] = len(ranks)
    base = Tokenizer.from_ranks(ranks, pattern=r" ?[a-d]+| +|[^a-d ]+")
    ext = bpe_core.extend(base, texts * 3, add=5, min_frequency=1)
    report = extension_report(base, ext, texts, points=list(range(len(report_ids(base, ext)) + 1)))
    for point in report.curve:
        assert point.tokens == sum(map(len, truncated(base, ext, point.added).encode_ordinary_batch(texts)))


def report_ids(base: Tokenizer, ext: Tokenizer) -> list[int]:
    return new_token_ids(base, ext)


def test_tiktoken_joins_is_tiktokens_loop():
    ranks = {bytes([b]): b for b in range(256)} | {b"bc": 256, b"ab": 257, b"abc": 258}
    assert tiktoken_joins(b"abc", ranks) == [256, 258]  # b+c first (lower rank), then a+bc
    assert tiktoken_joins(b"xy", ranks) == []


def test_a_tokenizer_that_is_no_extension_of_the_base_is_refused():
    base, ext = extended("gpt2")
    with pytest.raises(BpeError, match="not an extension"):
        extension_report(bpe_core.load("cl100k"), ext, ["x"])
    with pytest.raises(BpeError, match="points must be at least 2"):
        extension_report(base, ext, ["x"], points=1)
    with pytest.raises(BpeError, match="from 0 to 300"):
        extension_report(base, ext, ["x"], points=[0, 301])
    with pytest.raises(TypeError, match="Tokenizers"):
        extension_report(base, "gpt2", ["x"])  # type: ignore[arg-type]
